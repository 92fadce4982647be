// Streams in Redis 7.0's RDB form (rdb.c's RDB_TYPE_STREAM_LISTPACKS_2; _1 is read too). Our
// node listpacks are packed tighter than Redis's (stream_node.hpp), so DUMP writes Redis's
// node format afresh from the live entries, and RESTORE reads Redis's nodes into entries that
// it appends in order:
//
//   [nodes]{[16-byte master ID, ms and seq big-endian][node listpack]}
//   [length][last_id ms][last_id seq]
//   (type 19) [first_id ms][seq][max_deleted_id ms][seq][entries_added]
//   [groups]{[name][last_id ms][seq] (19) [entries_read]
//            [pel]{[16-byte ID][u64 LE delivery time][delivery count]}
//            [consumers]{[name][u64 LE seen time][pel]{[16-byte ID]}}}
//   Redis's node listpack:
//     master  [count][deleted][num-fields][field]...[0]
//     entry   [flags][ms-diff][seq-diff] SAMEFIELDS: [value]... else [n][field][value]...
//             then [lp-count] = elements of the entry before it
#pragma once

#include <string>

#include "worker/memory/heap.hpp"
#include "worker/persist/rdb_io.hpp"
#include "worker/types/value.hpp"

namespace ruvio::persist::rdb {

void encode_stream(const types::Object* o, std::string& out);
// `type` is kStreamListpacks or kStreamListpacks2; null on any malformation.
types::Object* decode_stream(store::Heap& heap, Reader& r, std::uint8_t type);

}  // namespace ruvio::persist::rdb
