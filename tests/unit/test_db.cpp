// Db: strings, TTL and expiry, SCAN, memory accounting.
#include <doctest/doctest.h>

#include <climits>
#include <set>
#include <string>

#include "worker/store/db.hpp"

using namespace ruvio::store;

namespace {
constexpr std::int64_t kNow = 1'700'000'000'000;
std::string key(int i) {
  return "key:" + std::to_string(i);
}
}  // namespace

TEST_CASE("db: set/get strings and integers with Redis encodings") {
  Db db;
  db.set_string("a", "hello", {});
  Entry e = db.find("a", kNow);
  REQUIRE(e);
  CHECK(e.key() == "a");
  CHECK(e.type() == Type::kString);
  CHECK_FALSE(e.is_int());
  CHECK(e.str() == "hello");
  CHECK(e.encoding() == "embstr");
  CHECK(e.expire_at() == kNoExpire);

  db.set_string("n", "-9223372036854775808", {});
  e = db.find("n", kNow);
  CHECK(e.is_int());
  CHECK(e.int_value() == INT64_MIN);
  CHECK(e.str_len() == 20);
  CHECK(e.encoding() == "int");

  db.set_string("z", "-0", {});
  CHECK(db.find("z", kNow).encoding() == "embstr");
  db.set_string("z", "007", {});
  CHECK_FALSE(db.find("z", kNow).is_int());

  db.set_string("s44", std::string(44, 'x'), {});
  db.set_string("s45", std::string(45, 'x'), {});
  CHECK(db.find("s44", kNow).encoding() == "embstr");
  CHECK(db.find("s45", kNow).encoding() == "raw");
  db.set_string("big", std::string(1 << 20, 'y'), {});
  CHECK(db.find("big", kNow).str_len() == (1u << 20));
  CHECK(db.find("big", kNow).encoding() == "raw");

  db.set_int("c", 41, {});
  CHECK(db.find("c", kNow).int_value() == 41);
  db.set_int("c", 42, {});  // same bin: overwrite
  CHECK(db.find("c", kNow).int_value() == 42);
  db.set_string("c", "now text", {});
  CHECK(db.find("c", kNow).str() == "now text");
  CHECK(db.size() == 7);
  CHECK_FALSE(db.find("nope", kNow));
}

TEST_CASE("db: APPEND grows and reports raw") {
  Db db;
  CHECK(db.append("a", "12", kNow) == 2);
  CHECK(db.find("a", kNow).encoding() == "int");  // a new key is stored as SET would
  CHECK(db.append("a", "3", kNow) == 3);
  CHECK(db.find("a", kNow).str() == "123");
  CHECK(db.find("a", kNow).encoding() == "raw");
  std::string want = "123";
  for (int i = 0; i < 5000; ++i) {
    std::string t = std::to_string(i);
    want += t;
    CHECK(db.append("a", t, kNow) == want.size());
  }
  CHECK(db.find("a", kNow).str() == want);
  db.set_string("e", "x", {});
  CHECK(db.append("e", "", kNow) == 1);
}

TEST_CASE("db: SETRANGE pads with zeros") {
  Db db;
  CHECK(db.set_range("r", 5, "", kNow) == 0);
  CHECK_FALSE(db.find("r", kNow));
  CHECK(db.set_range("r", 3, "ab", kNow) == 5);
  CHECK(db.find("r", kNow).str() == std::string("\0\0\0ab", 5));
  CHECK(db.set_range("r", 1, "Z", kNow) == 5);
  CHECK(db.find("r", kNow).str() == std::string("\0Z\0ab", 5));
  db.set_int("i", 1234, {});
  CHECK(db.set_range("i", 6, "x", kNow) == 7);
  CHECK(db.find("i", kNow).str() == std::string("1234\0\0x", 7));
  CHECK(db.set_range("i", 0, "", kNow) == 7);
}

TEST_CASE("db: TTL set, keep, persist, lazy expiry") {
  Db db;
  db.set_string("t", "v", SetOptions{kNow + 1000, false});
  CHECK(db.expires_size() == 1);
  CHECK(db.find("t", kNow).expire_at() == kNow + 1000);
  // KEEPTTL keeps it; a plain SET drops it.
  db.set_string("t", std::string(100, 'q'), SetOptions{kNoExpire, true});
  CHECK(db.find("t", kNow).expire_at() == kNow + 1000);
  CHECK(db.expires_size() == 1);
  db.set_string("t", "w", {});
  CHECK(db.find("t", kNow).expire_at() == kNoExpire);
  CHECK(db.expires_size() == 0);

  CHECK_FALSE(db.set_expire("missing", kNow));
  CHECK(db.set_expire("t", kNow + 500));
  CHECK(db.expires_size() == 1);
  CHECK(db.set_expire("t", kNow + 700));
  CHECK(db.find("t", kNow).expire_at() == kNow + 700);
  CHECK(db.persist("t"));
  CHECK_FALSE(db.persist("t"));
  CHECK(db.find("t", kNow).expire_at() == kNoExpire);
  CHECK(db.expires_size() == 0);

  db.set_string("big", std::string(5000, 'b'), {});
  CHECK(db.set_expire("big", kNow + 10));
  CHECK(db.find("big", kNow + 10).str().size() == 5000);  // now == at: not yet expired
  CHECK_FALSE(db.find("big", kNow + 11));
  CHECK(db.expired_total() == 1);
  CHECK(db.expires_size() == 0);
  CHECK(db.size() == 1);
}

TEST_CASE("db: active expiry removes expired keys with bounded work") {
  Db db;
  for (int i = 0; i < 10000; ++i)
    db.set_string(key(i), "v", SetOptions{i % 2 ? kNow + 10 : kNow + 1000000, false});
  for (int i = 10000; i < 12000; ++i) db.set_string(key(i), "v", {});
  CHECK(db.expires_size() == 10000);
  std::size_t first = db.expire_cycle(kNow + 100, 20);
  CHECK(first <= 20);
  std::size_t total = first;
  for (int round = 0; round < 2000 && db.expires_size() > 5000; ++round)
    total += db.expire_cycle(kNow + 100, 200);
  CHECK(db.expires_size() == 5000);
  CHECK(total == 5000);
  CHECK(db.size() == 7000);
  for (int i = 0; i < 12000; ++i) REQUIRE(bool(db.peek(key(i))) == (i >= 10000 || i % 2 == 0));
}

TEST_CASE("db: rename keeps TTL, copy duplicates") {
  Db db;
  db.set_string("a", std::string(1000, 'a'), SetOptions{kNow + 5000, false});
  db.set_string("b", "old", {});
  db.rename("a", "b");
  CHECK_FALSE(db.find("a", kNow));
  Entry b = db.find("b", kNow);
  REQUIRE(b);
  CHECK(b.str() == std::string(1000, 'a'));
  CHECK(b.expire_at() == kNow + 5000);
  CHECK(db.size() == 1);
  CHECK(db.expires_size() == 1);

  Db other;
  db.copy_to(db.find("b", kNow), other, "c");
  db.copy_to(db.find("b", kNow), db, "d");
  db.erase("b");
  CHECK(other.find("c", kNow).str() == std::string(1000, 'a'));
  CHECK(other.find("c", kNow).expire_at() == kNow + 5000);
  CHECK(db.find("d", kNow).str() == std::string(1000, 'a'));
  CHECK(db.expires_size() == 1);
  db.set_int("i", 7, {});
  db.copy_to(db.find("i", kNow), other, "i2");
  CHECK(other.find("i2", kNow).int_value() == 7);
}

TEST_CASE("db: erase, random_entry, swap") {
  Db a, b;
  CHECK_FALSE(a.random_entry(kNow));
  for (int i = 0; i < 100; ++i) a.set_int(key(i), i, {});
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) seen.insert(std::string(a.random_entry(kNow).key()));
  CHECK(seen.size() > 90);
  CHECK(a.erase(key(5)));
  CHECK_FALSE(a.erase(key(5)));
  b.set_string("only", "b", {});
  a.swap(b);
  CHECK(a.size() == 1);
  CHECK(b.size() == 99);
  CHECK(a.find("only", kNow).str() == "b");
}

TEST_CASE("db: SCAN guarantee while growing and shrinking") {
  Db db;
  std::set<std::string> stable;
  for (int i = 0; i < 3000; ++i) {
    db.set_int(key(i), i, {});
    stable.insert(key(i));
  }
  std::set<std::string> seen;
  std::uint64_t cursor = 0;
  int step = 0, next = 100000;
  do {
    cursor = db.scan(cursor, 10, [&](Entry e) { seen.insert(std::string(e.key())); });
    if (step < 60) {
      for (int k = 0; k < 300; ++k) db.set_int(key(next++), 1, {});  // grow
    } else {
      for (int k = 0; k < 600 && next > 100000; ++k) db.erase(key(--next));  // shrink
    }
    ++step;
  } while (cursor != 0);
  for (const auto& k : stable) REQUIRE(seen.count(k));
}

TEST_CASE("db: used_memory is exact and returns to baseline after clear") {
  Db db;
  std::size_t base = db.used_memory();
  CHECK(base == 0);
  for (int i = 0; i < 20000; ++i) {
    if (i % 3 == 0)
      db.set_int(key(i), i, {});
    else if (i % 3 == 1)
      db.set_string(key(i), std::string(static_cast<std::size_t>(i % 700), 'v'),
                    SetOptions{kNow + i, false});
    else
      db.append(key(i), "tail", kNow);
  }
  CHECK(db.used_memory() > 20000 * 16);
  std::size_t sum = 0;
  std::uint64_t c = 0;
  do {
    c = db.scan(c, 100, [&](Entry e) { sum += e.memory_usage(); });
  } while (c != 0);
  CHECK(sum < db.used_memory());  // the rest is the two tables
  db.clear();
  CHECK(db.used_memory() == base);
  CHECK(db.size() == 0);
  CHECK(db.expires_size() == 0);
  db.set_string("again", "x", {});
  CHECK(db.find("again", kNow).str() == "x");
}

TEST_CASE("db: idle time and LFU counter in the clock byte") {
  Db db;
  db.set_string("k", "v", {});
  CHECK(db.idle_seconds(db.find("k", kNow), kNow) == 0);
  CHECK(db.idle_seconds(db.peek("k"), kNow + 3000) == 3);
  CHECK(db.idle_seconds(db.find("k", kNow + 3000), kNow + 3000) == 0);
  db.set_lfu_mode(true);
  db.set_string("f", "v", {});
  CHECK(db.peek("f").lfu() == 5);
  for (int i = 0; i < 1000; ++i) db.find("f", kNow);
  CHECK(db.peek("f").lfu() > 5);
  CHECK(db.peek("f").lfu() < 40);  // logarithmic
}

TEST_CASE("db: overwrites in the same bin reuse the record and keep the expiry index") {
  Db db;
  db.set_int("ctr", 0, SetOptions{kNow + 100000, false});
  std::size_t mem = db.used_memory();
  for (int i = 1; i <= 1000; ++i) db.set_int("ctr", i, SetOptions{kNoExpire, true});
  CHECK(db.used_memory() == mem);
  CHECK(db.find("ctr", kNow).int_value() == 1000);
  CHECK(db.find("ctr", kNow).expire_at() == kNow + 100000);
  CHECK(db.expires_size() == 1);
  CHECK_FALSE(db.find("ctr", kNow + 100001));
  CHECK(db.expires_size() == 0);

  db.set_string("big", std::string(5000, 'a'), {});
  std::size_t mem2 = db.used_memory();
  db.set_string("big", std::string(5001, 'b'), {});  // same buffer bin: buffer reused
  CHECK(db.used_memory() == mem2);
  CHECK(db.find("big", kNow).str() == std::string(5001, 'b'));
  db.set_string("big", "short", {});
  CHECK(db.find("big", kNow).str() == "short");
  CHECK(db.used_memory() < mem2);
}

// Fix 6.2b: every reader decides expiry with store::is_expired (now > when), so at the exact
// millisecond of the expiry the key is still there for all of them, and gone for all at +1.
TEST_CASE("db: at the exact expiry millisecond every path agrees the key exists") {
  constexpr std::int64_t kAt = kNow + 100;
  CHECK_FALSE(ruvio::store::is_expired(kNoExpire, kAt));
  CHECK_FALSE(ruvio::store::is_expired(kAt, kAt));
  CHECK(ruvio::store::is_expired(kAt, kAt + 1));

  Db db;
  db.set_string("k", "v", SetOptions{kAt, false});
  // OBJECT / SCAN / KEYS read through peek()/scan() and Entry::expired.
  CHECK_FALSE(db.peek("k").expired(kAt));
  std::size_t live = 0;
  db.scan(0, 100, [&](Entry e) { live += e.expired(kAt) ? 0 : 1; });
  CHECK(live == 1);
  CHECK(db.expire_cycle(kAt, 100) == 0);  // active expiry
  CHECK(db.random_entry(kAt));            // RANDOMKEY
  Entry e = db.find("k", kAt);            // GET, TTL (PTTL answers at - now = 0)
  REQUIRE(e);
  CHECK(e.expire_at() - kAt == 0);

  CHECK(db.peek("k").expired(kAt + 1));
  live = 0;
  db.scan(0, 100, [&](Entry x) { live += x.expired(kAt + 1) ? 0 : 1; });
  CHECK(live == 0);
  CHECK_FALSE(db.random_entry(kAt + 1));
  CHECK_FALSE(db.find("k", kAt + 1));
  CHECK(db.size() == 0);
}
