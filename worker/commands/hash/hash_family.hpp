// What the hash family's two files (hash_commands.cpp, hash_ttl_commands.cpp) share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "worker/engine/context.hpp"
#include "worker/types/hash/hash.hpp"

namespace ruvio::worker {

// The listpack thresholds in force (hash-max-listpack-entries / -value).
types::hash::Limits hash_limits(Context& ctx);
// lookupKeyRead + checkType: the hash, or null when missing or of another type (WRONGTYPE
// sent, *wrong_type set).
// Fields past their TTL are purged first (lazy field expiry), so every count is exact.
const types::hash::Hash* hash_read(Context& ctx, std::string_view key, bool* wrong_type);
// Lazy field expiry on one key: deletes its expired fields (and the key when none is left).
void hash_purge(Context& ctx, std::string_view key);

class Journal;

// Active expiry of hash fields, for the loop's housekeeping beside Db::expire_cycle: takes
// the hashes whose earliest field TTL is due from each database's index
// (types/hash/field_expiry_index.hpp), at most `budget` keys and 10 x `budget` fields a
// database per tick, deletes their expired fields (logged to `journal` as HDEL) and the keys
// left empty (through lazy free, as UNLINK), without any client touching them. The first
// steps after start also index what the snapshot loaded. Returns the fields removed.
std::size_t hash_field_expire_step(Shard& shard, std::int64_t now_ms, std::size_t budget,
                                   Journal* journal);
// A key that arrived holding a hash (RENAME, COPY, MOVE): indexed if it has field TTLs.
void note_hash_field_ttls(Shard& shard, int db, std::string_view key);
// SWAPDB: the two databases' indexes swap with them.
void swap_hash_field_ttls(Shard& shard, int a, int b);

}  // namespace ruvio::worker
