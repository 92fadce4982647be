// The RDB value codec: a key's value in Redis 7.0's serialization (type byte + body, as
// rdbSaveObjectType/rdbSaveObject write it) and back (rdbLoadObjectType/rdbLoadObject), and
// the DUMP payload around it. DUMP, RESTORE and MIGRATE use it.
//
//   DUMP payload = [type byte][body][u16 LE RDB version = 10][u64 LE crc64 of all before]
//
//   What DUMP writes, per encoding (7.0's choices; the compact blobs pass through as stored,
//   since they are Redis's bytes, listpack.hpp / intset.hpp):
//     string             0  STRING            int form / LZF / verbatim (rdb_io.hpp)
//     list               18 LIST_QUICKLIST_2  [nodes]{[container 2][listpack or LZF blob]}
//     set intset         11 SET_INTSET        the intset blob as a string
//     set listpack       2  SET               7.0 has no listpack set (7.2's type 20): plain
//     set hashtable      2  SET               [n]{member}
//     zset listpack      17 ZSET_LISTPACK     the blob
//     zset skiplist      5  ZSET_2            [n]{member, binary double}, highest score first
//     hash listpack      16 HASH_LISTPACK     the blob
//     hash hashtable     4  HASH              [n]{field, value} (fields past their TTL left out)
//     stream             19 STREAM_LISTPACKS_2 (rdb_stream.hpp: nodes rewritten in Redis's form)
//   RESTORE also reads what 7.0 reads of older servers: LIST, ZSET (text doubles), the
//   ziplist types 10/12/13, LIST_QUICKLIST 14 (ziplist nodes), HASH_ZIPMAP 9, STREAM_LISTPACKS 15.
//   Everything is checked deeply (sanitize-dump-payload yes, always): blob integrity, even
//   field/value counts, duplicate members, NaN scores, empty values. The value is rebuilt through
//   the types' own operations, so it lands in the encoding this server's thresholds choose (as 7.0
//   converts a loaded listpack that is past them).
//   sanitize-dump-payload no (7.0's default) and clients for a skip-sanitize-payload user behave
//   as yes, for every encoding: redis-server then checks only the blob headers and accepts a
//   listpack with a duplicate member or a wrong entry length, an unsorted intset, which
//   its later commands misread or crash on; the walkers here trust a stored blob, so such a
//   payload gets "Bad data format" (tests/integration/test_sanitize_payload.py pins which).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "shared/config.hpp"
#include "worker/store/db.hpp"
#include "worker/types/hash/hash.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::persist::rdb {

// The thresholds a decoded value is built under.
struct BuildLimits {
  types::hash::Limits hash;
  types::ZSetLimits zset;
  types::SetLimits set;
  int list_fill = -2;  // list-max-listpack-size
  int list_depth = 0;  // list-compress-depth
};
// The thresholds of a worker's configuration.
BuildLimits build_limits(const Config& c);

// Appends [type byte][body] for the value of `e`; false when the type has no RDB form here.
bool encode_value(const store::Entry& e, std::int64_t now_ms, std::string& out);
// The DUMP payload of `e` (encode_value + version + CRC); false as encode_value.
bool dump_payload(const store::Entry& e, std::int64_t now_ms, std::string& out);
// verifyDumpPayload: long enough, version not newer than ours, CRC64 right.
bool verify_payload(std::string_view payload);

// A decoded value: a string, or a value object allocated from the heap it was decoded with
// (the caller stores it with Db::set_object or frees it through its ops).
struct Loaded {
  bool is_string = false;
  std::string str;
  types::Object* obj = nullptr;
};
// Decodes [type byte][body] from the start of `in`: the whole verified payload, footer
// included, as restoreCommand hands rdbLoadObject the whole buffer (so a short body reads
// into the footer, and bytes left over are not looked at, exactly as in Redis). False on any
// malformation (nothing is left allocated then).
bool decode_value(store::Heap& heap, std::string_view in, const BuildLimits& lim, Loaded& out);

}  // namespace ruvio::persist::rdb
