// libFuzzer target: untrusted bytes as a list value's snapshot body (list_type.cpp: the
// optional [u32 0][u16 depth] header, then [u32 length][listpack] nodes) go through the list
// type's load. Whatever it accepts must walk both ways with equal entries, answer every index,
// take pushes, a middle LSET/LINSERT and pops with its compressed inner nodes, count its
// memory exactly, and save back to bytes that load to the same entries.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_list_snapshot.cpp worker/types/list/quicklist.cpp \
//       worker/types/list/list.cpp worker/types/list/list_type.cpp worker/store/type_registry.cpp \
//       worker/containers/listpack.cpp worker/containers/intset.cpp \
//       worker/containers/skiplist.cpp worker/types/zset/zset.cpp worker/types/set/set.cpp \
//       worker/types/hash/hash.cpp worker/store/record.cpp worker/store/table.cpp \
//       worker/store/db.cpp worker/store/db_handles.cpp worker/store/lru_clock.cpp \
//       worker/memory/heap.cpp worker/containers/canonical_int.cpp \
//       worker/memory/alloc_sampler.cpp worker/types/stream/stream.cpp \
//       worker/types/stream/stream_codec.cpp worker/types/stream/stream_group.cpp \
//       worker/containers/stream_id.cpp worker/containers/stream_node.cpp \
//       -I/usr/include/liblzf -llzf -lxxhash -lmimalloc \
//       -o fuzz_list_snapshot
//
// Input: a snapshot body (seed: the bytes ValueOps::save writes for any list).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "tests/unit/list_items.hpp"
#include "worker/memory/heap.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/list/quicklist.hpp"
#include "worker/types/value.hpp"

namespace {

using ruvio::store::Heap;
using namespace ruvio::types;
using namespace ruvio::types::testing;

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  register_builtin_types();
  const ValueOps& ops = *find_ops(kTypeList);
  Heap heap;
  const std::string in(reinterpret_cast<const char*>(data), size);
  Object* obj = ops.load(heap, 0, in);
  if (obj == nullptr) {
    check(heap.used == 0);
    return 0;
  }
  auto* o = static_cast<ListObject*>(obj);
  Quicklist ql(heap, o, -2);
  const std::vector<std::string> fwd = items(ql);
  check(fwd.size() == ql.size());
  std::size_t i = fwd.size();
  for (ListPos p = ql.last(); p; p = ql.prev(p)) {
    check(i > 0);
    check(fwd[--i] == text(ql.get(p)));
  }
  check(i == 0);
  const auto n = static_cast<std::int64_t>(fwd.size());
  for (std::int64_t k = 0; k < n; k += 1 + n / 16) {
    check(text(ql.get(ql.seek(k))) == fwd[static_cast<std::size_t>(k)]);
    check(text(ql.get(ql.seek(k - n))) == fwd[static_cast<std::size_t>(k)]);
  }
  check(!ql.seek(n) && !ql.seek(-n - 1));
  check(ops.memory_usage(o) == heap.used);

  std::string saved;
  ops.save(o, saved);
  Object* back = ops.load(heap, 0, saved);
  check(back != nullptr);
  check(items(Quicklist(heap, static_cast<ListObject*>(back), -2)) == fwd);
  ops.destroy(heap, back);

  list_push(ql, ListEnd::kHead, "head");
  list_push(ql, ListEnd::kTail, std::string(100, 't'));
  check(list_set(ql, n / 2, "middle-value-middle-value-middle-value"));
  check(list_insert(ql, Listpack::Where::kBefore, "middle-value-middle-value-middle-value", "x"));
  check(ql.size() == fwd.size() + 3);
  ql.erase_range(0, ql.size() / 3);
  // The input may hold "x" entries of its own: LREM removes every one still there.
  const std::vector<std::string> left = items(ql);
  const auto xs = std::count(left.begin(), left.end(), std::string("x"));
  check(list_remove(ql, "x", 0) == static_cast<std::uint64_t>(xs));
  check(ops.memory_usage(o) == heap.used);
  ops.destroy(heap, o);
  check(heap.used == 0);
  return 0;
}
