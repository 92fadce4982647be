// The cluster-mode slot check of the direct ports: keys of one slot that this node owns run,
// others answer -MOVED, keys of several slots -CROSSSLOT, an unserved slot -CLUSTERDOWN
// (Redis 7.0's getNodeByQuery for a stable cluster without migrations).
#include "worker/engine/cluster_check.hpp"

#include <string>

#include "shared/slots.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kCrossSlot = "CROSSSLOT Keys in request don't hash to the same slot";

// ---- the slot check -------------------------------------------------------------------------

std::string moved(int slot, const ClusterNode& node) {
  std::string e = "MOVED ";
  e += std::to_string(slot);
  e += ' ';
  // IPv6 hosts are sent bare, as Redis does ("MOVED 1 ::1:7000"); clients split at the last ':'.
  e += node.host;
  e += ':';
  e += std::to_string(node.port);
  return e;
}

}  // namespace

std::optional<std::string> cluster_check(const Topology& topology, int self, const CommandDef& def,
                                         std::span<const std::string_view> args) {
  // Shard channels (SPUBLISH, SSUBSCRIBE) are NOT_KEY specs that hash like keys, as in Redis.
  int slot = -1;
  bool cross = false;
  const KeysFound found = for_each_key(
      def, args,
      [&](std::size_t pos, const KeySpec&) {
        const int s = key_slot(args[pos]);
        if (slot < 0) slot = s;
        cross |= s != slot;
      },
      kKeysIncludeNotKeys);
  // Malformed key arguments (a bad numkeys): no keys, the command answers its own error here.
  if (found == KeysFound::kInvalid) slot = -1;
  if (found != KeysFound::kInvalid && cross) return std::string(kCrossSlot);
  // Commands that reach another database (SELECT n, SWAPDB, MOVE, COPY ... DB n) refuse
  // themselves in their handlers on a cluster-mode connection, as Redis's do.
  if (slot < 0) return std::nullopt;
  const int owner = topology.node_of_slot(static_cast<std::uint16_t>(slot));
  if (owner == self) return std::nullopt;
  if (owner < 0) return std::string("CLUSTERDOWN Hash slot not served");
  return moved(slot, topology.nodes[static_cast<std::size_t>(owner)]);
}

}  // namespace ruvio::worker
