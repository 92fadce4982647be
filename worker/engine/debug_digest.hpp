// DEBUG DIGEST / DIGEST-VALUE: Redis's dataset signature (debug.c), computed the same way over
// this server's encodings so that two servers holding the same data answer the same hex.
//
//   xorDigest(d, data):  d ^= SHA1(data)              order-free: set members, hash fields,
//                                                     zset members, keys of a database
//   mixDigest(d, data):  d = SHA1(d ^ SHA1(data))     ordered: list elements, stream entries
//   value digest:  mix(type as u32 BE: string 0, list 1, set 2, zset 3, hash 4, stream 6),
//     then per type: string mix(text); list mix(each element); set xor(each member); zset and
//     hash xor(an element digest = mix(member), mix("%.17g" score) / mix(field), mix(value));
//     stream mix("ms.seq") then mix(field), mix(value) of each entry; then xor("!!expire!!")
//     when the key has a TTL.
//   dataset:  per non-empty database j: mix(j as u32 BE), then xor of every key's
//     (mix(key) followed by its value digest). All zeros for an empty dataset.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "worker/engine/shard.hpp"

namespace ruvio::worker {

using Digest = std::array<std::uint8_t, 20>;

// The value digest of `e` mixed into `d` (xorObjectDigest).
void digest_value(const store::Entry& e, Digest& d);
// computeDatasetDigest over every database of the shard.
Digest digest_dataset(Shard& shard);
std::string digest_hex(const Digest& d);
std::optional<Digest> digest_from_hex(std::string_view hex);

// DEBUG DIGEST through the proxy port: each worker's part per database (none: empty there,
// else the xor of its keys' digests), and the dataset digest of parts xored over workers
// (per db an xor is order-free, so the keys of every worker combine as one server's).
std::vector<std::optional<Digest>> digest_parts(Shard& shard);
Digest digest_combine(std::span<const std::optional<Digest>> dbs);
// enable-debug-command allows DEBUG for this client (debug_commands.cpp).
bool debug_allowed(Shard& shard, const ClientInfo& client);

}  // namespace ruvio::worker
