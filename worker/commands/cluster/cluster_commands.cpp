// Cluster mode: slot check and the CLUSTER family. Reply shapes are Redis 7.0's, checked
// against a redis-server --cluster-enabled node (tests/integration/test_cluster.py).
//
// Per-slot key counts (COUNTKEYSINSLOT, and GETKEYSINSLOT's early stop) for database 0:
//
//   SlotKeys::count  [u32 × 16384] = 64 KiB, indexed by key_slot(key)
//
// kept by a store::Db key observer. It is attached lazily, on the first COUNTKEYSINSLOT or
// GETKEYSINSLOT, so a worker nobody asks pays nothing (not even the CRC16 per new key); from
// then on each key creation/removal in database 0 costs one CRC16 of the key. The observer
// follows the keys on SWAPDB: when database 0 is no longer the observed one, the counts are
// rebuilt from scratch (one pass over database 0).

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "shared/slots.hpp"
#include "worker/commands/cluster/cluster_decls.hpp"
#include "worker/engine/cluster_check.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/subcommand.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kDisabled = "ERR This instance has cluster support disabled";
// ---- per-slot key counts ----------------------------------------------------------------------

struct SlotKeys {
  std::array<std::uint32_t, kSlotCount> count{};
};

void observe(void* context, std::string_view key, int delta) {
  auto& keys = *static_cast<SlotKeys*>(context);
  if (delta == 0) {
    keys.count.fill(0);  // clear(): every key is gone
    return;
  }
  keys.count[key_slot(key)] += static_cast<std::uint32_t>(delta);
}

// The counts of database 0, attaching (and filling) them on first use. One shard per worker
// process, so one set of counts.
const SlotKeys& slot_keys(Shard& shard) {
  static SlotKeys keys;
  store::Db& db0 = shard.db(0);
  if (db0.key_observer_context() != &keys) {
    for (int i = 0; i < shard.databases(); ++i) {
      if (shard.db(i).key_observer_context() == &keys)
        shard.db(i).set_key_observer(nullptr, nullptr);
    }
    keys.count.fill(0);
    db0.set_key_observer(observe, &keys);  // reports every existing key
  }
  return keys;
}

// ---- helpers ---------------------------------------------------------------------------------

// CLUSTER on the proxy port answers as a standalone Redis (after the arity checks).
const Topology* cluster_topology(Context& ctx) {
  if (!ctx.client.cluster_mode || ctx.shard.topology == nullptr) {
    ctx.out.error(kDisabled);
    return nullptr;
  }
  return ctx.shard.topology;
}

// Redis's ranges of one node as "0-8191 9000" (a single slot has no dash).
void append_ranges(std::string& out, const ClusterNode& node) {
  for (const SlotRange& r : node.slots) {
    out += ' ';
    out += std::to_string(r.first);
    if (r.last != r.first) {
      out += '-';
      out += std::to_string(r.last);
    }
  }
}

// A static topology has no elections: each node's config epoch is its position + 1.
std::int64_t epoch_of(int node) {
  return node + 1;
}

// ---- handlers --------------------------------------------------------------------------------

void cluster_slots(Context& ctx) {
  const Topology* topo = cluster_topology(ctx);
  if (topo == nullptr) return;
  struct Entry {
    SlotRange range;
    int node;
  };
  std::vector<Entry> entries;
  for (std::size_t n = 0; n < topo->nodes.size(); ++n) {
    for (const SlotRange& r : topo->nodes[n].slots) entries.push_back({r, static_cast<int>(n)});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.range.first < b.range.first; });
  ctx.out.array(entries.size());
  for (const Entry& e : entries) {
    const ClusterNode& node = topo->nodes[static_cast<std::size_t>(e.node)];
    ctx.out.array(3);
    ctx.out.integer(e.range.first);
    ctx.out.integer(e.range.last);
    ctx.out.array(4);
    ctx.out.bulk(node.host);
    ctx.out.integer(node.port);
    ctx.out.bulk(node.id);
    ctx.out.map(0);  // hostname metadata: none
  }
}

void cluster_shards(Context& ctx) {
  const Topology* topo = cluster_topology(ctx);
  if (topo == nullptr) return;
  ctx.out.array(topo->nodes.size());
  for (const ClusterNode& node : topo->nodes) {
    ctx.out.map(2);
    ctx.out.bulk("slots");
    ctx.out.array(node.slots.size() * 2);
    for (const SlotRange& r : node.slots) {
      ctx.out.integer(r.first);
      ctx.out.integer(r.last);
    }
    ctx.out.bulk("nodes");
    ctx.out.array(1);
    ctx.out.map(7);
    ctx.out.bulk("id");
    ctx.out.bulk(node.id);
    ctx.out.bulk("port");
    ctx.out.integer(node.port);
    ctx.out.bulk("ip");
    ctx.out.bulk(node.host);
    ctx.out.bulk("endpoint");
    ctx.out.bulk(node.host);
    ctx.out.bulk("role");
    ctx.out.bulk("master");
    ctx.out.bulk("replication-offset");
    ctx.out.integer(0);
    ctx.out.bulk("health");
    ctx.out.bulk("online");
  }
}

void cluster_nodes(Context& ctx) {
  const Topology* topo = cluster_topology(ctx);
  if (topo == nullptr) return;
  // <id> <ip:port@cport> <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link> <slot>...
  std::string text;
  for (std::size_t n = 0; n < topo->nodes.size(); ++n) {
    const ClusterNode& node = topo->nodes[n];
    const bool myself = static_cast<int>(n) == ctx.shard.self_node;
    text += node.id;
    text += ' ';
    text += node.host;
    text += ':';
    text += std::to_string(node.port);
    text += '@';
    text += std::to_string(node.port + 10000);
    text += myself ? " myself,master - 0 0 " : " master - 0 ";
    if (!myself) {  // the last pong: the static peers are always "just heard from"
      text += std::to_string(ctx.now_ms());
      text += ' ';
    }
    text += std::to_string(epoch_of(static_cast<int>(n)));
    text += " connected";
    append_ranges(text, node);
    text += '\n';
  }
  ctx.out.verbatim(text);
}

void cluster_myid(Context& ctx) {
  const Topology* topo = cluster_topology(ctx);
  if (topo == nullptr) return;
  ctx.out.bulk(topo->nodes[static_cast<std::size_t>(ctx.shard.self_node)].id);
}

void cluster_info(Context& ctx) {
  const Topology* topo = cluster_topology(ctx);
  if (topo == nullptr) return;
  std::size_t assigned = 0;
  std::size_t size = 0;  // masters serving at least one slot
  for (std::size_t n = 0; n < topo->nodes.size(); ++n) {
    const std::size_t slots = topo->slot_count(static_cast<int>(n));
    assigned += slots;
    if (slots > 0) ++size;
  }
  const auto line = [](std::string& out, std::string_view name, auto value) {
    out += name;
    out += ':';
    if constexpr (std::is_convertible_v<decltype(value), std::string_view>) {
      out += value;
    } else {
      out += std::to_string(value);
    }
    out += "\r\n";
  };
  std::string text;
  line(text, "cluster_state", assigned == static_cast<std::size_t>(kSlotCount) ? "ok" : "fail");
  line(text, "cluster_slots_assigned", assigned);
  line(text, "cluster_slots_ok", assigned);
  line(text, "cluster_slots_pfail", 0);
  line(text, "cluster_slots_fail", 0);
  line(text, "cluster_known_nodes", topo->nodes.size());
  line(text, "cluster_size", size);
  line(text, "cluster_current_epoch", static_cast<std::int64_t>(topo->nodes.size()));
  line(text, "cluster_my_epoch", epoch_of(ctx.shard.self_node));
  line(text, "cluster_stats_messages_sent", 0);
  line(text, "cluster_stats_messages_received", 0);
  line(text, "total_cluster_links_buffer_limit_exceeded", 0);
  ctx.out.verbatim(text);
}

void cluster_keyslot(Context& ctx) {
  if (cluster_topology(ctx) == nullptr) return;
  ctx.out.integer(key_slot(ctx.args[2]));
}

void cluster_countkeysinslot(Context& ctx) {
  if (cluster_topology(ctx) == nullptr) return;
  const auto slot = parse_int64(ctx.args[2]);
  if (!slot) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (*slot < 0 || *slot >= kSlotCount) {
    ctx.out.error("ERR Invalid slot");
    return;
  }
  ctx.out.integer(slot_keys(ctx.shard).count[static_cast<std::size_t>(*slot)]);
}

// Cost: a scan of database 0 until `count` keys of the slot (or all of them, known from the
// counts) are found: O(keys of the worker) in the worst case, as there is no per-slot index.
void cluster_getkeysinslot(Context& ctx) {
  if (cluster_topology(ctx) == nullptr) return;
  const auto slot = parse_int64(ctx.args[2]);
  const auto count = slot ? parse_int64(ctx.args[3]) : std::nullopt;
  if (!slot || !count) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (*slot < 0 || *slot >= kSlotCount || *count < 0) {
    ctx.out.error("ERR Invalid slot or number of keys");
    return;
  }
  const std::uint32_t present = slot_keys(ctx.shard).count[static_cast<std::size_t>(*slot)];
  const std::size_t want =
      static_cast<std::size_t>(std::min<std::int64_t>(*count, static_cast<std::int64_t>(present)));
  std::vector<std::string_view> found;
  std::unordered_set<std::string_view> seen;  // SCAN may repeat a key across a resize
  store::Db& db = ctx.shard.db(0);
  std::uint64_t cursor = 0;
  while (found.size() < want) {
    cursor = db.scan(cursor, 1024, [&](store::Entry e) {
      const std::string_view key = e.key();
      if (found.size() < want && key_slot(key) == *slot && seen.insert(key).second) {
        found.push_back(key);
      }
    });
    if (cursor == 0) break;
  }
  ctx.out.array(found.size());
  for (std::string_view key : found) ctx.out.bulk(key);
}

void cluster_help(Context& ctx) {
  if (cluster_topology(ctx) == nullptr) return;
  reply_help(
      ctx, "CLUSTER",
      {"COUNTKEYSINSLOT <slot>", "    Return the number of keys in <slot>.",
       "GETKEYSINSLOT <slot> <count>", "    Return key names stored by current node in a slot.",
       "INFO", "    Return information about the cluster.", "KEYSLOT <key>",
       "    Return the hash slot for <key>.", "MYID", "    Return the node id.", "NODES",
       "    Return cluster configuration seen by node. Output format:",
       "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...", "SLOTS",
       "    Return information about slots range mappings. Each range is made of:",
       "    start, end, master and replicas IP addresses, ports and ids", "SHARDS",
       "    Return information about slot range mappings and the nodes associated with "
       "them."});
}

// ASKING, READONLY, READWRITE: no migrations and no replicas, so there is nothing to change.
void cluster_ok(Context& ctx) {
  if (cluster_topology(ctx) == nullptr) return;
  ctx.out.ok();
}

void cmd_cluster(Context& ctx) {
  dispatch_subcommand(ctx, *ctx.command);
}

const CommandDef kClusterSubs[] = {
    {&decl::cluster_slots, cluster_slots},
    {&decl::cluster_shards, cluster_shards},
    {&decl::cluster_nodes, cluster_nodes},
    {&decl::cluster_myid, cluster_myid},
    {&decl::cluster_info, cluster_info},
    {&decl::cluster_keyslot, cluster_keyslot},
    {&decl::cluster_countkeysinslot, cluster_countkeysinslot},
    {&decl::cluster_getkeysinslot, cluster_getkeysinslot},
    {&decl::cluster_help, cluster_help},
};

const CommandDef kClusterCommands[] = {
    {.decl = &decl::cluster, .handler = cmd_cluster, .subcommands = kClusterSubs},
    {&decl::asking, cluster_ok},
    {&decl::readonly, cluster_ok},
    {&decl::readwrite, cluster_ok},
};

}  // namespace

std::span<const CommandDef> cluster_commands() {
  return kClusterCommands;
}

}  // namespace ruvio::worker
