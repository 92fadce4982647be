// The hash type (worker/types/hash/): both encodings at every boundary — empty, one field,
// hash-max-listpack-entries, one past it, a value at and past hash-max-listpack-value, a huge
// field — with the heap's accounting checked exact after each step, and the ValueOps paths
// (copy, snapshot save/load, the field-TTL bytes).
#include <doctest/doctest.h>
#include <mimalloc.h>

#include <algorithm>
#include <string>
#include <vector>

#include "worker/store/db.hpp"
#include "worker/types/hash/field_expiry_index.hpp"
#include "worker/types/hash/hash.hpp"

using namespace ruvio;
using store::Heap;
using types::Listpack;
namespace H = types::hash;

namespace {

constexpr std::int64_t kNow = 1'700'000'000'000;

std::size_t usage(const H::Hash* h) {
  return H::kHashOps.memory_usage(h);
}

std::string get(const H::Hash* h, std::string_view f) {
  Listpack::IntBuf buf;
  auto v = H::get(h, f, buf, kNow);
  return v ? std::string(*v) : std::string("<none>");
}

std::vector<std::pair<std::string, std::string>> pairs(const H::Hash* h) {
  std::vector<std::pair<std::string, std::string>> out;
  H::for_each(h, kNow, [&](std::string_view f, std::string_view v) { out.emplace_back(f, v); });
  return out;
}

struct Fixture {
  Heap heap;
  H::Limits lim;
  H::Hash* h = H::create(heap);
  ~Fixture() {
    if (h != nullptr) H::kHashOps.destroy(heap, h);
    CHECK(heap.used == 0);
  }
  void fill(int n) {
    for (int i = 0; i < n; ++i) H::set(heap, h, "f" + std::to_string(i), std::to_string(i), lim);
  }
};

}  // namespace

TEST_CASE("hash: empty and one field in a listpack, exact accounting") {
  Fixture fx;
  CHECK(H::length(fx.h) == 0);
  CHECK(H::kHashOps.encoding(fx.h) == "listpack");
  CHECK(usage(fx.h) == fx.heap.used);
  CHECK(get(fx.h, "a") == "<none>");
  CHECK(H::set(fx.heap, fx.h, "a", "1", fx.lim));
  CHECK_FALSE(H::set(fx.heap, fx.h, "a", "xyz", fx.lim));  // an update, not a new field
  CHECK(get(fx.h, "a") == "xyz");
  CHECK(H::length(fx.h) == 1);
  CHECK(usage(fx.h) == fx.heap.used);
  CHECK(H::del(fx.heap, fx.h, "a"));
  CHECK_FALSE(H::del(fx.heap, fx.h, "a"));
  CHECK(H::length(fx.h) == 0);
  CHECK(usage(fx.h) == fx.heap.used);
}

TEST_CASE("hash: integer-looking fields and values come back as their text") {
  Fixture fx;
  H::set(fx.heap, fx.h, "123", "-9223372036854775808", fx.lim);
  H::set(fx.heap, fx.h, "007", "0", fx.lim);
  CHECK(get(fx.h, "123") == "-9223372036854775808");
  CHECK(get(fx.h, "007") == "0");
  CHECK(get(fx.h, "7") == "<none>");
  CHECK(pairs(fx.h) == std::vector<std::pair<std::string, std::string>>{
                           {"123", "-9223372036854775808"}, {"007", "0"}});
}

TEST_CASE("hash: 128 fields stay a listpack, the 129th converts; no way back") {
  Fixture fx;
  fx.fill(128);
  CHECK(fx.h->enc == H::kListpack);
  CHECK(usage(fx.h) == fx.heap.used);
  H::set(fx.heap, fx.h, "f0", "update", fx.lim);  // an update does not grow it
  CHECK(fx.h->enc == H::kListpack);
  H::set(fx.heap, fx.h, "f128", "128", fx.lim);
  CHECK(fx.h->enc == H::kHashtable);
  CHECK(H::kHashOps.encoding(fx.h) == "hashtable");
  CHECK(H::length(fx.h) == 129);
  CHECK(get(fx.h, "f0") == "update");
  CHECK(get(fx.h, "f77") == "77");
  CHECK(usage(fx.h) == fx.heap.used);
  for (int i = 0; i < 128; ++i) CHECK(H::del(fx.heap, fx.h, "f" + std::to_string(i)));
  CHECK(H::length(fx.h) == 1);
  CHECK(fx.h->enc == H::kHashtable);  // Redis 7.0 never converts a hash back
  CHECK(usage(fx.h) == fx.heap.used);
}

TEST_CASE("hash: a value of 64 bytes stays, 65 converts (before writing and in set)") {
  Fixture fx;
  std::string v64(64, 'v'), v65(65, 'v');
  std::vector<std::string_view> args = {"f", v64};
  H::try_conversion(fx.heap, fx.h, args, fx.lim);
  H::set(fx.heap, fx.h, "f", v64, fx.lim);
  CHECK(fx.h->enc == H::kListpack);
  args = {"g", v65};
  H::try_conversion(fx.heap, fx.h, args, fx.lim);
  CHECK(fx.h->enc == H::kHashtable);
  CHECK(get(fx.h, "f") == v64);
  CHECK(usage(fx.h) == fx.heap.used);

  Fixture f2;  // set() alone (HINCRBY's long field) converts too
  H::set(f2.heap, f2.h, std::string(65, 'k'), "1", f2.lim);
  CHECK(f2.h->enc == H::kHashtable);
  CHECK(get(f2.h, std::string(65, 'k')) == "1");
}

TEST_CASE("hash: a huge field and value in the hashtable") {
  Fixture fx;
  const std::string big(1 << 20, 'x');
  H::set(fx.heap, fx.h, big, big, fx.lim);
  CHECK(fx.h->enc == H::kHashtable);
  CHECK(get(fx.h, big).size() == big.size());
  CHECK(usage(fx.h) == fx.heap.used);
  CHECK(usage(fx.h) > 2 * big.size());
  CHECK(H::del(fx.heap, fx.h, big));
  CHECK(usage(fx.h) == fx.heap.used);
}

TEST_CASE("hash: copy and snapshot save/load round-trip both encodings") {
  for (int n : {0, 1, 128, 129, 1000}) {
    Fixture fx;
    fx.fill(n);
    auto* c = static_cast<H::Hash*>(H::kHashOps.copy(fx.heap, fx.h));
    CHECK(c->enc == fx.h->enc);
    auto a = pairs(c), b = pairs(fx.h);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    CHECK(a == b);
    std::string bytes;
    H::kHashOps.save(fx.h, bytes);
    auto* l = static_cast<H::Hash*>(H::kHashOps.load(fx.heap, fx.h->enc, bytes));
    REQUIRE(l != nullptr);
    CHECK(l->enc == fx.h->enc);
    CHECK(H::length(l) == H::length(fx.h));
    for (int i = 0; i < n; i += 37) CHECK(get(l, "f" + std::to_string(i)) == std::to_string(i));
    CHECK(H::kHashOps.load(fx.heap, fx.h->enc, bytes + "x") == nullptr);  // malformed
    H::kHashOps.destroy(fx.heap, c);
    H::kHashOps.destroy(fx.heap, l);
  }
}

TEST_CASE("hash: field TTLs live in the hashtable; fields without one pay no bytes") {
  Fixture fx;
  fx.fill(3);
  const std::size_t before = usage(fx.h);
  H::set_field_expire(fx.heap, fx.h, "f1", kNow + 1000);
  CHECK(fx.h->enc == H::kHashtable);  // a TTL converts, as Valkey
  CHECK(H::ttl_fields(fx.h) == 1);
  CHECK(H::field_expire(fx.h, "f1", kNow) == kNow + 1000);
  CHECK(H::field_expire(fx.h, "f0", kNow) == -1);
  CHECK(H::field_expire(fx.h, "nope", kNow) == std::nullopt);
  CHECK(usage(fx.h) == fx.heap.used);
  CHECK(usage(fx.h) > before);
  // At the expiry millisecond the field still exists; one later it is gone.
  Listpack::IntBuf buf;
  CHECK(H::get(fx.h, "f1", buf, kNow + 1000));
  CHECK_FALSE(H::get(fx.h, "f1", buf, kNow + 1001));
  CHECK_FALSE(H::needs_purge(fx.h, kNow + 1000));
  CHECK(H::needs_purge(fx.h, kNow + 1001));
  CHECK(H::expire_fields(fx.heap, fx.h, kNow + 1000) == 0);
  CHECK(H::expire_fields(fx.heap, fx.h, kNow + 1001) == 1);
  CHECK_FALSE(H::needs_purge(fx.h, kNow + 5000));
  CHECK(H::length(fx.h) == 2);
  CHECK(H::ttl_fields(fx.h) == 0);
  H::set_field_expire(fx.heap, fx.h, "f2", kNow + 5);
  H::set_field_expire(fx.heap, fx.h, "f2", -1);  // HPERSIST
  CHECK(H::ttl_fields(fx.h) == 0);
  CHECK(H::field_expire(fx.h, "f2", kNow) == -1);
  CHECK(usage(fx.h) == fx.heap.used);
  // HINCRBY keeps the TTL, HSET drops it (Redis 7.4).
  H::set_field_expire(fx.heap, fx.h, "f2", kNow + 5);
  H::set(fx.heap, fx.h, "f2", "7", fx.lim, true);
  CHECK(H::field_expire(fx.h, "f2", kNow) == kNow + 5);
  H::set(fx.heap, fx.h, "f2", "new", fx.lim);
  CHECK(H::field_expire(fx.h, "f2", kNow) == -1);
  CHECK(H::ttl_fields(fx.h) == 0);
  // The TTL survives a snapshot.
  H::set_field_expire(fx.heap, fx.h, "f0", kNow + 77);
  std::string bytes;
  H::kHashOps.save(fx.h, bytes);
  auto* l = static_cast<H::Hash*>(H::kHashOps.load(fx.heap, H::kHashtable, bytes));
  REQUIRE(l != nullptr);
  CHECK(H::field_expire(l, "f0", kNow) == kNow + 77);
  CHECK(H::ttl_fields(l) == 1);
  H::kHashOps.destroy(fx.heap, l);
}

TEST_CASE("hash: field records are as small as drawn") {
  Heap heap;
  H::FieldRec* r = H::make_field(heap, "f", "v1", -1);
  CHECK(mi_usable_size(r) == 8);  // 5 bytes in mimalloc's smallest bin
  H::FieldView v = H::view(r);
  CHECK(v.field == "f");
  CHECK(v.value == "v1");
  CHECK_FALSE(v.has_ttl);
  heap.release(r);
  r = H::make_field(heap, std::string(200, 'f'), "", 42);
  v = H::view(r);
  CHECK(v.field.size() == 200);
  CHECK(v.has_ttl);
  CHECK(v.expire_at == 42);
  heap.release(r);
  CHECK(heap.used == 0);
}

TEST_CASE("hash: a hashtable moved to another Db allocates and frees from that Db's heap") {
  types::register_builtin_types();
  store::Db a, b;
  H::Limits lim;
  {
    store::WriteHandle w = a.open("h", types::Type::kHash, kNow);
    w.set(H::create(w.heap()));
    for (int i = 0; i < 200; ++i)
      H::set(w.heap(), w.as<H::Hash>(), "f" + std::to_string(i), "v", lim);
  }
  REQUIRE(a.peek("h").object()->enc == H::kHashtable);
  const std::size_t a_before = a.used_memory();
  const std::size_t b_before = b.used_memory();
  const std::size_t usage = a.peek("h").memory_usage();
  REQUIRE(a.move_to("h", b));
  {
    store::WriteHandle w = b.open("h", types::Type::kHash, kNow);
    for (int i = 200; i < 2000; ++i)  // grows the table: new arrays from b's heap
      H::set(w.heap(), w.as<H::Hash>(), "f" + std::to_string(i), "v", lim);
  }
  CHECK(a.used_memory() <= a_before - usage);
  CHECK(b.used_memory() - b_before >= b.peek("h").memory_usage());
  b.erase("h");
  CHECK(b.used_memory() <= b_before + 64 * 1024);  // only b's own (shrinking) table remains
  CHECK(a.used_memory() <= a_before - usage);
}

TEST_CASE("hash field expiry index: earliest first, lowered only, bounded takes, swap") {
  ruvio::types::hash::FieldExpiryIndex idx;
  std::vector<std::string> due;
  idx.note("a", 300);
  idx.note("b", 100);
  idx.note("a", 500);  // later: the queued (lower) time stays
  idx.note("c", 200);
  idx.note("a", 50);  // earlier: requeued
  CHECK(idx.size() == 3);
  CHECK(idx.next() == 50);
  idx.take_due(100, 10, due);  // due once the clock passes the time
  CHECK(due == std::vector<std::string>{"a"});
  idx.take_due(1000, 1, due);
  CHECK(due == std::vector<std::string>{"b"});
  ruvio::types::hash::FieldExpiryIndex other;
  other.swap(idx);
  CHECK(idx.empty());
  CHECK(idx.next() == INT64_MAX);
  other.take_due(1000, 10, due);
  CHECK(due == std::vector<std::string>{"c"});
  CHECK(other.empty());
}
