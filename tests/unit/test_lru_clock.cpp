// The LRU clock (worker/store/lru_clock.hpp): idle times that never wrap, in order, within the
// stated resolution, with the merge pass done in bounded steps.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "worker/store/db.hpp"
#include "worker/store/evict.hpp"
#include "worker/store/lru_clock.hpp"

using namespace ruvio::store;

namespace {
constexpr std::int64_t kNow = 1'700'000'000'000;

// Runs the merge pass to its end, `budget` keys per tick; returns the ticks it took.
int finish_pass(LruClock& clock, Db& db, std::int64_t now, std::size_t budget) {
  Db* dbs[] = {&db};
  int ticks = 0;
  while (lru_pass_step(clock, dbs, now, budget) && ticks < 100000) ++ticks;
  return ticks;
}

// Idle within the resolution lru_clock.hpp promises: exact under kExactSeconds, else never
// less than the truth and at most 1/kRatio above it (plus the second of the generation).
void check_idle(std::int64_t got, std::int64_t truth) {
  CHECK(got >= truth);
  if (truth < LruClock::kExactSeconds) {
    CHECK(got == truth);
  } else {
    CHECK(got <= truth + truth / LruClock::kRatio + 1);
  }
}
}  // namespace

TEST_CASE("lru clock: one generation per second, ids never run out over a simulated day") {
  LruClock clock;
  std::int64_t t = kNow;
  clock.advance(t);
  const std::uint8_t first = clock.current();
  for (int s = 1; s <= 86400; ++s) {
    t += 1000;
    clock.advance(t);
    if (clock.wants_pass()) {
      clock.begin(t);
      clock.end();  // no keys: the pass is its bookkeeping only
    }
    REQUIRE(clock.free_ids() > 0);
  }
  // The first generation is still there, reading a day back within 1/8.
  check_idle(clock.idle_seconds(first, t), 86400);
  check_idle(clock.idle_seconds(clock.current(), t), 0);
  CHECK(clock.generations() < 256);
}

TEST_CASE("lru clock: keys idle 100 s, 1000 s, 10000 s after many wraps of a byte") {
  Db db;
  LruClock& clock = db.events().lru;
  std::int64_t t = kNow;
  // 12000 s of traffic, one access a second, keys named by the second of their last access.
  std::vector<std::int64_t> at;
  for (int s = 0; s <= 12000; ++s, t += 1000) {
    const std::string k = "k" + std::to_string(s);
    db.set_string(k, "v", {});
    db.find(k, t);
    at.push_back(t);
    finish_pass(clock, db, t, 100);  // the timer's work, a bounded slice at a time
  }
  t -= 1000;
  const std::int64_t idle100 = db.idle_seconds(db.peek("k11900"), t);
  const std::int64_t idle1000 = db.idle_seconds(db.peek("k11000"), t);
  const std::int64_t idle10000 = db.idle_seconds(db.peek("k2000"), t);
  check_idle(idle100, 100);
  check_idle(idle1000, 1000);
  check_idle(idle10000, 10000);
  check_idle(db.idle_seconds(db.peek("k11990"), t), 10);
  CHECK(idle100 < idle1000);
  CHECK(idle1000 < idle10000);
  // Order holds over every pair of keys a second apart or more.
  std::int64_t last = INT64_MAX;
  for (int s = 0; s <= 12000; s += 7) {
    const std::int64_t idle = db.idle_seconds(db.peek("k" + std::to_string(s)), t);
    CHECK(idle <= last);
    last = idle;
  }
}

TEST_CASE("lru clock: a pass is bounded per tick and keeps keys it has not reached right") {
  Db db;
  LruClock& clock = db.events().lru;
  std::int64_t t = kNow;
  for (int i = 0; i < 5000; ++i) db.set_string("old" + std::to_string(i), "v", {});
  db.find("old0", t);  // the clock starts here
  for (int i = 0; i < 5000; ++i) db.find("old" + std::to_string(i), t);
  // Fresh generations, one a second, until a pass is wanted.
  int s = 0;
  while (!clock.wants_pass()) {
    t += 1000;
    ++s;
    db.find("new", t);
    db.set_string("new" + std::to_string(s), "v", {});
    db.find("new" + std::to_string(s), t);
  }
  Db* dbs[] = {&db};
  CHECK(lru_pass_step(clock, dbs, t, 100));  // begun, not done: 5000 keys, 100 a tick
  CHECK(clock.passing());
  // Mid-pass, reached or not, the old keys read the same idle time.
  const std::int64_t idle = db.idle_seconds(db.peek("old0"), t);
  for (int i = 0; i < 5000; i += 97) {
    CHECK(db.idle_seconds(db.peek("old" + std::to_string(i)), t) == idle);
  }
  const int ticks = finish_pass(clock, db, t, 100);
  CHECK(ticks >= 40);  // bounded: about 5000 / 100 ticks, not one
  CHECK_FALSE(clock.passing());
  CHECK(clock.free_ids() > LruClock::kLowWater);
  check_idle(db.idle_seconds(db.peek("old4999"), t), s);
}

TEST_CASE("lru clock: RESTORE IDLETIME and RENAME across a pass") {
  Db db;
  std::int64_t t = kNow;
  db.set_string("a", "v", {});
  db.find("a", t);
  db.set_access("a", 5000, -1, t);
  CHECK(db.idle_seconds(db.peek("a"), t) == 5000);
  db.set_access("a", 30, -1, t);
  CHECK(db.idle_seconds(db.peek("a"), t) == 30);
  db.rename("a", "b");
  CHECK(db.idle_seconds(db.peek("b"), t) == 30);
}

TEST_CASE("lru clock: allkeys-lru evicts the oldest first after the byte wrapped many times") {
  Db db;
  LruClock& clock = db.events().lru;
  std::int64_t t = kNow;
  // Ten batches of 50 keys, 600 s apart (the old byte clock wrapped twice between batches).
  for (int b = 0; b < 10; ++b) {
    for (int i = 0; i < 50; ++i) {
      const std::string k = "b" + std::to_string(b) + ":" + std::to_string(i);
      db.set_string(k, "v", {});
      db.find(k, t);
    }
    for (int s = 0; s < 600; ++s) {
      t += 1000;
      clock.advance(t);
      finish_pass(clock, db, t, 1000);
    }
  }
  Evictor ev;
  Db* dbs[] = {&db};
  // The first 100 evictions come from the two oldest batches.
  int old = 0;
  for (int n = 0; n < 100; ++n) {
    EvictionCandidate c;
    REQUIRE(ev.pick(dbs, EvictPolicy::kAllKeysLru, 16, t, &c));
    const std::string k(c.key);
    if (k.rfind("b0:", 0) == 0 || k.rfind("b1:", 0) == 0) ++old;
    db.evict(k);
  }
  CHECK(old >= 75);  // sampled, as Redis: mostly the oldest (random order would give 20)
}
