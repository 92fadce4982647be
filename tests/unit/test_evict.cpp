// The eviction pool (worker/store/evict.hpp): which key each policy picks.
#include <doctest/doctest.h>
#include <mimalloc.h>

#include <string>

#include "worker/store/db.hpp"
#include "worker/store/evict.hpp"

using namespace ruvio::store;

namespace {
constexpr std::int64_t kNow = 1'700'000'000'000;

// Evicts `n` keys of `db` under `policy`, as the executor does.
int evict_n(Db& db, EvictPolicy policy, int n) {
  Evictor ev;
  Db* dbs[] = {&db};
  int done = 0;
  for (; done < n; ++done) {
    EvictionCandidate c;
    if (!ev.pick(dbs, policy, 5, kNow, &c)) break;
    CHECK(c.db == 0);
    const std::string k(c.key);
    db.evict(k);  // the bytes freed may be 0 when the erase shrank the table
    CHECK_FALSE(db.peek(k));
  }
  return done;
}
}  // namespace

TEST_CASE("evict: policy names") {
  CHECK(parse_evict_policy("ALLKEYS-LRU") == EvictPolicy::kAllKeysLru);
  CHECK(parse_evict_policy("volatile-ttl") == EvictPolicy::kVolatileTtl);
  CHECK_FALSE(parse_evict_policy("lru"));
  CHECK(is_lfu(EvictPolicy::kVolatileLfu));
  CHECK_FALSE(is_volatile(EvictPolicy::kAllKeysRandom));
}

TEST_CASE("evict: volatile policies never take a key without TTL; nothing left is false") {
  for (EvictPolicy p : {EvictPolicy::kVolatileLru, EvictPolicy::kVolatileLfu,
                        EvictPolicy::kVolatileRandom, EvictPolicy::kVolatileTtl}) {
    Db db;
    for (int i = 0; i < 200; ++i) db.set_string("keep:" + std::to_string(i), "v", {});
    for (int i = 0; i < 50; ++i) {
      SetOptions o;
      o.expire_at = kNow + 1000 + i;
      db.set_string("tmp:" + std::to_string(i), "v", o);
    }
    CHECK(evict_n(db, p, 1000) == 50);
    CHECK(db.size() == 200);
    CHECK(db.expires_size() == 0);
  }
}

TEST_CASE("evict: volatile-ttl takes the soonest expiry first") {
  Db db;
  for (int i = 0; i < 1000; ++i) {
    SetOptions o;
    o.expire_at = kNow + 1000 + i;
    db.set_string("t:" + std::to_string(i), "v", o);
  }
  evict_n(db, EvictPolicy::kVolatileTtl, 500);
  int early = 0, late = 0;
  for (int i = 0; i < 100; ++i) early += db.peek("t:" + std::to_string(i)) ? 1 : 0;
  for (int i = 900; i < 1000; ++i) late += db.peek("t:" + std::to_string(i)) ? 1 : 0;
  CHECK(early < 20);
  CHECK(late > 90);
}

TEST_CASE("evict: allkeys-lfu keeps frequently read keys; decay lowers counters") {
  Db db;
  db.set_lfu_mode(true);
  for (int i = 0; i < 1000; ++i) db.set_string("k:" + std::to_string(i), "v", {});
  for (int round = 0; round < 50; ++round)
    for (int i = 0; i < 20; ++i) db.find("k:" + std::to_string(i), kNow);
  evict_n(db, EvictPolicy::kAllKeysLfu, 900);
  int hot = 0;
  for (int i = 0; i < 20; ++i) hot += db.peek("k:" + std::to_string(i)) ? 1 : 0;
  CHECK(hot >= 19);
  const std::uint8_t before = db.peek("k:0").lfu();
  CHECK_FALSE(db.lfu_decay_step(kNow, 60000, 1000));  // the first period starts
  db.lfu_decay_step(kNow + 60000, 60000, 1000);       // one period later: one pass
  CHECK(db.peek("k:0").lfu() == before - 1);
}

TEST_CASE("evict: the evicted record's block serves the next record of its size class") {
  Db db;
  const std::string value(100, 'v');
  for (int i = 0; i < 100; ++i) db.set_string("key:" + std::to_string(1000 + i), value, {});
  const std::size_t full = db.used_memory();
  Evictor ev;
  Db* dbs[] = {&db};
  EvictionCandidate c;
  REQUIRE(ev.pick(dbs, EvictPolicy::kAllKeysLru, 5, kNow, &c));
  const std::string victim(c.key);
  const void* block = db.peek(victim).record();
  const std::size_t freed = db.evict(victim);
  // Accounted as freed at once, as a mi_free would be.
  CHECK(freed == mi_usable_size(const_cast<void*>(block)));
  CHECK(db.used_memory() == full - freed);
  // A record of another size class does not take it.
  db.set_string("x", "1", {});
  CHECK(db.peek("x").record() != block);
  const std::size_t with_x = db.used_memory();
  // The next one of its class does, and the accounting is back where it was.
  db.set_string("key:2000", value, {});
  CHECK(db.peek("key:2000").record() == block);
  CHECK(db.used_memory() == with_x + freed);
  CHECK(db.peek("key:2000").str() == value);
  db.clear();
  CHECK(db.used_memory() == 0);
}
