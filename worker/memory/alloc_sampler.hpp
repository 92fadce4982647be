// In-process allocation sampler: the cheap half of the always-on eBPF allocation tracing.
//
// Every store allocation subtracts its usable size from a byte countdown; when the countdown
// crosses zero the allocation is *sampled*: its pointer goes into a small set and the USDT
// probe ruvio:alloc_sample fires with (ptr, usable size, weight). Freeing a sampled pointer
// fires ruvio:free_sample with the same figures. The supervisor's BPF program attaches to
// those two probes only, so the kernel sees one event per ~512 KiB allocated, not one per
// allocation, and the hot path costs one subtraction and one compare.
//
// Countdowns are drawn from an exponential distribution with mean `interval` (as tcmalloc
// and jemalloc do), so sampling does not alias with a regular allocation pattern. An
// allocation of s bytes is then sampled with probability 1 - exp(-s/interval), and its
// weight, s / (1 - exp(-s/interval)), makes the sum of weights an unbiased estimate of the
// live bytes (≈ interval for small s, = s for s much larger than the interval).
//
// Sampled-pointer set (open addressing, linear probing, power-of-two capacity):
//
//   slots_[i]  : u64  0 = empty, 1 = tombstone, else the pointer
//   weights_[i]: u64  the weight recorded when it was sampled
//
// A free checks `live_count_ == 0` first, so with nothing sampled it costs one load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ruvio::store {

class AllocSampler {
 public:
  static constexpr std::uint64_t kDefaultInterval = 512 * 1024;

  // interval 0 turns sampling off (`--alloc-trace off`).
  void configure(std::uint64_t interval);

  void on_alloc(void* p, std::size_t usable) {
    countdown_ -= static_cast<std::int64_t>(usable);
    if (countdown_ <= 0) [[unlikely]]
      sample(p, usable);
  }
  void on_free(void* p, std::size_t usable) {
    if (live_count_ != 0) [[unlikely]]
      forget(p, usable);
  }

  // Fires ruvio:alloc_sample again for every live sample (a tracer that just attached).
  void replay() const;

  std::uint64_t interval() const { return interval_; }
  std::uint64_t live_bytes() const { return live_bytes_; }
  std::uint64_t live_count() const { return live_count_; }

 private:
  void sample(void* p, std::size_t usable);
  void forget(void* p, std::size_t usable);
  std::int64_t next_countdown();
  void grow();

  std::int64_t countdown_ = INT64_MAX;
  std::uint64_t interval_ = 0;
  std::uint64_t rng_ = 0x9e3779b97f4a7c15ULL;
  std::uint64_t live_bytes_ = 0;
  std::uint64_t live_count_ = 0;
  std::size_t used_slots_ = 0;  // live + tombstones
  std::vector<std::uint64_t> slots_;
  std::vector<std::uint64_t> weights_;
};

// The worker's one sampler (one thread, one shard per process). A plain global, not a
// function-local static: the hot path must not pay for a guard check.
extern AllocSampler g_alloc_sampler;
inline AllocSampler& alloc_sampler() {
  return g_alloc_sampler;
}

}  // namespace ruvio::store
