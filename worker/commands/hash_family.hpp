// What the hash family's two files (hash_commands.cpp, hash_ttl_commands.cpp) share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "worker/commands/context.hpp"
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

// Active expiry of hash fields, for the loop's housekeeping beside Db::expire_cycle: walks
// about `budget` keys per database from where the last step stopped and purges the hashes
// whose fields are due, without any client touching them. Returns the fields removed.
std::size_t hash_field_expire_step(Shard& shard, std::int64_t now_ms, std::size_t budget);

}  // namespace ruvio::worker
