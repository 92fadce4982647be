// Set values (worker/types/set): each encoding at its boundaries (empty, one, threshold,
// threshold + 1, huge member), Redis 7.2's conversions and never back, exact memory
// accounting, copy, snapshot round trips, random members and a model check against std::set.
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "worker/memory/heap.hpp"
#include "worker/types/set/set.hpp"

using ruvio::store::Heap;
using ruvio::types::SetElem;
using ruvio::types::SetObject;
namespace set = ruvio::types::set;
namespace types = ruvio::types;

namespace {

const types::SetLimits kLim{};  // Redis's defaults: 512 / 128 / 64

std::set<std::string> members(const SetObject* s) {
  std::set<std::string> out;
  types::Listpack::IntBuf buf;
  set::for_each(s, [&](const SetElem& e) { out.emplace(e.text(buf)); });
  return out;
}

std::string enc(const SetObject* s) {
  return std::string(set::encoding_name(s));
}

// Adds "prefix0".."prefix{n-1}" (or the integers 0..n-1 when prefix is empty).
void fill(Heap& h, SetObject* s, std::size_t n, const std::string& prefix = "") {
  for (std::size_t i = 0; i < n; ++i) CHECK(set::add(h, s, prefix + std::to_string(i), kLim));
}

}  // namespace

TEST_CASE("set: create picks the encoding from the first member and the size hint") {
  Heap h;
  SetObject* a = set::create(h, "1", 1, kLim);
  CHECK(enc(a) == "intset");
  SetObject* b = set::create(h, "x", 1, kLim);
  CHECK(enc(b) == "listpack");
  SetObject* c = set::create(h, "1", 513, kLim);
  CHECK(enc(c) == "hashtable");  // too many for an intset and for a listpack
  SetObject* d = set::create(h, "x", 129, kLim);
  CHECK(enc(d) == "hashtable");
  SetObject* e = set::create(h, "007", 1, kLim);  // not canonical: a string
  CHECK(enc(e) == "listpack");
  SetObject* f = set::create(h, "1", 512, kLim);
  CHECK(enc(f) == "intset");
  for (SetObject* s : {a, b, c, d, e, f}) {
    CHECK(set::size(s) == 0);
    set::destroy(h, s);
  }
  CHECK(h.used == 0);
}

TEST_CASE("set: intset to hashtable past set-max-intset-entries, never back") {
  Heap h;
  SetObject* s = set::create(h, "0", 1, kLim);
  fill(h, s, 512);
  CHECK(enc(s) == "intset");
  CHECK(set::size(s) == 512);
  CHECK_FALSE(set::add(h, s, "511", kLim));
  CHECK(set::add(h, s, "512", kLim));
  CHECK(enc(s) == "hashtable");
  CHECK(set::size(s) == 513);
  CHECK(set::contains(s, "0"));
  CHECK(set::contains(s, "512"));
  for (int i = 0; i < 513; ++i) CHECK(set::remove(h, s, std::to_string(i)));
  CHECK(set::size(s) == 0);
  CHECK(enc(s) == "hashtable");
  set::destroy(h, s);
  CHECK(h.used == 0);
}

TEST_CASE("set: intset + string converts to listpack when it fits, else hashtable") {
  Heap h;
  SetObject* s = set::create(h, "0", 1, kLim);
  fill(h, s, 127);
  CHECK(set::add(h, s, "a", kLim));  // 127 < 128 entries
  CHECK(enc(s) == "listpack");
  CHECK(set::size(s) == 128);
  CHECK(set::contains(s, "5"));
  CHECK(set::add(h, s, "b", kLim));  // the 129th
  CHECK(enc(s) == "hashtable");
  set::destroy(h, s);

  s = set::create(h, "0", 1, kLim);
  fill(h, s, 128);
  CHECK(set::add(h, s, "a", kLim));  // 128 integers already: no room in a listpack
  CHECK(enc(s) == "hashtable");
  set::destroy(h, s);

  s = set::create(h, "0", 1, kLim);
  CHECK(set::add(h, s, "1", kLim));
  CHECK(set::add(h, s, std::string(65, 'x'), kLim));  // longer than set-max-listpack-value
  CHECK(enc(s) == "hashtable");
  set::destroy(h, s);
  CHECK(h.used == 0);
}

TEST_CASE("set: listpack boundaries (entries 128, value 64, huge member)") {
  Heap h;
  SetObject* s = set::create(h, "m", 1, kLim);
  CHECK(enc(s) == "listpack");
  CHECK(set::add(h, s, std::string(64, 'v'), kLim));  // exactly the value limit
  CHECK(enc(s) == "listpack");
  fill(h, s, 126, "m");
  CHECK(set::size(s) == 127);
  CHECK(set::add(h, s, "1", kLim));  // integers stay integers inside the listpack
  CHECK(set::size(s) == 128);
  CHECK(enc(s) == "listpack");
  CHECK_FALSE(set::add(h, s, "1", kLim));
  CHECK(set::add(h, s, "last", kLim));
  CHECK(enc(s) == "hashtable");
  CHECK(set::size(s) == 129);
  const std::string huge(1 << 20, 'h');
  CHECK(set::add(h, s, huge, kLim));
  CHECK(set::contains(s, huge));
  CHECK(set::remove(h, s, huge));
  CHECK_FALSE(set::contains(s, huge));
  set::destroy(h, s);

  s = set::create(h, "m", 1, kLim);
  CHECK(set::add(h, s, std::string(65, 'v'), kLim));
  CHECK(enc(s) == "hashtable");
  set::destroy(h, s);
  CHECK(h.used == 0);
}

TEST_CASE("set: empty strings, binary and integer-looking members") {
  Heap h;
  SetObject* s = set::create(h, "", 1, kLim);
  const std::vector<std::string> ms = {"",
                                       std::string("\0\xff", 2),
                                       "-0",
                                       "+1",
                                       "01",
                                       "1",
                                       "-9223372036854775808",
                                       "9223372036854775808"};
  for (const auto& m : ms) CHECK(set::add(h, s, m, kLim));
  for (const auto& m : ms) CHECK(set::contains(s, m));
  CHECK(set::size(s) == ms.size());
  CHECK(members(s) == std::set<std::string>(ms.begin(), ms.end()));
  set::destroy(h, s);
  CHECK(h.used == 0);
}

TEST_CASE("set: memory usage is what the heap counts, in every encoding") {
  for (const std::string& prefix : std::vector<std::string>{"", "member:", std::string(70, 'x')}) {
    Heap h;
    SetObject* s = set::create(h, prefix + "0", 1, kLim);
    for (int i = 0; i < 700; ++i) {
      set::add(h, s, prefix + std::to_string(i), kLim);
      if (i % 50 == 0) CHECK(set::memory_usage(s) == h.used);
    }
    for (int i = 0; i < 700; i += 2) set::remove(h, s, prefix + std::to_string(i));
    CHECK(set::memory_usage(s) == h.used);
    set::destroy(h, s);
    CHECK(h.used == 0);
  }
}

TEST_CASE("set: copy and snapshot round trips keep members and encoding") {
  for (std::size_t n : {1u, 5u, 200u, 600u}) {
    for (const std::string& prefix : std::vector<std::string>{"", "s"}) {
      Heap h;
      SetObject* s = set::create(h, prefix + "0", 1, kLim);
      fill(h, s, n, prefix);
      SetObject* c = set::clone(h, s);
      CHECK(members(c) == members(s));
      CHECK(enc(c) == enc(s));
      std::string bytes;
      set::save(s, bytes);
      SetObject* l = set::load(h, s->enc, bytes);
      REQUIRE(l != nullptr);
      CHECK(members(l) == members(s));
      CHECK(enc(l) == enc(s));
      CHECK(set::memory_usage(s) + set::memory_usage(c) + set::memory_usage(l) == h.used);
      for (SetObject* x : {s, c, l}) set::destroy(h, x);
      CHECK(h.used == 0);
    }
  }
  Heap h;
  CHECK(set::load(h, types::kSetHashtable,
                  std::string_view("\x05\x00\x00\x00"
                                   "ab",
                                   6)) == nullptr);
  CHECK(set::load(h, types::kSetHashtable, "") == nullptr);
  CHECK(set::load(h, types::kSetIntset, "junk") == nullptr);
  CHECK(set::load(h, 9, "") == nullptr);
  CHECK(h.used == 0);
}

TEST_CASE("set: random members come from the set, every member eventually") {
  std::mt19937_64 rng(7);
  for (const std::string& prefix : std::vector<std::string>{"", "s"}) {
    for (std::size_t n : {1u, 3u, 100u, 1000u}) {
      Heap h;
      SetObject* s = set::create(h, prefix + "0", 1, kLim);
      fill(h, s, n, prefix);
      const auto all = members(s);
      std::set<std::string> seen;
      types::Listpack::IntBuf buf;
      for (std::size_t i = 0; i < n * 30; ++i) {
        const std::string m(set::random(s, rng).text(buf));
        CHECK(all.count(m) == 1);
        seen.insert(m);
      }
      CHECK(seen.size() == n);
      set::destroy(h, s);
    }
  }
}

TEST_CASE("set: scan of a hashtable set returns every member") {
  Heap h;
  SetObject* s = set::create(h, "m", 1, kLim);
  fill(h, s, 1000, "m");
  REQUIRE(enc(s) == "hashtable");
  std::set<std::string> got;
  std::uint64_t cursor = 0;
  int rounds = 0;
  do {
    cursor = set::scan_step(s, cursor, [&](const SetElem& e) { got.emplace(e.str); });
  } while (cursor != 0 && ++rounds < 100000);
  CHECK(got == members(s));
  set::destroy(h, s);
}

TEST_CASE("set: model check against std::set across every conversion") {
  std::mt19937_64 rng(42);
  Heap h;
  SetObject* s = set::create(h, "1", 1, kLim);
  std::set<std::string> model;
  for (int step = 0; step < 20000; ++step) {
    const int r = static_cast<int>(rng() % 100);
    std::string m = r < 70 ? std::to_string(static_cast<int>(rng() % 700) - 50)
                           : "s" + std::to_string(rng() % 200);
    if (rng() % 3 == 0) {
      CHECK(set::remove(h, s, m) == (model.erase(m) == 1));
    } else {
      CHECK(set::add(h, s, m, kLim) == model.insert(m).second);
    }
    if (step % 1000 == 0) {
      CHECK(members(s) == model);
      CHECK(set::memory_usage(s) == h.used);
    }
  }
  CHECK(set::size(s) == model.size());
  CHECK(members(s) == model);
  set::destroy(h, s);
  CHECK(h.used == 0);
}

TEST_CASE("set: a hashtable set moved to another heap keeps both heaps exact") {
  Heap a, b;
  SetObject* s = set::create(a, "m", 1, kLim);
  fill(a, s, 300, "m");
  REQUIRE(enc(s) == "hashtable");
  a.transfer(b, set::memory_usage(s));  // what Db::move_to does
  CHECK(a.used == 0);
  fill(b, s, 300, "n");
  CHECK(a.used == 0);
  CHECK(b.used == set::memory_usage(s));
  CHECK(set::remove(b, s, "m1"));
  CHECK(b.used == set::memory_usage(s));
  set::destroy(b, s);
  CHECK(a.used == 0);
  CHECK(b.used == 0);
}
