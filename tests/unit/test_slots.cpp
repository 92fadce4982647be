// Expected slots come from Redis 7.0.15 itself (CLUSTER KEYSLOT on a --cluster-enabled
// server) and the slot splits from `redis-cli --cluster create` with 3, 5, 6 and 7 masters.
#include <doctest/doctest.h>

#include <string>

#include "shared/slots.hpp"

using ruvio::key_slot;
using ruvio::slot_range;

TEST_CASE("crc16 is XMODEM") {
  CHECK(ruvio::crc16("123456789") == 0x31C3);  // the standard check value
  CHECK(ruvio::crc16("") == 0);
}

TEST_CASE("key_slot matches CLUSTER KEYSLOT") {
  CHECK(key_slot("foo") == 12182);
  CHECK(key_slot("bar") == 5061);
  CHECK(key_slot("") == 0);
  CHECK(key_slot("a") == 15495);
  CHECK(key_slot("hello world") == 15332);
  CHECK(key_slot("123456789") == 12739);
  CHECK(key_slot("key:1") == 6657);
  CHECK(key_slot("\xff\xfe") == 3374);
}

TEST_CASE("hash tags") {
  CHECK(key_slot("{user1000}.following") == 3443);
  CHECK(key_slot("{user1000}.followers") == 3443);
  CHECK(key_slot("{}foo") == 9500);          // empty tag: the whole key
  CHECK(key_slot("foo{}{bar}") == 8363);     // the first tag is empty: the whole key
  CHECK(key_slot("foo{{bar}}zap") == 4015);  // tag is "{bar"
  CHECK(key_slot("{bar") == 4015);
  CHECK(key_slot("foo{bar}{zap}") == 5061);  // the first tag wins: "bar"
  CHECK(key_slot("{a}b") == key_slot("a"));
  CHECK(key_slot("}{x}") == 16287);
  CHECK(key_slot("abc{def}ghi{jkl}") == 16148);
  CHECK(key_slot("user:{42}:name") == 8000);
  CHECK(key_slot(std::string("x{\0}y", 5)) == key_slot(std::string("\0", 1)));
}

TEST_CASE("slot_range splits like redis-cli --cluster create") {
  auto check = [](int n, std::initializer_list<std::pair<int, int>> expected) {
    int i = 0;
    for (auto [first, last] : expected) {
      const auto r = slot_range(i++, n);
      CHECK(r.first == first);
      CHECK(r.last == last);
    }
  };
  check(1, {{0, 16383}});
  check(2, {{0, 8191}, {8192, 16383}});
  check(3, {{0, 5460}, {5461, 10922}, {10923, 16383}});
  check(5, {{0, 3276}, {3277, 6553}, {6554, 9829}, {9830, 13106}, {13107, 16383}});
  check(6, {{0, 2730}, {2731, 5460}, {5461, 8191}, {8192, 10922}, {10923, 13652}, {13653, 16383}});
  check(7, {{0, 2340},
            {2341, 4680},
            {4681, 7021},
            {7022, 9361},
            {9362, 11702},
            {11703, 14042},
            {14043, 16383}});
}

TEST_CASE("slot ranges are contiguous and cover every slot") {
  for (int n : {1, 4, 7, 13, 64, 100, 1000, 16384}) {
    int next = 0;
    for (int i = 0; i < n; ++i) {
      const auto r = slot_range(i, n);
      REQUIRE(r.first == next);
      REQUIRE(r.last >= r.first);
      next = r.last + 1;
    }
    CHECK(next == ruvio::kSlotCount);
  }
}
