// Bitmaps, BITFIELD arithmetic, the HLL encodings and the string write handle, at their
// boundaries: every width and unaligned offset against a bit-by-bit model; overflow at the
// limits in WRAP/SAT/FAIL; HLL registers 0..3 and 16383 (the last one's byte has no
// successor), the sparse opcodes of Redis's own bytes (PFADD h a b c on redis-server 7.0.15
// decodes "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"), promotion to dense by value (> 32)
// and by size (hll-sparse-max-bytes), corrupt run lengths; StringHandle growth across the
// 1 KiB embedded-string limit, integer-encoded strings edited as text, one mutation counted;
// a sparse HLL kept in its record up to 3 KiB (record.hpp, kEmbedHllMax), a dense one not.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "worker/store/db.hpp"
#include "worker/store/record.hpp"
#include "worker/types/bitmap/bitmap.hpp"
#include "worker/types/hll/hll.hpp"

namespace bm = ruvio::types::bitmap;
namespace hll = ruvio::types::hll;
using ruvio::store::Db;
using ruvio::store::Enc;
using ruvio::store::Entry;

namespace {

int bit_at(const std::vector<std::uint8_t>& b, std::uint64_t i) {
  return (b[i >> 3] >> (7 - (i & 7))) & 1;
}

std::uint64_t model_get(const std::vector<std::uint8_t>& b, std::uint64_t off, unsigned bits) {
  std::uint64_t v = 0;
  for (unsigned j = 0; j < bits; ++j) v = (v << 1) | static_cast<std::uint64_t>(bit_at(b, off + j));
  return v;
}

}  // namespace

TEST_CASE("bitmap: popcount and first_bit against a bit loop") {
  std::mt19937_64 rng(7);
  for (std::size_t n = 0; n < 80; ++n) {
    std::vector<std::uint8_t> b(n);
    for (auto& c : b) c = static_cast<std::uint8_t>(rng() & (rng() & 1 ? 0xff : 0x01));
    std::uint64_t want = 0;
    for (std::size_t i = 0; i < n * 8; ++i) want += static_cast<std::uint64_t>(bit_at(b, i));
    CHECK(bm::popcount(b.data(), n) == want);
    for (int bit = 0; bit <= 1; ++bit) {
      std::int64_t first = bit ? -1 : static_cast<std::int64_t>(n * 8);
      for (std::size_t i = 0; i < n * 8; ++i) {
        if (bit_at(b, i) == bit) {
          first = static_cast<std::int64_t>(i);
          break;
        }
      }
      CHECK(bm::first_bit(b.data(), n, bit) == first);
    }
  }
  std::vector<std::uint8_t> ones(24, 0xff);
  CHECK(bm::first_bit(ones.data(), ones.size(), 0) == 24 * 8);  // zero padding past the end
  CHECK(bm::first_bit(ones.data(), 0, 1) == -1);
}

TEST_CASE("bitmap: every width at unaligned offsets round-trips and leaves neighbours") {
  std::mt19937_64 rng(11);
  for (unsigned bits = 1; bits <= 64; ++bits) {
    for (std::uint64_t off = 0; off < 18; ++off) {
      std::vector<std::uint8_t> b(12);
      for (auto& c : b) c = static_cast<std::uint8_t>(rng());
      const std::vector<std::uint8_t> before = b;
      const std::uint64_t v = rng();
      bm::set_bits(b.data(), off, bits, v);
      const std::uint64_t mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
      CHECK(model_get(b, off, bits) == (v & mask));
      CHECK(bm::get_unsigned(b.data(), off, bits) == (v & mask));
      const auto s = bm::get_signed(b.data(), off, bits);
      const bool neg = ((v & mask) >> (bits - 1)) & 1;
      CHECK((s < 0) == neg);
      for (std::uint64_t i = 0; i < b.size() * 8; ++i) {
        if (i < off || i >= off + bits) CHECK(bit_at(b, i) == bit_at(before, i));
      }
    }
  }
}

TEST_CASE("bitmap: overflow at the limits") {
  std::uint64_t u = 0;
  CHECK(bm::check_unsigned(250, 10, 8, bm::Overflow::kWrap, &u) == 1);
  CHECK(u == 4);
  CHECK(bm::check_unsigned(250, 10, 8, bm::Overflow::kSat, &u) == 1);
  CHECK(u == 255);
  CHECK(bm::check_unsigned(5, -10, 8, bm::Overflow::kSat, &u) == -1);
  CHECK(u == 0);
  CHECK(bm::check_unsigned(5, -5, 8, bm::Overflow::kFail, &u) == 0);
  CHECK(bm::check_unsigned(static_cast<std::uint64_t>(-1), 0, 63, bm::Overflow::kSat, &u) == 1);
  CHECK(u == (1ULL << 63) - 1);
  std::int64_t s = 0;
  CHECK(bm::check_signed(127, 1, 8, bm::Overflow::kWrap, &s) == 1);
  CHECK(s == -128);
  CHECK(bm::check_signed(-128, -1, 8, bm::Overflow::kSat, &s) == -1);
  CHECK(s == -128);
  CHECK(bm::check_signed(INT64_MAX, 1, 64, bm::Overflow::kWrap, &s) == 1);
  CHECK(s == INT64_MIN);
  CHECK(bm::check_signed(INT64_MIN, -1, 64, bm::Overflow::kSat, &s) == -1);
  CHECK(s == INT64_MIN);
  CHECK(bm::check_signed(-5, 3, 4, bm::Overflow::kFail, &s) == 0);
  CHECK(bm::check_signed(200, 0, 8, bm::Overflow::kWrap, &s) == 1);  // SET i8 200
  CHECK(s == -56);
}

TEST_CASE("hll: registers 0..3 and the last one keep their neighbours") {
  std::string d(hll::kDenseBytes, '\0');
  for (std::size_t r : {0u, 1u, 2u, 3u, 16382u, 16383u}) {
    CHECK(hll::dense_set(d.data(), r, 63));
    CHECK_FALSE(hll::dense_set(d.data(), r, 63));
    CHECK(hll::dense_get(d.data(), r) == 63);
  }
  for (std::size_t r : {4u, 5u, 16381u}) CHECK(hll::dense_get(d.data(), r) == 0);
}

TEST_CASE("hll: sparse bytes match redis-server's for PFADD a b c") {
  std::string s;
  hll::make_empty(s);
  CHECK(s.size() == 18);
  CHECK(s.substr(0, 5) == std::string("HYLL\x01", 5));
  CHECK(static_cast<unsigned char>(s[16]) == 0x7f);
  CHECK(static_cast<unsigned char>(s[17]) == 0xff);
  bool invalid = false;
  CHECK(hll::count(s, &invalid) == 0);
  for (const char* e : {"a", "b", "c"}) CHECK(hll::add(s, e, 3000) == 1);
  CHECK(hll::add(s, "a", 3000) == 0);
  // Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603
  const std::string want("\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a", 11);
  CHECK(s.substr(16) == want);
  CHECK(hll::count(s, &invalid) == 3);
  CHECK_FALSE(invalid);
  std::string d = s;
  CHECK(hll::to_dense(d));
  CHECK(d.size() == hll::kDenseBytes);
  CHECK(hll::dense_get(d.data(), 8436) == 1);
  CHECK(hll::dense_get(d.data(), 8436 + 1 + 4274) == 2);
  CHECK(hll::count(d, &invalid) == 3);
}

TEST_CASE("hll: promotion by value and by size; corrupt runs") {
  std::string s;
  hll::make_empty(s);
  CHECK(hll::set(s, 100, 32, 3000) == 1);
  CHECK_FALSE(hll::is_dense(s));
  CHECK(hll::set(s, 200, 33, 3000) == 1);  // above a VAL's 32: dense
  CHECK(hll::is_dense(s));
  CHECK(hll::dense_get(s.data(), 100) == 32);
  hll::make_empty(s);
  CHECK(hll::set(s, 10, 1, 22) == 1);  // XZERO -> ZERO VAL XZERO: 18 + 2 = 20 <= 22
  CHECK_FALSE(hll::is_dense(s));
  CHECK(hll::set(s, 1000, 1, 22) == 1);  // XZERO VAL XZERO: 20 + 3 = 23 > 22: dense
  CHECK(hll::is_dense(s));
  // Two XZERO runs of 16384 registers: 32768 in all.
  std::string bad("HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff\x7f\xff", 20);
  CHECK(hll::looks_valid(bad));
  bool invalid = false;
  hll::count(bad, &invalid);
  CHECK(invalid);
  std::vector<std::uint8_t> max(hll::kRegisters);
  CHECK_FALSE(hll::merge(max.data(), bad));
  CHECK_FALSE(hll::to_dense(bad));
  std::string short_runs("HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x40\x00", 18);  // 1 register
  CHECK(hll::set(short_runs, 5, 1, 3000) == -1);
  CHECK_FALSE(hll::looks_valid(std::string("HYLL\x00\0\0", 7)));
  CHECK_FALSE(hll::looks_valid(std::string(16, 'H')));
}

TEST_CASE("db: the string write handle grows, edits integers as text, counts once") {
  Db db;
  {
    auto h = db.open_string("k", 0);
    CHECK_FALSE(h);
    auto b = h.resize(5);
    CHECK(b.size() == 5);
    CHECK(std::string(b.data(), 5) == std::string(5, '\0'));
    b[0] = 'x';
  }
  CHECK(db.find("k", 0).str() == std::string("x\0\0\0\0", 5));
  const auto before = db.mutations();
  {
    auto h = db.open_string("k", 0);
    auto b = h.resize(2000);  // past the 1 KiB embedded limit
    b[1999] = 'y';
    b = h.resize(3000);
    CHECK(b[1999] == 'y');
    CHECK(b[2999] == '\0');
  }
  CHECK(db.mutations() == before + 1);
  CHECK(db.find("k", 0).str_len() == 3000);
  CHECK(db.find("k", 0).encoding() == "raw");
  db.set_int("n", 12345, {});
  const auto after_set = db.mutations();
  {
    auto h = db.open_string("n", 0);
    CHECK(h.is_int());
    CHECK(h.view() == "12345");
    h.bytes()[0] = '9';
  }
  CHECK(db.find("n", 0).str() == "92345");
  {
    auto h = db.open_string("n", 0);
    (void)h.view();  // read only: no mutation
  }
  CHECK(db.mutations() == after_set + 1);
}

TEST_CASE("db: a sparse HLL stays in its record as the handle grows it; dense goes external") {
  Db db;
  std::string h0 = "HYLL";
  h0.resize(1000, '\x01');
  {
    auto h = db.open_string("h", 0);
    h.assign(h0);  // a new key, past the 1 KiB limit: embedded, an HLL
  }
  CHECK(db.find("h", 0).str() == h0);
  CHECK(db.find("h", 0).record()->enc() == Enc::kEmbRaw);
  const auto before = db.mutations();
  {
    auto h = db.open_string("h", 0);
    for (std::size_t n = 1001; n <= 3000; ++n) {  // PFADD's opcode growth, a byte at a time
      auto b = h.resize(n);
      b[n - 1] = static_cast<char>(n % 251);
    }
  }
  CHECK(db.mutations() == before + 1);
  Entry e = db.find("h", 0);
  CHECK(e.record()->enc() == Enc::kEmbRaw);
  CHECK(e.encoding() == "raw");
  CHECK(e.str().substr(0, 1000) == h0);
  for (std::size_t n = 1001; n <= 3000; ++n) CHECK(e.str()[n - 1] == static_cast<char>(n % 251));
  {
    auto h = db.open_string("h", 0);
    h.resize(12304);  // to dense
  }
  CHECK(db.find("h", 0).record()->enc() == Enc::kExtStr);
  CHECK(db.find("h", 0).str().substr(0, 1000) == h0);
  // The same bytes SET (a RESTORE, a snapshot's or WAL's replay) land the same way.
  db.set_string("s", h0, {});
  CHECK(db.find("s", 0).record()->enc() == Enc::kEmbStr);
  db.set_string("t", std::string(2000, 'x') + "HYLL", {});
  CHECK(db.find("t", 0).record()->enc() == Enc::kExtStr);
  {
    auto h = db.open_string("u", 0);
    h.assign(std::string(2000, 'u'));  // not an HLL: the 1 KiB rule
  }
  CHECK(db.find("u", 0).record()->enc() == Enc::kExtStr);
}
