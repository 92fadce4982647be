// Lazy free of huge collections (ValueOps::release_some): a hashtable hash, a hashtable set,
// a skiplist zset and a many-node list queued by UNLINK, an overwrite, an expiry or FLUSHDB ASYNC
// are freed in many bounded steps, used_memory() falling at every step and landing on the baseline
// exactly; a value MOVEd to another Db is freed from that Db's heap.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "worker/store/db.hpp"
#include "worker/types/hash/hash.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/list/quicklist.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/value.hpp"
#include "worker/types/zset/zset.hpp"

using namespace ruvio;
using store::Db;
namespace H = types::hash;

namespace {

constexpr std::int64_t kNow = 1'700'000'000'000;
constexpr int kN = 20000;
constexpr std::size_t kStep = 500;

using Fill = std::function<void(Db& db, std::string_view key, int n)>;

void fill_hash(Db& db, std::string_view key, int n) {
  store::WriteHandle w = db.open(key, types::Type::kHash, kNow);
  w.set(H::create(w.heap()));
  const H::Limits lim;
  for (int i = 0; i < n; ++i)
    H::set(w.heap(), w.as<H::Hash>(), "field:" + std::to_string(i), "v" + std::to_string(i), lim);
  REQUIRE(w.peek()->enc == H::kHashtable);
}

void fill_set(Db& db, std::string_view key, int n) {
  store::WriteHandle w = db.open(key, types::Type::kSet, kNow);
  w.set(types::set::create(w.heap(), "member:0", static_cast<std::size_t>(n), types::SetLimits{}));
  for (int i = 0; i < n; ++i)
    types::set::add(w.heap(), w.as<types::SetObject>(), "member:" + std::to_string(i),
                    types::SetLimits{});
  REQUIRE((n <= 128 || w.peek()->enc == types::kSetHashtable));
}

void fill_zset(Db& db, std::string_view key, int n) {
  store::WriteHandle w = db.open(key, types::Type::kZSet, kNow);
  const types::ZSetLimits lim;
  w.set(types::zset_create(w.heap(), static_cast<std::size_t>(n), 8, lim));
  unsigned out = 0;
  double score = 0;
  for (int i = 0; i < n; ++i)
    types::zset_add(w.heap(), w.as<types::ZSet>(), i * 0.5, "member:" + std::to_string(i), 0, &out,
                    &score, lim);
  REQUIRE(w.peek()->enc == types::kZSkiplist);
}

// A list's free effort is its node count (Redis's): 4 entries a node makes 5000 nodes.
constexpr int kListFill = 4;
constexpr std::size_t kListEffort = kN / kListFill;

void fill_list(Db& db, std::string_view key, int n) {
  store::WriteHandle w = db.open(key, types::Type::kList, kNow);
  w.set(types::Quicklist::create(w.heap()));
  types::Quicklist ql(w.heap(), w.as<types::ListObject>(), kListFill);
  for (int i = 0; i < n; ++i)
    types::list_push(ql, types::ListEnd::kTail, "element:" + std::to_string(i));
}

std::size_t effort_of(Db& db, std::string_view key) {
  const types::Object* o = db.peek(key).object();
  return types::ops_of(o).free_effort(o);
}

// Frees the queue in steps of kStep; checks that every step gives memory back and that the
// whole value goes in about effort / kStep steps. Returns the steps taken.
int drain(Db& db, std::size_t effort) {
  int steps = 0;
  std::size_t last = db.used_memory();
  while (db.lazyfree_step(kStep)) {
    ++steps;
    CHECK(db.used_memory() < last);
    last = db.used_memory();
    CHECK(db.lazyfree_pending() == 1);
    if (steps > 10 * kN) break;
  }
  CHECK(db.used_memory() < last);
  CHECK(steps + 1 >= static_cast<int>(effort / kStep));
  CHECK(steps <= static_cast<int>(effort / kStep) + 2);
  CHECK(db.lazyfree_pending() == 0);
  return steps;
}

void unlink_in_steps(const Fill& fill, std::size_t effort = kN) {
  types::register_builtin_types();
  Db db;
  db.set_string("pad", "x", {});  // the keyspace table keeps its size across big's life
  const std::size_t base = db.used_memory();
  fill(db, "big", kN);
  CHECK(effort_of(db, "big") == effort);
  const std::size_t with_big = db.used_memory();
  const std::size_t usage = db.peek("big").memory_usage();
  REQUIRE(db.erase("big", true));
  CHECK_FALSE(db.peek("big"));
  CHECK(db.lazyfree_pending() == 1);
  CHECK(db.used_memory() == with_big);  // pending bytes count until freed, as in Redis
  drain(db, effort);
  CHECK(db.used_memory() == base);
  CHECK(with_big - base >= usage);
  CHECK(db.lazyfreed_total() == 1);

  // Not lazy: freed at once, same bytes.
  fill(db, "big", kN);
  REQUIRE(db.erase("big", false));
  CHECK(db.lazyfree_pending() == 0);
  CHECK(db.used_memory() == base);
}

// The other queue paths: an overwrite (server-del), an expired key (expire), FLUSHDB ASYNC.
void other_paths(const Fill& fill, std::size_t effort = kN) {
  types::register_builtin_types();
  Db db;
  db.set_string("pad", "x", {});
  REQUIRE(db.set_expire("pad", kNow + 3'600'000));  // the expiry index keeps its arrays too
  const std::size_t base = db.used_memory();
  db.set_lazyfree({.expire = true, .server_del = true});

  fill(db, "big", kN);
  db.set_string("big", "now a string", {});  // overwrite: the old hash/set/zset is queued
  CHECK(db.lazyfree_pending() == 1);
  drain(db, effort);
  db.erase("big");
  CHECK(db.used_memory() == base);

  fill(db, "big", kN);
  REQUIRE(db.set_expire("big", kNow + 10));
  CHECK_FALSE(db.find("big", kNow + 11));  // lazy expiry queues the value
  CHECK(db.lazyfree_pending() == 1);
  drain(db, effort);
  CHECK(db.used_memory() == base);

  fill(db, "big", kN);
  db.erase("pad");
  const std::size_t empty = db.used_memory();
  db.clear(true);
  CHECK(db.size() == 0);
  int steps = 0;
  while (db.lazyfree_step(kStep) && steps < 10 * kN) ++steps;
  CHECK(steps >= static_cast<int>(effort / kStep) - 1);
  CHECK(db.lazyfree_pending() == 0);
  CHECK(db.used_memory() < empty);
}

// MOVE hands the value and its bytes to another Db; the lazy free of it there must leave both
// Dbs' accounting exact (no rehome rebuild needed).
void moved_then_unlinked(const Fill& fill, std::size_t effort = kN) {
  types::register_builtin_types();
  Db a, b;
  a.set_string("pad", "x", {});
  b.set_string("pad", "x", {});
  fill(a, "big", kN);
  const std::size_t b_base = b.used_memory();
  REQUIRE(a.move_to("big", b));
  const std::size_t a_after = a.used_memory();
  REQUIRE(b.erase("big", true));
  drain(b, effort);
  CHECK(b.used_memory() == b_base);
  CHECK(a.used_memory() == a_after);
}

}  // namespace

TEST_CASE("lazyfree: a 20k-field hashtable hash is freed in bounded steps, accounting exact") {
  unlink_in_steps(fill_hash);
  other_paths(fill_hash);
  moved_then_unlinked(fill_hash);
}

TEST_CASE("lazyfree: a 20k-member hashtable set is freed in bounded steps, accounting exact") {
  unlink_in_steps(fill_set);
  other_paths(fill_set);
  moved_then_unlinked(fill_set);
}

TEST_CASE("lazyfree: a 20k-member skiplist zset is freed in bounded steps, accounting exact") {
  unlink_in_steps(fill_zset);
  other_paths(fill_zset);
  moved_then_unlinked(fill_zset);
}

TEST_CASE("lazyfree: a 5000-node list is freed in bounded steps, accounting exact") {
  unlink_in_steps(fill_list, kListEffort);
  other_paths(fill_list, kListEffort);
  moved_then_unlinked(fill_list, kListEffort);
}

TEST_CASE("lazyfree: small collections are freed at once even when the path is lazy") {
  types::register_builtin_types();
  Db db;
  db.set_string("pad", "x", {});
  const std::size_t base = db.used_memory();
  fill_hash(db, "h", 200);  // hashtable encoding, effort 200 > 64: queued
  fill_set(db, "s", 50);    // effort 50: at once
  CHECK(db.erase("s", true));
  CHECK(db.lazyfree_pending() == 0);
  CHECK(db.erase("h", true));
  CHECK(db.lazyfree_pending() == 1);
  CHECK_FALSE(db.lazyfree_step(1000));
  CHECK(db.used_memory() == base);
}
