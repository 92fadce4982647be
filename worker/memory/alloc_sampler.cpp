// The sampler's cold path: drawing countdowns, the pointer set, the USDT probes.
#include "worker/memory/alloc_sampler.hpp"

#include <mimalloc.h>
#include <sys/sdt.h>

#include <cmath>

namespace ruvio::store {
namespace {

constexpr std::uint64_t kEmpty = 0;
constexpr std::uint64_t kTombstone = 1;

std::size_t slot_of(std::uint64_t p, std::size_t mask) {
  return static_cast<std::size_t>((p * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

}  // namespace

AllocSampler g_alloc_sampler;

void AllocSampler::configure(std::uint64_t interval) {
  interval_ = interval;
  countdown_ = interval == 0 ? INT64_MAX : next_countdown();
}

std::int64_t AllocSampler::next_countdown() {
  // xorshift64*: uniform in (0, 1], then -ln(u) * mean is exponential with that mean.
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  const std::uint64_t r = (rng_ * 0x2545f4914f6cdd1dULL) >> 11;
  const double u = (static_cast<double>(r) + 1.0) / 9007199254740992.0;  // 2^53
  const double next = -std::log(u) * static_cast<double>(interval_);
  return static_cast<std::int64_t>(next) + 1;
}

void AllocSampler::sample(void* p, std::size_t usable) {
  if (interval_ == 0) {
    countdown_ = INT64_MAX;
    return;
  }
  countdown_ = next_countdown();
  const double s = static_cast<double>(usable);
  const double prob = -std::expm1(-s / static_cast<double>(interval_));
  const auto weight = static_cast<std::uint64_t>(prob > 0 ? s / prob : s);

  if ((used_slots_ + 1) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  const auto key = reinterpret_cast<std::uint64_t>(p);
  std::size_t i = slot_of(key, mask);
  while (slots_[i] != kEmpty && slots_[i] != kTombstone) i = (i + 1) & mask;
  if (slots_[i] == kEmpty) ++used_slots_;
  slots_[i] = key;
  weights_[i] = weight;
  live_bytes_ += weight;
  ++live_count_;
  DTRACE_PROBE3(ruvio, alloc_sample, p, usable, weight);
}

void AllocSampler::forget(void* p, std::size_t usable) {
  const std::size_t mask = slots_.size() - 1;
  const auto key = reinterpret_cast<std::uint64_t>(p);
  for (std::size_t i = slot_of(key, mask);; i = (i + 1) & mask) {
    if (slots_[i] == kEmpty) return;  // not sampled
    if (slots_[i] != key) continue;
    const std::uint64_t weight = weights_[i];
    slots_[i] = kTombstone;
    live_bytes_ -= weight;
    --live_count_;
    DTRACE_PROBE3(ruvio, free_sample, p, usable, weight);
    return;
  }
}

void AllocSampler::replay() const {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i] == kEmpty || slots_[i] == kTombstone) continue;
    void* p = reinterpret_cast<void*>(slots_[i]);
    const std::uint64_t weight = weights_[i];
    const std::size_t usable = mi_usable_size(p);
    DTRACE_PROBE3(ruvio, alloc_sample, p, usable, weight);
  }
}

void AllocSampler::grow() {
  // Rehash into a table at most a quarter full; tombstones are dropped on the way.
  std::size_t cap = 64;
  while (cap < (live_count_ + 1) * 4) cap *= 2;
  std::vector<std::uint64_t> slots(cap, kEmpty);
  std::vector<std::uint64_t> weights(cap, 0);
  const std::size_t mask = cap - 1;
  for (std::size_t j = 0; j < slots_.size(); ++j) {
    if (slots_[j] == kEmpty || slots_[j] == kTombstone) continue;
    std::size_t i = slot_of(slots_[j], mask);
    while (slots[i] != kEmpty) i = (i + 1) & mask;
    slots[i] = slots_[j];
    weights[i] = weights_[j];
  }
  slots_.swap(slots);
  weights_.swap(weights);
  used_slots_ = live_count_;
}

}  // namespace ruvio::store
