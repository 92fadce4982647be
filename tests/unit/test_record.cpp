// Record format: encodings, canonical integers, sizes and mimalloc bins.
#include <doctest/doctest.h>

#include <climits>
#include <string>

#include "worker/store/record.hpp"
#include "worker/store/table.hpp"

using namespace ruvio::store;

namespace {

Record* make(Heap& heap, std::string_view key, std::string_view value,
             std::int64_t exp = kNoExpire) {
  Payload p = Payload::of_string(value);
  if (p.enc == Enc::kExtStr) p.ptr = ext::make(heap, p.bytes, 0);
  return Record::create(heap, Type::kString, key, exp, 0, p);
}

}  // namespace

TEST_CASE("record: fixed sizes are pinned") {
  static_assert(kHeaderBytes == 2);
  static_assert(kExpireBytes == 8);
  static_assert(Table::kBucketBytes == 64);
  static_assert(sizeof(std::uint64_t) * Table::kSlotsPerBucket == 64);
  CHECK(Record::size_for("k:123456", false, Payload::of_string(std::string(64, 'x'))) == 76);
  CHECK(Record::size_for("c:123456", false, Payload::of_int(123456)) == 14);
  CHECK(Record::size_for(std::string(16, 'k'), false, Payload::of_string(std::string(16, 'v'))) ==
        36);
  CHECK(Record::size_for("k", true, Payload::of_int(1)) == 2 + 8 + 1 + 1 + 1);
}

TEST_CASE("record: the mimalloc bins drawn in record.hpp") {
  // If mimalloc changes its size classes the byte picture must be redone.
  CHECK(mi_good_size(14) == 16);
  CHECK(mi_good_size(17) == 32);
  CHECK(mi_good_size(36) == 48);
  CHECK(mi_good_size(64) == 64);
  CHECK(mi_good_size(76) == 80);
  CHECK(mi_good_size(129) == 160);
}

TEST_CASE("record: canonical int64 check follows string2ll") {
  std::int64_t v = 0;
  CHECK(parse_canonical_int("0", &v));
  CHECK(v == 0);
  CHECK(parse_canonical_int("-1", &v));
  CHECK(v == -1);
  CHECK(parse_canonical_int("9223372036854775807", &v));
  CHECK(v == INT64_MAX);
  CHECK(parse_canonical_int("-9223372036854775808", &v));
  CHECK(v == INT64_MIN);
  CHECK_FALSE(parse_canonical_int("9223372036854775808", &v));
  CHECK_FALSE(parse_canonical_int("-9223372036854775809", &v));
  CHECK_FALSE(parse_canonical_int("99999999999999999999", &v));
  CHECK_FALSE(parse_canonical_int("-0", &v));
  CHECK_FALSE(parse_canonical_int("007", &v));
  CHECK_FALSE(parse_canonical_int("+1", &v));
  CHECK_FALSE(parse_canonical_int(" 1", &v));
  CHECK_FALSE(parse_canonical_int("1 ", &v));
  CHECK_FALSE(parse_canonical_int("", &v));
  CHECK_FALSE(parse_canonical_int("-", &v));
  CHECK_FALSE(parse_canonical_int("1a", &v));
  CHECK(int_text_len(INT64_MIN) == 20);
  CHECK(int_text_len(INT64_MAX) == 19);
  CHECK(int_text_len(0) == 1);
  CHECK(int_text_len(-5) == 2);
}

TEST_CASE("record: integers round-trip in 1..8 bytes") {
  Heap heap;
  for (std::int64_t v :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, std::int64_t{127}, std::int64_t{128},
        std::int64_t{-128}, std::int64_t{-129}, std::int64_t{32767}, std::int64_t{1} << 40,
        -(std::int64_t{1} << 40), INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1}) {
    Record* r = make(heap, "key", std::to_string(v));
    REQUIRE(r->is_int());
    CHECK(r->int_value() == v);
    CHECK(r->str_len() == std::to_string(v).size());
    CHECK(r->key() == "key");
    Record::destroy(heap, r);
  }
  CHECK(heap.used == 0);
}

TEST_CASE("record: non-canonical numbers stay strings") {
  Heap heap;
  for (std::string s : {"-0", "007", "+5", " 1", "1.5", "9223372036854775808"}) {
    Record* r = make(heap, "k", s);
    CHECK_FALSE(r->is_int());
    CHECK(r->str() == s);
    Record::destroy(heap, r);
  }
}

TEST_CASE("record: embedded and external strings around the threshold") {
  Heap heap;
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{44}, std::size_t{45}, std::size_t{127},
        std::size_t{128}, kEmbedMax - 1, kEmbedMax, kEmbedMax + 1, std::size_t{1} << 20}) {
    std::string v(n, 'a');
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<char>('a' + i % 26);
    Record* r = make(heap, "some:key", v, n % 2 ? 12345 : kNoExpire);
    CHECK(r->key() == "some:key");
    CHECK(r->str() == v);
    CHECK(r->str_len() == n);
    CHECK(r->enc() == (n <= kEmbedMax ? Enc::kEmbStr : Enc::kExtStr));
    CHECK(r->expire_at() == (n % 2 ? 12345 : kNoExpire));
    CHECK(r->memory_usage() >= n);
    Record::destroy(heap, r);
  }
  CHECK(heap.used == 0);
}

TEST_CASE("record: a value beginning HYLL stays embedded up to kEmbedHllMax") {
  Heap heap;
  for (std::size_t n : {kEmbedMax + 1, std::size_t{2000}, kEmbedHllMax, kEmbedHllMax + 1}) {
    std::string hll(n, 'x');
    hll.replace(0, 4, "HYLL");
    std::string other(n, 'x');  // the same length, not an HLL: the 1 KiB rule
    Record* a = make(heap, "hll:000000000001", hll);
    Record* b = make(heap, "hll:000000000001", other);
    CHECK(a->enc() == (n <= kEmbedHllMax ? Enc::kEmbStr : Enc::kExtStr));
    CHECK(b->enc() == Enc::kExtStr);
    CHECK(a->str() == hll);
    CHECK(b->str() == other);
    if (n <= kEmbedHllMax) CHECK(a->memory_usage() < b->memory_usage());
    Record::destroy(heap, a);
    Record::destroy(heap, b);
  }
  CHECK_FALSE(embeds(kEmbedMax + 1, "HYL"));  // too short to tell: the 1 KiB rule
  CHECK(heap.used == 0);
}

TEST_CASE("record: resize_embedded grows and shrinks in place within the bin only") {
  Heap heap;
  std::string v = "HYLL" + std::string(1896, 'v');  // embedded past 1 KiB: an HLL
  Record* r = make(heap, "k", v);
  REQUIRE(r->enc() == Enc::kEmbStr);
  const std::size_t usable = mi_usable_size(r);
  // Grow byte by byte while the bin fits: the kept bytes stay, the new ones are zero.
  std::size_t n = v.size();
  while (r->resize_embedded(n + 1)) {
    ++n;
    CHECK(mi_usable_size(r) == usable);
  }
  CHECK(n > v.size());
  CHECK(mi_good_size(kHeaderBytes + 1 + 1 + 2 + n + 1) > usable);  // the next byte needs a bin up
  CHECK(r->str().size() == n);
  CHECK(r->str().substr(0, v.size()) == v);
  CHECK(r->str().substr(v.size()) == std::string(n - v.size(), '\0'));
  CHECK(r->resize_embedded(1900));  // back: the same bin
  CHECK(r->str() == v);
  CHECK_FALSE(r->resize_embedded(1500));  // a smaller bin: the caller rebuilds
  CHECK_FALSE(r->resize_embedded(100));   // the length's varint would be narrower
  CHECK(r->str() == v);
  Record::destroy(heap, r);
}

TEST_CASE("record: long keys use a multi-byte varint") {
  Heap heap;
  std::string key(300, 'k');
  Record* r = make(heap, key, "v");
  CHECK(r->key() == key);
  CHECK(r->str() == "v");
  Record::destroy(heap, r);
}

TEST_CASE("record: external buffer grows geometrically") {
  Heap heap;
  void* b = ext::make(heap, "abc", 0);
  std::size_t reallocs = 0;
  for (int i = 0; i < 10000; ++i) {
    std::size_t len = ext::len(b);
    void* nb = ext::reserve(heap, b, len + 1);
    if (nb != b) ++reallocs;
    b = nb;
    ext::data(b)[len] = 'x';
    ext::set_len(b, len + 1);
  }
  CHECK(ext::len(b) == 10003);
  CHECK(reallocs < 30);
  heap.release(b);
  CHECK(heap.used == 0);
}
