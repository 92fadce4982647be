// The eviction pool (evict.hpp draws the scores). Follows Redis's evictionPoolPopulate /
// performEvictions key choice: the pool is ordered by idle score, ascending, so the best
// candidate is the last filled slot; a sampled key enters when there is room or it beats the
// worst one kept.
#include "worker/store/evict.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <utility>

namespace ruvio::store {
namespace {

constexpr std::string_view kPolicyNames[] = {
    "noeviction",   "allkeys-lru",  "allkeys-lfu",     "allkeys-random",
    "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
};

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<EvictPolicy> parse_evict_policy(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kPolicyNames); ++i) {
    if (iequal(name, kPolicyNames[i])) return static_cast<EvictPolicy>(i);
  }
  return std::nullopt;
}

Evictor::Evictor() {
  for (std::size_t i = 0; i < kPoolSize; ++i) {
    pool_[i].buf = static_cast<std::uint32_t>(i);
    keys_[i].reserve(kCachedKey);
  }
  picked_.reserve(kCachedKey);
}

void Evictor::reset() {
  for (Slot& s : pool_) s.db = -1;
  pre_buf_ = kNoBuf;
}

void Evictor::insert(std::uint64_t idle, int db, std::string_view key, const void* record) {
  // The first slot that is empty or scores higher than this key.
  std::size_t k = 0;
  while (k < kPoolSize && pool_[k].db >= 0 && pool_[k].idle < idle) ++k;
  if (k == 0 && pool_[kPoolSize - 1].db >= 0) return;  // worse than everything kept
  std::uint32_t buf;
  if (k < kPoolSize && pool_[k].db < 0) {
    buf = pool_[k].buf;  // an empty slot: take it
  } else if (pool_[kPoolSize - 1].db < 0) {
    // Room at the right: shift k.. right by one; the empty last slot's buffer comes to k.
    buf = pool_[kPoolSize - 1].buf;
    std::memmove(&pool_[k + 1], &pool_[k], (kPoolSize - 1 - k) * sizeof(Slot));
  } else {
    // Full: drop the lowest score on the left (its buffer is reused), shift left up to k - 1.
    --k;
    buf = pool_[0].buf;
    std::memmove(&pool_[0], &pool_[1], k * sizeof(Slot));
  }
  pool_[k].idle = idle;
  pool_[k].db = db;
  pool_[k].buf = buf;
  keys_[buf].assign(key);
  hint_[buf] = record;
  if (buf == pre_buf_) pre_buf_ = kNoBuf;  // the hash kept for it is another key's now
}

void Evictor::populate(int db_index, Db& db, bool from_expires, EvictPolicy policy,
                       std::size_t samples, std::int64_t now_ms) {
  Entry got[kMaxSamples];
  const std::size_t n = db.sample(from_expires, std::min(samples, kMaxSamples), got);
  for (std::size_t i = 0; i < n; ++i) {
    const Entry& e = got[i];
    std::uint64_t idle;
    switch (policy) {
      case EvictPolicy::kAllKeysLfu:
      case EvictPolicy::kVolatileLfu:
        idle = 255u - e.lfu();
        break;
      case EvictPolicy::kVolatileTtl:
        idle =
            std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(e.expire_at());
        break;
      default:
        idle = static_cast<std::uint64_t>(db.idle_seconds(e, now_ms));  // lru_clock.hpp
        break;
    }
    insert(idle, db_index, e.key(), e.record());
  }
}

void Evictor::prefetch_best(std::span<Db* const> dbs) {
  pre_buf_ = kNoBuf;
  for (std::size_t k = kPoolSize; k-- > 0;) {
    const Slot& s = pool_[k];
    if (s.db < 0) continue;
    if (static_cast<std::size_t>(s.db) >= dbs.size()) return;
    const Db& db = *dbs[static_cast<std::size_t>(s.db)];
    pre_hash_ = db.key_hash(keys_[s.buf]);
    pre_buf_ = s.buf;
    db.prefetch(pre_hash_, hint_[s.buf]);
    return;
  }
}

bool Evictor::pick(std::span<Db* const> dbs, EvictPolicy policy, std::size_t samples,
                   std::int64_t now_ms, EvictionCandidate* out) {
  const bool from_expires = is_volatile(policy);
  if (policy == EvictPolicy::kAllKeysRandom || policy == EvictPolicy::kVolatileRandom) {
    for (std::size_t i = 0; i < dbs.size(); ++i) {
      const unsigned d = next_db_++ % static_cast<unsigned>(dbs.size());
      Entry e;
      if (dbs[d]->sample(from_expires, 1, &e) == 0) continue;
      picked_.assign(e.key());
      out->db = static_cast<int>(d);
      out->key = picked_;
      out->hash = dbs[d]->key_hash(picked_);
      return true;
    }
    return false;
  }
  // Ghosts (pooled keys deleted or changed since) are dropped; a few rounds always find a key
  // while one exists.
  for (int round = 0; round < 100; ++round) {
    if (round == 0) prefetch_best(dbs);
    std::size_t keys = 0;
    for (std::size_t d = 0; d < dbs.size(); ++d) {
      const std::size_t n = from_expires ? dbs[d]->expires_size() : dbs[d]->size();
      if (n == 0) continue;
      keys += n;
      populate(static_cast<int>(d), *dbs[d], from_expires, policy, samples, now_ms);
    }
    if (keys == 0) return false;
    for (std::size_t k = kPoolSize; k-- > 0;) {
      Slot& s = pool_[k];
      if (s.db < 0) continue;
      Db& db = *dbs[static_cast<std::size_t>(s.db)];
      std::string& key = keys_[s.buf];
      std::uint64_t h;
      if (s.buf == pre_buf_) {
        h = pre_hash_;
        pre_buf_ = kNoBuf;  // the buffer is swapped out or left behind: not this key's next
      } else {
        h = db.key_hash(key);
      }
      const Entry e = db.peek(key, h);
      const int db_index = s.db;
      s.db = -1;  // out of the pool either way
      if (!e || (from_expires && e.expire_at() == kNoExpire)) continue;
      picked_.swap(key);  // the slot keeps a reserved buffer: the one picked_ had
      out->db = db_index;
      out->key = picked_;
      out->hash = h;
      return true;
    }
  }
  return false;
}

}  // namespace ruvio::store
