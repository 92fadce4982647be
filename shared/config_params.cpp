// Every configuration parameter, once (config_table.hpp says what a row holds). The rows are in
// CONFIG GET's order; the flags' --help follows it too. Ruvio's parameters come first; then
// the Redis 7.0 parameters that do not apply here, answered with the value redis-server
// 7.0.15 gives when started without a config file, so that tools reading CONFIG GET * find
// every name.
#include <arpa/inet.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "shared/config_table.hpp"
#include "shared/log.hpp"
#include "shared/notify_flags.hpp"
#include "shared/slots.hpp"

namespace ruvio {
namespace {

using Reason = std::optional<std::string>;
constexpr std::int64_t kIntMin = std::numeric_limits<int>::min();
constexpr std::uint64_t kIntMax = std::numeric_limits<int>::max();
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// "0,2,4", "0-3", "0-1,4": each entry a CPU number or an inclusive range, order kept.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  if (text.empty()) return std::nullopt;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    const auto item = text.substr(pos, comma - pos);
    const auto dash = item.find('-');
    const auto first = parse_whole_int(item.substr(0, dash), 0, CPU_SETSIZE - 1);
    auto last = first;
    if (dash != std::string_view::npos)
      last = parse_whole_int(item.substr(dash + 1), 0, CPU_SETSIZE - 1);
    if (!first || !last || *last < *first) return std::nullopt;
    for (auto cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
    pos = comma + 1;
  }
  return cpus;
}

// ---- the special rows' codecs ------------------------------------------------------------

constexpr SpecialCodec kBind = {[](const std::string& v, Config& c, Given&) -> Reason {
                                  std::array<unsigned char, sizeof(in6_addr)> buf{};
                                  if (inet_pton(AF_INET, v.c_str(), buf.data()) != 1 &&
                                      inet_pton(AF_INET6, v.c_str(), buf.data()) != 1) {
                                    return "an IPv4 or IPv6 address";
                                  }
                                  c.bind = v;
                                  return std::nullopt;
                                },
                                [](const Config& c) { return c.bind; }, nullptr};

constexpr SpecialCodec kWorkers = {[](const std::string& v, Config&, Given& g) -> Reason {
                                     if (ascii_lower(v) == "auto") {
                                       g.workers = 0;
                                       return std::nullopt;
                                     }
                                     const auto n = parse_whole_int(v, 1, kSlotCount);
                                     if (!n) return "a positive integer (at most 16384) or 'auto'";
                                     g.workers = static_cast<int>(*n);
                                     return std::nullopt;
                                   },
                                   nullptr, nullptr};

constexpr SpecialCodec kCpus = {[](const std::string& v, Config& c, Given& g) -> Reason {
                                  auto cpus = parse_cpu_list(v);
                                  if (!cpus) return "a CPU list such as 0,2,4 or 0-3";
                                  c.cpus = std::move(*cpus);
                                  g.cpus = true;
                                  return std::nullopt;
                                },
                                nullptr, nullptr};

Reason port_into(const std::string& v, int& out) {
  const auto port = parse_whole_int(v, 0, 65535);
  if (!port) return "an integer 0..65535";
  out = static_cast<int>(*port);
  return std::nullopt;
}

constexpr SpecialCodec kWorkerBasePort = {[](const std::string& v, Config& c, Given& g) {
                                            g.worker_base_port = true;
                                            return port_into(v, c.worker_base_port);
                                          },
                                          nullptr, nullptr};

constexpr SpecialCodec kAdminPort = {[](const std::string& v, Config& c, Given& g) {
                                       g.admin_port = true;
                                       return port_into(v, c.admin_port);
                                     },
                                     nullptr, nullptr};

constexpr SpecialCodec kLogLevel = {
    [](const std::string& v, Config& c, Given&) -> Reason {
      if (!parse_log_level(v)) return "one of trace, debug, info, warn, error, critical, off";
      c.log_level = ascii_lower(v);
      return std::nullopt;
    },
    nullptr, nullptr};

// CONFIG GET's views of durability, in Redis's terms.
constexpr SpecialCodec kAppendonly = {
    nullptr,
    [](const Config& c) { return std::string(c.durability == Durability::kMemory ? "no" : "yes"); },
    nullptr};

std::string appendfsync(const Config& c) {
  switch (c.durability) {
    case Durability::kAlways:
      return "always";
    case Durability::kEverysec:
      return "everysec";
    case Durability::kMemory:
      break;
  }
  return "no";
}
constexpr SpecialCodec kAppendfsync = {nullptr, appendfsync, nullptr};

constexpr SpecialCodec kObufLimit = {
    [](const std::string& v, Config& c, Given&) -> Reason {
      if (auto why = parse_client_output_buffer_limit(v, c.obuf_limits)) {
        return "groups of <class> <hard> <soft> <soft seconds> (" + *why + ")";
      }
      return std::nullopt;
    },
    [](const Config& c) { return format_client_output_buffer_limit(c.obuf_limits); },
    [](std::string_view v, Config& c) {
      return parse_client_output_buffer_limit(v, c.obuf_limits);
    },
    true};

constexpr SpecialCodec kPercentiles = {
    [](const std::string& v, Config& c, Given&) -> Reason {
      if (parse_percentiles(v, c.latency_tracking_percentiles)) {
        return "blank-separated numbers between 0 and 100";
      }
      return std::nullopt;
    },
    [](const Config& c) { return format_percentiles(c.latency_tracking_percentiles); },
    [](std::string_view v, Config& c) {
      return parse_percentiles(std::string(v), c.latency_tracking_percentiles);
    }};

constexpr SpecialCodec kNotifyEvents = {
    [](const std::string& v, Config& c, Given&) -> Reason {
      const auto flags = parse_notify_flags(v);
      if (!flags) return "made of the letters Ag$lshzxeKEtmdn";
      c.notify_keyspace_events = *flags;
      return std::nullopt;
    },
    [](const Config& c) { return format_notify_flags(c.notify_keyspace_events); },
    [](std::string_view v, Config& c) -> Reason {
      const auto flags = parse_notify_flags(v);
      if (!flags) return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
      c.notify_keyspace_events = *flags;
      return std::nullopt;
    }};

// maxmemory-clients (Redis's PERCENT_CONFIG): "N%" of maxmemory, kept as -N, or bytes.
constexpr SpecialCodec kMaxmemoryClients = {
    [](const std::string& v, Config& c, Given&) -> Reason {
      const auto m = parse_memory_or_percent(v);
      if (!m) return "a memory size such as 64mb, or a percentage of maxmemory such as 10%";
      c.maxmemory_clients = *m;
      return std::nullopt;
    },
    [](const Config& c) {
      const std::int64_t v = c.maxmemory_clients;
      return v < 0 ? std::to_string(-v) + "%" : std::to_string(v);
    },
    [](std::string_view v, Config& c) -> Reason {
      const auto m = parse_memory_or_percent(std::string(v));
      if (!m) return "argument must be a memory or percent value";
      if (*m < -100) return "percentage argument must be less or equal to 100";
      c.maxmemory_clients = *m;
      return std::nullopt;
    }};

constexpr std::string_view kPolicies[] = {"volatile-lru",   "volatile-lfu", "volatile-random",
                                          "volatile-ttl",   "allkeys-lru",  "allkeys-lfu",
                                          "allkeys-random", "noeviction"};
constexpr std::string_view kDurabilities[] = {"memory", "everysec", "always"};  // Durability's
constexpr std::string_view kDebugCommand[] = {"no", "yes", "local"};
constexpr std::string_view kSanitize[] = {"no", "yes", "clients"};

// A row names only the fields it sets (designated initializers); the others keep Param's
// defaults, which is what -Wmissing-field-initializers would flag.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// A value CONFIG GET answers and CONFIG SET refuses: the Redis parameters that do not apply
// here and that Redis 7.0 cannot change at run time either.
constexpr Param fixed(std::string_view name, std::string_view value, std::string_view alias = {}) {
  return Param{.name = name, .alias = alias, .default_text = value};
}
// One that Redis can change and Ruvio cannot: CONFIG SET takes the value it has, nothing else.
constexpr Param pinned(std::string_view name, std::string_view value, std::string_view alias = {}) {
  return Param{.name = name, .alias = alias, .default_text = value, .pinned = true};
}
// Redis 7.0's hidden parameters (its test hooks): CONFIG GET answers them by exact name only.
constexpr Param hidden(Param p) {
  p.hidden = true;
  return p;
}

using enum ParamType;
using enum ParamEffect;

// clang-format off
constexpr Param kParams[] = {
    {.name = "bind", .type = kSpecial, .default_text = "127.0.0.1", .pinned = true, .where = kBoth,
     .member = &Config::bind, .special = &kBind, .arg = "ADDR",
     .help = "listen address for every port (default 127.0.0.1)"},
    {.name = "port", .type = kInt, .default_text = "6379", .max = 65535, .where = kBoth,
     .member = &Config::port, .arg = "P", .help = "the proxy port (default 6379)"},
    {.name = "workers", .type = kSpecial, .default_text = "auto", .where = kFlag,
     .special = &kWorkers, .arg = "N",
     .help = "worker processes, or 'auto' = one per CPU (default auto)"},
    {.name = "cpus", .type = kSpecial, .where = kFlag, .special = &kCpus, .arg = "LIST",
     .help = "cores to pin workers to, e.g. 0,2,4 or 0-3 (default 0..N-1)"},
    {.name = "worker-base-port", .type = kSpecial, .where = kFlag, .special = &kWorkerBasePort,
     .arg = "P", .help = "worker i's direct (cluster-mode) port is P+i; 0 = none (default port+1)"},
    {.name = "admin-port", .type = kSpecial, .where = kFlag, .special = &kAdminPort, .arg = "P",
     .help = "admin HTTP port; 0 = none (default port+10000)"},
    {.name = "databases", .type = kInt, .default_text = "16", .min = 1, .max = kIntMax,
     .where = kBoth, .member = &Config::databases, .arg = "N",
     .help = "logical databases (default 16)"},
    {.name = "dir", .type = kString, .default_text = "./data", .min = 1, .protect = true, .where = kBoth,
     .member = &Config::dir, .arg = "DIR",
     .help = "data directory, DIR/worker-<i>/ (default ./data)", .must = "a directory path"},
    {.name = "durability", .type = kEnum, .default_text = "everysec", .names = kDurabilities,
     .where = kFlag, .member = &Config::durability, .arg = "MODE",
     .help = "memory, everysec or always (default everysec)"},
    {.name = "sync-interval-ms", .type = kInt, .default_text = "1000", .min = 1, .max = kIntMax,
     .where = kFlag, .member = &Config::sync_interval_ms, .arg = "MS",
     .help = "everysec fsync window in milliseconds (default 1000)",
     .must = "a positive integer"},
    {.name = "wal-snapshot-bytes", .type = kMemory, .default_text = "64mb", .max = kU64Max,
     .where = kFlag, .member = &Config::wal_snapshot_bytes, .arg = "BYTES",
     .help = "take a snapshot (and drop the WAL it covers) once a worker's WAL passes this; "
             "0 = never (default 64mb)",
     .must = "a memory size such as 67108864, 64mb or 1gb"},
    {.name = "wal-segment-bytes", .type = kMemory, .default_text = "64mb", .min = 4096,
     .max = kU64Max, .where = kFlag, .member = &Config::wal_segment_bytes, .arg = "BYTES",
     .help = "WAL segment size, preallocated so a full disk refuses writes up front "
             "(default 64mb)"},
    {.name = "ignore-corrupt-snapshot", .type = kOnOff, .default_text = "off", .where = kFlag,
     .member = &Config::ignore_corrupt_snapshot, .arg = "on|off",
     .help = "start a worker whose snapshot is corrupt from its WAL alone (default off: refuse)"},
    {.name = "maxmemory", .type = kMemory, .default_text = "0", .max = kU64Max, .settable = true,
     .where = kBoth, .member = &Config::maxmemory, .arg = "BYTES",
     .help = "memory limit, split evenly over workers; 100mb, 2gb... (default 0 = none)"},
    {.name = "maxmemory-policy", .type = kEnum, .default_text = "noeviction", .names = kPolicies,
     .settable = true, .where = kBoth, .member = &Config::maxmemory_policy, .effect = kEviction,
     .arg = "P",
     .help = "eviction policy: noeviction, allkeys-lru, allkeys-lfu, allkeys-random, "
             "volatile-lru, volatile-lfu, volatile-random, volatile-ttl (default noeviction)",
     .must = "one of noeviction, allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, "
             "volatile-lfu, volatile-random, volatile-ttl"},
    {.name = "maxmemory-samples", .type = kInt, .default_text = "5", .min = 1, .max = kIntMax,
     .settable = true, .where = kBoth, .member = &Config::maxmemory_samples, .arg = "N",
     .help = "keys sampled per eviction (default 5)"},
    {.name = "maxmemory-clients", .type = kSpecial, .default_text = "0", .settable = true,
     .where = kBoth, .member = &Config::maxmemory_clients, .special = &kMaxmemoryClients,
     .arg = "BYTES|N%",
     .help = "memory of all clients (buffers) past which the largest are closed, split over "
             "workers (default 0 = off)"},
    {.name = "requirepass", .type = kString, .settable = true, .where = kBoth,
     .member = &Config::requirepass, .effect = kPassword, .arg = "PASS",
     .help = "AUTH password of the default user (default none)"},
    {.name = "proto-max-bulk-len", .type = kMemory, .default_text = "512mb", .min = 1 << 20,
     .settable = true, .where = kBoth, .member = &Config::proto_max_bulk_len, .arg = "BYTES",
     .help = "longest bulk string a request may carry (default 512mb)",
     .must = "a memory size of at least 1mb"},
    // No RDB save points: snapshots follow the WAL's size (wal-snapshot-bytes). `CONFIG SET
    // save ""` (scripts switching saving off) is what is true and is accepted.
    pinned("save", ""),
    {.name = "appendonly", .type = kSpecial, .pinned = true, .special = &kAppendonly},
    {.name = "appendfsync", .type = kSpecial, .pinned = true, .special = &kAppendfsync},
    {.name = "timeout", .type = kInt, .default_text = "0", .max = kIntMax, .settable = true,
     .where = kBoth, .member = &Config::timeout, .arg = "S",
     .help = "close clients idle for S seconds; 0 = never (default 0)"},
    {.name = "tcp-keepalive", .type = kInt, .default_text = "300", .max = kIntMax,
     .settable = true, .where = kBoth, .member = &Config::tcp_keepalive, .arg = "S",
     .help = "TCP keepalive interval of client sockets; 0 = off (default 300)"},
    // createUIntConfig(1..UINT_MAX); a worker's share rises only as far as its descriptor
    // limit allows.
    {.name = "maxclients", .type = kInt, .default_text = "10000", .min = 1, .max = 4294967295u,
     .settable = true, .where = kBoth, .member = &Config::maxclients, .effect = kMaxclients,
     .arg = "N",
     .help = "most connected clients per process, lowered to what RLIMIT_NOFILE allows "
             "(default 10000)"},
    // Redis's updateHZ: any value 0..INT_MAX is taken, and held within 1..500 (set_hz).
    {.name = "hz", .type = kInt, .default_text = "10", .max = kIntMax, .settable = true,
     .where = kBoth, .member = &Config::hz, .effect = kHz, .arg = "N",
     .help = "housekeeping ticks per second: active expiry, rehashing, eviction (1..500, "
             "default 10)"},
    // Redis's name of log-level, read-only here.
    {.name = "loglevel", .type = kString, .member = &Config::log_level},
    fixed("daemonize", "no"),
    fixed("cluster-enabled", "no"),
    {.name = "notify-keyspace-events", .type = kSpecial, .default_text = "", .settable = true,
     .where = kBoth, .effect = kNotify, .special = &kNotifyEvents, .arg = "CLASSES",
     .help = "keyspace notification classes, Redis's letters K E g $ l s h z x e t m d n A "
             "(default none)"},
    {.name = "lazyfree-lazy-eviction", .type = kBool, .default_text = "no", .settable = true,
     .where = kBoth, .member = &Config::lazyfree_lazy_eviction, .effect = kLazyfree,
     .arg = "yes|no", .help = "free evicted large values lazily (default no)"},
    {.name = "lazyfree-lazy-expire", .type = kBool, .default_text = "no", .settable = true,
     .where = kBoth, .member = &Config::lazyfree_lazy_expire, .effect = kLazyfree,
     .arg = "yes|no", .help = "free expired large values lazily (default no)"},
    {.name = "lazyfree-lazy-server-del", .type = kBool, .default_text = "no", .settable = true,
     .where = kBoth, .member = &Config::lazyfree_lazy_server_del, .effect = kLazyfree,
     .arg = "yes|no",
     .help = "free large values overwritten by SET, RENAME... lazily (default no)"},
    {.name = "lazyfree-lazy-user-del", .type = kBool, .default_text = "no", .settable = true,
     .where = kBoth, .member = &Config::lazyfree_lazy_user_del, .effect = kLazyfree,
     .arg = "yes|no", .help = "DEL frees large values lazily, as UNLINK (default no)"},
    {.name = "lazyfree-lazy-user-flush", .type = kBool, .default_text = "no", .settable = true,
     .where = kBoth, .member = &Config::lazyfree_lazy_user_flush, .effect = kLazyfree,
     .arg = "yes|no", .help = "FLUSHDB/FLUSHALL without SYNC|ASYNC free lazily (default no)"},
    {.name = "lfu-log-factor", .type = kInt, .default_text = "10", .max = kIntMax,
     .settable = true, .where = kBoth, .member = &Config::lfu_log_factor, .effect = kEviction,
     .arg = "N", .help = "LFU counter's logarithm factor (default 10)"},
    {.name = "lfu-decay-time", .type = kInt, .default_text = "1", .max = kIntMax,
     .settable = true, .where = kBoth, .member = &Config::lfu_decay_time, .arg = "MIN",
     .help = "LFU counter decay period in minutes (default 1)"},
    {.name = "maxmemory-eviction-tenacity", .type = kInt, .default_text = "10", .max = 100,
     .settable = true, .where = kBoth, .member = &Config::maxmemory_eviction_tenacity,
     .arg = "N", .help = "eviction effort per command, 0..100 (default 10)"},
    {.name = "hash-max-listpack-entries", .alias = "hash-max-ziplist-entries", .type = kInt,
     .default_text = "128", .settable = true, .where = kBoth,
     .member = &Config::hash_max_listpack_entries, .arg = "N",
     .help = "most fields of a listpack-encoded hash (default 128)"},
    {.name = "hash-max-listpack-value", .alias = "hash-max-ziplist-value", .type = kMemory,
     .default_text = "64", .settable = true, .where = kBoth,
     .member = &Config::hash_max_listpack_value, .arg = "BYTES",
     .help = "longest field or value of a listpack-encoded hash (default 64)"},
    {.name = "list-max-listpack-size", .alias = "list-max-ziplist-size", .type = kInt,
     .default_text = "-2", .min = kIntMin, .max = kIntMax, .settable = true, .where = kBoth,
     .member = &Config::list_max_listpack_size, .arg = "N",
     .help = "list node limit: -1..-5 = 4..64 KiB per node, N > 0 = N entries (default -2)"},
    {.name = "list-compress-depth", .type = kInt, .default_text = "0", .max = kIntMax,
     .settable = true, .where = kBoth, .member = &Config::list_compress_depth, .arg = "N",
     .help = "list nodes left uncompressed at each end (LZF of inner nodes)"},
    // Redis 7.2's names (redis-server 7.0 has none of them).
    {.name = "set-max-intset-entries", .type = kInt, .default_text = "512", .settable = true,
     .where = kBoth, .member = &Config::set_max_intset_entries, .arg = "N",
     .help = "sets of integers up to N members are intsets (default 512)"},
    {.name = "set-max-listpack-entries", .type = kInt, .default_text = "128", .settable = true,
     .where = kBoth, .member = &Config::set_max_listpack_entries, .arg = "N",
     .help = "sets up to N members are listpacks (default 128)"},
    {.name = "set-max-listpack-value", .type = kInt, .default_text = "64", .settable = true,
     .where = kBoth, .member = &Config::set_max_listpack_value, .arg = "N",
     .help = "sets whose members are at most N bytes are listpacks (default 64)"},
    {.name = "zset-max-listpack-entries", .alias = "zset-max-ziplist-entries", .type = kInt,
     .default_text = "128", .settable = true, .where = kBoth,
     .member = &Config::zset_max_listpack_entries, .arg = "N",
     .help = "sorted sets up to N members stay listpack-encoded (default 128)"},
    {.name = "zset-max-listpack-value", .alias = "zset-max-ziplist-value", .type = kMemory,
     .default_text = "64", .settable = true, .where = kBoth,
     .member = &Config::zset_max_listpack_value, .arg = "N",
     .help = "sorted-set members up to N bytes stay listpack-encoded (default 64)"},
    {.name = "stream-node-max-bytes", .type = kMemory, .default_text = "4096", .settable = true,
     .where = kBoth, .member = &Config::stream_node_max_bytes, .arg = "N",
     .help = "a stream node's listpack stops growing at N bytes (default 4096)"},
    {.name = "stream-node-max-entries", .type = kInt, .default_text = "100", .settable = true,
     .where = kBoth, .member = &Config::stream_node_max_entries, .arg = "N",
     .help = "a stream node holds at most N entries (default 100)"},
    {.name = "slowlog-log-slower-than", .type = kInt, .default_text = "10000", .min = -1,
     .settable = true, .where = kBoth, .member = &Config::slowlog_log_slower_than, .arg = "US",
     .help = "SLOWLOG takes commands at least this slow; -1 = off, 0 = all (default 10000)"},
    {.name = "slowlog-max-len", .type = kInt, .default_text = "128", .settable = true,
     .where = kBoth, .member = &Config::slowlog_max_len, .effect = kSlowlogLen, .arg = "N",
     .help = "SLOWLOG keeps this many entries (default 128)"},
    {.name = "latency-monitor-threshold", .type = kInt, .default_text = "0", .settable = true,
     .where = kBoth, .member = &Config::latency_monitor_threshold, .arg = "MS",
     .help = "LATENCY records commands at least this slow; 0 = off (default 0)"},
    {.name = "latency-tracking", .type = kBool, .default_text = "yes", .settable = true,
     .where = kBoth, .member = &Config::latency_tracking, .arg = "yes|no",
     .help = "per-command latency histograms (default yes)"},
    {.name = "latency-tracking-info-percentiles", .type = kSpecial, .default_text = "50 99 99.9",
     .settable = true, .where = kBoth, .special = &kPercentiles, .arg = "LIST",
     .help = "percentiles INFO latencystats shows (default \"50 99 99.9\")"},
    fixed("io-threads", "1"),
    {.name = "hll-sparse-max-bytes", .type = kMemory, .default_text = "3000", .settable = true,
     .where = kBoth, .member = &Config::hll_sparse_max_bytes, .arg = "BYTES",
     .help = "HyperLogLogs up to this size stay sparse-encoded (default 3000)"},
    {.name = "busy-reply-threshold", .alias = "lua-time-limit", .type = kInt,
     .default_text = "5000", .max = kIntMax, .settable = true, .where = kBoth,
     .member = &Config::busy_reply_threshold, .arg = "MS",
     .help = "a script running longer lets other clients be answered -BUSY (default 5000)"},
    {.name = "client-output-buffer-limit", .type = kSpecial,
     .default_text = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
     .settable = true, .where = kBoth, .special = &kObufLimit, .arg = "'CLASS HARD SOFT SECS'",
     .help = "close clients of a class (normal, replica, pubsub) past HARD bytes of output, or "
             "past SOFT for SECS seconds (default: normal 0 0 0, replica 256mb 64mb 60, pubsub "
             "32mb 8mb 60)"},
    {.name = "client-query-buffer-limit", .type = kMemory, .default_text = "1gb", .min = 1 << 20,
     .settable = true, .where = kBoth, .member = &Config::client_query_buffer_limit,
     .arg = "BYTES", .help = "close a client whose unparsed input passes this (default 1gb)",
     .must = "a memory size of at least 1mb"},
    {.name = "protected-mode", .type = kBool, .default_text = "yes", .settable = true,
     .where = kBoth, .member = &Config::protected_mode, .arg = "yes|no",
     .help = "refuse non-loopback clients while nothing is protected (default yes)"},
    {.name = "aclfile", .type = kString, .where = kBoth, .member = &Config::aclfile,
     .arg = "FILE", .help = "ACL users file, Redis's format (default none)"},
    {.name = "acllog-max-len", .type = kInt, .default_text = "128", .settable = true,
     .member = &Config::acllog_max_len, .effect = kAcllogLen},
    {.name = "enable-debug-command", .type = kEnum, .default_text = "no", .names = kDebugCommand,
     .where = kBoth, .member = &Config::enable_debug_command, .arg = "no|yes|local",
     .help = "allow DEBUG (default no, as Redis 7)"},
    {.name = "sanitize-dump-payload", .type = kEnum, .default_text = "no", .names = kSanitize,
     .settable = true, .where = kBoth, .member = &Config::sanitize_dump_payload,
     .arg = "no|yes|clients", .help = "accepted; RESTORE payloads are always checked deeply"},
    {.name = "tracking-table-max-keys", .type = kInt, .default_text = "1000000",
     .settable = true, .where = kBoth, .member = &Config::tracking_table_max_keys, .arg = "N",
     .help = "keys remembered for client-side caching before old ones are invalidated "
             "(default 1000000)"},
    // Ruvio's own flags that no CONFIG parameter shows.
    {.name = "log-level", .type = kSpecial, .default_text = "info", .where = kFlag,
     .member = &Config::log_level, .special = &kLogLevel, .arg = "L",
     .help = "trace, debug, info, warn, error, critical or off (default info)"},
    {.name = "cluster-config", .type = kString, .min = 1, .where = kFlag,
     .member = &Config::cluster_config, .arg = "FILE",
     .help = "static Redis Cluster topology of the direct ports: 'node <ip>:<port> "
             "<first>-<last>...' lines (default: the local workers own all slots)",
     .must = "a file path"},
    {.name = "alloc-trace", .type = kOnOff, .default_text = "on", .where = kFlag,
     .member = &Config::alloc_trace, .arg = "on|off",
     .help = "eBPF allocation tracing where the kernel allows it (default on)"},
    {.name = "admin-token", .type = kString, .where = kFlag, .member = &Config::admin_token,
     .arg = "T", .help = "the admin HTTP port requires Authorization: Bearer T (default none)"},
    // Redis 7.0's parameters that do not apply, by name.
    pinned("acl-pubsub-default", "resetchannels"),
    pinned("active-defrag-cycle-max", "25"),
    pinned("active-defrag-cycle-min", "1"),
    pinned("active-defrag-ignore-bytes", "104857600"),
    pinned("active-defrag-max-scan-fields", "1000"),
    pinned("active-defrag-threshold-lower", "10"),
    pinned("active-defrag-threshold-upper", "100"),
    pinned("active-expire-effort", "1"),
    pinned("activedefrag", "no"),
    pinned("activerehashing", "yes"),
    fixed("always-show-logo", "no"),
    pinned("aof-disable-auto-gc", "no"),
    pinned("aof-load-truncated", "yes"),
    pinned("aof-rewrite-incremental-fsync", "yes"),
    pinned("aof-timestamp-enabled", "no"),
    pinned("aof-use-rdb-preamble", "yes"),
    fixed("aof_rewrite_cpulist", ""),
    fixed("appenddirname", "appendonlydir"),
    fixed("appendfilename", "appendonly.aof"),
    pinned("auto-aof-rewrite-min-size", "67108864"),
    pinned("auto-aof-rewrite-percentage", "100"),
    fixed("bgsave_cpulist", ""),
    pinned("bind-source-addr", ""),
    fixed("bio_cpulist", ""),
    pinned("cluster-allow-pubsubshard-when-down", "yes"),
    pinned("cluster-allow-reads-when-down", "no"),
    pinned("cluster-allow-replica-migration", "yes"),
    pinned("cluster-announce-bus-port", "0"),
    pinned("cluster-announce-hostname", ""),
    pinned("cluster-announce-ip", ""),
    pinned("cluster-announce-port", "0"),
    pinned("cluster-announce-tls-port", "0"),
    fixed("cluster-config-file", "nodes.conf"),
    pinned("cluster-link-sendbuf-limit", "0"),
    pinned("cluster-migration-barrier", "1"),
    pinned("cluster-node-timeout", "15000"),
    fixed("cluster-port", "0"),
    pinned("cluster-preferred-endpoint-type", "ip"),
    pinned("cluster-replica-no-failover", "no", "cluster-slave-no-failover"),
    pinned("cluster-replica-validity-factor", "10", "cluster-slave-validity-factor"),
    pinned("cluster-require-full-coverage", "yes"),
    pinned("crash-log-enabled", "yes"),
    pinned("crash-memcheck-enabled", "yes"),
    // Each worker writes DIR/worker-<i>/snapshot (and WAL segments beside it).
    {.name = "dbfilename", .default_text = "snapshot", .protect = true},
    fixed("disable-thp", "yes"),
    pinned("dynamic-hz", "no"),  // hz does not scale with the clients
    fixed("enable-module-command", "no"),
    fixed("enable-protected-configs", "no"),
    pinned("ignore-warnings", ""),
    fixed("io-threads-do-reads", "no"),
    pinned("jemalloc-bg-thread", "no"),  // mimalloc: no jemalloc thread
    hidden(pinned("key-load-delay", "0")),
    hidden(pinned("loading-process-events-interval-bytes", "2097152")),
    fixed("logfile", ""),
    hidden(fixed("lua-enable-deprecated-api", "no")),
    pinned("masterauth", ""),
    pinned("masteruser", ""),
    pinned("min-replicas-max-lag", "10", "min-slaves-max-lag"),
    pinned("min-replicas-to-write", "0", "min-slaves-to-write"),
    pinned("no-appendfsync-on-rewrite", "no"),
    pinned("oom-score-adj", "no"),
    pinned("oom-score-adj-values", "0 200 800"),
    fixed("pidfile", ""),
    pinned("proc-title-template", "{title} {listen-addr} {server-mode}"),
    pinned("propagation-error-behavior", "ignore"),
    pinned("rdb-del-sync-files", "no"),
    hidden(pinned("rdb-key-save-delay", "0")),
    pinned("rdb-save-incremental-fsync", "yes"),
    fixed("rdbchecksum", "yes"),
    pinned("rdbcompression", "yes"),
    pinned("repl-backlog-size", "1048576"),
    pinned("repl-backlog-ttl", "3600"),
    pinned("repl-disable-tcp-nodelay", "no"),
    pinned("repl-diskless-load", "disabled"),
    pinned("repl-diskless-sync", "yes"),
    pinned("repl-diskless-sync-delay", "5"),
    pinned("repl-diskless-sync-max-replicas", "0"),
    pinned("repl-ping-replica-period", "10", "repl-ping-slave-period"),
    pinned("repl-timeout", "60"),
    pinned("replica-announce-ip", "", "slave-announce-ip"),
    pinned("replica-announce-port", "0", "slave-announce-port"),
    pinned("replica-announced", "yes"),
    pinned("replica-ignore-disk-write-errors", "no"),
    pinned("replica-ignore-maxmemory", "yes", "slave-ignore-maxmemory"),
    pinned("replica-lazy-flush", "no", "slave-lazy-flush"),
    pinned("replica-priority", "100", "slave-priority"),
    pinned("replica-read-only", "yes", "slave-read-only"),
    pinned("replica-serve-stale-data", "yes", "slave-serve-stale-data"),
    fixed("replicaof", "", "slaveof"),
    fixed("server_cpulist", ""),
    fixed("set-proc-title", "yes"),
    pinned("shutdown-on-sigint", "default"),
    pinned("shutdown-on-sigterm", "default"),
    pinned("shutdown-timeout", "10"),
    fixed("socket-mark-id", "0"),
    pinned("stop-writes-on-bgsave-error", "yes"),
    fixed("supervised", "no"),
    fixed("syslog-enabled", "no"),
    fixed("syslog-facility", "local0"),
    fixed("syslog-ident", "redis"),
    fixed("tcp-backlog", "511"),
    pinned("tls-auth-clients", "yes"),
    pinned("tls-ca-cert-dir", ""),
    pinned("tls-ca-cert-file", ""),
    pinned("tls-cert-file", ""),
    pinned("tls-ciphers", ""),
    pinned("tls-ciphersuites", ""),
    pinned("tls-client-cert-file", ""),
    pinned("tls-client-key-file", ""),
    pinned("tls-client-key-file-pass", ""),
    pinned("tls-cluster", "no"),
    pinned("tls-dh-params-file", ""),
    pinned("tls-key-file", ""),
    pinned("tls-key-file-pass", ""),
    pinned("tls-port", "0"),
    pinned("tls-prefer-server-ciphers", "no"),
    pinned("tls-protocols", ""),
    pinned("tls-replication", "no"),
    pinned("tls-session-cache-size", "20480"),
    pinned("tls-session-cache-timeout", "300"),
    pinned("tls-session-caching", "yes"),
    fixed("unixsocket", ""),
    fixed("unixsocketperm", "0"),
    hidden(pinned("use-exit-on-panic", "no")),
    hidden(pinned("watchdog-period", "0")),
};
// clang-format on
#pragma GCC diagnostic pop

}  // namespace

std::span<const Param> config_params() {
  return kParams;
}

}  // namespace ruvio
