// The type id → ValueOps table. Filled once at start-up (register_builtin_types) and by unit
// tests for their toy types; read whenever a value object is destroyed, copied or measured.
#include <array>

#include "worker/types/hash/hash.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/stream/stream.hpp"
#include "worker/types/value.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::types {
namespace {

std::array<const ValueOps*, 256>& table() {
  static std::array<const ValueOps*, 256> ops{};
  return ops;
}

}  // namespace

void register_type(TypeId id, const ValueOps* ops) {
  table()[id] = ops;
}

void register_builtin_types() {
  // The collection types (list, set, zset, hash, stream) register here as they land.
  register_type(kTypeZSet, &kZSetOps);
  register_type(kTypeSet, &kSetOps);
  register_type(kTypeHash, &hash::kHashOps);
  register_list_type();
  register_type(kTypeStream, &kStreamOps);
}

const ValueOps* find_ops(std::uint8_t id) {
  return table()[id];
}

}  // namespace ruvio::types
