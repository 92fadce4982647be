// Sorted sets: both encodings at every boundary (empty, one, the 128-entry and 64-byte
// thresholds and one past them, a huge member), the skiplist's ranks and ranges against a
// std::set model, zsetAdd's flags, conversions both ways, snapshot bytes and exact memory.
#include <doctest/doctest.h>
#include <mimalloc.h>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "worker/types/zset/zset.hpp"

using namespace ruvio;
using store::Heap;
using types::ZSet;

namespace {

const types::ZSetLimits kLim{};

// (score, member) in the order the zset keeps.
struct Less {
  bool operator()(const std::pair<double, std::string>& a,
                  const std::pair<double, std::string>& b) const {
    if (a.first != b.first) return a.first < b.first;
    return types::member_cmp(a.second, b.second) < 0;
  }
};
using Model = std::set<std::pair<double, std::string>, Less>;

std::vector<std::pair<std::string, double>> items(const ZSet* z) {
  std::vector<std::pair<std::string, double>> out;
  types::Listpack::IntBuf ib;
  if (types::zset_size(z) == 0) return out;
  for (types::ZCursor c = types::zset_at(z, 0); c.valid(); c.next()) {
    out.emplace_back(std::string(c.member(ib)), c.score());
  }
  return out;
}

void add(Heap& heap, ZSet* z, double score, const std::string& m, unsigned flags = 0) {
  unsigned out = 0;
  double ns = 0;
  REQUIRE(types::zset_add(heap, z, score, m, flags, &out, &ns, kLim));
}

void check_model(const ZSet* z, const Model& model) {
  auto got = items(z);
  REQUIRE(got.size() == model.size());
  std::size_t i = 0;
  for (const auto& [s, m] : model) {
    CHECK(got[i].first == m);
    CHECK(got[i].second == s);
    ++i;
  }
}

}  // namespace

TEST_CASE("zset listpack: empty, one, threshold, threshold + 1") {
  Heap heap;
  ZSet* z = types::zset_create(heap, 0, 0, kLim);
  CHECK(z->enc == types::kZListpack);
  CHECK(types::zset_size(z) == 0);
  CHECK(!types::zset_score(z, "a"));
  CHECK(!types::zset_rank(z, "a", false));
  add(heap, z, 1.5, "a");
  CHECK(types::zset_size(z) == 1);
  CHECK(*types::zset_score(z, "a") == 1.5);
  CHECK(*types::zset_rank(z, "a", false) == 0);
  for (int i = 1; i < 128; ++i) add(heap, z, i, "m" + std::to_string(i));
  CHECK(types::zset_size(z) == 128);
  CHECK(z->enc == types::kZListpack);
  add(heap, z, 200, "m200");
  CHECK(types::zset_size(z) == 129);
  CHECK(z->enc == types::kZSkiplist);
  CHECK(*types::zset_rank(z, "m200", false) == 128);
  CHECK(*types::zset_rank(z, "m200", true) == 0);
  CHECK(heap.used == types::zset_memory(z));
  types::zset_destroy(heap, z);
  CHECK(heap.used == 0);
}

TEST_CASE("zset listpack: 64-byte member stays, 65 converts, a huge member") {
  Heap heap;
  ZSet* z = types::zset_create(heap, 1, 1, kLim);
  add(heap, z, 0, std::string(64, 'x'));
  CHECK(z->enc == types::kZListpack);
  add(heap, z, 0, std::string(65, 'y'));
  CHECK(z->enc == types::kZSkiplist);
  const std::string huge(1 << 20, 'h');
  add(heap, z, -1, huge);
  CHECK(*types::zset_rank(z, huge, false) == 0);
  CHECK(types::zset_remove(heap, z, huge));
  CHECK(types::zset_size(z) == 2);
  CHECK(heap.used == types::zset_memory(z));
  types::zset_destroy(heap, z);
  CHECK(heap.used == 0);
  // The creation hints: more elements or a longer first member than the limits.
  ZSet* big = types::zset_create(heap, 129, 1, kLim);
  CHECK(big->enc == types::kZSkiplist);
  types::zset_destroy(heap, big);
  ZSet* longm = types::zset_create(heap, 1, 65, kLim);
  CHECK(longm->enc == types::kZSkiplist);
  types::zset_destroy(heap, longm);
}

TEST_CASE("zset stored scores follow 7.0's d2string") {
  char buf[32];
  CHECK(types::score_text(0.1, buf) == "0.10000000000000001");
  CHECK(types::score_text(1e300, buf) == "1.0000000000000001e+300");
  CHECK(types::score_text(-0.0, buf) == "0");
  CHECK(types::score_text(3, buf) == "3");
  CHECK(types::score_text(123456789012345678.0, buf) == "123456789012345680");
  CHECK(types::score_text(1e20, buf) == "1e+20");
  CHECK(types::score_text(INFINITY, buf) == "inf");
  CHECK(types::score_text(-INFINITY, buf) == "-inf");
  CHECK(types::score_text_g17(-0.0, buf) == "-0");
}

TEST_CASE("zset add flags: NX XX GT LT INCR and NaN") {
  Heap heap;
  ZSet* z = types::zset_create(heap, 0, 0, kLim);
  unsigned out = 0;
  double ns = 0;
  CHECK(types::zset_add(heap, z, 5, "a", types::kZXx, &out, &ns, kLim));
  CHECK(out == types::kZNop);
  CHECK(types::zset_add(heap, z, 5, "a", 0, &out, &ns, kLim));
  CHECK(out == types::kZAdded);
  CHECK(types::zset_add(heap, z, 9, "a", types::kZNx, &out, &ns, kLim));
  CHECK(out == types::kZNop);
  CHECK(types::zset_add(heap, z, 4, "a", types::kZGt, &out, &ns, kLim));
  CHECK(out == types::kZNop);
  CHECK(types::zset_add(heap, z, 6, "a", types::kZGt, &out, &ns, kLim));
  CHECK(out == types::kZUpdated);
  CHECK(types::zset_add(heap, z, 2, "a", types::kZIncr, &out, &ns, kLim));
  CHECK(ns == 8);
  CHECK(types::zset_add(heap, z, INFINITY, "a", types::kZIncr, &out, &ns, kLim));
  CHECK(!types::zset_add(heap, z, -INFINITY, "a", types::kZIncr, &out, &ns, kLim));
  CHECK(out == types::kZNan);
  CHECK(!types::zset_add(heap, z, NAN, "b", 0, &out, &ns, kLim));
  CHECK(*types::zset_score(z, "a") == INFINITY);
  types::zset_destroy(heap, z);
}

TEST_CASE("zset skiplist: ranks, ranges and deletes against a model") {
  Heap heap;
  std::mt19937 rng(42);
  for (bool start_small : {true, false}) {
    ZSet* z = types::zset_create(heap, start_small ? 0 : 1000, 0, kLim);
    Model model;
    std::vector<std::pair<std::string, double>> live;
    for (int i = 0; i < 3000; ++i) {
      std::string m = "m" + std::to_string(rng() % 2000);
      double s = static_cast<double>(rng() % 100);
      auto cur = types::zset_score(z, m);
      if (cur) model.erase({*cur, m});
      add(heap, z, s, m);
      model.insert({s, m});
      if (rng() % 5 == 0) {
        std::string r = "m" + std::to_string(rng() % 2000);
        auto rs = types::zset_score(z, r);
        CHECK(types::zset_remove(heap, z, r) == rs.has_value());
        if (rs) model.erase({*rs, r});
      }
    }
    check_model(z, model);
    std::size_t i = 0;
    for (const auto& [s, m] : model) {
      REQUIRE(*types::zset_rank(z, m, false) == i);
      REQUIRE(*types::zset_rank(z, m, true) == model.size() - 1 - i);
      ++i;
    }
    types::ScoreRange r{10, 20, true, false};
    std::size_t n = 0;
    for (types::ZCursor c = types::zset_first_in(z, r); c.valid() && r.contains_max_side(c.score());
         c.next()) {
      ++n;
    }
    std::size_t want = 0;
    for (const auto& e : model) want += e.first > 10 && e.first <= 20;
    CHECK(n == want);
    CHECK(types::zset_last_in(z, r).score() == 20);
    CHECK(types::zset_delete_range(heap, z, r) == want);
    for (auto it = model.begin(); it != model.end();) {
      it = it->first > 10 && it->first <= 20 ? model.erase(it) : std::next(it);
    }
    check_model(z, model);
    CHECK(types::zset_delete_ranks(heap, z, 0, 9) == 10);
    for (int k = 0; k < 10; ++k) model.erase(model.begin());
    check_model(z, model);
    CHECK(heap.used == types::zset_memory(z));

    // Snapshot bytes round-trip, and a copy is equal.
    std::string bytes;
    types::kZSetOps.save(z, bytes);
    auto* back = static_cast<ZSet*>(types::kZSetOps.load(heap, z->enc, bytes));
    REQUIRE(back != nullptr);
    CHECK(items(back) == items(z));
    auto* copy = static_cast<ZSet*>(types::kZSetOps.copy(heap, z));
    CHECK(items(copy) == items(z));
    CHECK(types::kZSetOps.encoding(copy) == "skiplist");
    CHECK(types::kZSetOps.load(heap, z->enc, bytes.substr(0, bytes.size() - 1)) == nullptr);
    types::zset_destroy(heap, back);
    types::zset_destroy(heap, copy);
    types::zset_destroy(heap, z);
    CHECK(heap.used == 0);
  }
}

TEST_CASE("zset lex ranges") {
  Heap heap;
  ZSet* z = types::zset_create(heap, 0, 0, kLim);
  for (const char* m : {"a", "b", "c", "d", "e"}) add(heap, z, 0, m);
  types::LexRange r{{types::LexBound::kValue, "b", false}, {types::LexBound::kValue, "d", true}};
  types::Listpack::IntBuf ib;
  CHECK(types::zset_first_in(z, r).member(ib) == "b");
  CHECK(types::zset_last_in(z, r).member(ib) == "c");
  types::LexRange all{{types::LexBound::kMinusInf, {}, true},
                      {types::LexBound::kPlusInf, {}, true}};
  CHECK(types::zset_first_in(z, all).member(ib) == "a");
  types::LexRange none{{types::LexBound::kPlusInf, {}, true},
                       {types::LexBound::kMinusInf, {}, true}};
  CHECK(none.empty());
  CHECK(!types::zset_first_in(z, none).valid());
  CHECK(types::zset_delete_range(heap, z, r) == 2);
  CHECK(types::zset_size(z) == 3);
  types::zset_destroy(heap, z);
}

TEST_CASE("zset conversion back to listpack only when it fits") {
  Heap heap;
  ZSet* z = types::zset_create(heap, 200, 0, kLim);
  for (int i = 0; i < 10; ++i) add(heap, z, i, "m" + std::to_string(i));
  CHECK(z->enc == types::kZSkiplist);
  auto before = items(z);
  types::zset_to_listpack_if_needed(heap, z, 65, 100, kLim);
  CHECK(z->enc == types::kZSkiplist);
  types::zset_to_listpack_if_needed(heap, z, 2, 20, kLim);
  CHECK(z->enc == types::kZListpack);
  CHECK(items(z) == before);
  std::string bytes;
  types::kZSetOps.save(z, bytes);
  auto* back = static_cast<ZSet*>(types::kZSetOps.load(heap, types::kZListpack, bytes));
  REQUIRE(back != nullptr);
  CHECK(items(back) == before);
  types::zset_destroy(heap, back);
  types::zset_destroy(heap, z);
  CHECK(heap.used == 0);
}
