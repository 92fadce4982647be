// The RDB primitives and value codec (worker/persist/rdb_io.hpp, rdb_value.hpp): Redis's
// crc64 check value, the length and string forms as 7.0 writes them (bytes pinned from
// redis-server 7.0.15's DUMP), bounds-checked reads, and value round trips.
#include <doctest/doctest.h>
#include <lzf.h>

#include <string>

#include "tests/unit/hex_bytes.hpp"
#include "worker/persist/crc64.hpp"
#include "worker/persist/lzf_fast.hpp"
#include "worker/persist/rdb_io.hpp"
#include "worker/persist/rdb_value.hpp"
#include "worker/store/db.hpp"
#include "worker/types/value.hpp"

using namespace ruvio;
using namespace ruvio::persist;

TEST_CASE("crc64 is Redis's jones variant") {
  CHECK(crc64(0, "123456789") == 0xe9c6d914c4b8d9caull);
  CHECK(crc64(crc64(0, "1234"), "56789") == 0xe9c6d914c4b8d9caull);
  CHECK(crc64(0, "") == 0);
  // The hand-written slice-by-8 code's value for 1000 bytes of i * 7 (printed before the
  // switch to ISA-L).
  std::string long_text(1000, 'x');
  for (std::size_t i = 0; i < long_text.size(); ++i) long_text[i] = static_cast<char>(i * 7);
  CHECK(crc64(0, long_text) == 0xcdcc79daf2814cabull);
}

TEST_CASE("crc64 matches the footer of redis-server 7.0.15's DUMP payloads") {
  // DUMP of SET greeting "hello, ruvio" and of RPUSH l a b c (a listpack quicklist).
  for (const char* h : {"000c68656c6c6f2c20727576696f0a0019fecc5762c8e705",
                        "12010210100000000300816102816202816302ff0a00c818b90c9533529e"}) {
    const auto b = ruvio::testing::unhex(h);
    const std::string payload(b.begin(), b.end());
    std::uint64_t footer = 0;
    for (int i = 7; i >= 0; --i)
      footer = footer << 8 | b[b.size() - 8 + static_cast<std::size_t>(i)];
    CHECK(crc64(0, std::string_view(payload).substr(0, payload.size() - 8)) == footer);
  }
}

TEST_CASE("crc64 slice-by-8 agrees with the bitwise definition at every length and split") {
  // The definition, one bit at a time (reflected 0xad93d23594c935a9).
  auto bitwise = [](std::uint64_t crc, std::string_view s) {
    for (unsigned char b : s) {
      crc ^= b;
      for (int k = 0; k < 8; ++k)
        crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ull : crc >> 1;
    }
    return crc;
  };
  std::string data;
  std::uint32_t x = 12345;
  for (int i = 0; i < 300; ++i) {
    x = x * 1103515245u + 12345u;
    data.push_back(static_cast<char>(x >> 16));
  }
  for (std::size_t n = 0; n <= data.size(); n += 7) {
    const std::string_view s(data.data(), n);
    CHECK(crc64(0, s) == bitwise(0, s));
    const std::size_t cut = n / 3;
    CHECK(crc64(crc64(0, s.substr(0, cut)), s.substr(cut)) == bitwise(0, s));
  }
}

TEST_CASE("lengths and strings in 7.0's forms") {
  std::string out;
  rdb::put_len(out, 63);
  rdb::put_len(out, 64);
  rdb::put_len(out, 16384);
  CHECK(out == std::string("\x3f\x40\x40\x80\x00\x00\x40\x00", 8));
  out.clear();
  rdb::put_string(out, "12345");  // int16 form
  rdb::put_string(out, "-1");     // int8
  rdb::put_string(out, "01");     // not canonical: verbatim
  rdb::put_int_string(out, 1ll << 40);
  CHECK(out == std::string("\xc1\x39\x30\xc0\xff\x02"
                           "01\x0d"
                           "1099511627776",
                           22));
  out.clear();
  rdb::put_string(out, std::string(50, 'a'));  // LZF: shorter than verbatim
  CHECK(static_cast<unsigned char>(out[0]) == 0xC3);
  rdb::Reader r(out);
  std::string back;
  REQUIRE(r.string(back));
  CHECK(back == std::string(50, 'a'));
  CHECK(r.done());
}

TEST_CASE("reads never pass the end") {
  std::string s;
  rdb::Reader r1(
      std::string_view("\x05"
                       "abc",
                       4));
  CHECK_FALSE(r1.string(s));
  rdb::Reader r2(std::string_view("\x80\x00", 2));
  std::uint64_t n = 0;
  CHECK_FALSE(r2.len(n));
  rdb::Reader r3(std::string_view("\xc3\x05\x40\x00", 4));  // LZF body missing
  CHECK_FALSE(r3.string(s));
  rdb::Reader r4(std::string_view("\xc3\x01\x7f\xff\x41", 5));  // claims 16 KB from 1 byte
  CHECK_FALSE(r4.string(s));
}

TEST_CASE("a string and a list round-trip through DUMP's payload") {
  types::register_builtin_types();
  store::Db db;
  db.set_string("s", "hello", {});
  std::string p;
  REQUIRE(rdb::dump_payload(db.peek("s"), 0, p));
  CHECK(p == std::string("\x00\x05hello\x0a\x00"
                         "cr\xdf"
                         "ve4 \x0a",
                         17));  // redis-server's
  CHECK(rdb::verify_payload(p));
  p[3] ^= 1;
  CHECK_FALSE(rdb::verify_payload(p));
  const std::string list(
      "\x12\x01\x02\x0f\x0f\x00\x00\x00\x03\x00\x81"
      "a\x02\x81"
      "b\x02\x01\x01\xff"
      "\x0a\x00\xe0\x1b\xab"
      "JG\xce"
      "Y\"",
      29);  // RPUSH l a b 1
  REQUIRE(rdb::verify_payload(list));
  rdb::Loaded v;
  REQUIRE(rdb::decode_value(db.heap(), list, rdb::BuildLimits{}, v));
  REQUIRE(v.obj != nullptr);
  db.set_object("l", v.obj, {});
  std::string again;
  REQUIRE(rdb::dump_payload(db.peek("l"), 0, again));
  CHECK(again == list);
}

TEST_CASE("lzf_decompress_fast gives liblzf's output and sizes, and refuses what it refuses") {
  std::uint32_t x = 7;
  auto rnd = [&] { return x = x * 1103515245u + 12345u, x >> 16; };
  for (int round = 0; round < 300; ++round) {
    // Compressible text of short repeats (a list's listpack looks so) and random bytes.
    std::string raw;
    const std::size_t n = 1 + rnd() % 3000;
    while (raw.size() < n) {
      if (rnd() % 16 == 0) {  // a run: references overlapping their output (distance 1)
        raw.append(rnd() % 400, static_cast<char>('a' + rnd() % 3));
      } else if (rnd() % 4 == 0) {
        raw.push_back(static_cast<char>(rnd()));
      } else {
        raw += "e" + std::to_string(rnd() % (round + 2));
      }
    }
    std::string packed(raw.size() + 64, '\0');
    const unsigned clen = lzf_compress(raw.data(), static_cast<unsigned>(raw.size()), packed.data(),
                                       static_cast<unsigned>(packed.size()));
    REQUIRE(clen > 0);
    packed.resize(clen);
    std::string got(raw.size(), '\0');
    CHECK(lzf_decompress_fast(packed.data(), clen, got.data(), got.size()) == raw.size());
    CHECK(got == raw);
    // Cut short, corrupted or into a too small buffer: the same size as liblzf's (0 or not).
    for (int k = 0; k < 4; ++k) {
      std::string bad = packed;
      if (k == 0) bad.resize(bad.size() / 2);
      if (k >= 1) bad[rnd() % bad.size()] = static_cast<char>(rnd());
      const std::size_t room = k == 3 ? raw.size() / 2 : raw.size();
      std::string a(room + 1, '\0'), b(room + 1, '\0');
      const unsigned want = lzf_decompress(bad.data(), static_cast<unsigned>(bad.size()), a.data(),
                                           static_cast<unsigned>(room));
      const std::size_t have = lzf_decompress_fast(bad.data(), bad.size(), b.data(), room);
      CHECK(have == want);
      if (want != 0) CHECK(a.compare(0, want, b, 0, want) == 0);
    }
  }
}

TEST_CASE("lzf_decompress_fast: a back reference at every distance below 33 and every length") {
  // Hand-made streams: a literal run of `dist` bytes, then a reference `dist` back of `len`
  // bytes (overlapping its own output when len > dist), with and without 40 literal runs
  // after it (which put the reference in the unchecked fast loop instead of the tail).
  const auto literal = [](std::string& z, std::string_view bytes) {
    z.push_back(static_cast<char>(bytes.size() - 1));
    z += bytes;
  };
  std::string pad(32, '\0');
  for (std::size_t i = 0; i < pad.size(); ++i) pad[i] = static_cast<char>('A' + i);
  for (std::size_t dist = 1; dist <= 32; ++dist) {
    for (std::size_t len = 3; len <= 264; ++len) {
      for (const int after : {0, 40}) {
        std::string z;
        literal(z, pad.substr(0, dist));
        const std::size_t l = len - 2, d = dist - 1;
        if (l < 7) {
          z.push_back(static_cast<char>(l << 5 | d >> 8));
        } else {
          z.push_back(static_cast<char>(7 << 5 | d >> 8));
          z.push_back(static_cast<char>(l - 7));
        }
        z.push_back(static_cast<char>(d & 0xff));
        for (int k = 0; k < after; ++k) literal(z, pad);
        const std::size_t raw = dist + len + static_cast<std::size_t>(after) * 32;
        std::string want(raw, '\0'), got(raw, '\0');
        REQUIRE(lzf_decompress(z.data(), static_cast<unsigned>(z.size()), want.data(),
                               static_cast<unsigned>(raw)) == raw);
        REQUIRE(lzf_decompress_fast(z.data(), z.size(), got.data(), raw) == raw);
        REQUIRE_MESSAGE(got == want, "dist " << dist << " len " << len << " after " << after);
      }
    }
  }
}
