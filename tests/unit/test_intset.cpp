// Intset encoding: Redis 7.0.15's bytes, width boundaries and upgrades, a randomized model
// check against std::set and validation of hostile bytes.
//
// The "redis" byte strings were captured from redis-server 7.0.15 (Debian build) started as
// `redis-server --port P --save '' --appendonly no` with `CONFIG SET rdbcompression no`, by
// sending the SADD quoted beside each and then `DUMP key`: the payload is [RDB type 11][RDB
// string: the intset][u16 RDB version][u64 CRC64], and the hex is that string's bytes
// (tests/unit/capture_redis_encodings.py prints them).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/unit/hex_bytes.hpp"
#include "worker/containers/intset.hpp"
#include "worker/store/record.hpp"

using ruvio::store::Heap;
using ruvio::testing::hex;
using ruvio::testing::unhex;
using ruvio::types::Intset;

namespace {

std::vector<std::int64_t> members(const Intset& s, const Heap* heap = nullptr) {
  if (heap != nullptr) CHECK(heap->used == s.alloc_size());
  if (!s.empty()) CHECK(Intset::validate(s.span()));
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < s.size(); ++i) out.push_back(s.get(i));
  return out;
}

Intset build(Heap& heap, std::initializer_list<std::int64_t> vs) {
  Intset s = Intset::create(heap);
  for (std::int64_t v : vs) s.add(heap, v);
  return s;
}

constexpr std::int64_t kI16Min = std::numeric_limits<std::int16_t>::min();
constexpr std::int64_t kI16Max = std::numeric_limits<std::int16_t>::max();
constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

}  // namespace

TEST_CASE("intset: empty and one member") {
  Heap heap;
  Intset s = Intset::create(heap);
  CHECK(hex(s.span()) == "0200000000000000");
  CHECK(s.empty());
  CHECK(s.bytes() == 8);
  std::size_t pos = 99;
  CHECK_FALSE(s.find(5, &pos));
  CHECK(pos == 0);
  CHECK_FALSE(s.contains(0));
  CHECK_FALSE(s.remove(heap, 0));
  CHECK_FALSE(Intset::validate(s.span()));  // an empty intset is never stored (as Redis)

  CHECK(s.add(heap, 7));
  CHECK(hex(s.span()) == "02000000010000000700");
  CHECK(s.min() == 7);
  CHECK(s.max() == 7);
  CHECK(s.contains(7));
  CHECK_FALSE(s.add(heap, 7));
  CHECK(s.size() == 1);
  std::mt19937_64 rng(1);
  CHECK(s.random(rng) == 7);
  CHECK(s.remove(heap, 7));
  CHECK(hex(s.span()) == "0200000000000000");
  CHECK(heap.used == s.alloc_size());
  s.destroy(heap);
  CHECK(heap.used == 0);
}

TEST_CASE("intset: bytes as redis 7.0.15") {
  Heap heap;
  // SADD s16 3 1 2 -32768 32767
  Intset a = build(heap, {3, 1, 2, -32768, 32767});
  CHECK(hex(a.span()) == "02000000050000000080010002000300ff7f");
  // SADD s32 70000 -5 1
  Intset b = build(heap, {70000, -5, 1});
  CHECK(hex(b.span()) == "0400000003000000fbffffff0100000070110100");
  // SADD s64 5000000000 -1 0
  Intset c = build(heap, {5000000000, -1, 0});
  CHECK(hex(c.span()) == "0800000003000000ffffffffffffffff000000000000000000f2052a01000000");
  // And the example drawn in intset.hpp.
  Intset d = build(heap, {1, 70000, -5});
  CHECK(hex(d.span()) == hex(b.span()));
  for (Intset* s : {&a, &b, &c, &d}) s->destroy(heap);
  CHECK(heap.used == 0);
}

TEST_CASE("intset: width boundaries and upgrades") {
  CHECK(Intset::width_for(0) == 2);
  CHECK(Intset::width_for(kI16Min) == 2);
  CHECK(Intset::width_for(kI16Max) == 2);
  CHECK(Intset::width_for(kI16Min - 1) == 4);
  CHECK(Intset::width_for(kI16Max + 1) == 4);
  CHECK(Intset::width_for(kI32Min) == 4);
  CHECK(Intset::width_for(kI32Max) == 4);
  CHECK(Intset::width_for(kI32Min - 1) == 8);
  CHECK(Intset::width_for(kI32Max + 1) == 8);
  CHECK(Intset::width_for(kI64Min) == 8);
  CHECK(Intset::width_for(kI64Max) == 8);

  Heap heap;
  Intset s = build(heap, {kI16Min, -1, 0, kI16Max});
  CHECK(s.width() == 2);
  CHECK(s.add(heap, kI16Max + 1));  // upgrade, appended
  CHECK(s.width() == 4);
  CHECK(members(s, &heap) == std::vector<std::int64_t>{kI16Min, -1, 0, kI16Max, kI16Max + 1});
  CHECK(s.add(heap, kI16Min - 1));  // no upgrade needed now
  CHECK(s.add(heap, kI32Min - 1));  // upgrade, prepended
  CHECK(s.width() == 8);
  CHECK(members(s, &heap) ==
        std::vector<std::int64_t>{kI32Min - 1, kI16Min - 1, kI16Min, -1, 0, kI16Max, kI16Max + 1});
  CHECK(s.add(heap, kI64Max));
  CHECK(s.add(heap, kI64Min));
  CHECK_FALSE(s.add(heap, kI64Min));
  CHECK(s.min() == kI64Min);
  CHECK(s.max() == kI64Max);
  // Removing the wide members never narrows the width (as Redis).
  CHECK(s.remove(heap, kI64Min));
  CHECK(s.remove(heap, kI64Max));
  CHECK(s.remove(heap, kI32Min - 1));
  CHECK(s.width() == 8);
  CHECK(s.bytes() == 8 + 6 * 8);
  // A value wider than the width is never a member.
  Intset small = build(heap, {1, 2});
  CHECK_FALSE(small.contains(kI64Max));
  CHECK_FALSE(small.remove(heap, kI32Max + 1));
  CHECK(small.width() == 2);
  // Upgrades from an empty set, both signs.
  Intset e1 = build(heap, {kI32Min});
  CHECK(hex(e1.span()) == "040000000100000000000080");
  Intset e2 = build(heap, {kI64Max});
  CHECK(hex(e2.span()) == "0800000001000000ffffffffffffff7f");
  for (Intset* x : {&s, &small, &e1, &e2}) x->destroy(heap);
  CHECK(heap.used == 0);
}

TEST_CASE("intset: find gives positions and insertion points") {
  Heap heap;
  Intset s = build(heap, {10, 20, 30, 40, 50});
  std::size_t pos;
  CHECK(s.find(10, &pos));
  CHECK(pos == 0);
  CHECK(s.find(50, &pos));
  CHECK(pos == 4);
  CHECK(s.find(30, &pos));
  CHECK(pos == 2);
  CHECK_FALSE(s.find(5, &pos));
  CHECK(pos == 0);
  CHECK_FALSE(s.find(55, &pos));
  CHECK(pos == 5);
  CHECK_FALSE(s.find(35, &pos));
  CHECK(pos == 3);
  CHECK_FALSE(s.find(11, &pos));
  CHECK(pos == 1);
  s.destroy(heap);
}

TEST_CASE("intset: random picks every member") {
  Heap heap;
  Intset s = build(heap, {-100000, -3, 0, 9, 1 << 20});
  std::mt19937_64 rng(42);
  std::set<std::int64_t> seen;
  for (int i = 0; i < 500; ++i) {
    const std::int64_t v = s.random(rng);
    CHECK(s.contains(v));
    seen.insert(v);
  }
  CHECK(seen.size() == 5);
  s.destroy(heap);
}

TEST_CASE("intset: randomized operations against std::set") {
  Heap heap;
  std::mt19937_64 rng(20261201);
  const std::int64_t edges[] = {0,           -1,          1,       kI16Min, kI16Max,
                                kI16Min - 1, kI16Max + 1, kI32Min, kI32Max, kI32Min - 1,
                                kI32Max + 1, kI64Min,     kI64Max};
  auto value = [&]() -> std::int64_t {
    switch (rng() % 5) {
      case 0:
        return edges[rng() % std::size(edges)];
      case 1:
        return static_cast<std::int64_t>(rng() % 200) - 100;  // collisions
      case 2:
        return static_cast<std::int64_t>(rng() % 70000) - 35000;
      case 3:
        return static_cast<std::int32_t>(rng());
      default:
        return static_cast<std::int64_t>(rng());
    }
  };
  // Several sets, so some stay narrow for long and some upgrade early.
  for (int round = 0; round < 4; ++round) {
    Intset s = Intset::create(heap);
    std::set<std::int64_t> model;
    for (int op = 0; op < 3000; ++op) {
      CAPTURE(round);
      CAPTURE(op);
      // Round 0 stays within 16 bits for its first half.
      std::int64_t v = value();
      if (round == 0 && op < 1500) v = static_cast<std::int16_t>(v);
      switch (rng() % 4) {
        case 0:
        case 1:
          CHECK(s.add(heap, v) == model.insert(v).second);
          break;
        case 2:
          CHECK(s.remove(heap, v) == (model.erase(v) == 1));
          break;
        default:
          CHECK(s.contains(v) == (model.count(v) == 1));
      }
      if (op % 101 == 0) {
        REQUIRE(members(s, &heap) == std::vector<std::int64_t>(model.begin(), model.end()));
      }
    }
    CHECK(members(s, &heap) == std::vector<std::int64_t>(model.begin(), model.end()));
    Intset copy = s.clone(heap);
    CHECK(hex(copy.span()) == hex(s.span()));
    copy.destroy(heap);
    // Emptying it gives memory back.
    const std::size_t full = s.alloc_size();
    for (std::int64_t v : model) CHECK(s.remove(heap, v));
    CHECK(s.empty());
    if (full >= 64) CHECK(s.alloc_size() < full);
    CHECK(heap.used == s.alloc_size());
    s.destroy(heap);
  }
  CHECK(heap.used == 0);
}

namespace {

// Validates an exact-size heap copy (a read past the end is an ASan error) and, when it passes,
// reads every member the way a caller would.
bool validate_and_read(const std::vector<std::uint8_t>& bytes) {
  std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[bytes.size()]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  if (!Intset::validate({exact.get(), bytes.size()})) return false;
  const Intset s(exact.get());
  CHECK(s.bytes() == bytes.size());
  for (std::size_t i = 1; i < s.size(); ++i) CHECK(s.get(i - 1) < s.get(i));
  for (std::size_t i = 0; i < s.size(); ++i) CHECK(s.contains(s.get(i)));
  return true;
}

}  // namespace

TEST_CASE("intset: validation refuses truncated and corrupted blobs at every byte") {
  Heap heap;
  for (std::initializer_list<std::int64_t> vs :
       {std::initializer_list<std::int64_t>{-7, 0, 3, 1000},
        std::initializer_list<std::int64_t>{-70000, 5, 70000},
        std::initializer_list<std::int64_t>{kI64Min, 0, kI64Max}}) {
    Intset s = build(heap, vs);
    const std::vector<std::uint8_t> good(s.span().begin(), s.span().end());
    s.destroy(heap);
    REQUIRE(validate_and_read(good));
    for (std::size_t len = 0; len < good.size(); ++len) {
      CHECK_FALSE(validate_and_read(std::vector<std::uint8_t>(
          good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len))));
    }
    std::vector<std::uint8_t> longer = good;
    longer.push_back(0);
    CHECK_FALSE(validate_and_read(longer));
    const std::uint8_t repl[] = {0x00, 0x01, 0x02, 0x04, 0x08, 0x7f, 0x80, 0xff};
    for (std::size_t i = 0; i < good.size(); ++i) {
      for (std::uint8_t r : repl) {
        std::vector<std::uint8_t> c = good;
        c[i] = r;
        const bool ok = validate_and_read(c);
        if (i < 8 && c[i] != good[i]) CHECK_FALSE(ok);  // any header change breaks the size
      }
    }
  }
  CHECK_FALSE(validate_and_read(unhex("0300000001000000aaaaaa")));      // width 3
  CHECK_FALSE(validate_and_read(unhex("020000000200000001000100")));    // duplicate
  CHECK_FALSE(validate_and_read(unhex("020000000200000002000100")));    // descending
  CHECK_FALSE(validate_and_read(unhex("0200000000000000")));            // empty
  CHECK_FALSE(validate_and_read(unhex("02000000ffffffff0100")));        // length past the end
  CHECK_FALSE(validate_and_read(unhex("08000000ffffffff")));            // huge length, no data
  CHECK(validate_and_read(unhex("08000000010000000500000000000000")));  // wide is fine

  CHECK_FALSE(Intset::load(heap, unhex("020000000200000001000100")).has_value());
  auto loaded = Intset::load(heap, unhex("02000000020000000100ff7f"));
  REQUIRE(loaded.has_value());
  CHECK(members(*loaded, &heap) == std::vector<std::int64_t>{1, kI16Max});
  CHECK(loaded->add(heap, 2));
  CHECK(members(*loaded, &heap) == std::vector<std::int64_t>{1, 2, kI16Max});
  loaded->destroy(heap);
  CHECK(heap.used == 0);
}
