// What the hash family's two files (hash_commands.cpp, hash_ttl_commands.cpp) share.
#pragma once

#include <string_view>

#include "worker/commands/context.hpp"
#include "worker/types/hash/hash.hpp"

namespace ruvio::worker {

// The listpack thresholds in force (hash-max-listpack-entries / -value).
types::hash::Limits hash_limits(Context& ctx);
// lookupKeyRead + checkType: the hash, or null when missing or of another type (WRONGTYPE
// sent, *wrong_type set).
const types::hash::Hash* hash_read(Context& ctx, std::string_view key, bool* wrong_type);

}  // namespace ruvio::worker
