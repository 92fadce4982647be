// libFuzzer target: untrusted bytes as a RESTORE payload body (worker/persist/rdb_value.hpp).
// The footer is forged right (version 10 + CRC64), so the bytes reach the decoder of every
// RDB type; whatever it accepts must be storable, DUMP back to a payload that verifies, and
// decode again. Neither the footer check nor the decoder may read outside the bytes, leak
// (the Db frees all it holds) or abort.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_restore.cpp worker/persist/crc64.cpp worker/persist/rdb_io.cpp \
//       worker/persist/rdb_encode.cpp worker/persist/rdb_decode.cpp worker/persist/rdb_stream.cpp \
//       worker/persist/lzf_fast.cpp worker/types/list/quicklist.cpp \
//       worker/types/list/list.cpp worker/types/list/list_type.cpp worker/store/type_registry.cpp \
//       worker/containers/listpack.cpp worker/containers/intset.cpp \
//       worker/containers/skiplist.cpp worker/types/zset/zset.cpp worker/types/set/set.cpp \
//       worker/types/hash/hash.cpp worker/store/record.cpp worker/store/table.cpp \
//       worker/store/db.cpp worker/store/db_handles.cpp worker/store/lru_clock.cpp \
//       worker/memory/heap.cpp worker/containers/canonical_int.cpp \
//       worker/memory/alloc_sampler.cpp worker/types/stream/stream.cpp \
//       worker/types/stream/stream_codec.cpp worker/types/stream/stream_group.cpp \
//       worker/containers/stream_id.cpp worker/containers/stream_node.cpp \
//       -I/usr/include/liblzf -llzf -lisal -lxxhash -lmimalloc \
//       -o fuzz_restore
//
// Input: a payload body without footer (seed: any DUMP reply minus its last 10 bytes).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "worker/persist/crc64.hpp"
#include "worker/persist/rdb_value.hpp"
#include "worker/store/db.hpp"
#include "worker/types/value.hpp"

namespace {

using namespace ruvio;

void check(bool ok) {
  if (!ok) std::abort();
}

std::string with_footer(std::string body) {
  body.push_back(10);
  body.push_back(0);
  const std::uint64_t crc = persist::crc64(0, body);
  for (int i = 0; i < 8; ++i) body.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return body;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  types::register_builtin_types();
  const std::string raw(reinterpret_cast<const char*>(data), size);
  (void)persist::rdb::verify_payload(raw);  // untrusted footer: must only say no
  const std::string payload = with_footer(raw);
  check(persist::rdb::verify_payload(payload));
  persist::rdb::BuildLimits lim;
  lim.list_fill = static_cast<int>(size % 7) - 5;  // vary the node limits and compression
  lim.list_depth = static_cast<int>(size % 3);
  store::Db db;
  persist::rdb::Loaded v;
  if (!persist::rdb::decode_value(db.heap(), payload, lim, v)) return 0;
  if (v.is_string) {
    db.set_string("k", v.str, {});
  } else {
    db.set_object("k", v.obj, {});
  }
  std::string again;
  check(persist::rdb::dump_payload(db.peek("k"), 0, again));
  check(persist::rdb::verify_payload(again));
  persist::rdb::Loaded w;
  check(persist::rdb::decode_value(db.heap(), again, lim, w));
  if (w.is_string) {
    check(v.is_string && w.str == v.str);
  } else {
    check(w.obj->type_id == db.peek("k").object()->type_id);
    types::ops_of(w.obj).destroy(db.heap(), w.obj);
  }
  return 0;
}
