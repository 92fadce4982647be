// Eviction under maxmemory (Redis's evict.c): which key goes when a worker is over its share.
//
// Policies are Redis's eight. The LRU/LFU/TTL ones sample `samples` keys per database (from
// the main table, or the expiry index for volatile-*) and keep the best candidates seen so far
// in a pool of 16 ordered by "idle" score, so repeated calls converge on the truly oldest keys
// without a full scan; the random ones take one random key. The scores, all "higher goes
// first", come from the record's one clock byte (record.hpp) and its expiry:
//
//   *-lru         idle seconds through the LRU clock (lru_clock.hpp: exact for a minute, then
//                 within 1/8; Redis: a 24-bit clock of 1 s resolution that wraps in 194 days)
//   *-lfu         255 - LFU counter (already decayed by lfu_decay_step, see db.cpp)
//   volatile-ttl  UINT64_MAX - expire_at (soonest expiry first)
//
// The pool keeps its key copies in strings reserved once (Redis's EVPOOL_CACHED_SDS_SIZE), so
// a sampling round does not allocate for keys up to that length. The ordered slots are small
// PODs naming their key buffer by index: an insert shifts 16-byte slots with one memmove, as
// Redis's evictionPoolPopulate does, and the buffers themselves never move (swapping the
// std::string slots one by one cost ~1,400 instructions per evicting SET).
//
// Memory stalls, not instructions, are what an eviction costs once the data set is far
// larger than the cache: the sampled bucket, each sampled record (clock byte and key), then
// the victim's bucket and record. The sampled records are prefetched together (Db::sample),
// and before a round samples, the pool's best key so far (usually still the one picked after
// the round) has its bucket and record prefetched, from the record address remembered when it
// entered the pool (a hint only: it may be stale; the pick still looks the key up).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "worker/store/db.hpp"

namespace ruvio::store {

enum class EvictPolicy : std::uint8_t {
  kNoEviction,
  kAllKeysLru,
  kAllKeysLfu,
  kAllKeysRandom,
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
};

// Redis's names ("allkeys-lru"), case-insensitive; nullopt when unknown.
std::optional<EvictPolicy> parse_evict_policy(std::string_view name);
constexpr bool is_lfu(EvictPolicy p) {
  return p == EvictPolicy::kAllKeysLfu || p == EvictPolicy::kVolatileLfu;
}
constexpr bool is_volatile(EvictPolicy p) {
  return p == EvictPolicy::kVolatileLru || p == EvictPolicy::kVolatileLfu ||
         p == EvictPolicy::kVolatileRandom || p == EvictPolicy::kVolatileTtl;
}

// The key an Evictor chose: still in its database, to be deleted by the caller (which logs the
// deletion, counts it and tells the notification hook).
struct EvictionCandidate {
  int db = -1;
  std::string_view key;    // valid until the next pick()
  std::uint64_t hash = 0;  // the key's table hash (Db::key_hash), so Db::evict need not redo it
};

class Evictor {
 public:
  static constexpr std::size_t kPoolSize = 16;    // EVPOOL_SIZE
  static constexpr std::size_t kCachedKey = 255;  // EVPOOL_CACHED_SDS_SIZE
  static constexpr std::size_t kMaxSamples = 64;  // maxmemory-samples' upper bound here

  Evictor();

  // Chooses the next key to evict from `dbs` under `policy` (not kNoEviction), sampling
  // `samples` keys per database. False when no database holds an evictable key.
  bool pick(std::span<Db* const> dbs, EvictPolicy policy, std::size_t samples, std::int64_t now_ms,
            EvictionCandidate* out);
  // Forgets the pool (policy change, FLUSHALL): its scores are in another unit.
  void reset();

 private:
  struct Slot {
    std::uint64_t idle = 0;
    std::int32_t db = -1;   // -1: empty
    std::uint32_t buf = 0;  // which keys_ entry holds the key (each slot owns a distinct one)
  };
  static_assert(sizeof(Slot) == 16);
  void populate(int db_index, Db& db, bool from_expires, EvictPolicy policy, std::size_t samples,
                std::int64_t now_ms);
  void insert(std::uint64_t idle, int db, std::string_view key, const void* record);
  // The pool's best key so far: hashed (pre_hash_) and its bucket and record prefetched.
  void prefetch_best(std::span<Db* const> dbs);

  static constexpr std::uint32_t kNoBuf = ~std::uint32_t{0};

  std::array<Slot, kPoolSize> pool_;
  std::array<std::string, kPoolSize> keys_;
  std::array<const void*, kPoolSize> hint_{};  // per key buffer: its record when it entered
  std::uint32_t pre_buf_ = kNoBuf;             // the buffer whose key was hashed (prefetched)
  std::uint64_t pre_hash_ = 0;                 //   and its hash; kNoBuf once the key changes
  std::string picked_;
  unsigned next_db_ = 0;  // the random policies visit the databases in turn, as Redis
};

}  // namespace ruvio::store
