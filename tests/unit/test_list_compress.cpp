// LZF compression of inner quicklist nodes (list-compress-depth, quicklist.hpp): which nodes
// are compressed at the boundaries (depth 0/1/2; lists of 1, 2, 3 nodes and more), the 48-byte
// floor and incompressible data staying plain, reads and writes through compressed nodes
// against a std::deque model, and memory usage, copy and snapshot bytes exact with
// compressed nodes.
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

// "c" where a node is compressed, "p" where plain: {"p", "c", "p"}.
std::string shape(const Quicklist& ql) {
  std::string s;
  for (std::uint32_t i = 0; i < ql.nodes(); ++i) s += ql.compressed(i) ? 'c' : 'p';
  return s;
}

// The compression invariants: nodes within `depth` of an end are plain, a compressed node
// decodes to a valid listpack of its count, and the heap counts exactly the object's blocks.
void check(const Quicklist& ql, const Heap& heap, std::uint32_t depth) {
  const ListObject* o = ql.object();
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < o->nnodes; ++i) {
    if (i < depth || i + depth >= o->nnodes) REQUIRE_FALSE(ql.compressed(i));
    const Listpack lp = ql.lp(i);
    REQUIRE(Listpack::validate(lp.span()));
    REQUIRE(lp.count() == Quicklist::node_array(o)[i].count);
    total += Quicklist::node_array(o)[i].count;
  }
  REQUIRE(total == o->count);
  CHECK(heap.used == Quicklist::memory_usage(o));
}

// A compressible member of 20 bytes: 3 of them make a node of 70 bytes (>= 48).
std::string member(int i) {
  return "element:" + std::string(8, 'x') + std::to_string(1000 + i);
}

// A list of `nodes` nodes of 3 entries each (fill 3), pushed at the tail.
Quicklist build(Heap& heap, int depth, int nodes, std::string (*m)(int) = member) {
  Quicklist ql(heap, Quicklist::create(heap, depth), 3);
  for (int i = 0; i < nodes * 3; ++i) list_push(ql, ListEnd::kTail, m(i));
  REQUIRE(ql.nodes() == static_cast<std::uint32_t>(nodes));
  return ql;
}

}  // namespace

TEST_CASE("list compress: which nodes at depth 0, 1 and 2") {
  Heap heap;
  const std::vector<std::pair<int, std::vector<std::string>>> want = {
      {0, {"p", "pp", "ppp", "pppp", "ppppp"}},
      {1, {"p", "pp", "pcp", "pccp", "pcccp"}},
      {2, {"p", "pp", "ppp", "pppp", "ppcpp"}},
  };
  for (const auto& [depth, shapes] : want) {
    for (int n = 1; n <= 5; ++n) {
      CAPTURE(depth);
      CAPTURE(n);
      Quicklist ql = build(heap, depth, n);
      CHECK(shape(ql) == shapes[n - 1]);
      check(ql, heap, depth);
      Quicklist::destroy(heap, ql.object());
      CHECK(heap.used == 0);
    }
  }
  // Depth 2 at 6 nodes: the two just past the depth.
  Quicklist ql = build(heap, 2, 6);
  CHECK(shape(ql) == "ppccpp");
  // Popping the head node brings a compressed node within depth: it is made plain.
  ql.erase_range(0, 3);
  CHECK(shape(ql) == "ppcpp");
  ql.erase_range(0, 3);
  CHECK(shape(ql) == "pppp");
  check(ql, heap, 2);
  Quicklist::destroy(heap, ql.object());
  CHECK(heap.used == 0);
}

TEST_CASE("list compress: a node under 48 bytes and incompressible data stay plain") {
  Heap heap;
  // 3 entries of 2 bytes: an 13-byte listpack.
  Quicklist tiny = build(heap, 1, 4, [](int i) { return std::to_string(i % 10) + "z"; });
  CHECK(shape(tiny) == "pppp");
  Quicklist::destroy(heap, tiny.object());
  // Random bytes: LZF cannot save 8 bytes.
  static std::mt19937_64 rng(7);
  Quicklist noise = build(heap, 1, 4, [](int) {
    std::string s(40, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
  });
  CHECK(shape(noise) == "pppp");
  check(noise, heap, 1);
  Quicklist::destroy(heap, noise.object());
  CHECK(heap.used == 0);
}

TEST_CASE("list compress: the compressed form is smaller and counted exactly") {
  Heap heap;
  Quicklist plain(heap, Quicklist::create(heap, 0), -2);
  Quicklist packed(heap, Quicklist::create(heap, 1), -2);
  for (int i = 0; i < 20000; ++i) {
    list_push(plain, ListEnd::kTail, member(i));
    list_push(packed, ListEnd::kTail, member(i));
  }
  CHECK(shape(packed).find('c') != std::string::npos);
  CHECK(Quicklist::memory_usage(packed.object()) * 2 < Quicklist::memory_usage(plain.object()));
  CHECK(items(packed) == items(plain));
  CHECK(heap.used ==
        Quicklist::memory_usage(packed.object()) + Quicklist::memory_usage(plain.object()));
  // Reads in the middle do not leave a node decompressed.
  const std::string before = shape(packed);
  CHECK(text(packed.get(packed.seek(10000))) == member(10000));
  CHECK(shape(packed) == before);
  Quicklist::destroy(heap, plain.object());
  Quicklist::destroy(heap, packed.object());
  CHECK(heap.used == 0);
}

TEST_CASE("list compress: copy and snapshot keep the depth and the entries") {
  register_builtin_types();
  Heap heap;
  Quicklist ql = build(heap, 1, 8);
  ListObject* o = ql.object();
  const ValueOps& ops = ops_of(o);
  CHECK(ops.memory_usage(o) == heap.used);
  Object* c = ops.copy(heap, o);
  Quicklist copy(heap, static_cast<ListObject*>(c), 3);
  CHECK(items(copy) == items(ql));
  CHECK(shape(copy) == shape(ql));
  CHECK(ops.memory_usage(c) == ops.memory_usage(o));
  std::string bytes;
  ops.save(o, bytes);
  Object* back = ops.load(heap, o->enc, bytes);
  REQUIRE(back != nullptr);
  Quicklist loaded(heap, static_cast<ListObject*>(back), 3);
  CHECK(static_cast<ListObject*>(back)->depth == 1);
  CHECK(items(loaded) == items(ql));
  CHECK(shape(loaded) == "pccccccp");
  // A depth-0 list's bytes carry no depth header (the format before compression).
  Quicklist flat = build(heap, 0, 2);
  std::string flat_bytes;
  ops.save(flat.object(), flat_bytes);
  CHECK(flat_bytes.substr(0, 4) != std::string(4, '\0'));
  ops.destroy(heap, flat.object());
  ops.destroy(heap, c);
  ops.destroy(heap, back);
  ops.destroy(heap, o);
  CHECK(heap.used == 0);
}

TEST_CASE("list compress: randomized against a deque model at depth 1 and 2") {
  std::mt19937_64 rng(20261202);
  for (int depth : {1, 2}) {
    for (int fill : {-1, 4}) {
      Heap heap;
      Quicklist ql(heap, Quicklist::create(heap, depth), fill);
      std::deque<std::string> model;
      auto value = [&]() -> std::string {
        switch (rng() % 4) {
          case 0:
            return std::to_string(rng() % 10);
          case 1:
            return std::string(1 + rng() % 200, static_cast<char>('a' + rng() % 3));
          default:
            return member(static_cast<int>(rng() % 50));
        }
      };
      for (int step = 0; step < 3000; ++step) {
        const auto n = static_cast<std::int64_t>(model.size());
        const int op = static_cast<int>(rng() % 10);
        if (op < 4) {
          std::string m = value();
          const bool head = op % 2 == 0;
          list_push(ql, head ? ListEnd::kHead : ListEnd::kTail, m);
          if (head) {
            model.push_front(m);
          } else {
            model.push_back(m);
          }
        } else if (op == 4 && n > 0) {
          const std::int64_t i = static_cast<std::int64_t>(rng() % n);
          std::string m = value();
          CHECK(list_set(ql, i, m));
          model[i] = m;
        } else if (op == 5) {
          std::string pivot = std::to_string(rng() % 10);
          std::string m = value();
          auto it = std::find(model.begin(), model.end(), pivot);
          CHECK(list_insert(ql, Listpack::Where::kAfter, pivot, m) == (it != model.end()));
          if (it != model.end()) model.insert(it + 1, m);
        } else if (op == 6) {
          std::string v = std::to_string(rng() % 10);
          const std::int64_t count = rng() % 2 ? 0 : -1;
          std::uint64_t want = 0;
          for (std::int64_t i = n - 1; i >= 0; --i) {
            if (model[i] == v && (count == 0 || want == 0)) {
              model.erase(model.begin() + i);
              ++want;
            }
          }
          CHECK(list_remove(ql, v, count) == want);
        } else if (op == 7 && n > 0) {
          const std::uint64_t start = rng() % n;
          const std::uint64_t k = rng() % (std::min<std::uint64_t>(n - start, 40) + 1);
          ql.erase_range(start, k);
          model.erase(model.begin() + static_cast<std::int64_t>(start),
                      model.begin() + static_cast<std::int64_t>(start + k));
        } else if (n > 0) {
          const std::int64_t i = static_cast<std::int64_t>(rng() % n);
          const ListPos p = ql.seek(i);
          REQUIRE(p);
          CHECK(text(ql.get(p)) == model[i]);
          ql.erase(p);
          model.erase(model.begin() + i);
        }
        if (step % 50 == 0) {
          check(ql, heap, static_cast<std::uint32_t>(depth));
          REQUIRE(items(ql) == std::vector<std::string>(model.begin(), model.end()));
        }
      }
      CHECK(items_backwards(ql) == std::vector<std::string>(model.begin(), model.end()));
      Quicklist::destroy(heap, ql.object());
      CHECK(heap.used == 0);
    }
  }
}
