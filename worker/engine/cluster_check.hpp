// The slot check of Redis Cluster mode on the direct ports. A connection accepted on worker i's
// direct port (ClientInfo::cluster_mode) talks to worker i as to one Redis Cluster master: keys
// of slots another node owns answer `-MOVED <slot> <host>:<port>` and the client goes there
// itself, so there is no hop through the mesh.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "shared/topology.hpp"
#include "worker/engine/command.hpp"

namespace ruvio::worker {

// For a command on a cluster-mode connection, before it runs: nullopt when it runs here, else
// the full error text to reply: "CROSSSLOT Keys in request don't hash to the same slot",
// "MOVED <slot> <host>:<port>" or "CLUSTERDOWN Hash slot not served". Keys come from the
// command's key spec. Allocates only when it returns an error.
std::optional<std::string> cluster_check(const Topology& topology, int self, const CommandDef& def,
                                         std::span<const std::string_view> args);

}  // namespace ruvio::worker
