// libFuzzer target: untrusted stream bytes. Mode 0: one node (a listpack in the stream node
// layout, stream_node.hpp) after its 16-byte master ID goes through stream_node::validate;
// whatever it accepts must walk over every entry and pair without reading outside the blob
// and agree with the master's counts. Mode 1: a whole snapshot
// value goes through stream_load; a stream it accepts must iterate both ways with its length,
// save to bytes that load again to the same bytes, and free every block (the heap's count
// returns to zero).
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_stream_node.cpp worker/containers/stream_id.cpp \
//       worker/containers/stream_node.cpp worker/types/stream/stream.cpp \
//       worker/types/stream/stream_group.cpp worker/types/stream/stream_codec.cpp \
//       worker/containers/listpack.cpp worker/memory/heap.cpp \
//       worker/containers/canonical_int.cpp worker/memory/alloc_sampler.cpp \
//       -lmimalloc -o fuzz_stream_node
//
// Input: byte 0 the mode (even: node, odd: snapshot value), then the bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "worker/containers/stream_node.hpp"
#include "worker/memory/heap.hpp"
#include "worker/types/stream/stream.hpp"

namespace {

using ruvio::store::Heap;
using ruvio::types::Listpack;
using ruvio::types::Stream;
using ruvio::types::StreamID;
namespace node = ruvio::types::stream_node;

void check(bool ok) {
  if (!ok) std::abort();
}

void fuzz_node(const std::uint8_t* data, std::size_t size) {
  if (size < 16) return;
  StreamID master;
  std::memcpy(&master.ms, data, 8);
  std::memcpy(&master.seq, data + 8, 8);
  std::vector<std::uint8_t> bytes(data + 16, data + size);
  StreamID first, last;
  if (!node::validate({bytes.data(), bytes.size()}, master, &first, &last)) return;
  Listpack lp(bytes.data());
  const node::Header h = node::header(lp);
  std::size_t n = 0, live = 0, sink = 0;
  StreamID prev = node::first_prev(master);
  for (node::Pos p = h.first_entry; p != Listpack::kNone; ++n) {
    const node::EntryView e = node::read(lp, h, prev, p);
    if (n == 0) check(e.id == first);
    if (!e.deleted()) ++live;
    node::for_each_pair(lp, h, e, [&](const Listpack::Entry& f, const Listpack::Entry& v) {
      sink += f.str.size() + v.str.size() + static_cast<std::size_t>(f.i & 1);
    });
    prev = e.id;
    p = e.next;
  }
  check(n > 0 && prev == last);
  check(static_cast<std::int64_t>(live) == h.count);
  check(static_cast<std::int64_t>(n) == h.count + h.deleted);
  (void)sink;
}

void fuzz_value(const std::uint8_t* data, std::size_t size) {
  Heap heap;
  Stream* s = ruvio::types::stream_load(heap, {reinterpret_cast<const char*>(data), size});
  if (s == nullptr) {
    check(heap.used == 0);
    return;
  }
  std::size_t n = 0;
  ruvio::types::StreamIter it(s, ruvio::types::kStreamMinId, ruvio::types::kStreamMaxId, false);
  while (it.next()) ++n;
  check(n == s->length);
  std::size_t r = 0;
  ruvio::types::StreamIter rit(s, ruvio::types::kStreamMinId, ruvio::types::kStreamMaxId, true);
  while (rit.next()) ++r;
  check(r == n);
  check(ruvio::types::stream_memory(s) == heap.used);
  std::string saved;
  ruvio::types::stream_save(s, saved);
  Stream* again = ruvio::types::stream_load(heap, saved);
  check(again != nullptr);
  std::string saved2;
  ruvio::types::stream_save(again, saved2);
  check(saved == saved2);
  ruvio::types::stream_destroy(heap, again);
  ruvio::types::stream_destroy(heap, s);
  check(heap.used == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1) {
    fuzz_value(data + 1, size - 1);
  } else {
    fuzz_node(data + 1, size - 1);
  }
  return 0;
}
