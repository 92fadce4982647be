// An HDR (high dynamic range) histogram with the bucketing of Redis's deps/hdr_histogram, so
// the same samples give redis-server's LATENCY HISTOGRAM buckets and INFO latencystats
// percentiles. Redis configures it per command as lowest 1, highest 1e9 (ns), 2 significant
// figures (kLatencyHdr below).
//
// Layout, for significant figures s and lowest discernible value 2^u:
//
//   sub_bucket_count = the power of two >= 2 * 10^s          (s = 2: 256, half = 128)
//   bucket b covers [half << (b+u), sub_bucket_count << (b+u)) in steps of 2^(b+u);
//   bucket 0 also covers [0, half << u) in steps of 2^u
//
//   counts[]: | bucket 0: sub 0 .. 255 | bucket 1: sub 128 .. 255 | bucket 2: 128 .. 255 | ...
//              index 0 .. 255           256 .. 383                384 .. 511
//
//   index(v) = ((b + 1) << log2(half)) + (v >> (b+u)) - half, where b comes from v's leading
//   bit: b = bit_width(v | (sub_bucket_count - 1) << u) - u - log2(sub_bucket_count)
//
// With kLatencyHdr that is 23 buckets, 3072 counts of 8 bytes (24 KiB), as Redis allocates
// on a command's first call. Every value in a slot is "equivalent": a slot reports its lowest
// or highest equivalent value, which is what Redis prints (e.g. 9000 ns -> slot 8960..9023).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace ruvio::worker {

struct HdrConfig {
  int unit_magnitude = 0;  // log2 of the lowest discernible value
  int half_magnitude = 0;  // log2 of sub_bucket_count / 2
  int bucket_count = 0;    // buckets needed to reach the highest trackable value
  std::int64_t highest = 0;
  constexpr int sub_bucket_count() const { return 2 << half_magnitude; }
  constexpr int half_count() const { return 1 << half_magnitude; }
  constexpr std::int64_t sub_bucket_mask() const {
    return (std::int64_t{sub_bucket_count()} - 1) << unit_magnitude;
  }
  constexpr int counts_len() const { return (bucket_count + 1) * half_count(); }
};

// hdr_calculate_bucket_config's arithmetic in integers: the sub-bucket count is the smallest
// power of two holding 2 * 10^figures values at unit resolution (ceil(log2) of a number that
// is never a power of two), the unit magnitude floor(log2(lowest)).
constexpr HdrConfig hdr_config(std::int64_t lowest, std::int64_t highest, int figures) {
  HdrConfig c;
  std::int64_t single_unit = 2;
  for (int i = 0; i < figures; ++i) single_unit *= 10;
  int count_magnitude = 0;
  while ((std::int64_t{1} << count_magnitude) < single_unit) ++count_magnitude;
  c.half_magnitude = (count_magnitude > 1 ? count_magnitude : 1) - 1;
  c.unit_magnitude = std::bit_width(static_cast<std::uint64_t>(lowest)) - 1;
  c.highest = highest;
  std::int64_t untrackable = std::int64_t{c.sub_bucket_count()} << c.unit_magnitude;
  c.bucket_count = 1;
  while (untrackable <= highest) {
    untrackable <<= 1;
    ++c.bucket_count;
  }
  return c;
}

inline constexpr HdrConfig kLatencyHdr = hdr_config(1, 1'000'000'000, 2);

template <HdrConfig C>
class HdrHistogram {
 public:
  static constexpr int kCountsLen = C.counts_len();

  // False for a value the configuration cannot hold (negative or past the last bucket).
  bool record(std::int64_t value) {
    if (value < 0) return false;
    const int i = index_of(value);
    if (i >= kCountsLen) return false;
    counts_[static_cast<std::size_t>(i)]++;
    total_++;
    return true;
  }

  // record() for a value known to be in [0, highest]: no range checks (the command path).
  void record_in_range(std::int64_t value) {
    counts_[static_cast<std::size_t>(index_of(value))]++;
    total_++;
  }

  // Adds `n` samples to slot i (another histogram's slot of the same configuration): the
  // exact merge, since the slots are the same. False for an index out of range.
  bool add_at_index(std::int64_t i, std::uint64_t n) {
    if (i < 0 || i >= kCountsLen) return false;
    counts_[static_cast<std::size_t>(i)] += n;
    total_ += n;
    return true;
  }

  std::uint64_t total() const { return total_; }
  std::uint64_t count_at_index(int i) const { return counts_[static_cast<std::size_t>(i)]; }

  static int index_of(std::int64_t value) {
    const int b = bucket_of(value);
    const auto sub = static_cast<int>(value >> (b + C.unit_magnitude));
    return ((b + 1) << C.half_magnitude) + sub - C.half_count();
  }
  // The lowest value of slot i (hdr_value_at_index).
  static std::int64_t value_at_index(int i) {
    int b = (i >> C.half_magnitude) - 1;
    int sub = (i & (C.half_count() - 1)) + C.half_count();
    if (b < 0) {
      sub -= C.half_count();
      b = 0;
    }
    return std::int64_t{sub} << (b + C.unit_magnitude);
  }
  static std::int64_t lowest_equivalent(std::int64_t value) {
    const int b = bucket_of(value);
    return (value >> (b + C.unit_magnitude)) << (b + C.unit_magnitude);
  }
  static std::int64_t highest_equivalent(std::int64_t value) {
    return lowest_equivalent(value) + (std::int64_t{1} << (bucket_of(value) + C.unit_magnitude)) -
           1;
  }

  // hdr_value_at_percentile of the hdr_histogram Redis 7.0 ships: walk the slots to the one
  // where the count reaches percentile * total (rounded, at least 1); its highest equivalent
  // value, its lowest for percentile 0. 0 when nothing was recorded.
  std::int64_t value_at_percentile(double percentile) const {
    const double p = percentile < 100.0 ? percentile : 100.0;
    auto wanted = static_cast<std::int64_t>((p / 100) * static_cast<double>(total_) + 0.5);
    if (wanted < 1) wanted = 1;
    std::uint64_t seen = 0;
    for (int i = 0; i < kCountsLen; ++i) {
      seen += counts_[static_cast<std::size_t>(i)];
      if (seen >= static_cast<std::uint64_t>(wanted)) {
        const std::int64_t v = value_at_index(i);
        return percentile == 0.0 ? lowest_equivalent(v) : highest_equivalent(v);
      }
    }
    return 0;
  }

  // hdr_iter_log_init(first, base) + hdr_iter_next: fn(highest equivalent value of the slot
  // the walk stands on, cumulative count up to and including it) at every reporting level
  // (first, first*base, ...), until the recorded values are passed. As in the C iterator, a
  // level is reported once the walk reaches the first slot at or above the level's lowest
  // equivalent value, that slot's count included.
  template <typename Fn>
  void for_each_log_step(std::int64_t first, std::int64_t base, Fn&& fn) const {
    int index = -1;
    std::uint64_t cumulative = 0;
    std::int64_t value = 0;
    std::int64_t highest = 0;
    std::int64_t level = first;
    std::int64_t level_lowest = lowest_equivalent(first);
    for (;;) {
      const bool more =
          cumulative < total_ || (index < kCountsLen && value_at_index(index + 1) > level_lowest);
      if (!more) return;
      for (;;) {
        if (value >= level_lowest) {
          level *= base;
          level_lowest = lowest_equivalent(level);
          break;
        }
        if (++index >= kCountsLen) break;  // past the end: the step repeats the last slot
        cumulative += counts_[static_cast<std::size_t>(index)];
        value = value_at_index(index);
        highest = highest_equivalent(value);
      }
      fn(highest, cumulative);
      if (index >= kCountsLen) return;
    }
  }

 private:
  static int bucket_of(std::int64_t value) {
    const int pow2ceiling = std::bit_width(static_cast<std::uint64_t>(value | C.sub_bucket_mask()));
    return pow2ceiling - C.unit_magnitude - (C.half_magnitude + 1);
  }

  std::array<std::uint64_t, static_cast<std::size_t>(kCountsLen)> counts_{};
  std::uint64_t total_ = 0;
};

using LatencyHistogram = HdrHistogram<kLatencyHdr>;

}  // namespace ruvio::worker
