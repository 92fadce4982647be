// Control channel between the supervisor and one worker: a SOCK_STREAM socketpair carrying
// frames of [u32 little-endian length][cereal portable-binary ControlMessage].
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "shared/config.hpp"
#include "shared/topology.hpp"

namespace ruvio::control {

// Supervisor → worker, first frame after exec.
struct WorkerInit {
  int id = 0;
  int worker_count = 1;
  std::uint16_t slot_first = 0;  // inclusive range of Redis Cluster hash slots owned
  std::uint16_t slot_last = 16383;
  Config config;
  // Workers reach each other on abstract Unix sockets named "<mesh_name>.<worker id>";
  // the name is unique per supervisor, so two services on one host never cross.
  std::string mesh_name;
  // The Redis Cluster topology the direct ports advertise; nodes[self] is this worker.
  // slot_first/slot_last span this worker's slots (topology.worker_owns() when several ranges).
  Topology topology;
  int self = 0;
  // The users a worker last reported (AclState), for a restarted worker: empty at the first
  // start, when the config file's `user` lines and the aclfile are read.
  std::string acl_state;
  template <class A>
  void serialize(A& ar) {
    ar(id, worker_count, slot_first, slot_last, config, mesh_name, topology, self, acl_state);
  }
};

// A worker's exit status when its ACL users cannot be loaded at start (Redis exits then):
// the supervisor stops the service instead of restarting the worker.
inline constexpr int kExitAclError = 78;

// Worker → supervisor once its listeners accept connections.
struct WorkerReady {
  int id = 0;
  template <class A>
  void serialize(A& ar) {
    ar(id);
  }
};

// Supervisor → worker: stop cleanly (flush, close) and exit 0.
struct Shutdown {
  template <class A>
  void serialize(A&) {}
};

// Worker → supervisor: SHUTDOWN was received from a client; stop the whole service.
struct ShutdownRequest {
  template <class A>
  void serialize(A&) {}
};

// ---- Operations (issue 5): stats, per-worker figures for INFO, config reload ----------

// Supervisor → worker, once a second: answer with a StatsReport carrying the same `seq`.
// The report's arrival is also the worker's heartbeat for the systemd watchdog.
struct StatsRequest {
  std::uint64_t seq = 0;
  template <class A>
  void serialize(A& ar) {
    ar(seq);
  }
};

// Worker → supervisor: the figures only the worker knows.
struct StatsReport {
  std::uint64_t seq = 0;
  int id = 0;
  std::vector<std::uint64_t> keys;     // per database
  std::vector<std::uint64_t> expires;  // per database
  std::uint64_t used_memory = 0;       // allocator-usable bytes of the keyspace
  std::uint64_t commands_processed = 0;
  std::uint64_t ops_per_sec = 0;
  std::uint64_t connected_clients = 0;
  std::uint64_t wal_bytes = 0;  // WAL bytes since the last snapshot (0: memory profile)
  std::uint64_t wal_lag_ms = 0;
  // mimalloc's view of the process (mi_process_info).
  std::uint64_t mi_current_rss = 0;
  std::uint64_t mi_peak_rss = 0;
  std::uint64_t mi_current_commit = 0;
  std::uint64_t mi_peak_commit = 0;
  std::uint64_t mi_page_faults = 0;
  // The in-process allocation sampler (worker/memory/alloc_sampler.hpp).
  std::uint64_t sample_interval = 0;
  std::uint64_t sampled_live_bytes = 0;  // weighted estimate of the store's live bytes
  std::uint64_t sampled_live_count = 0;
  template <class A>
  void serialize(A& ar) {
    ar(seq, id, keys, expires, used_memory, commands_processed, ops_per_sec, connected_clients,
       wal_bytes, wal_lag_ms, mi_current_rss, mi_peak_rss, mi_current_commit, mi_peak_commit,
       mi_page_faults, sample_interval, sampled_live_bytes, sampled_live_count);
  }
};

// One worker's memory as the supervisor measures it, for INFO's per-worker lines.
struct WorkerMemory {
  int id = 0;
  int pid = 0;
  bool up = false;
  std::uint64_t used_memory = 0;
  std::uint64_t rss = 0;
  std::uint64_t rss_anon = 0;
  std::uint64_t pss = 0;
  std::uint64_t private_dirty = 0;
  std::uint64_t keys = 0;
  template <class A>
  void serialize(A& ar) {
    ar(id, pid, up, used_memory, rss, rss_anon, pss, private_dirty, keys);
  }
};

// Supervisor → every worker, once a second: every worker's memory figures.
struct WorkerFigures {
  std::vector<WorkerMemory> workers;
  template <class A>
  void serialize(A& ar) {
    ar(workers);
  }
};

// Supervisor → worker after SIGHUP: the settings that apply without a restart.
struct ConfigUpdate {
  std::string log_level;
  std::uint64_t maxmemory = 0;
  std::string maxmemory_policy;
  std::string requirepass;
  template <class A>
  void serialize(A& ar) {
    ar(log_level, maxmemory, maxmemory_policy, requirepass);
  }
};

// Supervisor → worker: the eBPF tracer has just attached to this worker's USDT probes.
// The worker re-fires ruvio:alloc_sample for every sample still live, so allocations
// sampled before the attach (start-up, log replay) are counted too.
struct AllocTraceAttached {
  template <class A>
  void serialize(A&) {}
};

// Worker → supervisor, when ready and after every change of its ACL users: the users in
// ACL SAVE's format. The supervisor keeps the latest for the workers it restarts.
struct AclState {
  std::string users;
  template <class A>
  void serialize(A& ar) {
    ar(users);
  }
};

// New alternatives go at the end: a frame's variant index must keep its meaning.
using Message =
    std::variant<WorkerInit, WorkerReady, Shutdown, ShutdownRequest, StatsRequest, StatsReport,
                 WorkerFigures, ConfigUpdate, AllocTraceAttached, AclState>;

// Appends one frame (length + payload) for `msg` to `out`.
void encode(const Message& msg, std::string& out);

// Decodes the first complete frame of `in`. Returns the message and sets `consumed`, or
// nullopt with consumed = 0 when `in` holds no complete frame yet. A malformed frame sets
// `error` to true.
std::optional<Message> decode(std::string_view in, std::size_t& consumed, bool& error);

}  // namespace ruvio::control
