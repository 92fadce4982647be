// The tracking table (worker/engine/tracking_table.hpp): key -> ascending reader ids in one
// block per key; repeated reads allocate nothing; blocks grow past their bin; random eviction
// and reader filtering keep the counts exact.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "worker/engine/tracking_table.hpp"

using ruvio::worker::TrackedKey;
using ruvio::worker::TrackingTable;

namespace {

std::vector<std::uint64_t> readers(const TrackedKey* e) {
  return {e->readers().begin(), e->readers().end()};
}

}  // namespace

TEST_CASE("tracking table: empty, one key, one reader") {
  TrackingTable t;
  CHECK(t.empty());
  CHECK(t.take("k") == nullptr);
  CHECK(t.take_any() == nullptr);
  t.add("key:000001", 7);
  CHECK(t.size() == 1);
  CHECK(t.items() == 1);
  TrackedKey* e = t.take("key:000001");
  REQUIRE(e != nullptr);
  CHECK(e->key() == "key:000001");
  CHECK(readers(e) == std::vector<std::uint64_t>{7});
  // 8 header + 10 key bytes -> 24, + one id: the whole block is one 32-byte bin.
  CHECK(mi_usable_size(e) == 32);
  t.release(e);
  CHECK(t.empty());
  CHECK(t.items() == 0);
  CHECK(t.take("key:000001") == nullptr);
}

TEST_CASE("tracking table: a repeated read allocates nothing") {
  TrackingTable t;
  t.add("k", 5);
  t.add("k", 9);
  const std::size_t bytes = t.bytes();
  for (int i = 0; i < 1000; ++i) {
    t.add("k", 5);
    t.add("k", 9);
  }
  CHECK(t.bytes() == bytes);
  CHECK(t.items() == 2);
  TrackedKey* e = t.take("k");
  CHECK(readers(e) == std::vector<std::uint64_t>{5, 9});
  t.release(e);
}

TEST_CASE("tracking table: readers ascending, growing past the block") {
  TrackingTable t;
  std::set<std::uint64_t> want;
  // Out of order, with repeats, up to many readers of one key (the block moves several times).
  for (std::uint64_t i = 0; i < 3000; ++i) {
    const std::uint64_t id = (i * 7919) % 1001 + 1;
    t.add("shared", id);
    want.insert(id);
    t.add("other", id % 3);
  }
  CHECK(t.size() == 2);
  CHECK(t.items() == want.size() + 3);
  TrackedKey* e = t.take("shared");
  REQUIRE(e != nullptr);
  CHECK(readers(e) == std::vector<std::uint64_t>(want.begin(), want.end()));
  CHECK(e->key() == "shared");
  t.release(e);
  CHECK(t.items() == 3);
}

TEST_CASE("tracking table: empty and long keys") {
  TrackingTable t;
  const std::string big(5000, 'x');
  t.add("", 1);
  t.add(big, 2);
  t.add(big, 1);
  TrackedKey* e = t.take(big);
  REQUIRE(e != nullptr);
  CHECK(e->key() == big);
  CHECK(readers(e) == std::vector<std::uint64_t>{1, 2});
  t.release(e);
  e = t.take("");
  REQUIRE(e != nullptr);
  CHECK(e->key().empty());
  t.release(e);
}

TEST_CASE("tracking table: take_any empties the table, each key once") {
  TrackingTable t;
  for (int i = 0; i < 500; ++i) t.add("k" + std::to_string(i), static_cast<std::uint64_t>(i));
  std::set<std::string> seen;
  while (TrackedKey* e = t.take_any()) {
    CHECK(seen.insert(std::string(e->key())).second);
    CHECK(e->readers().size() == 1);
    t.release(e);
  }
  CHECK(seen.size() == 500);
  CHECK(t.empty());
  CHECK(t.items() == 0);
}

TEST_CASE("tracking table: drop_readers and clear") {
  TrackingTable t;
  for (int i = 0; i < 200; ++i) {
    const std::string k = "k" + std::to_string(i);
    t.add(k, 2);  // dropped below
    if (i % 2 == 0) t.add(k, 3);
  }
  CHECK(t.items() == 300);
  t.drop_readers([](std::uint64_t id) { return id == 2; });
  CHECK(t.size() == 100);
  CHECK(t.items() == 100);
  TrackedKey* e = t.take("k10");
  REQUIRE(e != nullptr);
  CHECK(readers(e) == std::vector<std::uint64_t>{3});
  t.release(e);
  CHECK(t.take("k11") == nullptr);
  t.clear();
  CHECK(t.empty());
  CHECK(t.items() == 0);
  CHECK(t.bytes() == 0);
}
