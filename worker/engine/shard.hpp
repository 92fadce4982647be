// What a command sees of the worker: its databases, configuration, counters and clients.
// Owned by the server loop; commands get it through Context (worker/engine/context.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "proto/resp_writer.hpp"
#include "shared/config.hpp"
#include "shared/control.hpp"
#include "shared/notify_flags.hpp"
#include "shared/topology.hpp"
#include "worker/engine/acl.hpp"
#include "worker/engine/blocking.hpp"
#include "worker/engine/client_pause.hpp"
#include "worker/engine/monitor.hpp"
#include "worker/engine/shard_host.hpp"
#include "worker/engine/tracking.hpp"
#include "worker/engine/watch_registry.hpp"
#include "worker/persist/effect.hpp"
#include "worker/store/db.hpp"
#include "worker/store/evict.hpp"
#include "worker/types/hash/field_expiry_index.hpp"

namespace ruvio::persist {
class Service;
}

namespace ruvio::worker {

class Executor;

struct Stats {
  std::uint64_t commands_processed = 0;
  std::uint64_t connections_received = 0;
  std::uint64_t rejected_connections = 0;
  std::uint64_t keyspace_hits = 0;
  std::uint64_t keyspace_misses = 0;
  std::uint64_t net_input_bytes = 0;
  std::uint64_t net_output_bytes = 0;
  std::uint64_t unexpected_error_replies = 0;
  std::uint64_t instantaneous_ops_per_sec = 0;  // sampled by the server once a second
  std::uint64_t reads_processed = 0;            // read callbacks that brought bytes (Redis's field)
  std::uint64_t writes_processed = 0;           // flushes that wrote bytes
  std::uint64_t evicted_keys = 0;               // keys deleted under maxmemory
  std::uint64_t evicted_clients = 0;            // clients closed under maxmemory-clients
  // Sampled by the server once a second beside the ops: the network rates, KiB/s.
  double instantaneous_input_kbps = 0;
  double instantaneous_output_kbps = 0;
  // The active expire cycle (the server's tick), as Redis's activeExpireCycle counts it.
  std::uint64_t expired_time_cap_reached_count = 0;  // passes cut by the time limit
  std::uint64_t expire_cycle_cpu_us = 0;             // time spent in the cycle
  double expired_stale_perc = 0;  // running estimate of expired/sampled keys, 0..1
  // Time with memory over maxmemory and eviction unfinished (Redis's eviction exceeded
  // times), µs; `eviction_exceeded_since_us` is the steady clock's µs when the current span
  // began, 0 while under the limit.
  std::uint64_t total_eviction_exceeded_us = 0;
  std::uint64_t eviction_exceeded_since_us = 0;
  std::uint64_t dump_payload_sanitizations = 0;  // RESTOREs deep-checked
  std::uint64_t total_forks = 0;                 // snapshot children forked
  std::uint64_t latest_fork_usec = 0;            // how long the last fork() took
  std::uint64_t peak_memory = 0;                 // used_memory_peak, as INFO last saw it

  // The clock of the spans above: the steady clock in µs.
  static std::uint64_t steady_us() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
  }
};

// Per-connection state that commands read and change (CLIENT, SELECT, HELLO, AUTH...).
struct ClientInfo {
  std::uint64_t id = 0;
  std::string name;
  std::string addr;   // "127.0.0.1:51234"
  std::string laddr;  // "127.0.0.1:6379"
  int fd = -1;
  int db = 0;
  int resp = 2;
  bool authenticated = true;
  // The ACL user (null: a command that came over the mesh, already checked by the client's
  // worker, or a client of a unit test: every permission).
  std::shared_ptr<acl::User> user;
  bool close_after_reply = false;  // QUIT
  bool cluster_mode = false;       // accepted on the direct (Redis Cluster) port
  bool obey = false;               // WAL replay: runs as logged (no eviction, no -OOM)
  // A script's calls after redis.set_repl() without REPL_AOF: its writes are not journaled,
  // as Redis leaves them out of the AOF (the script's own choice; they are lost on restart).
  bool unjournaled = false;
  bool no_evict = false;  // CLIENT NO-EVICT on
  bool no_touch = false;  // CLIENT NO-TOUCH on: reads leave the LRU/LFU clock alone
  // CLIENT TRACKING as CLIENT LIST shows it (flags t, B; redir=), mirrored from Tracking.
  bool tracking = false;
  bool tracking_bcast = false;
  std::uint64_t tracking_redir = 0;
  // Workers this client's tracked reads went to (tracking_peer_bit): they remember its keys,
  // and forget them when they restart (the client then gets a null invalidation).
  std::uint64_t tracking_peers = 0;
  // CLIENT TRACKING REDIRECT to a client of another worker: the id asked about, and the
  // answer of its worker (route/router.cpp's redirect_known).
  enum RedirectAnswer : std::uint8_t { kAsking, kClientExists, kNoSuchClient };
  std::uint64_t redirect_asked = 0;
  RedirectAnswer redirect_answer = kAsking;
  bool blocked = false;  // parked (CLIENT PAUSE, a blocking command) or awaiting a blocking
                         // command forwarded to its owner (flags=b)
  // Pub/sub subscriptions held (a RESP2 client with any is in subscribed mode).
  int subscriptions = 0;  // channels
  int pattern_subscriptions = 0;
  int shard_subscriptions = 0;
  // MULTI: commands queued until EXEC (copies: the input buffer moves on).
  bool in_multi = false;
  bool multi_failed = false;  // a queued command was refused: EXEC answers EXECABORT
  std::vector<std::vector<std::string>> queued;
  // CLIENT LIST multi-mem: the queued commands' argument bytes plus a pointer per argument
  // (Redis's mstate.argv_len_sums), kept as commands are queued.
  std::size_t multi_bytes = 0;
  std::vector<int> watch_workers;          // workers holding this client's WATCHes
  std::vector<std::uint64_t> watch_links;  // their mesh link generation at WATCH time
  // A command that came over the mesh runs for a client of another worker: `origin` is
  // that worker (-1: a client of this worker). WATCH registrations are per (origin, id).
  int origin = -1;
  bool subscribed() const {
    return subscriptions + pattern_subscriptions + shard_subscriptions > 0;
  }
  std::int64_t created_ms = 0;
  std::int64_t last_interaction_ms = 0;
  std::string_view last_command = "NULL";  // a declared name ("client|list"), for CLIENT LIST
  std::size_t query_buffer_bytes = 0;      // qbuf
  std::size_t query_buffer_free = 0;       // qbuf-free
  std::size_t output_buffer_bytes = 0;     // replies pending (obl/oll/omem: reply_list_of)
  bool output_stuck = false;               // the socket refused part of an earlier write
  std::size_t output_buffer_room = 0;      // rbs: the output buffers' capacity
  std::size_t output_peak = 0;             // rbp: most reply bytes of one flush, last 5 s
  // A command still arriving: the arguments already parsed (Redis's argv, argv-mem), as
  // measured for CLIENT LIST (Connection::measure).
  std::size_t partial_argv_bytes = 0;
  std::size_t partial_argc = 0;
  std::size_t watched_keys = 0;  // on this worker, as last measured
  // Keys this client WATCHes on other workers (forwarded there; db and key, each once), so
  // its tot-mem counts them as a local WATCH does. Dropped with watch_workers.
  std::unordered_set<std::string> remote_watches;
  std::size_t struct_bytes = 0;  // the connection object itself
  // CLIENT SETINFO (Redis 7.2; redis-py 5 and node-redis send it on connect).
  std::string lib_name;
  std::string lib_ver;
  // CLIENT REPLY: the connection drops the replies of commands run while not kReplyOn.
  enum ReplyMode : std::uint8_t { kReplyOn, kReplyOff, kReplySkipNext, kReplySkip };
  ReplyMode reply_mode = kReplyOn;
  bool monitor = false;  // MONITOR (flags=O): receives every command, may not touch keys
  bool script = false;   // a script engine's client: MONITOR shows it as "lua"
};

// ClientInfo::tracking_peers's bit for worker w (workers past 63 share the last bit).
inline std::uint64_t tracking_peer_bit(int w) {
  return std::uint64_t{1} << (w < 63 ? w : 63);
}

// Pub/sub on this worker, implemented by the server (it knows the connections). Command
// handlers reach it through Shard::pubsub.
class PubSub {
 public:
  enum class Kind { kChannel, kPattern, kShard };
  virtual ~PubSub() = default;
  // (UN)SUBSCRIBE family: one confirmation per channel, written to `out` (push in RESP3).
  // An empty `names` unsubscribes from everything of that kind.
  virtual void subscribe(ClientInfo& c, Kind kind, std::span<const std::string_view> names,
                         proto::ReplyWriter& out) = 0;
  virtual void unsubscribe(ClientInfo& c, Kind kind, std::span<const std::string_view> names,
                           proto::ReplyWriter& out) = 0;
  // Delivers to this worker's subscribers; returns how many received it.
  virtual std::int64_t publish(std::string_view channel, std::string_view message, bool shard) = 0;
  virtual std::vector<std::string> channels(std::string_view pattern, bool shard) const = 0;
  // How many channels (shard channels) have a subscriber (INFO pubsub_channels).
  virtual std::int64_t channel_count(bool shard) const = 0;
  virtual std::int64_t subscribers(std::string_view channel, bool shard) const = 0;
  virtual std::int64_t patterns() const = 0;
  virtual std::vector<std::string> pattern_list() const = 0;
  // Drops every subscription of `c` (RESET, disconnect).
  virtual void forget(ClientInfo& c) = 0;
};

// While a script runs past busy-reply-threshold its Lua hook calls this (every 100k Lua
// instructions) so the worker keeps answering its other clients; implemented by the server,
// which reads what they sent and runs it. Commands then answer -BUSY unless declared
// allow_busy (SCRIPT KILL, SHUTDOWN NOSAVE, ...), so none touches the keyspace meanwhile.
class BusyService {
 public:
  virtual ~BusyService() = default;
  // `running`: the client whose script runs (its connection is not read meanwhile).
  virtual void serve_while_busy(const ClientInfo* running) = 0;
};

// The Shard listens to its keyspace (store::KeyspaceListener) only while a key is watched or a
// client blocked: otherwise the store's listener pointer is null and a write pays one test.
// The hash family's active field expiry (worker/commands/hash/hash_ttl_commands.cpp): the
// per-db indexes of hashes with field TTLs, and whether what the snapshot loaded at start has
// been indexed yet.
struct HashFieldTtls {
  std::vector<types::hash::FieldExpiryIndex> index;
  bool seeded = false;
  std::vector<std::uint64_t> seed_cursor;
  std::vector<std::string> due;   // reused per tick
  std::vector<std::string> gone;  // reused per key
};

class Shard final : public store::KeyspaceListener, public store::KeyspaceNotifier {
 public:
  Shard(const Config& config, int worker_id);
  Shard(const Shard&) = delete;  // the Dbs point at events_
  Shard& operator=(const Shard&) = delete;

  // The server above (worker/engine/shard_host.hpp): its clients, its mesh peers. Until it is
  // set, the base class: no clients, no peers.
  ShardHost& host() { return *host_; }

  // What the running write command asks the journal to record instead of its arguments
  // (worker/persist/effect.hpp; commands set it through Context::log_as/log_also).
  persist::Effect& effect() { return effect_; }
  void set_host(ShardHost& host) { host_ = &host; }

  store::Db& db(int index) { return *dbs_[static_cast<std::size_t>(index)]; }
  int databases() const { return static_cast<int>(dbs_.size()); }
  // Every change to any database of this shard (the journal compares it around a command).
  std::uint64_t mutations() const { return events_.mutations; }
  // A change outside the keyspace the WAL must log (FUNCTION LOAD, DELETE, FLUSH, RESTORE).
  void count_change() { ++events_.mutations; }
  void swap_db(int a, int b) {
    ++events_.mutations;
    // As Redis: a watched key that exists in either database counts as changed.
    auto in_either = [&](std::string_view k) { return bool(db(a).peek(k)) || bool(db(b).peek(k)); };
    watches_.touched_all(a, in_either);
    watches_.touched_all(b, in_either);
    std::swap(dbs_[static_cast<std::size_t>(a)], dbs_[static_cast<std::size_t>(b)]);
    // A waited-on key may now hold data, or no longer hold its stream.
    if (!blocking_.empty()) {
      blocking_.db_ready(a);
      blocking_.db_ready(b);
    }
  }

  Config& config() { return config_; }
  // The parameters CONFIG SET changed since start (the table's names, first change first):
  // CONFIG REWRITE appends them, a restarted peer is told them again.
  std::vector<std::string_view> config_changed;
  // Hands the lazyfree-lazy-expire / -server-del settings of config() to the databases (the
  // deletions they decide themselves); DEL and FLUSH* read config() directly.
  void apply_lazyfree() {
    for (auto& db : dbs_)
      db->set_lazyfree({config_.lazyfree_lazy_expire, config_.lazyfree_lazy_server_del,
                        config_.lazyfree_lazy_eviction});
  }
  // Values waiting in the databases' lazy free queues (INFO lazyfree_pending_objects).
  std::size_t lazyfree_pending() const {
    std::size_t n = 0;
    for (const auto& db : dbs_) n += db->lazyfree_pending();
    return n;
  }
  int worker_id() const { return worker_id_; }
  Stats& stats() { return stats_; }

  // Cached clock: refreshed by the loop once per turn (and before each command batch).
  std::int64_t now_ms() const { return now_ms_; }
  // CLIENT NO-TOUCH for the command about to run (its lookups leave the clock byte alone).
  bool no_touch() const { return events_.no_touch; }
  void set_no_touch(bool on) { events_.no_touch = on; }
  void set_now_ms(std::int64_t t) {
    now_ms_ = t;
    events_.clock_ms = t;
    events_.lru.advance(t);
  }
  // The LRU clock (store/lru_clock.hpp) and one timer tick of its merge pass over every
  // database, bounded by lru_pass_budget. Nothing to do under an LFU policy.
  store::LruClock& lru_clock() { return events_.lru; }
  void lru_pass_step();
  std::int64_t start_ms() const { return start_ms_; }
  int tcp_port() const { return config_.port; }

  std::size_t connected_clients = 0;
  // Bytes the connections' input and output buffers hold (INFO mem_clients_normal, part of
  // used_memory) and the largest output buffer seen since INFO last reported it. Kept by the
  // server's connections.
  std::size_t client_buffer_bytes = 0;
  std::size_t client_recent_max_output = 0;
  // The clients' tot-mem (CLIENT LIST) summed: what maxmemory-clients is measured against.
  std::size_t client_memory = 0;
  // This worker's share of maxmemory-clients in bytes (0: off): a percentage is of maxmemory,
  // the total is split over the workers as maxmemory is, and a share is never under Redis's
  // 128 KB floor (a limit so small no client could talk to the server).
  std::size_t client_eviction_limit() const {
    const std::int64_t v = config_.maxmemory_clients;
    std::uint64_t total = 0;
    if (v < 0 && config_.maxmemory > 0) {
      total = static_cast<std::uint64_t>(static_cast<double>(config_.maxmemory) *
                                         static_cast<double>(-v) / 100.0);
    } else if (v > 0) {
      total = static_cast<std::uint64_t>(v);
    } else {
      return 0;
    }
    const std::uint64_t share =
        total / static_cast<std::uint64_t>(config_.workers > 0 ? config_.workers : 1);
    return static_cast<std::size_t>(std::max<std::uint64_t>(share, 128 * 1024));
  }
  // Clients postponed by CLIENT PAUSE (INFO blocked_clients). Set by the server.
  std::size_t blocked_clients = 0;

  // ACL users and log of this worker (the same users on every worker).
  acl::Users& acl() { return acl_; }
  // Why the users of the config file / aclfile could not be loaded at start (empty: they were).
  const std::string& acl_error() const { return acl_error_; }
  // A restarted worker takes the users its siblings hold (the supervisor keeps the latest
  // ACL LIST a worker reported) instead of the files: run-time changes never saved survive.
  void restore_acl(std::string_view users_text) {
    acl_error_ = acl_.load(users_text, "acl-state", nullptr);
  }
  void note_acl_change() { host_->acl_changed(); }

  // CLIENT PAUSE / UNPAUSE (the server's loop parks and resumes the clients).
  ClientPause client_pause;

  // Allocator-usable bytes of every database (INFO used_memory, MEMORY STATS).
  std::size_t used_memory() const;
  // What a worker counts against maxmemory, as INFO used_memory shows it: the databases, the
  // fixed start-up overhead and the clients' query and output buffers (as Redis counts them).
  static constexpr std::size_t kBaseMemory = 1024 * 1024;
  std::size_t counted_memory() const { return used_memory() + kBaseMemory + client_buffer_bytes; }
  // This worker's share of maxmemory (INTERFACE.md: the total split evenly); 0 = no limit.
  std::uint64_t maxmemory_share() const {
    const int n = config_.workers > 0 ? config_.workers : 1;
    return config_.maxmemory / static_cast<std::uint64_t>(n);
  }
  // maxmemory-policy as parsed, and what follows from it (the clock byte's LRU/LFU meaning,
  // the eviction pool). Call after config().maxmemory_policy changes.
  store::EvictPolicy evict_policy() const { return policy_; }
  void apply_maxmemory_policy() {
    policy_ = store::parse_evict_policy(config_.maxmemory_policy)
                  .value_or(store::EvictPolicy::kNoEviction);
    for (auto& db : dbs_) db->set_lfu_mode(store::is_lfu(policy_), config_.lfu_log_factor);
    evictor.reset();
  }
  store::Evictor evictor;
  // Returns freed pages to the OS (after FLUSHALL / FLUSHDB).
  void release_memory();

  // SAVE, BGSAVE, INFO persistence...; null under --durability memory.
  persist::Service* persistence = nullptr;

  PubSub* pubsub = nullptr;  // set by the server
  // The executor running this shard's commands (it sets this): scripts run theirs through it.
  Executor* executor = nullptr;
  BusyService* busy_service = nullptr;  // set by the server
  // Non-empty while a timed-out script lets other clients in: the -BUSY text they get.
  std::string_view busy_error;

  // WATCH registrations on this worker's keys. The Shard is the keyspace's listener only
  // while one exists.
  std::uint64_t watcher_of(const ClientInfo& c) const {
    return WatchRegistry::watcher(c.origin < 0 ? worker_id_ : c.origin, c.id);
  }
  void watch(int db, std::string_view key, std::uint64_t watcher) {
    watches_.watch(db, key, watcher);
    events_.listener = this;
  }
  void unwatch(std::uint64_t watcher) {
    watches_.unwatch(watcher);
    update_listener();
  }
  // Clients blocked on keys of this worker (blocking.hpp). The Shard listens to the keyspace
  // while one waits, as while a key is watched.
  const Blocking& blocking() const { return blocking_; }
  Blocking& blocking() { return blocking_; }
  void block(std::uint64_t token, int db, std::span<const std::string_view> keys,
             std::int64_t deadline_ms, types::Type type = types::Type::kList,
             bool ends_when_not_type = false) {
    blocking_.add(token, db, keys, deadline_ms, type, ends_when_not_type);
    events_.listener = this;
  }
  void unblock(std::uint64_t token) {
    if (!blocking_.remove(token)) return;
    update_listener();
  }
  bool watch_dirty(std::uint64_t watcher) const { return watches_.dirty(watcher); }
  // Keys client `c` watches on this worker (its WATCHes on other workers are theirs).
  std::size_t watched_keys(const ClientInfo& c) const {
    return watches_.empty() ? 0 : watches_.count(watcher_of(c));
  }
  // Client-side caching (tracking.hpp): the Shard listens to the keyspace while a client
  // tracks, as while a key is watched.
  Tracking tracking;
  // MONITOR clients here and on the peers (monitor.hpp).
  Monitors monitors;
  void update_listener() {
    const bool listen = !watches_.empty() || !blocking_.empty() || tracking.listening();
    events_.listener = listen ? this : nullptr;
  }

  // store::KeyspaceListener
  void on_change(store::Db& db, std::string_view key) override {
    if (tracking.enabled()) [[unlikely]]
      tracking.invalidate(key);
    const int i = index_of(db);
    if (i >= 0) watches_.touched(i, key);
    // A deleted stream wakes its XREADGROUP waiters (they answer -UNBLOCKED); for the other
    // commands a wake-up that finds nothing parks again.
    if (i >= 0 && !blocking_.empty()) blocking_.key_ready(i, key);
  }
  // Before a whole-db change, so the keys are still there to tell which watched ones existed.
  void on_flush(store::Db& db) override {
    if (tracking.enabled()) [[unlikely]]
      tracking.invalidate_all();
    const int i = index_of(db);
    if (i >= 0) watches_.touched_all(i, [&](std::string_view k) { return bool(db.peek(k)); });
    if (i >= 0 && !blocking_.empty()) blocking_.db_ready(i);
  }
  void key_ready(store::Db& db, std::string_view key) override {
    const int i = index_of(db);
    if (i >= 0) blocking_.key_ready(i, key);
  }

  // Keyspace notifications (keyspace_notify.cpp). The Shard is the keyspace's notifier only
  // while notify-keyspace-events publishes something; apply_notify() after it changes.
  void apply_notify() {
    events_.notifier = notify_publishes(config_.notify_keyspace_events) ? this : nullptr;
  }
  store::KeyspaceEvents& events() { return events_; }
  // store::KeyspaceNotifier: publishes on __keyspace@<db>__:<key> and __keyevent@<db>__:<event>
  // to this worker's subscribers and, through host().publish_peers, to every other worker's.
  void notify(store::Db& db, std::uint32_t cls, std::string_view event,
              std::string_view key) override;

  HashFieldTtls hash_field_ttls;

  // INFO replication's master_replid: random at start, new after DEBUG CHANGE-REPL-ID.
  const std::string& repl_id() const { return repl_id_; }
  void change_repl_id();

  // SHUTDOWN: the server stops after this command's reply is flushed.
  bool shutdown_requested = false;
  // DEBUG SET-ACTIVE-EXPIRE 0 stops the timer's expiry cycle (keys still expire on access).
  bool active_expire_enabled = true;

  // The Redis Cluster topology of the direct ports (set by the server from WorkerInit;
  // null in unit tests) and this worker's node in it.
  const Topology* topology = nullptr;
  int self_node = 0;

  // Every worker's memory as the supervisor last measured it (control::WorkerFigures), for
  // INFO's per-worker lines. Empty until the first push.
  std::vector<control::WorkerMemory> worker_memory;

 private:
  int index_of(const store::Db& db) const {
    for (int i = 0; i < databases(); ++i) {
      if (dbs_[static_cast<std::size_t>(i)].get() == &db) return i;
    }
    return -1;
  }

  store::KeyspaceEvents events_;     // before dbs_: every Db points at it
  std::vector<store::Db*> lru_dbs_;  // lru_pass_step's view of dbs_, reused
  // Reused channel names of notifications: "__keyspace@<db>__:" and "__keyevent@<db>__:" of
  // the last database notified (both notify_prefix_ bytes long), the key or event after them.
  std::string notify_space_;
  std::string notify_event_;
  std::size_t notify_prefix_ = 0;
  int notify_db_ = -1;
  Config config_;
  ShardHost no_host_;
  persist::Effect effect_;
  ShardHost* host_ = &no_host_;
  int worker_id_;
  Stats stats_;
  std::int64_t now_ms_ = 0;
  std::int64_t start_ms_ = 0;
  store::EvictPolicy policy_ = store::EvictPolicy::kNoEviction;
  std::vector<std::unique_ptr<store::Db>> dbs_;
  WatchRegistry watches_;
  Blocking blocking_;
  std::string repl_id_;
  acl::Users acl_;
  std::string acl_error_;
};

// The wall clock now, read afresh (Shard::now_ms() is the loop turn's cached one).
std::int64_t wall_clock_ms();

}  // namespace ruvio::worker
