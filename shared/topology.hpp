// The Redis Cluster topology the direct ports advertise: which host:port node owns which hash
// slots, and which of those nodes are this service's own workers.
//
// Built once by the supervisor and handed to every worker inside WorkerInit, either
//   * by default from the local workers: worker i = bind:(worker_base_port + i), owning
//     slot_range(i, workers), node id kept in DIR/worker-<i>/node-id; or
//   * from `--cluster-config FILE` (format in README.md, "Cluster topology file"), so
//     workers on several machines form one cluster for cluster-aware clients.
//
// The slot → node index is a flat 16384-entry array (32 KiB): MOVED checks on the direct
// ports and the proxy router look a slot up in one load, no search over ranges.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/config.hpp"
#include "shared/slots.hpp"

namespace ruvio {

template <class Archive>
void serialize(Archive& ar, SlotRange& range) {
  ar(range.first, range.last);
}

struct ClusterNode {
  std::string host;  // as clients must dial it: "127.0.0.1", "10.0.0.2", "::1"
  int port = 0;
  std::string id;                // 40 lower-case hex characters
  std::vector<SlotRange> slots;  // ascending, disjoint; a node may own several ranges

  template <class Archive>
  void serialize(Archive& ar) {
    ar(host, port, id, slots);
  }
};

class Topology {
 public:
  std::vector<ClusterNode> nodes;
  // workers[i] = index in `nodes` of local worker i.
  std::vector<int> workers;

  // Index of the node owning `slot`; -1 when no node does (never, once validated).
  int node_of_slot(std::uint16_t slot) const { return owner_.empty() ? -1 : owner_[slot]; }
  // The local worker owning `slot`, or -1 when a node of another service (another host)
  // owns it.
  int worker_of_slot(std::uint16_t slot) const {
    const int node = node_of_slot(slot);
    return node < 0 ? -1 : local_worker_[static_cast<std::size_t>(node)];
  }
  bool worker_owns(int worker, std::uint16_t slot) const { return worker_of_slot(slot) == worker; }
  // Slots owned by node `node`.
  std::size_t slot_count(int node) const;
  // Lowest first and highest last slot of worker i: its whole span when it owns one range
  // (WorkerInit::slot_first/slot_last); with several ranges use worker_owns().
  SlotRange worker_span(int worker) const;

  // Rebuilds the slot → node and node → worker tables from `nodes` and `workers`.
  // Returns the first overlap or gap as an error text (without a "ruvio: " prefix).
  std::optional<std::string> rebuild_index();

  template <class Archive>
  void serialize(Archive& ar) {
    ar(nodes, workers);
    rebuild_index();  // the tables are derived, not sent
  }

 private:
  std::vector<std::int16_t> owner_;         // kSlotCount entries
  std::vector<std::int32_t> local_worker_;  // per node: worker index or -1
};

// Parses a cluster topology file's text (README.md, "Cluster topology file"). Node ids that
// the file does not give are derived from host:port, so every service reading the same file
// names every node the same way. `path` is only used in error texts. Matches the local
// workers (bind:worker_base_port+i) to their entries. Errors are one line, "ruvio: ..." .
std::optional<std::string> parse_topology(std::string_view text, const std::string& path,
                                          const Config& config, Topology& out);

// The topology for `config`: the default one, or --cluster-config's file read and
// validated. Local node ids of the default topology are left empty (assign_stored_ids).
std::optional<std::string> build_topology(const Config& config, Topology& out);

// Gives each local worker without an id the one stored in DIR/worker-<i>/node-id, creating
// the directory and a random id on first start. Returns a warning text when the id could not
// be stored (the id is then random for this run only).
std::optional<std::string> assign_stored_ids(Topology& topology, const std::string& dir);

std::string random_node_id();
std::string derived_node_id(std::string_view host, int port);
bool valid_node_id(std::string_view id);

}  // namespace ruvio
