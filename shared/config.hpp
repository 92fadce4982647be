// The runtime configuration: every `ruvio` flag of INTERFACE.md, also accepted as a
// `key value` line of a Redis-style config file. The supervisor parses it once and hands
// the parsed struct to each worker over the control channel (cereal), so the worker never
// parses flags of its own. Each parameter's name, type, bounds and default are declared once,
// in shared/config_params.cpp (config_table.hpp): a default-constructed Config holds those
// defaults; the members below carry no defaults of their own, save those resolved from others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio {

enum class Durability : std::uint8_t { kMemory, kEverysec, kAlways };

// One class of Redis's client-output-buffer-limit: closed at once past `hard` bytes, or after
// staying past `soft` bytes for more than `soft_seconds` (0 = that limit is off).
struct ClientBufferLimit {
  std::uint64_t hard = 0;
  std::uint64_t soft = 0;
  std::int64_t soft_seconds = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(hard, soft, soft_seconds);
  }
};
// The classes in Redis's order (CONFIG GET prints them so: normal, slave, pubsub).
enum class ClientClass : std::uint8_t { kNormal = 0, kReplica = 1, kPubsub = 2 };
inline constexpr std::size_t kClientClasses = 3;

struct Config {
  Config();  // every parameter at its table default (config_codec.cpp)

  std::string config_file;
  // How the service runs, as the supervisor found it at start (INFO process_supervised):
  // "systemd" when it reports readiness to $NOTIFY_SOCKET, "no" otherwise.
  std::string process_supervised = "no";
  std::string bind;
  int port{};
  int workers = 1;              // resolved: never 0 / "auto" after parsing
  std::vector<int> cpus;        // resolved: one per worker
  int worker_base_port = 6380;  // resolved: port+1 unless given; 0 = none
  int admin_port = 16379;       // resolved: port+10000 unless given; 0 = none
  std::string dir;
  Durability durability{};
  int sync_interval_ms{};
  std::uint64_t wal_snapshot_bytes{};  // automatic snapshot past this much WAL
  std::uint64_t wal_segment_bytes{};   // preallocation unit of WAL segments
  bool ignore_corrupt_snapshot{};      // start from the WAL alone
  std::uint64_t maxmemory{};
  std::string maxmemory_policy;
  std::string requirepass;
  int databases{};
  std::string log_level;
  bool alloc_trace{};
  std::string cluster_config;  // --cluster-config FILE; empty = topology of the local workers
  // Redis 7.0's lazyfree-lazy-* (all "no"): which deletions hand large values to the lazy
  // free queue instead of freeing them on the spot (UNLINK and FLUSH* ASYNC always do).
  bool lazyfree_lazy_eviction{};
  bool lazyfree_lazy_expire{};
  bool lazyfree_lazy_server_del{};
  bool lazyfree_lazy_user_del{};
  bool lazyfree_lazy_user_flush{};
  // zset-max-listpack-entries / -value (zset-max-ziplist-* are aliases).
  std::size_t zset_max_listpack_entries{};
  std::size_t zset_max_listpack_value{};
  // Set encodings' thresholds (Redis 7.2's names; CONFIG SET changes them at run time).
  std::uint64_t set_max_intset_entries{};
  std::uint64_t set_max_listpack_entries{};
  std::uint64_t set_max_listpack_value{};
  // Redis's hash-max-listpack-entries / -value (redis.conf's 128 / 64; *-ziplist-* aliases):
  // a hash stays a listpack up to this many fields, each field and value up to this many bytes.
  std::size_t hash_max_listpack_entries{};
  std::size_t hash_max_listpack_value{};
  // Redis's list-max-listpack-size (alias list-max-ziplist-size) and list-compress-depth.
  int list_max_listpack_size{};
  int list_compress_depth{};
  // hll-sparse-max-bytes: a HyperLogLog stays sparse up to this many bytes (header included).
  std::size_t hll_sparse_max_bytes{};
  // Redis's stream-node-max-bytes / -entries: when a stream opens a new node (0: no limit).
  std::size_t stream_node_max_bytes{};
  std::size_t stream_node_max_entries{};
  // busy-reply-threshold (alias lua-time-limit), ms: past it a running script lets other
  // clients in, to be answered -BUSY (SCRIPT KILL and SHUTDOWN NOSAVE run); 0 = never.
  int busy_reply_threshold{};
  // Client limits. Output buffer limits per ClientClass.
  ClientBufferLimit obuf_limits[kClientClasses];
  std::uint64_t client_query_buffer_limit{};
  std::uint64_t proto_max_bulk_len{};
  int maxclients{};
  int timeout{};  // idle seconds before a normal client is closed; 0 = never
  int tcp_keepalive{};
  // ACL: the users file (Redis's aclfile), the config file's `user` lines (each: the name,
  // then its rules), protected-mode, and the admin HTTP port's bearer token (empty: none).
  std::string aclfile;
  std::vector<std::vector<std::string>> acl_users;
  bool protected_mode{};
  std::string admin_token;
  // slowlog-log-slower-than (µs; < 0 off, 0 every command), slowlog-max-len, and
  // latency-monitor-threshold (ms; 0 off): Redis 7.0's defaults.
  std::int64_t slowlog_log_slower_than{};
  std::uint64_t slowlog_max_len{};
  std::int64_t latency_monitor_threshold{};
  // latency-tracking (per-command latency histograms) and the percentiles INFO latencystats
  // shows (latency-tracking-info-percentiles "50 99 99.9").
  bool latency_tracking{};
  std::vector<double> latency_tracking_percentiles;
  // Eviction (maxmemory-samples, maxmemory-eviction-tenacity 0..100, lfu-log-factor,
  // lfu-decay-time in minutes: Redis's defaults).
  int maxmemory_samples{};
  int maxmemory_eviction_tenacity{};
  int lfu_log_factor{};
  int lfu_decay_time{};
  // enable-debug-command no|yes|local (Redis 7's default no: DEBUG is refused; local: only
  // from a loopback connection). Immutable at run time, as in Redis.
  std::string enable_debug_command;
  // sanitize-dump-payload no|yes|clients: accepted for Redis's sake; RESTORE always checks
  // payloads deeply here (no behaves as yes: persist/rdb_value.hpp says why).
  std::string sanitize_dump_payload;
  // notify-keyspace-events as NotifyClass bits (shared/notify_flags.hpp); 0 = off, Redis's default.
  std::uint32_t notify_keyspace_events{};
  // tracking-table-max-keys: keys the client-side caching table remembers (0 = no limit).
  std::uint64_t tracking_table_max_keys{};
  // maxmemory-clients as Redis keeps it: bytes, or minus a percentage of maxmemory ("10%" is
  // -10); 0 = no client eviction. Split over the workers as maxmemory is.
  std::int64_t maxmemory_clients{};
  // CONFIG SET only: acllog-max-len (entries ACL LOG keeps).
  std::uint64_t acllog_max_len{};
  // hz: housekeeping ticks per second (active expiry, rehashing, LFU decay, eviction catch-up),
  // kept within Redis's 1..500.
  int hz{};

  template <class Archive>
  void serialize(Archive& ar) {
    ar(config_file, process_supervised, bind, port, workers, cpus, worker_base_port, admin_port,
       dir, durability, sync_interval_ms, wal_snapshot_bytes, wal_segment_bytes,
       ignore_corrupt_snapshot, maxmemory, maxmemory_policy, requirepass, databases, log_level,
       alloc_trace, cluster_config, lazyfree_lazy_eviction, lazyfree_lazy_expire,
       lazyfree_lazy_server_del, lazyfree_lazy_user_del, lazyfree_lazy_user_flush,
       zset_max_listpack_entries, zset_max_listpack_value, set_max_intset_entries,
       set_max_listpack_entries, set_max_listpack_value, hash_max_listpack_entries,
       hash_max_listpack_value, list_max_listpack_size, list_compress_depth, hll_sparse_max_bytes,
       stream_node_max_bytes, stream_node_max_entries, busy_reply_threshold, obuf_limits[0],
       obuf_limits[1], obuf_limits[2], client_query_buffer_limit, proto_max_bulk_len, maxclients,
       timeout, tcp_keepalive, aclfile, acl_users, protected_mode, admin_token,
       slowlog_log_slower_than, slowlog_max_len, latency_monitor_threshold, latency_tracking,
       latency_tracking_percentiles, maxmemory_samples, maxmemory_eviction_tenacity, lfu_log_factor,
       lfu_decay_time, enable_debug_command, sanitize_dump_payload, notify_keyspace_events,
       tracking_table_max_keys, maxmemory_clients, acllog_max_len, hz);
  }
};

struct ConfigError {
  std::string message;  // one line naming the bad flag or config line
  // 2 for a bad flag or config line (print `message` to stderr). 0 for --help/--version:
  // `message` is the usage or version text, printed to stdout, and the program exits 0.
  int exit_code = 2;
};

// Worker counts above this are refused until the proxy layer (cross-worker routing) exists.
// `--workers auto` and the default resolve to min(CPUs, this). The router's slot map and
// the proxy SCAN cursor give a worker index one byte.
inline constexpr int kMaxWorkers = 255;

// Parses argv (and the --config file it names; flags win over the file). On error returns
// the message; the caller prints it and exits 2.
std::optional<ConfigError> parse_config(int argc, char** argv, Config& out);

// latency-tracking-info-percentiles: blank-separated numbers in [0, 100]; the reason
// (Redis's text) when the list is not acceptable.
std::optional<std::string> parse_percentiles(const std::string& text, std::vector<double>& out);
// The list as CONFIG GET shows it: "50 99 99.9".
std::string format_percentiles(const std::vector<double>& list);
// One percentile as Redis prints it in names and lists: 50, 99.9, 50.5.
std::string format_percentile(double p);

// "100mb", "2gb", "1024", "10k" (Redis's memtoull rules). nullopt when malformed.
std::optional<std::uint64_t> parse_memory(const std::string& text);
// maxmemory-clients' value (Redis's PERCENT_CONFIG): a memory size as parse_memory, or "N%"
// as -N. nullopt when malformed; a percentage above 100 is the caller's to refuse.
std::optional<std::int64_t> parse_memory_or_percent(const std::string& text);

// client-output-buffer-limit's value: "<class> <hard> <soft> <soft seconds>" groups (class
// normal, replica/slave or pubsub), applied to `limits` only when every group is valid.
// On error: Redis 7.0's reason text ("Wrong number of arguments in buffer limit …").
std::optional<std::string> parse_client_output_buffer_limit(std::string_view value,
                                                            ClientBufferLimit* limits);
// The value as CONFIG GET prints it: "normal 0 0 0 slave 268435456 67108864 60 pubsub …".
std::string format_client_output_buffer_limit(const ClientBufferLimit* limits);

}  // namespace ruvio
