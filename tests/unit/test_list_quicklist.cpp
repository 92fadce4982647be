// The list encoding (worker/types/list/quicklist.hpp) and semantics (list.hpp): the inline
// one-node form, the node limit of every fill (at, and one past, the limit), a member larger
// than a node, splits on LINSERT/LSET, range erases across nodes, the way back to one node,
// copy / memory usage / snapshot bytes exact against the heap, and a randomized run against a
// std::deque model with every invariant checked after each step.
#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/list_items.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/list/quicklist.hpp"
#include "worker/types/value.hpp"

using ruvio::store::Heap;
using namespace ruvio::types;
using namespace ruvio::types::testing;

namespace {

// Every structural invariant: counts add up, no node empty, no node past the limit unless it
// holds a single entry, the encoding byte matches the node count, the heap counts exactly the
// object's blocks.
void check(const Quicklist& ql, const Heap& heap, int fill, std::size_t heap_base = 0) {
  const ListObject* o = ql.object();
  const ListNode* nodes = Quicklist::node_array(o);
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < o->nnodes; ++i) {
    Listpack lp(nodes[i].lp);
    REQUIRE(nodes[i].count > 0);
    REQUIRE(lp.count() == nodes[i].count);
    REQUIRE(Listpack::validate(lp.span()));
    if (nodes[i].count > 1) {
      if (fill < 0) {
        const std::size_t limit = std::size_t{4096} << (std::min(-fill, 5) - 1);
        REQUIRE(lp.bytes() <= limit + 16);
      } else {
        REQUIRE(nodes[i].count <= static_cast<std::uint32_t>(std::max(fill, 1)));
      }
    }
    total += nodes[i].count;
  }
  REQUIRE(total == o->count);
  REQUIRE((o->nnodes <= 1) == (o->enc == ListObject::kSmall));
  CHECK(heap.used - heap_base == Quicklist::memory_usage(o));
}

}  // namespace

TEST_CASE("list quicklist: empty, one entry, inline node") {
  Heap heap;
  ListObject* o = Quicklist::create(heap);
  Quicklist ql(heap, o, -2);
  CHECK(sizeof(ListObject) == 32);
  CHECK(ql.size() == 0);
  CHECK(ql.nodes() == 0);
  CHECK(!ql.first());
  CHECK(!ql.seek(0));
  CHECK(!ql.seek(-1));
  list_push(ql, ListEnd::kTail, "a");
  check(ql, heap, -2);
  CHECK(o->enc == ListObject::kSmall);
  CHECK(items(ql) == std::vector<std::string>{"a"});
  CHECK(text(ql.get(ql.seek(-1))) == "a");
  CHECK(!ql.seek(1));
  CHECK(!ql.seek(-2));
  ql.erase(ql.first());
  CHECK(ql.size() == 0);
  CHECK(ql.nodes() == 0);
  check(ql, heap, -2);
  Quicklist::destroy(heap, o);
  CHECK(heap.used == 0);
}

TEST_CASE("list quicklist: the 8 KiB node limit of fill -2, at and one past it") {
  Heap heap;
  ListObject* o = Quicklist::create(heap);
  Quicklist ql(heap, o, -2);
  const std::string member(100, 'x');  // 102 bytes an entry (header, data, backlen)
  std::size_t pushed = 0;
  while (ql.nodes() < 2) {
    list_push(ql, ListEnd::kTail, member);
    ++pushed;
    check(ql, heap, -2);
  }
  // The first node took as many as fit under 8192 bytes (with the estimate's overhead).
  const std::uint32_t first = Quicklist::node_array(o)[0].count;
  CHECK(first == pushed - 1);
  CHECK(Listpack(Quicklist::node_array(o)[0].lp).bytes() + 100 + 8 > 8192);
  CHECK(Listpack(Quicklist::node_array(o)[0].lp).bytes() <= 8192);
  CHECK(o->enc == ListObject::kChain);
  // Popping the one entry of the second node goes back to the inline form.
  ql.erase(ql.last());
  check(ql, heap, -2);
  CHECK(o->enc == ListObject::kSmall);
  Quicklist::destroy(heap, o);
  CHECK(heap.used == 0);
}

TEST_CASE("list quicklist: positive fill counts entries; -1..-5 and below") {
  for (int fill : {1, 2, 3, 128, -1, -3, -5, -9}) {
    Heap heap;
    ListObject* o = Quicklist::create(heap);
    Quicklist ql(heap, o, fill);
    for (int i = 0; i < 700; ++i) {
      list_push(ql, ListEnd::kTail, std::to_string(i) + "-member-xx");
    }
    check(ql, heap, fill);
    if (fill > 0) CHECK(ql.nodes() == (700 + fill - 1) / fill);
    CHECK(items(ql) == items_backwards(ql));
    Quicklist::destroy(heap, o);
    CHECK(heap.used == 0);
  }
}

TEST_CASE("list quicklist: a member larger than a node sits alone") {
  Heap heap;
  ListObject* o = Quicklist::create(heap);
  Quicklist ql(heap, o, -2);
  list_push(ql, ListEnd::kTail, "a");
  const std::string huge(20000, 'h');
  list_push(ql, ListEnd::kTail, huge);
  list_push(ql, ListEnd::kTail, "b");
  check(ql, heap, -2);
  CHECK(ql.nodes() == 3);
  CHECK(text(ql.get(ql.seek(1))) == huge);
  // LSET of a small entry to a huge one splits its node.
  ListObject* o2 = Quicklist::create(heap);
  Quicklist q2(heap, o2, -2);
  for (int i = 0; i < 10; ++i) list_push(q2, ListEnd::kTail, std::to_string(i));
  CHECK(list_set(q2, 5, huge));
  check(q2, heap, -2, Quicklist::memory_usage(o));
  CHECK(q2.nodes() >= 2);
  CHECK(text(q2.get(q2.seek(5))) == huge);
  CHECK(text(q2.get(q2.seek(9))) == "9");
  Quicklist::destroy(heap, o);
  Quicklist::destroy(heap, o2);
  CHECK(heap.used == 0);
}

TEST_CASE("list semantics: LINSERT, LREM both ways, LTRIM, ranges, LPOS") {
  Heap heap;
  ListObject* o = Quicklist::create(heap);
  Quicklist ql(heap, o, 3);  // 3 entries a node: every operation crosses nodes
  for (const char* s : {"a", "b", "a", "c", "a", "d", "a"}) list_push(ql, ListEnd::kTail, s);
  CHECK(list_insert(ql, Listpack::Where::kBefore, "c", "X"));
  CHECK(list_insert(ql, Listpack::Where::kAfter, "d", "Y"));
  CHECK(!list_insert(ql, Listpack::Where::kAfter, "zz", "Y"));
  check(ql, heap, 3);
  CHECK(items(ql) == std::vector<std::string>{"a", "b", "a", "X", "c", "a", "d", "Y", "a"});
  std::vector<std::int64_t> pos;
  list_positions(ql, "a", -1, 0, 0, [&](std::int64_t i) { pos.push_back(i); });
  CHECK(pos == std::vector<std::int64_t>{8, 5, 2, 0});
  pos.clear();
  list_positions(ql, "a", 2, 2, 0, [&](std::int64_t i) { pos.push_back(i); });
  CHECK(pos == std::vector<std::int64_t>{2, 5});
  pos.clear();
  list_positions(ql, "a", 1, 0, 3, [&](std::int64_t i) { pos.push_back(i); });
  CHECK(pos == std::vector<std::int64_t>{0, 2});
  CHECK(list_remove(ql, "a", -2) == 2);
  CHECK(items(ql) == std::vector<std::string>{"a", "b", "a", "X", "c", "d", "Y"});
  CHECK(list_remove(ql, "a", 1) == 1);
  CHECK(list_remove(ql, "zz", 0) == 0);
  check(ql, heap, 3);
  CHECK(items(ql) == std::vector<std::string>{"b", "a", "X", "c", "d", "Y"});
  list_trim(ql, 1, -2);
  CHECK(items(ql) == std::vector<std::string>{"a", "X", "c", "d"});
  list_trim(ql, -100, 100);
  CHECK(ql.size() == 4);
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  CHECK(list_range(4, -2, 100, first, last));
  CHECK((first == 2 && last == 3));
  CHECK(!list_range(4, 3, 2, first, last));
  CHECK(!list_range(4, 4, 10, first, last));
  CHECK(!list_range(0, 0, -1, first, last));
  list_trim(ql, 2, 1);
  CHECK(ql.size() == 0);
  check(ql, heap, 3);
  Quicklist::destroy(heap, o);
  CHECK(heap.used == 0);
}

TEST_CASE("list type: copy, memory usage and snapshot bytes round-trip") {
  register_builtin_types();
  Heap heap;
  ListObject* o = Quicklist::create(heap);
  Quicklist ql(heap, o, -2);
  for (int i = 0; i < 3000; ++i) {
    list_push(ql, ListEnd::kTail, i % 7 ? std::to_string(i * 31) : std::string(90, 'a' + i % 26));
  }
  const ValueOps& ops = ops_of(o);
  CHECK(ops.name == "list");
  CHECK(ops.encoding(o) == "quicklist");
  CHECK(ops.memory_usage(o) == heap.used);
  CHECK(ops.free_effort(o) == ql.nodes());
  Object* c = ops.copy(heap, o);
  CHECK(items(Quicklist(heap, static_cast<ListObject*>(c), -2)) == items(ql));
  std::string bytes;
  ops.save(o, bytes);
  Object* back = ops.load(heap, o->enc, bytes);
  REQUIRE(back != nullptr);
  CHECK(items(Quicklist(heap, static_cast<ListObject*>(back), -2)) == items(ql));
  CHECK(static_cast<ListObject*>(back)->nnodes == o->nnodes);
  // Damaged bytes are refused, not trusted.
  CHECK(ops.load(heap, 0, bytes.substr(0, bytes.size() - 1)) == nullptr);
  std::string bad = bytes;
  bad[10] ^= 0x40;
  Object* damaged = ops.load(heap, 0, bad);
  if (damaged != nullptr) ops.destroy(heap, damaged);  // a flip inside a string is valid
  CHECK(ops.load(heap, 0, "") == nullptr);
  ops.destroy(heap, c);
  ops.destroy(heap, back);
  ops.destroy(heap, o);
  CHECK(heap.used == 0);
}

TEST_CASE("list quicklist: randomized against a deque model") {
  std::mt19937_64 rng(20261201);
  for (int fill : {-2, -1, 2, 5}) {
    Heap heap;
    ListObject* o = Quicklist::create(heap);
    Quicklist ql(heap, o, fill);
    std::deque<std::string> model;
    auto member = [&]() -> std::string {
      switch (rng() % 5) {
        case 0:
          return std::to_string(static_cast<std::int64_t>(rng() % 2000) - 1000);
        case 1:
          return std::string(1 + rng() % 300, static_cast<char>('a' + rng() % 3));
        case 2:
          return rng() % 50 == 0 ? std::string(9000, 'H') : "m" + std::to_string(rng() % 8);
        default:
          return std::to_string(rng() % 10);
      }
    };
    for (int step = 0; step < 4000; ++step) {
      const auto n = static_cast<std::int64_t>(model.size());
      switch (rng() % 9) {
        case 0:
        case 1: {
          std::string m = member();
          list_push(ql, ListEnd::kHead, m);
          model.push_front(m);
          break;
        }
        case 2:
        case 3: {
          std::string m = member();
          list_push(ql, ListEnd::kTail, m);
          model.push_back(m);
          break;
        }
        case 4: {
          if (n == 0) break;
          const std::int64_t i = static_cast<std::int64_t>(rng() % n);
          std::string m = member();
          CHECK(list_set(ql, i - (rng() % 2 ? n : 0), m));
          model[i] = m;
          break;
        }
        case 5: {
          std::string pivot = std::to_string(rng() % 10);
          std::string m = member();
          const bool after = rng() % 2;
          auto it = std::find(model.begin(), model.end(), pivot);
          CHECK(list_insert(ql, after ? Listpack::Where::kAfter : Listpack::Where::kBefore, pivot,
                            m) == (it != model.end()));
          if (it != model.end()) model.insert(after ? it + 1 : it, m);
          break;
        }
        case 6: {
          std::string v = std::to_string(rng() % 10);
          const std::int64_t count = static_cast<std::int64_t>(rng() % 5) - 2;
          std::uint64_t want = 0;
          if (count >= 0) {
            for (auto it = model.begin(); it != model.end();) {
              if (*it == v && (count == 0 || want < static_cast<std::uint64_t>(count))) {
                it = model.erase(it);
                ++want;
              } else {
                ++it;
              }
            }
          } else {
            for (std::int64_t i = n - 1; i >= 0; --i) {
              if (model[i] == v && want < static_cast<std::uint64_t>(-count)) {
                model.erase(model.begin() + i);
                ++want;
              }
            }
          }
          CHECK(list_remove(ql, v, count) == want);
          break;
        }
        case 7: {
          if (n == 0) break;
          const std::uint64_t start = rng() % n;
          const std::uint64_t k = rng() % (n - start + 1);
          ql.erase_range(start, k);
          model.erase(model.begin() + static_cast<std::int64_t>(start),
                      model.begin() + static_cast<std::int64_t>(start + k));
          break;
        }
        default: {
          if (n == 0) break;
          const std::int64_t i = static_cast<std::int64_t>(rng() % n);
          const ListPos p = ql.seek(i);
          REQUIRE(p);
          CHECK(text(ql.get(p)) == model[i]);
          CHECK(text(ql.get(ql.seek(i - n))) == model[i]);
          ql.erase(p);
          model.erase(model.begin() + i);
          break;
        }
      }
      if (step % 50 == 0 || model.size() < 3) {
        check(ql, heap, fill);
        REQUIRE(items(ql) == std::vector<std::string>(model.begin(), model.end()));
      }
    }
    CHECK(items_backwards(ql) == std::vector<std::string>(model.begin(), model.end()));
    Quicklist::destroy(heap, o);
    CHECK(heap.used == 0);
  }
}
