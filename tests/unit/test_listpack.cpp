// Listpack encoding: Redis 7.0.15's bytes, every encoding and length-class boundary, walking,
// seeking, the 65535-count boundary, a randomized model check and validation of hostile bytes.
//
// The "redis" byte strings below were captured from redis-server 7.0.15 (Debian build) started
// as `redis-server --port P --save '' --appendonly no`, with `CONFIG SET rdbcompression no`
// (so no blob is LZF-compressed), by sending the commands quoted beside each one and then
// `DUMP key`. A DUMP payload is [RDB type][body][u16 RDB version][u64 CRC64]; for type 18
// (quicklist 2, lists) the body is [len nodes][len container=2][RDB string: listpack] per node,
// for types 16 (hash listpack) and 17 (zset listpack) it is one RDB string holding the
// listpack. The hex is that RDB string's bytes, as they are. tests/unit/capture_redis_encodings.py
// does all of it against a running server and prints every blob used here.
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/hex_bytes.hpp"
#include "worker/containers/listpack.hpp"
#include "worker/store/record.hpp"

using ruvio::store::Heap;
using ruvio::types::Listpack;
namespace lpd = ruvio::types::listpack_detail;
using Pos = Listpack::Pos;
using ruvio::testing::hex;
using ruvio::testing::unhex;

namespace {

std::uint64_t fnv1a(std::span<const std::uint8_t> b) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint8_t c : b) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// Every entry as text, front to back, checking the walk back gives the same and the blob is
// valid and exactly accounted.
std::vector<std::string> contents(const Listpack& lp, const Heap* heap = nullptr) {
  REQUIRE(Listpack::validate(lp.span()));
  if (heap != nullptr) CHECK(heap->used == lp.alloc_size());
  Listpack::IntBuf buf;
  std::vector<std::string> fwd;
  for (Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) {
    fwd.emplace_back(lp.get_str(p, buf));
  }
  std::vector<std::string> back;
  for (Pos p = lp.last(); p != Listpack::kNone; p = lp.prev(p)) {
    back.emplace_back(lp.get_str(p, buf));
  }
  std::reverse(back.begin(), back.end());
  CHECK(fwd == back);
  CHECK(lp.count() == fwd.size());
  return fwd;
}

Listpack build(Heap& heap, const std::vector<std::string>& items) {
  Listpack lp = Listpack::create(heap);
  for (const auto& s : items) lp.append(heap, s);
  return lp;
}

std::string entry_hex(const Listpack& lp, Pos p) {
  const Pos n = lp.next(p);
  const std::size_t end = n == Listpack::kNone ? lp.bytes() - 1 : n;
  return hex(lp.span().subspan(p, end - p));
}

}  // namespace

TEST_CASE("listpack: empty and one entry") {
  Heap heap;
  Listpack lp = Listpack::create(heap);
  CHECK(hex(lp.span()) == "070000000000ff");
  CHECK(lp.bytes() == 7);
  CHECK(lp.empty());
  CHECK(lp.count() == 0);
  CHECK(lp.first() == Listpack::kNone);
  CHECK(lp.last() == Listpack::kNone);
  CHECK(lp.seek(0) == Listpack::kNone);
  CHECK(lp.seek(-1) == Listpack::kNone);
  CHECK(lp.find(lp.first(), "x") == Listpack::kNone);
  lp.erase_range(heap, 0, 5);
  CHECK(contents(lp, &heap).empty());

  const Pos p = lp.append(heap, "a");
  CHECK(p == Listpack::kHeaderBytes);
  CHECK(hex(lp.span()) == "0a0000000100816102ff");
  CHECK(lp.first() == p);
  CHECK(lp.last() == p);
  CHECK(lp.next(p) == Listpack::kNone);
  CHECK(lp.prev(p) == Listpack::kNone);
  CHECK(lp.seek(0) == p);
  CHECK(lp.seek(-1) == p);
  CHECK(lp.seek(1) == Listpack::kNone);
  CHECK(lp.seek(-2) == Listpack::kNone);
  CHECK(lp.erase(heap, p) == Listpack::kNone);
  CHECK(hex(lp.span()) == "070000000000ff");
  CHECK(heap.used == lp.alloc_size());
  lp.destroy(heap);
  CHECK(heap.used == 0);
}

TEST_CASE("listpack: the examples drawn in listpack.hpp") {
  static_assert(sizeof(Listpack) == 8, "a handle is the blob pointer");
  Heap heap;
  Listpack lp = Listpack::create(heap);
  CHECK(lp.safe_to_add(Listpack::kSafeBytes - 7));
  CHECK_FALSE(lp.safe_to_add(Listpack::kSafeBytes - 6));
  lp.append(heap, "a");
  lp.append(heap, 300);
  CHECK(hex(lp.span()) == "0d0000000200816102c12c02ff");
  lp.destroy(heap);

  Listpack h = build(heap, {"field:1", "value:1", "field:2", "value:2", "field:3", "value:3"});
  CHECK(h.bytes() == 61);
  CHECK(mi_good_size(61) == 64);
  CHECK(h.alloc_size() == 64);
  h.destroy(heap);
}

TEST_CASE("listpack: every integer encoding at its limits and one past") {
  struct Case {
    std::int64_t v;
    std::size_t enc;     // encoding + data bytes
    std::uint8_t first;  // first byte (0 = the value itself, 7-bit)
  };
  const Case cases[] = {
      {0, 1, 0x00},
      {127, 1, 0x7f},
      {128, 2, 0xc0},
      {-1, 2, 0xdf},
      {-4096, 2, 0xd0},
      {4095, 2, 0xcf},
      {4096, 3, 0xf1},
      {-4097, 3, 0xf1},
      {32767, 3, 0xf1},
      {-32768, 3, 0xf1},
      {32768, 4, 0xf2},
      {-32769, 4, 0xf2},
      {8388607, 4, 0xf2},
      {-8388608, 4, 0xf2},
      {8388608, 5, 0xf3},
      {-8388609, 5, 0xf3},
      {INT32_MAX, 5, 0xf3},
      {INT32_MIN, 5, 0xf3},
      {std::int64_t{INT32_MAX} + 1, 9, 0xf4},
      {std::int64_t{INT32_MIN} - 1, 9, 0xf4},
      {INT64_MAX, 9, 0xf4},
      {INT64_MIN, 9, 0xf4},
  };
  Heap heap;
  for (const Case& c : cases) {
    CAPTURE(c.v);
    for (int as_text = 0; as_text < 2; ++as_text) {
      Listpack lp = Listpack::create(heap);
      const std::string text = std::to_string(c.v);
      const Pos p = as_text ? lp.append(heap, text) : lp.append(heap, c.v);
      CHECK(lp.bytes() == Listpack::kEmptyBytes + c.enc + 1);
      CHECK(lp.blob()[p] == c.first);
      const Listpack::Entry e = lp.get(p);
      CHECK(e.is_int);
      CHECK(e.i == c.v);
      CHECK(lp.get_int(p) == c.v);
      Listpack::IntBuf buf;
      CHECK(lp.get_str(p, buf) == text);
      CHECK(lp.equals(p, text));
      CHECK(lp.find(lp.first(), text) == p);
      CHECK(contents(lp, &heap) == std::vector<std::string>{text});
      lp.destroy(heap);
    }
  }
  CHECK(heap.used == 0);
}

TEST_CASE("listpack: integer encodings byte for byte as redis 7.0.15") {
  Heap heap;
  // RPUSH lint 0 127 128 -1 -4096 4095 4096 -4097 32767 32768 -32768 -32769 8388607 8388608
  //            -8388608 -8388609
  Listpack a =
      build(heap, {"0", "127", "128", "-1", "-4096", "4095", "4096", "-4097", "32767", "32768",
                   "-32768", "-32769", "8388607", "8388608", "-8388608", "-8388609"});
  CHECK(hex(a.span()) ==
        "47000000100000017f01c08002dfff02d00002cfff02f1001003f1ffef03f1ff7f03f200800004f1008003"
        "f2ff7fff04f2ffff7f04f30000800005f200008004f3ffff7fff05ff");
  // RPUSH lint2 2147483647 2147483648 -2147483648 -2147483649 9223372036854775807
  //             -9223372036854775808 9223372036854775808 -9223372036854775809
  Listpack b =
      build(heap, {"2147483647", "2147483648", "-2147483648", "-2147483649", "9223372036854775807",
                   "-9223372036854775808", "9223372036854775808", "-9223372036854775809"});
  CHECK(hex(b.span()) ==
        "660000000800f3ffffff7f05f4000000800000000009f30000008005f4ffffff7fffffffff09f4ffffffff"
        "ffffff7f09f4000000000000008009933932323333373230333638353437373538303814942d39323233"
        "33373230333638353437373538303915ff");
  a.destroy(heap);
  b.destroy(heap);
}

TEST_CASE("listpack: non-canonical integer strings stay strings, as redis 7.0.15") {
  Heap heap;
  // RPUSH lnc "+1" "01" "-0" " 1" "1 " "00" "-" "0x10" "1.0" "12345678901234567890" ""
  const std::vector<std::string> in = {
      "+1", "01", "-0", " 1", "1 ", "00", "-", "0x10", "1.0", "12345678901234567890", ""};
  Listpack lp = build(heap, in);
  CHECK(hex(lp.span()) ==
        "450000000b00822b310382303103822d3003822031038231200382303003812d0284307831300583312e"
        "3004943132333435363738393031323334353637383930158001ff");
  for (Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) CHECK_FALSE(lp.get(p).is_int);
  CHECK(contents(lp, &heap) == in);
  // A string entry is found by its bytes, never by its numeric value.
  CHECK(lp.find(lp.first(), "1") == Listpack::kNone);
  CHECK(lp.find(lp.first(), "01") == lp.seek(1));
  CHECK(lp.find(lp.first(), "") == lp.seek(10));
  lp.destroy(heap);

  Listpack ints = build(heap, {"-9223372036854775808", "9223372036854775807", "0", "-1"});
  for (Pos p = ints.first(); p != Listpack::kNone; p = ints.next(p)) CHECK(ints.get(p).is_int);
  // An integer entry matches only the canonical text of its value.
  CHECK(ints.find(ints.first(), "0") == ints.seek(2));
  CHECK(ints.find(ints.first(), "00") == Listpack::kNone);
  CHECK(ints.find(ints.first(), "-0") == Listpack::kNone);
  CHECK(ints.find(ints.first(), "+0") == Listpack::kNone);
  CHECK(ints.find(ints.first(), "-1") == ints.seek(3));
  CHECK_FALSE(ints.equals(ints.seek(3), " -1"));
  ints.destroy(heap);
}

TEST_CASE("listpack: string length classes 63/64 and 4095/4096 as redis 7.0.15") {
  Heap heap;
  // RPUSH lstr a <63 x 'x'> <64 x 'y'>
  Listpack lp = build(heap, {"a", std::string(63, 'x'), std::string(64, 'y')});
  // Fill the two runs: 63 bytes 'x' (0x78) and 64 bytes 'y' (0x79).
  std::string filled = "8e0000000300816102bf";
  for (int i = 0; i < 63; ++i) filled += "78";
  filled += "40e040";
  for (int i = 0; i < 64; ++i) filled += "79";
  filled += "42ff";
  CHECK(hex(lp.span()) == filled);
  CHECK(entry_hex(lp, lp.seek(0)) == "816102");
  lp.destroy(heap);

  // Boundaries of each class: the encoding bytes and backlen of each.
  struct Case {
    std::size_t len;
    std::string head;  // encoding bytes
    std::string back;  // backlen bytes
  };
  const Case cases[] = {
      {0, "80", "01"},
      {1, "81", "02"},
      {63, "bf", "40"},
      {64, "e040", "42"},
      {125, "e07d", "7f"},
      {126, "e07e", "0180"},
      {4095, "efff", "2081"},
      {4096, "f000100000", "2085"},
      {16377, "f0f93f0000", "7ffe"},    // 5 + 16377 = 16382: 2 bytes
      {16378, "f0fa3f0000", "00ffff"},  // 16383: 3 bytes (Redis's "<")
  };
  for (const Case& c : cases) {
    CAPTURE(c.len);
    Listpack one = Listpack::create(heap);
    const std::string s(c.len, 'q');
    const Pos p = one.append(heap, s);
    const std::string h = entry_hex(one, p);
    CHECK(h.substr(0, c.head.size()) == c.head);
    CHECK(h.substr(h.size() - c.back.size()) == c.back);
    CHECK(h.size() == c.head.size() + 2 * c.len + c.back.size());
    CHECK(one.get(p).str == s);
    CHECK(contents(one, &heap) == std::vector<std::string>{s});
    one.destroy(heap);
  }

  // RPUSH l4095 <4095 x 'a'>; RPUSH l4096 <4096 x 'b'>; RPUSH lbig <16378 x 'c'>;
  // RPUSH lbig2 <16377 x 'd'>: redis's head (16 bytes) and tail (16 bytes) of each listpack.
  struct Big {
    std::size_t len;
    char c;
    std::size_t total;
    std::string head, tail;
  };
  const Big bigs[] = {
      {4095, 'a', 4106, "0a1000000100efff6161616161616161", "616161616161616161616161612081ff"},
      {4096, 'b', 4110, "0e1000000100f0001000006262626262", "626262626262626262626262622085ff"},
      {16378, 'c', 16393, "094000000100f0fa3f00006363636363", "63636363636363636363636300ffffff"},
      {16377, 'd', 16391, "074000000100f0f93f00006464646464", "646464646464646464646464647ffeff"},
  };
  for (const Big& b : bigs) {
    CAPTURE(b.len);
    Listpack one = build(heap, {std::string(b.len, b.c)});
    const std::string h = hex(one.span());
    CHECK(one.bytes() == b.total);
    CHECK(h.substr(0, 32) == b.head);
    CHECK(h.substr(h.size() - 32) == b.tail);
    one.destroy(heap);
  }
  CHECK(heap.used == 0);
}

TEST_CASE("listpack: backlen bounds, including Redis's exclusive ones") {
  const std::uint64_t lens[] = {0,         1,         127,       128,           16382,
                                16383,     16384,     2097150,   2097151,       2097152,
                                268435454, 268435455, 268435456, 0xFFFFFFFFull, 0xFFFFFFFFull + 5};
  const std::size_t sizes[] = {1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 5};
  for (std::size_t i = 0; i < std::size(lens); ++i) {
    CAPTURE(lens[i]);
    CHECK(lpd::backlen_size(lens[i]) == sizes[i]);
    std::uint8_t b[5];
    lpd::encode_backlen(b, lens[i]);
    CHECK((b[0] & 0x80) == 0);
    for (std::size_t j = 1; j < sizes[i]; ++j) CHECK((b[j] & 0x80) != 0);
    CHECK(lpd::decode_backlen(b + sizes[i] - 1) == lens[i]);
  }
  const std::uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
  CHECK(lpd::decode_backlen(six + 5) == UINT64_MAX);
}

TEST_CASE("listpack: a huge member (1 MiB and one with a 4-byte backlen)") {
  Heap heap;
  std::string mib(1 << 20, 'm');
  for (std::size_t i = 0; i < mib.size(); i += 4096) mib[i] = static_cast<char>('a' + i % 26);
  const std::string big4(2097146, 'z');  // 5 + 2097146 = 2097151: backlen 4 bytes
  Listpack lp = Listpack::create(heap);
  lp.append(heap, "head");
  lp.append(heap, mib);
  lp.append(heap, 7);
  lp.prepend(heap, big4);
  CHECK(contents(lp, &heap) == std::vector<std::string>{big4, "head", mib, "7"});
  CHECK(lp.bytes() == 7 + (5 + big4.size() + 4) + 6 + (5 + mib.size() + 3) + 2);
  CHECK(lp.get(lp.seek(2)).str == mib);
  CHECK(lp.find(lp.first(), mib) == lp.seek(2));
  // Replace it with a small value and back: the blob shrinks to a smaller block.
  const std::size_t before = lp.alloc_size();
  lp.replace(heap, lp.seek(2), "small");
  lp.erase(heap, lp.first());
  CHECK(lp.alloc_size() < before / 2);
  CHECK(contents(lp, &heap) == std::vector<std::string>{"head", "small", "7"});
  // A value read from the listpack itself can be written back into it.
  Pos p = lp.seek(1);
  lp.replace(heap, p, mib);
  const Listpack::Entry e = lp.get(lp.seek(1));
  lp.insert(heap, lp.seek(0), Listpack::Where::kBefore, e.str);
  CHECK(contents(lp, &heap) == std::vector<std::string>{mib, "head", mib, "7"});
  lp.destroy(heap);
  CHECK(heap.used == 0);
}

TEST_CASE("listpack: insert, replace and delete at head, middle and tail") {
  Heap heap;
  Listpack lp = build(heap, {"b", "d"});
  lp.prepend(heap, "a");
  Pos p = lp.insert(heap, lp.seek(1), Listpack::Where::kAfter, "c");
  CHECK(lp.get(p).str == "c");
  p = lp.insert(heap, lp.last(), Listpack::Where::kAfter, "e");
  CHECK(p == lp.last());
  p = lp.insert(heap, lp.first(), Listpack::Where::kBefore, "0");
  CHECK(p == lp.first());
  CHECK(contents(lp, &heap) == std::vector<std::string>{"0", "a", "b", "c", "d", "e"});

  // Replace grows, shrinks and changes the kind of an entry; the count does not change.
  lp.replace(heap, lp.seek(0), std::string(100, 'x'));
  lp.replace(heap, lp.seek(3), "-12345");
  lp.replace(heap, lp.seek(-1), "E");
  CHECK(lp.get(lp.seek(3)).is_int);
  CHECK(contents(lp, &heap) ==
        std::vector<std::string>{std::string(100, 'x'), "a", "b", "-12345", "d", "E"});
  lp.replace(heap, lp.seek(0), "0");
  CHECK(lp.count() == 6);

  // erase returns the next entry, kNone after the last.
  p = lp.erase(heap, lp.seek(2));
  CHECK(lp.get(p).i == -12345);
  CHECK(lp.erase(heap, lp.last()) == Listpack::kNone);
  p = lp.erase(heap, lp.first());
  CHECK(lp.get(p).str == "a");
  CHECK(contents(lp, &heap) == std::vector<std::string>{"a", "-12345", "d"});

  // Ranges: from the middle past the end, negative index, n = 0, out of range.
  Heap heap2;
  Listpack r = build(heap2, {"1", "2", "3", "4", "5", "6", "7"});
  r.erase_range(heap2, 2, 0);
  r.erase_range(heap2, 7, 1);
  r.erase_range(heap2, -8, 1);
  CHECK(r.count() == 7);
  r.erase_range(heap2, 1, 2);
  CHECK(contents(r, &heap2) == std::vector<std::string>{"1", "4", "5", "6", "7"});
  r.erase_range(heap2, -2, 100);
  CHECK(contents(r, &heap2) == std::vector<std::string>{"1", "4", "5"});
  CHECK(r.erase(heap2, r.seek(1), 5) == Listpack::kNone);
  CHECK(contents(r, &heap2) == std::vector<std::string>{"1"});
  r.erase_range(heap2, 0, 1);
  CHECK(hex(r.span()) == "070000000000ff");
  lp.destroy(heap);
  r.destroy(heap2);
  CHECK(heap2.used == 0);
  CHECK(heap.used == 0);
}

TEST_CASE("listpack: walking and seeking, negative indexes, every size up to 12") {
  Heap heap;
  for (int n = 0; n <= 12; ++n) {
    std::vector<std::string> items;
    for (int i = 0; i < n; ++i)
      items.push_back(i % 3 == 0 ? std::to_string(i * 1000) : "s" + std::to_string(i));
    Listpack lp = build(heap, items);
    CHECK(contents(lp, &heap) == items);
    Listpack::IntBuf buf;
    for (int idx = -n - 2; idx <= n + 2; ++idx) {
      CAPTURE(n);
      CAPTURE(idx);
      const Pos p = lp.seek(idx);
      const int norm = idx < 0 ? idx + n : idx;
      if (norm < 0 || norm >= n) {
        CHECK(p == Listpack::kNone);
      } else {
        REQUIRE(p != Listpack::kNone);
        CHECK(lp.get_str(p, buf) == items[norm]);
      }
    }
    lp.destroy(heap);
  }
}

TEST_CASE("listpack: find compares every (skip + 1)-th entry") {
  Heap heap;
  // A field/value listpack whose values look like its fields.
  // HSET h name ruvio n 42 neg -7 big 1234567890123 (redis 7.0.15, type 16)
  Listpack h = build(heap, {"name", "ruvio", "n", "42", "neg", "-7", "big", "1234567890123"});
  CHECK(hex(h.span()) ==
        "300000000800846e616d650585727576696f06816e022a01836e656704dff9028362696704f4cb04fb71"
        "1f01000009ff");
  CHECK(h.find(h.first(), "neg", 1) == h.seek(4));
  CHECK(h.find(h.first(), "ruvio", 1) == Listpack::kNone);  // a value, not a field
  CHECK(h.find(h.first(), "ruvio", 0) == h.seek(1));
  CHECK(h.find(h.seek(1), "42", 1) == h.seek(3));  // values start at 1
  CHECK(h.find(h.first(), "42", 1) == Listpack::kNone);
  CHECK(h.find(h.seek(1), "1234567890123", 1) == h.seek(7));
  CHECK(h.find(h.first(), "neg", 2) == Listpack::kNone);  // visits 0, 3, 6
  CHECK(h.find(h.first(), "big", 5) == h.seek(6));
  CHECK(h.find(Listpack::kNone, "name") == Listpack::kNone);
  h.destroy(heap);

  // ZADD z 1 a 2.5 b -3 c 1e20 d (redis 7.0.15, type 17): member, score, by score.
  Listpack z = build(heap, {"c", "-3", "a", "1", "b", "2.5", "d", "1e+20"});
  CHECK(hex(z.span()) ==
        "240000000800816302dffd02816102010181620283322e35048164028531652b323006ff");
  z.destroy(heap);
}

TEST_CASE("listpack: the 65535-count boundary") {
  Heap heap;
  Listpack lp = Listpack::create(heap);
  auto header = [&] { return lp.blob()[4] | lp.blob()[5] << 8; };
  for (int i = 0; i < 65534; ++i) lp.append(heap, i);
  CHECK(header() == 65534);
  CHECK(lp.count() == 65534);
  lp.append(heap, "x");
  CHECK(header() == 65535);  // unknown from here on
  CHECK(lp.count() == 65535);
  CHECK(header() == 65535);  // 65535 cannot be stored: it still means unknown
  lp.prepend(heap, "y");
  CHECK(header() == 65535);
  CHECK(lp.count() == 65536);
  CHECK(Listpack::validate(lp.span()));
  // Seeking with an unknown count walks from the end for negative indexes.
  CHECK(lp.get(lp.seek(0)).str == "y");
  CHECK(lp.get(lp.seek(-1)).str == "x");
  CHECK(lp.get(lp.seek(-2)).i == 65533);
  CHECK(lp.get(lp.seek(65534)).i == 65533);
  CHECK(lp.seek(65536) == Listpack::kNone);
  CHECK(lp.seek(-65537) == Listpack::kNone);
  CHECK(lp.get(lp.seek(-65536)).str == "y");
  // Deleting leaves the header unknown until count() walks and finds it fits again.
  lp.erase(heap, lp.first());
  CHECK(header() == 65535);
  lp.erase_range(heap, -1, 1);
  CHECK(header() == 65535);
  CHECK(lp.count() == 65534);
  CHECK(header() == 65534);
  lp.append(heap, 1);
  CHECK(header() == 65535);
  // A header that disagrees with the entries is refused; 65535 is accepted for any count.
  std::vector<std::uint8_t> copy(lp.span().begin(), lp.span().end());
  copy[4] = 0xfe;
  CHECK_FALSE(Listpack::validate(copy));
  std::size_t n = 0;
  CHECK(Listpack::validate(lp.span(), &n));
  CHECK(n == 65535);
  lp.destroy(heap);

  // Redis 7.0.15 with CONFIG SET hash-max-listpack-entries 100000, HSET key f<i> <i*37-500000>
  // for i in 0..pairs-1: total bytes, header and FNV-1a 64 of the whole listpack.
  struct Case {
    int pairs;
    std::size_t total;
    const char* head;
    std::uint64_t fnv;
  };
  const Case cases[] = {{32767, 412871, "c74c0600feff", 0xe215293186171465ull},
                        {32768, 412884, "d44c0600ffff", 0x27cba14c26274b02ull}};
  for (const Case& c : cases) {
    CAPTURE(c.pairs);
    Listpack h = Listpack::create(heap);
    for (int i = 0; i < c.pairs; ++i) {
      h.append(heap, "f" + std::to_string(i));
      h.append(heap, std::to_string(std::int64_t{i} * 37 - 500000));
    }
    CHECK(h.bytes() == c.total);
    CHECK(hex(h.span().subspan(0, 6)) == c.head);
    CHECK(fnv1a(h.span()) == c.fnv);
    if (c.pairs == 32768) {
      // HDEL key f32767 (redis counts after the delete: the header is 65534 again, and the
      // blob is the 32767-pair one).
      h.erase(heap, h.find(h.first(), "f32767", 1), 2);
      CHECK(h.count() == 65534);
      CHECK(fnv1a(h.span()) == 0xe215293186171465ull);
    }
    h.destroy(heap);
  }
  CHECK(heap.used == 0);
}

TEST_CASE("listpack: randomized operations against a vector model") {
  Heap heap;
  std::mt19937_64 rng(20261201);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::vector<std::string> specials = {"0",
                                             "127",
                                             "128",
                                             "-4096",
                                             "4095",
                                             "4096",
                                             "-1",
                                             "+1",
                                             "01",
                                             "-0",
                                             " 1",
                                             "",
                                             "9223372036854775807",
                                             "-9223372036854775808",
                                             "9223372036854775808",
                                             "32767",
                                             "-32769"};
  auto value = [&]() -> std::string {
    switch (pick(6)) {
      case 0:
        return specials[pick(specials.size())];
      case 1:
        return std::to_string(static_cast<std::int64_t>(rng()) >> pick(64));
      case 2:
        return std::string(pick(70), static_cast<char>('a' + pick(26)));
      case 3:
        return std::string(60 + pick(10), 'm');  // around the 63/64 line
      case 4:
        return pick(20) == 0 ? std::string(4090 + pick(12), 'L') : std::string(pick(5), 'k');
      default: {
        std::string s(pick(20), '\0');
        for (char& c : s) c = static_cast<char>(rng());
        return s;
      }
    }
  };
  auto canon = [](const std::string& s) {
    std::int64_t v;
    return ruvio::containers::parse_canonical_int(s, &v) ? std::to_string(v) : s;
  };
  Listpack lp = Listpack::create(heap);
  std::vector<std::string> model;
  for (int op = 0; op < 4000; ++op) {
    CAPTURE(op);
    const std::size_t n = model.size();
    const std::size_t kind = pick(n > 60 ? 10 : 7);
    if (kind == 0 || kind >= 7) {
      if (n == 0) continue;
      if (pick(2) == 0) {
        const std::size_t i = pick(n);
        lp.erase(heap, lp.seek(static_cast<std::int64_t>(i)));
        model.erase(model.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        const std::int64_t i =
            static_cast<std::int64_t>(pick(n + 2)) - static_cast<std::int64_t>(n);
        const std::size_t cnt = pick(6);
        lp.erase_range(heap, i, cnt);
        const std::int64_t at = i < 0 ? i + static_cast<std::int64_t>(n) : i;
        if (cnt > 0 && at >= 0 && at < static_cast<std::int64_t>(n)) {
          const std::size_t end = std::min(n, static_cast<std::size_t>(at) + cnt);
          model.erase(model.begin() + at, model.begin() + static_cast<std::ptrdiff_t>(end));
        }
      }
    } else if (kind == 1) {
      const std::string v = value();
      lp.append(heap, v);
      model.push_back(v);
    } else if (kind == 2) {
      const std::string v = value();
      lp.prepend(heap, v);
      model.insert(model.begin(), v);
    } else if (kind == 3 && n > 0) {
      const std::size_t i = pick(n);
      const bool after = pick(2) == 0;
      const std::string v = value();
      const Pos p = lp.insert(heap, lp.seek(static_cast<std::int64_t>(i)),
                              after ? Listpack::Where::kAfter : Listpack::Where::kBefore, v);
      model.insert(model.begin() + static_cast<std::ptrdiff_t>(i + (after ? 1 : 0)), v);
      Listpack::IntBuf buf;
      CHECK(lp.get_str(p, buf) == canon(v));
    } else if (kind == 4 && n > 0) {
      const std::size_t i = pick(n);
      const std::string v = pick(3) == 0 ? std::to_string(rng() % 100000) : value();
      const auto from_end = static_cast<std::int64_t>(i) - static_cast<std::int64_t>(n);
      lp.replace(heap, lp.seek(pick(2) == 0 ? static_cast<std::int64_t>(i) : from_end), v);
      model[i] = v;
    } else if (kind == 5 && n > 0) {
      const std::string v = model[pick(n)];
      const Pos p = lp.find(lp.first(), v);
      std::size_t want = 0;
      while (model[want] != v) ++want;  // canonical text is unique, so equal entries are equal text
      CHECK(p == lp.seek(static_cast<std::int64_t>(want)));
    } else if (kind == 6) {
      const std::string v = value();
      const Pos p = lp.find(lp.first(), v);
      const bool in =
          std::any_of(model.begin(), model.end(), [&](const std::string& m) { return m == v; });
      CHECK((p != Listpack::kNone) == in);
    }
    if (op % 97 == 0 || lp.count() != model.size()) {
      std::vector<std::string> want;
      for (const auto& m : model) want.push_back(canon(m));
      REQUIRE(contents(lp, &heap) == want);
    }
  }
  std::vector<std::string> want;
  for (const auto& m : model) want.push_back(canon(m));
  CHECK(contents(lp, &heap) == want);
  Listpack copy = lp.clone(heap);
  CHECK(hex(copy.span()) == hex(lp.span()));
  copy.destroy(heap);
  lp.destroy(heap);
  CHECK(heap.used == 0);
}

namespace {

// A blob that uses every encoding and every string class but the 32-bit one twice.
std::vector<std::uint8_t> sample_blob(Heap& heap) {
  Listpack lp =
      build(heap, {"a", "0", "127", "128", "-4096", "4096", "-40000", "8388608", "-2147483649",
                   std::string(64, 'x'), std::string(200, 'y'), "", std::string(4096, 'z'), "-1"});
  std::vector<std::uint8_t> out(lp.span().begin(), lp.span().end());
  lp.destroy(heap);
  return out;
}

// Validates an exact-size heap copy (so a read past the end is an ASan error) and, when it
// passes, walks it every way a caller may.
bool validate_and_walk(const std::vector<std::uint8_t>& bytes,
                       std::vector<Pos>* positions = nullptr) {
  std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[bytes.size()]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  std::size_t n = 0;
  if (!Listpack::validate({exact.get(), bytes.size()}, &n)) return false;
  const Listpack lp(exact.get());
  std::vector<Pos> fwd;
  Listpack::IntBuf buf;
  for (Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) {
    (void)lp.get_str(p, buf);
    fwd.push_back(p);
  }
  std::vector<Pos> back;
  for (Pos p = lp.last(); p != Listpack::kNone; p = lp.prev(p)) back.push_back(p);
  std::reverse(back.begin(), back.end());
  CHECK(fwd.size() == n);
  CHECK(back == fwd);
  if (positions != nullptr) *positions = fwd;
  return true;
}

}  // namespace

TEST_CASE("listpack: validation refuses truncated and corrupted blobs at every byte") {
  Heap heap;
  const std::vector<std::uint8_t> good = sample_blob(heap);
  std::vector<Pos> framing;
  REQUIRE(validate_and_walk(good, &framing));

  // Truncated at every length, raw and with the header total and terminator patched up.
  for (std::size_t len = 0; len < good.size(); ++len) {
    CAPTURE(len);
    std::vector<std::uint8_t> t(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len));
    CHECK_FALSE(validate_and_walk(t));
    if (len >= 7) {
      const auto l = static_cast<std::uint32_t>(len);
      t[0] = static_cast<std::uint8_t>(l);
      t[1] = static_cast<std::uint8_t>(l >> 8);
      t[2] = static_cast<std::uint8_t>(l >> 16);
      t[3] = static_cast<std::uint8_t>(l >> 24);
      t[len - 1] = 0xFF;
      validate_and_walk(t);  // may pass only if what is left is a listpack; never reads out
    }
  }
  // Every byte replaced by values that matter to the decoder.
  const std::uint8_t repl[] = {0x00, 0x01, 0x3f, 0x7f, 0x80, 0xbf, 0xc0, 0xdf,
                               0xe0, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xfe, 0xff};
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (std::uint8_t r : repl) {
      if (good[i] == r) continue;
      std::vector<std::uint8_t> c = good;
      c[i] = r;
      std::vector<Pos> got;
      if (validate_and_walk(c, &got)) {
        // Only a value may change and stay valid, never where the entries lie.
        CHECK(got == framing);
        ++accepted;
      }
    }
    std::vector<std::uint8_t> c = good;
    c[i] ^= 0x80;
    validate_and_walk(c);
  }
  CHECK(accepted > 0);  // bytes inside string data are free

  // Specific refusals.
  auto patched = [&](std::size_t at, std::uint8_t v) {
    std::vector<std::uint8_t> c = good;
    c[at] = v;
    return c;
  };
  CHECK_FALSE(validate_and_walk(patched(4, 13)));    // count off by one
  CHECK_FALSE(validate_and_walk(patched(4, 0xff)));  // count 255
  std::vector<std::uint8_t> unknown = good;
  unknown[4] = 0xff;
  unknown[5] = 0xff;
  CHECK(validate_and_walk(unknown));                            // 65535: count unknown
  CHECK_FALSE(validate_and_walk(patched(6, 0xf5)));             // unused encoding
  CHECK_FALSE(validate_and_walk(patched(6, 0xff)));             // terminator in the middle
  CHECK_FALSE(validate_and_walk(patched(8, 0x03)));             // "a"'s backlen says 3
  CHECK_FALSE(validate_and_walk(patched(good.size() - 1, 0)));  // no terminator
  std::vector<std::uint8_t> longer = good;
  longer.push_back(0xff);
  CHECK_FALSE(validate_and_walk(longer));  // total bytes differs from the size
  CHECK(validate_and_walk(unhex("070000000000ff")));
  CHECK_FALSE(validate_and_walk(unhex("070000000100ff")));  // count 1, no entry
  CHECK_FALSE(validate_and_walk(unhex("0600000000ff")));
  // An entry claiming more bytes than there are (32-bit string of 2^32 - 1 bytes).
  CHECK_FALSE(validate_and_walk(unhex("0d0000000100f0ffffffff01ff")));
  // Wider-than-needed classes are readable, as redis accepts them: 5 as a 64-bit integer, "a"
  // as a 12-bit string.
  CHECK(validate_and_walk(unhex("110000000100f4050000000000000009ff")));
  CHECK(validate_and_walk(unhex("0b0000000100e0016103ff")));

  // load() copies only valid bytes.
  CHECK_FALSE(Listpack::load(heap, patched(6, 0xf5)).has_value());
  auto loaded = Listpack::load(heap, good);
  REQUIRE(loaded.has_value());
  CHECK(contents(*loaded, &heap).size() == 14);
  loaded->destroy(heap);
  CHECK(heap.used == 0);
}
