// Table: growth and shrink with incremental rehash, overflow chains, SCAN guarantee; the same
// HashTable template over another entry type (a set's members).
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "worker/containers/hashtable_impl.hpp"
#include "worker/store/record.hpp"
#include "worker/store/table.hpp"

using namespace ruvio::store;

namespace {

struct Fixture {
  Heap heap;
  Table t;
  explicit Fixture(HashFn fn = &hash_key) : t(&heap, fn) {}
  ~Fixture() {
    t.for_each([&](Record* r) { Record::destroy(heap, r); });
  }
  void add(const std::string& k) {
    Record* r = Record::create(heap, Type::kString, k, kNoExpire, 0, Payload::of_int(1));
    t.insert(r, t.hash(k));
  }
  bool has(const std::string& k) const {
    auto ref = t.find(k, t.hash(k));
    return ref && ref.get()->key() == k;
  }
  bool del(const std::string& k) {
    Record* r = t.erase(k, t.hash(k));
    if (r == nullptr) return false;
    Record::destroy(heap, r);
    return true;
  }
};

std::string key(int i) {
  return "key:" + std::to_string(i);
}

// Few distinct hashes: long overflow chains and equal fingerprints.
std::uint64_t bad_hash(std::string_view k) {
  std::uint64_t x = 0;
  for (char c : k) x = x * 31 + static_cast<unsigned char>(c);
  return (x % 7) * 0x0101010101010101ULL;
}

}  // namespace

TEST_CASE("table: grows through several doublings and shrinks, always findable") {
  Fixture f;
  const int n = 100000;
  std::size_t max_buckets = 0;
  int saw_rehash = 0;
  std::mt19937 rng(1);
  for (int i = 0; i < n; ++i) {
    f.add(key(i));
    if (f.t.rehashing()) ++saw_rehash;
    if (f.t.bucket_count() > max_buckets) max_buckets = f.t.bucket_count();
    int j = static_cast<int>(rng() % static_cast<unsigned>(i + 1));
    REQUIRE(f.has(key(j)));
  }
  CHECK(f.t.size() == static_cast<std::size_t>(n));
  CHECK(saw_rehash > 0);
  for (int i = 0; i < n; ++i) REQUIRE(f.has(key(i)));
  CHECK_FALSE(f.has("missing"));
  // 100000 keys / 0.97 load need 2^14 buckets (131072 slots).
  while (f.t.rehash_step(100)) {
  }
  CHECK(f.t.bucket_count() == (1u << 14));
  CHECK(f.t.check_invariants());

  // Delete 99% with lookups interleaved: the table shrinks incrementally.
  for (int i = 0; i < n; ++i) {
    if (i % 100 == 0) continue;
    REQUIRE(f.del(key(i)));
    if (i % 97 == 0) {
      int j = (i / 100) * 100;
      REQUIRE(f.has(key(j)));
      REQUIRE_FALSE(f.has(key(i)));
    }
  }
  while (f.t.rehash_step(100)) {
  }
  CHECK(f.t.size() == static_cast<std::size_t>(n / 100));
  CHECK(f.t.bucket_count() < (1u << 10));
  CHECK(f.t.check_invariants());
  for (int i = 0; i < n; i += 100) REQUIRE(f.has(key(i)));
}

TEST_CASE("table: deletion with long overflow chains (bad hash)") {
  Fixture f(&bad_hash);
  const int n = 3000;
  for (int i = 0; i < n; ++i) f.add(key(i));
  while (f.t.rehash_step(100)) {
  }
  CHECK(f.t.check_invariants());
  for (int i = 0; i < n; ++i) REQUIRE(f.has(key(i)));
  std::mt19937 rng(7);
  std::set<int> gone;
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < n / 2; ++k) {
      int i = static_cast<int>(rng() % n);
      bool was = !gone.count(i);
      CHECK(f.del(key(i)) == was);
      gone.insert(i);
    }
    CHECK(f.t.check_invariants());
    for (int i = 0; i < n; ++i) REQUIRE(f.has(key(i)) == !gone.count(i));
    for (int i : gone) f.add(key(i));
    gone.clear();
    CHECK(f.t.check_invariants());
    CHECK(f.t.size() == static_cast<std::size_t>(n));
  }
}

TEST_CASE("table: overflow bytes stay exact under random churn") {
  Fixture f;
  std::mt19937 rng(3);
  std::set<int> live;
  for (int step = 0; step < 200000; ++step) {
    int i = static_cast<int>(rng() % 20000);
    if (live.count(i)) {
      REQUIRE(f.del(key(i)));
      live.erase(i);
    } else {
      f.add(key(i));
      live.insert(i);
    }
    if (step % 20000 == 0) REQUIRE(f.t.check_invariants());
  }
  CHECK(f.t.size() == live.size());
  for (int i = 0; i < 20000; ++i) REQUIRE(f.has(key(i)) == (live.count(i) == 1));
}

namespace {

// Scans the table while `mutate` changes it between steps; every key present for the
// whole scan must be returned.
template <class M>
void scan_with(Fixture& f, const std::set<std::string>& stable, M&& mutate) {
  std::set<std::string> seen;
  std::uint64_t cursor = 0;
  int steps = 0;
  do {
    cursor = f.t.scan(cursor, [&](Record* r) { seen.insert(std::string(r->key())); });
    mutate(steps++);
  } while (cursor != 0);
  for (const auto& k : stable) REQUIRE(seen.count(k));
}

}  // namespace

TEST_CASE("table: SCAN returns every stable key while the table grows") {
  Fixture f;
  std::set<std::string> stable;
  for (int i = 0; i < 2000; ++i) {
    f.add(key(i));
    stable.insert(key(i));
  }
  int next = 1000000;
  bool grew_mid_scan = false;
  std::size_t start_buckets = f.t.bucket_count();
  scan_with(f, stable, [&](int) {
    for (int k = 0; k < 40; ++k) f.add(key(next++));
    if (f.t.rehashing() || f.t.bucket_count() > start_buckets) grew_mid_scan = true;
  });
  CHECK(grew_mid_scan);
}

TEST_CASE("table: SCAN returns every stable key while the table shrinks") {
  Fixture f;
  std::set<std::string> stable;
  for (int i = 0; i < 50000; ++i) f.add(key(i));
  for (int i = 0; i < 50000; i += 50) stable.insert(key(i));
  int next_del = 0;
  std::size_t start_buckets = f.t.bucket_count();
  scan_with(f, stable, [&](int) {
    for (int k = 0; k < 200 && next_del < 50000; ++next_del) {
      if (next_del % 50 == 0) continue;
      f.del(key(next_del));
      ++k;
    }
  });
  CHECK(f.t.bucket_count() < start_buckets);
}

TEST_CASE("table: SCAN across grow then shrink with a bad hash") {
  Fixture f(&bad_hash);
  std::set<std::string> stable;
  for (int i = 0; i < 500; ++i) {
    f.add(key(i));
    stable.insert(key(i));
  }
  int next = 100000;
  std::vector<std::string> extra;
  scan_with(f, stable, [&](int step) {
    if (step < 40) {
      for (int k = 0; k < 50; ++k) {
        extra.push_back(key(next));
        f.add(key(next++));
      }
    } else {
      for (int k = 0; k < 100 && !extra.empty(); ++k) {
        f.del(extra.back());
        extra.pop_back();
      }
    }
  });
}

TEST_CASE("table: a full scan without changes returns each key exactly once") {
  Fixture f;
  for (int i = 0; i < 10000; ++i) f.add(key(i));
  std::multiset<std::string> seen;
  std::uint64_t c = 0;
  do {
    c = f.t.scan(c, [&](Record* r) { seen.insert(std::string(r->key())); });
  } while (c != 0);
  CHECK(seen.size() == 10000);
  for (int i = 0; i < 10000; ++i) REQUIRE(seen.count(key(i)) == 1);
}

TEST_CASE("table: index bytes per key at 1M keys") {
  Heap heap;
  Table t(&heap);
  // Only the table's allocation is measured; records are fake non-null pointers would break
  // key(), so use real ones and subtract.
  std::vector<Record*> recs;
  const int n = 1000000;
  recs.reserve(n);
  for (int i = 0; i < n; ++i) {
    std::string k = "k:" + std::to_string(i);
    recs.push_back(Record::create(heap, Type::kString, k, kNoExpire, 0, Payload::of_int(i)));
  }
  std::size_t rec_bytes = heap.used;
  for (Record* r : recs) t.insert(r, t.hash(r->key()));
  while (t.rehash_step(1000)) {
  }
  CHECK(t.bucket_count() == (1u << 17));
  double per_key = static_cast<double>(heap.used - rec_bytes) / n;
  MESSAGE("index bytes per key at 1M: " << per_key);
  CHECK(per_key < 9.0);
  t.clear();
  for (Record* r : recs) Record::destroy(heap, r);
  CHECK(heap.used == 0);
}

// The table over another entry type, as a set's members or a hash's fields will use it: the
// traits give the key of an entry; resize, lookup and the SCAN guarantee come with the template.
// (A named namespace: an explicit instantiation over internal-linkage types warns.)
namespace table_test {
struct Member {
  std::uint8_t len;
  char bytes[7];  // a toy: members up to 7 bytes, inline
};
struct MemberTraits {
  using Entry = Member;
  static std::string_view key(const Member* m) { return {m->bytes, m->len}; }
  static std::uint64_t hash(std::string_view k) { return hash_key(k); }
  static bool equal(std::string_view a, std::string_view b) { return a == b; }
};
}  // namespace table_test

using table_test::Member;
using table_test::MemberTraits;
template class ruvio::store::HashTable<MemberTraits>;

TEST_CASE("hashtable: the template over set members keeps lookups, resize and SCAN") {
  Heap heap;
  std::vector<std::string> members;
  {
    HashTable<MemberTraits> t(&heap);
    auto add = [&](const std::string& m) {
      auto* e = static_cast<Member*>(heap.alloc(sizeof(Member)));
      e->len = static_cast<std::uint8_t>(m.size());
      m.copy(e->bytes, m.size());
      t.insert(e, t.hash(m));
    };
    for (int i = 0; i < 500; ++i) members.push_back("s" + std::to_string(i));
    for (const auto& m : members) add(m);
    // SCAN while the table grows through several doublings: the 500 stable members all come
    // back.
    std::set<std::string> seen;
    std::uint64_t cursor = 0;
    int extra = 0;
    do {
      cursor = t.scan(cursor, [&](Member* e) { seen.emplace(MemberTraits::key(e)); });
      for (int k = 0; k < 40 && extra < 4000; ++k) add("x" + std::to_string(extra++));
    } while (cursor != 0);
    for (const auto& m : members) CHECK(seen.count(m) == 1);
    CHECK(t.check_invariants());
    CHECK(t.size() == 500 + static_cast<std::size_t>(extra));
    for (const auto& m : members) {
      auto ref = t.find(m, t.hash(m));
      REQUIRE(ref);
      CHECK(MemberTraits::key(ref.get()) == m);
    }
    for (int i = 0; i < extra; ++i) {
      const std::string m = "x" + std::to_string(i);
      Member* e = t.erase(m, t.hash(m));
      REQUIRE(e != nullptr);
      heap.release(e);
    }
    CHECK_FALSE(t.find("x0", t.hash("x0")));
    CHECK(t.size() == 500);
    while (t.rehash_step(1024)) {
    }
    CHECK(t.check_invariants());
    t.for_each([&](Member* e) { heap.release(e); });
  }
  CHECK(heap.used == 0);  // the arrays went with the table, the members with for_each
}

TEST_CASE("hashtable: drain takes every entry out once, in bounded steps, also mid-resize") {
  Heap heap;
  for (const int want : {0, 1, 8, 1000, -1}) {
    HashTable<MemberTraits> t(&heap);
    int n = 0;
    // -1: stop as soon as a doubling is under way, so drain walks both arrays.
    while (want < 0 ? !(n > 100 && t.rehashing()) && n < 100000 : n < want) {
      const std::string m = "d" + std::to_string(n++);
      auto* e = static_cast<Member*>(heap.alloc(sizeof(Member)));
      e->len = static_cast<std::uint8_t>(m.size());
      m.copy(e->bytes, m.size());
      t.insert(e, t.hash(m));
    }
    if (want < 0) REQUIRE(t.rehashing());
    std::set<std::string> seen;
    int steps = 0;
    bool more = t.size() != 0;
    while (more && steps < 10 * n) {
      const std::size_t before = t.size();
      std::size_t got = 0;
      more = t.drain(64, [&](Member* e) {
        CHECK(seen.emplace(MemberTraits::key(e)).second);
        heap.release(e);
        ++got;
      });
      CHECK(got <= 64);
      CHECK(t.size() == before - got);
      ++steps;
    }
    CHECK(seen.size() == static_cast<std::size_t>(n));
    CHECK(t.size() == 0);
    CHECK(steps >= n / 64);
    t.clear();
    CHECK(heap.used == 0);
  }
}
