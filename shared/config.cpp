// Flag and config-file parsing. Every option is declared once in kOptions (name, help,
// validator); cxxopts reads the command line, a small Redis-style reader reads the file, and
// both feed the same validators so a value means the same thing wherever it is written.
// Order: file, then flags (flags win), then derived defaults (workers, cpus, ports).
#include "shared/config.hpp"

#include <arpa/inet.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxopts.hpp>
#include <limits>
#include <string_view>

#include "shared/log.hpp"
#include "shared/notify_flags.hpp"
#include "shared/sds_text.hpp"
#include "shared/slots.hpp"
#include "shared/topology.hpp"

#ifndef RUVIO_VERSION
#define RUVIO_VERSION "0.1.0"
#endif

namespace ruvio {
namespace {

// What the sources said about the options whose defaults depend on other options.
struct Given {
  int workers = 0;  // 0 = not given or "auto"
  bool cpus = false;
  bool worker_base_port = false;
  bool admin_port = false;
};

// A validator stores `value` into the config, or returns why it is not acceptable
// (the text after "must be ...").
using Validator = std::optional<std::string> (*)(const std::string& value, Config&, Given&);

struct OptionSpec {
  const char* name;
  const char* arg;
  const char* help;
  Validator apply;
};

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Whole-string decimal integer in [lo, hi]; no sign, spaces or suffix.
std::optional<long long> parse_int(std::string_view text, long long lo, long long hi) {
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < lo || value > hi) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> apply_port_into(const std::string& v, int& out) {
  const auto port = parse_int(v, 0, 65535);
  if (!port) return "an integer 0..65535";
  out = static_cast<int>(*port);
  return std::nullopt;
}

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
    const auto first = parse_int(item.substr(0, dash), 0, CPU_SETSIZE - 1);
    auto last = first;
    if (dash != std::string_view::npos) last = parse_int(item.substr(dash + 1), 0, CPU_SETSIZE - 1);
    if (!first || !last || *last < *first) return std::nullopt;
    for (auto cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
    pos = comma + 1;
  }
  return cpus;
}

constexpr std::array<const char*, 8> kPolicies = {"noeviction",      "allkeys-lru",  "allkeys-lfu",
                                                  "allkeys-random",  "volatile-lru", "volatile-lfu",
                                                  "volatile-random", "volatile-ttl"};

// Redis's bool parameters: yes or no, any case.
template <bool Config::*Field>
std::optional<std::string> apply_yes_no(const std::string& v, Config& c, Given&) {
  const auto flag = lowercase(v);
  if (flag != "yes" && flag != "no") return "yes or no";
  c.*Field = flag == "yes";
  return std::nullopt;
}

// Redis's size_t parameters (the listpack/intset thresholds): 0 .. LONG_MAX.
template <std::uint64_t Config::*Field>
std::optional<std::string> apply_size(const std::string& v, Config& c, Given&) {
  const auto n = parse_int(v, 0, std::numeric_limits<long long>::max());
  if (!n) return "an integer of at least 0";
  c.*Field = static_cast<std::uint64_t>(*n);
  return std::nullopt;
}

// Redis's int parameters: Min .. INT_MAX.
template <int Config::*Field, int Min>
std::optional<std::string> apply_int(const std::string& v, Config& c, Given&) {
  const auto n = parse_int(v, Min, std::numeric_limits<int>::max());
  if (!n) return Min == 0 ? "an integer of at least 0" : "an integer";
  c.*Field = static_cast<int>(*n);
  return std::nullopt;
}

const std::array<OptionSpec, 66> kOptions = {{
    {"bind", "ADDR", "listen address for every port (default 127.0.0.1)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       std::array<unsigned char, sizeof(in6_addr)> buf{};
       if (inet_pton(AF_INET, v.c_str(), buf.data()) != 1 &&
           inet_pton(AF_INET6, v.c_str(), buf.data()) != 1) {
         return "an IPv4 or IPv6 address";
       }
       c.bind = v;
       return std::nullopt;
     }},
    {"port", "P", "the proxy port (default 6379)",
     [](const std::string& v, Config& c, Given&) { return apply_port_into(v, c.port); }},
    {"workers", "N", "worker processes, or 'auto' = one per CPU (default auto)",
     [](const std::string& v, Config&, Given& g) -> std::optional<std::string> {
       if (lowercase(v) == "auto") {
         g.workers = 0;
         return std::nullopt;
       }
       const auto n = parse_int(v, 1, kSlotCount);
       if (!n) return "a positive integer (at most 16384) or 'auto'";
       g.workers = static_cast<int>(*n);
       return std::nullopt;
     }},
    {"cpus", "LIST", "cores to pin workers to, e.g. 0,2,4 or 0-3 (default 0..N-1)",
     [](const std::string& v, Config& c, Given& g) -> std::optional<std::string> {
       auto cpus = parse_cpu_list(v);
       if (!cpus) return "a CPU list such as 0,2,4 or 0-3";
       c.cpus = std::move(*cpus);
       g.cpus = true;
       return std::nullopt;
     }},
    {"worker-base-port", "P",
     "worker i's direct (cluster-mode) port is P+i; 0 = none "
     "(default port+1)",
     [](const std::string& v, Config& c, Given& g) {
       g.worker_base_port = true;
       return apply_port_into(v, c.worker_base_port);
     }},
    {"admin-port", "P", "admin HTTP port; 0 = none (default port+10000)",
     [](const std::string& v, Config& c, Given& g) {
       g.admin_port = true;
       return apply_port_into(v, c.admin_port);
     }},
    {"dir", "DIR", "data directory, DIR/worker-<i>/ (default ./data)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       if (v.empty()) return "a directory path";
       c.dir = v;
       return std::nullopt;
     }},
    {"durability", "MODE", "memory, everysec or always (default everysec)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto mode = lowercase(v);
       if (mode == "memory") {
         c.durability = Durability::kMemory;
       } else if (mode == "everysec") {
         c.durability = Durability::kEverysec;
       } else if (mode == "always") {
         c.durability = Durability::kAlways;
       } else {
         return "one of memory, everysec, always";
       }
       return std::nullopt;
     }},
    {"sync-interval-ms", "MS", "everysec fsync window in milliseconds (default 1000)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto ms = parse_int(v, 1, std::numeric_limits<int>::max());
       if (!ms) return "a positive integer";
       c.sync_interval_ms = static_cast<int>(*ms);
       return std::nullopt;
     }},
    {"wal-snapshot-bytes", "BYTES",
     "take a snapshot (and drop the WAL it covers) once a worker's WAL passes this; "
     "0 = never (default 64mb)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto bytes = parse_memory(v);
       if (!bytes) return "a memory size such as 67108864, 64mb or 1gb";
       c.wal_snapshot_bytes = *bytes;
       return std::nullopt;
     }},
    {"wal-segment-bytes", "BYTES",
     "WAL segment size, preallocated so a full disk refuses writes up front "
     "(default 64mb)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto bytes = parse_memory(v);
       if (!bytes || *bytes < 4096) return "a memory size of at least 4096 bytes";
       c.wal_segment_bytes = *bytes;
       return std::nullopt;
     }},
    {"ignore-corrupt-snapshot", "on|off",
     "start a worker whose snapshot is corrupt from its WAL alone (default off: refuse)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto flag = lowercase(v);
       if (flag != "on" && flag != "off") return "on or off";
       c.ignore_corrupt_snapshot = flag == "on";
       return std::nullopt;
     }},
    {"maxmemory", "BYTES",
     "memory limit, split evenly over workers; 100mb, 2gb... "
     "(default 0 = none)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto bytes = parse_memory(v);
       if (!bytes) return "a memory size such as 1048576, 100mb or 2gb";
       c.maxmemory = *bytes;
       return std::nullopt;
     }},
    {"maxmemory-policy", "P",
     "eviction policy: noeviction, allkeys-lru, allkeys-lfu, "
     "allkeys-random, volatile-lru, volatile-lfu, volatile-random, "
     "volatile-ttl (default noeviction)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto policy = lowercase(v);
       if (std::find(kPolicies.begin(), kPolicies.end(), policy) == kPolicies.end()) {
         return "one of noeviction, allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, "
                "volatile-lfu, volatile-random, volatile-ttl";
       }
       c.maxmemory_policy = policy;
       return std::nullopt;
     }},
    {"requirepass", "PASS", "AUTH password of the default user (default none)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       c.requirepass = v;
       return std::nullopt;
     }},
    {"databases", "N", "logical databases (default 16)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto n = parse_int(v, 1, std::numeric_limits<int>::max());
       if (!n) return "an integer of at least 1";
       c.databases = static_cast<int>(*n);
       return std::nullopt;
     }},
    {"log-level", "L", "trace, debug, info, warn, error, critical or off (default info)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       if (!parse_log_level(v)) return "one of trace, debug, info, warn, error, critical, off";
       c.log_level = lowercase(v);
       return std::nullopt;
     }},
    {"cluster-config", "FILE",
     "static Redis Cluster topology of the direct ports: 'node <ip>:<port> <first>-<last>...' "
     "lines (default: the local workers own all slots)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       if (v.empty()) return "a file path";
       c.cluster_config = v;
       return std::nullopt;
     }},
    {"alloc-trace", "on|off", "eBPF allocation tracing where the kernel allows it (default on)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto flag = lowercase(v);
       if (flag != "on" && flag != "off") return "on or off";
       c.alloc_trace = flag == "on";
       return std::nullopt;
     }},
    {"lazyfree-lazy-eviction", "yes|no", "free evicted large values lazily (default no)",
     apply_yes_no<&Config::lazyfree_lazy_eviction>},
    {"lazyfree-lazy-expire", "yes|no", "free expired large values lazily (default no)",
     apply_yes_no<&Config::lazyfree_lazy_expire>},
    {"lazyfree-lazy-server-del", "yes|no",
     "free large values overwritten by SET, RENAME... lazily (default no)",
     apply_yes_no<&Config::lazyfree_lazy_server_del>},
    {"lazyfree-lazy-user-del", "yes|no", "DEL frees large values lazily, as UNLINK (default no)",
     apply_yes_no<&Config::lazyfree_lazy_user_del>},
    {"zset-max-listpack-entries", "N",
     "sorted sets up to N members stay listpack-encoded (default 128)",
     apply_size<&Config::zset_max_listpack_entries>},
    {"zset-max-listpack-value", "N",
     "sorted-set members up to N bytes stay listpack-encoded (default 64)",
     apply_size<&Config::zset_max_listpack_value>},
    {"zset-max-ziplist-entries", "N", "alias of zset-max-listpack-entries",
     apply_size<&Config::zset_max_listpack_entries>},
    {"zset-max-ziplist-value", "N", "alias of zset-max-listpack-value",
     apply_size<&Config::zset_max_listpack_value>},
    {"lazyfree-lazy-user-flush", "yes|no",
     "FLUSHDB/FLUSHALL without SYNC|ASYNC free lazily (default no)",
     apply_yes_no<&Config::lazyfree_lazy_user_flush>},
    {"set-max-intset-entries", "N", "sets of integers up to N members are intsets (default 512)",
     apply_size<&Config::set_max_intset_entries>},
    {"set-max-listpack-entries", "N", "sets up to N members are listpacks (default 128)",
     apply_size<&Config::set_max_listpack_entries>},
    {"set-max-listpack-value", "N",
     "sets whose members are at most N bytes are listpacks (default 64)",
     apply_size<&Config::set_max_listpack_value>},
    {"hash-max-listpack-entries", "N", "most fields of a listpack-encoded hash (default 128)",
     apply_size<&Config::hash_max_listpack_entries>},
    {"hash-max-listpack-value", "BYTES",
     "longest field or value of a listpack-encoded hash (default 64)",
     apply_size<&Config::hash_max_listpack_value>},
    {"hash-max-ziplist-entries", "N", "alias of hash-max-listpack-entries",
     apply_size<&Config::hash_max_listpack_entries>},
    {"hash-max-ziplist-value", "BYTES", "alias of hash-max-listpack-value",
     apply_size<&Config::hash_max_listpack_value>},
    {"list-max-listpack-size", "N",
     "list node limit: -1..-5 = 4..64 KiB per node, N > 0 = N entries (default -2)",
     apply_int<&Config::list_max_listpack_size, std::numeric_limits<int>::min()>},
    {"list-max-ziplist-size", "N", "alias of list-max-listpack-size",
     apply_int<&Config::list_max_listpack_size, std::numeric_limits<int>::min()>},
    {"list-compress-depth", "N", "list nodes left uncompressed at each end (LZF of inner nodes)",
     apply_int<&Config::list_compress_depth, 0>},
    {"hll-sparse-max-bytes", "BYTES",
     "HyperLogLogs up to this size stay sparse-encoded (default 3000)",
     apply_size<&Config::hll_sparse_max_bytes>},
    {"stream-node-max-bytes", "N",
     "a stream node's listpack stops growing at N bytes (default 4096)",
     apply_size<&Config::stream_node_max_bytes>},
    {"stream-node-max-entries", "N", "a stream node holds at most N entries (default 100)",
     apply_size<&Config::stream_node_max_entries>},
    {"busy-reply-threshold", "MS",
     "a script running longer lets other clients be answered -BUSY (default 5000)",
     apply_int<&Config::busy_reply_threshold, 0>},
    {"lua-time-limit", "MS", "alias of busy-reply-threshold",
     apply_int<&Config::busy_reply_threshold, 0>},
    {"client-output-buffer-limit", "'CLASS HARD SOFT SECS'",
     "close clients of a class (normal, replica, pubsub) past HARD bytes of output, or past SOFT "
     "for SECS seconds (default: normal 0 0 0, replica 256mb 64mb 60, pubsub 32mb 8mb 60)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       if (auto why = parse_client_output_buffer_limit(v, c.obuf_limits)) {
         return "groups of <class> <hard> <soft> <soft seconds> (" + *why + ")";
       }
       return std::nullopt;
     }},
    {"client-query-buffer-limit", "BYTES",
     "close a client whose unparsed input passes this (default 1gb)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto bytes = parse_memory(v);
       if (!bytes || *bytes < 1024 * 1024) return "a memory size of at least 1mb";
       c.client_query_buffer_limit = *bytes;
       return std::nullopt;
     }},
    {"proto-max-bulk-len", "BYTES", "longest bulk string a request may carry (default 512mb)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto bytes = parse_memory(v);
       if (!bytes || *bytes < 1024 * 1024) return "a memory size of at least 1mb";
       c.proto_max_bulk_len = *bytes;
       return std::nullopt;
     }},
    {"maxclients", "N",
     "most connected clients per process, lowered to what RLIMIT_NOFILE allows (default 10000)",
     apply_int<&Config::maxclients, 1>},
    {"timeout", "S", "close clients idle for S seconds; 0 = never (default 0)",
     apply_int<&Config::timeout, 0>},
    {"tcp-keepalive", "S", "TCP keepalive interval of client sockets; 0 = off (default 300)",
     apply_int<&Config::tcp_keepalive, 0>},
    {"aclfile", "FILE", "ACL users file, Redis's format (default none)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       c.aclfile = v;
       return std::nullopt;
     }},
    {"protected-mode", "yes|no",
     "refuse non-loopback clients while nothing is protected (default yes)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto b = lowercase(v);
       if (b != "yes" && b != "no") return "yes or no";
       c.protected_mode = b == "yes";
       return std::nullopt;
     }},
    {"admin-token", "T", "the admin HTTP port requires Authorization: Bearer T (default none)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       c.admin_token = v;
       return std::nullopt;
     }},
    {"slowlog-log-slower-than", "US",
     "SLOWLOG takes commands at least this slow; -1 = off, 0 = all (default 10000)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto n = parse_int(v, -1, std::numeric_limits<long long>::max());
       if (!n) return "an integer of at least -1";
       c.slowlog_log_slower_than = *n;
       return std::nullopt;
     }},
    {"slowlog-max-len", "N", "SLOWLOG keeps this many entries (default 128)",
     apply_size<&Config::slowlog_max_len>},
    {"latency-monitor-threshold", "MS",
     "LATENCY records commands at least this slow; 0 = off (default 0)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto n = parse_int(v, 0, std::numeric_limits<long long>::max());
       if (!n) return "an integer of at least 0";
       c.latency_monitor_threshold = *n;
       return std::nullopt;
     }},
    {"latency-tracking", "yes|no", "per-command latency histograms (default yes)",
     apply_yes_no<&Config::latency_tracking>},
    {"latency-tracking-info-percentiles", "LIST",
     "percentiles INFO latencystats shows (default \"50 99 99.9\")",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       if (auto why = parse_percentiles(v, c.latency_tracking_percentiles)) {
         return "blank-separated numbers between 0 and 100";
       }
       return std::nullopt;
     }},
    {"maxmemory-clients", "BYTES|N%",
     "memory of all clients (buffers) past which the largest are closed, split over workers "
     "(default 0 = off)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto m = parse_memory_or_percent(v);
       if (!m) return "a memory size such as 64mb, or a percentage of maxmemory such as 10%";
       c.maxmemory_clients = *m;
       return std::nullopt;
     }},
    {"maxmemory-samples", "N", "keys sampled per eviction (default 5)",
     apply_int<&Config::maxmemory_samples, 1>},
    {"maxmemory-eviction-tenacity", "N", "eviction effort per command, 0..100 (default 10)",
     apply_int<&Config::maxmemory_eviction_tenacity, 0>},
    {"lfu-log-factor", "N", "LFU counter's logarithm factor (default 10)",
     apply_int<&Config::lfu_log_factor, 0>},
    {"lfu-decay-time", "MIN", "LFU counter decay period in minutes (default 1)",
     apply_int<&Config::lfu_decay_time, 0>},
    {"enable-debug-command", "no|yes|local", "allow DEBUG (default no, as Redis 7)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto m = lowercase(v);
       if (m != "no" && m != "yes" && m != "local") return "one of no, yes, local";
       c.enable_debug_command = m;
       return std::nullopt;
     }},
    {"sanitize-dump-payload", "no|yes|clients",
     "accepted; RESTORE payloads are always checked deeply",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto m = lowercase(v);
       if (m != "no" && m != "yes" && m != "clients") return "one of no, yes, clients";
       c.sanitize_dump_payload = m;
       return std::nullopt;
     }},
    {"notify-keyspace-events", "CLASSES",
     "keyspace notification classes, Redis's letters K E g $ l s h z x e t m d n A (default "
     "none)",
     [](const std::string& v, Config& c, Given&) -> std::optional<std::string> {
       const auto flags = parse_notify_flags(v);
       if (!flags) return "made of the letters Ag$lshzxeKEtmdn";
       c.notify_keyspace_events = *flags;
       return std::nullopt;
     }},
    {"tracking-table-max-keys", "N",
     "keys remembered for client-side caching before old ones are invalidated (default "
     "1000000)",
     apply_size<&Config::tracking_table_max_keys>},
}};

const OptionSpec* find_option(std::string_view name) {
  for (const auto& spec : kOptions) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

std::string invalid_value(const std::string& value, std::string_view where,
                          const std::string& reason) {
  return "invalid value '" + value + "' for '" + std::string(where) + "': must be " + reason;
}

std::optional<std::string> read_config_file(const std::string& path, Config& config, Given& given) {
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) {
    return "ruvio: cannot read config file '" + path + "': " + std::strerror(errno);
  }
  std::string text;
  std::array<char, 4096> chunk{};
  std::size_t n = 0;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), file)) > 0) text.append(chunk.data(), n);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return "ruvio: cannot read config file '" + path + "'";

  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    const std::string where =
        "ruvio: config file " + path + " line " + std::to_string(line_no) + ": ";

    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    auto words = split_args(line);
    if (!words) return where + "unbalanced quotes";
    const std::string key = lowercase((*words)[0]);
    if (key == "config") return where + "'config' cannot be set inside a config file";
    if (key == "user") {  // an ACL user: the name, then its rules (Redis's redis.conf line)
      if (words->size() < 2) return where + "'user' needs a user name";
      config.acl_users.emplace_back(words->begin() + 1, words->end());
      continue;
    }
    const OptionSpec* spec = find_option(key);
    if (spec == nullptr) return where + "unknown key '" + (*words)[0] + "'";
    // Redis's multi-argument parameter: its words are one value ("pubsub 32mb 8mb 60").
    if (key == "client-output-buffer-limit" && words->size() > 2) {
      std::string joined;
      for (std::size_t w = 1; w < words->size(); ++w) joined += (w > 1 ? " " : "") + (*words)[w];
      words->resize(2);
      (*words)[1] = std::move(joined);
    }
    if (words->size() != 2) {
      return where + "'" + key + "' takes exactly one value, got " +
             std::to_string(words->size() - 1);
    }
    if (auto reason = spec->apply((*words)[1], config, given)) {
      return where + invalid_value((*words)[1], key, *reason);
    }
  }
  return std::nullopt;
}

// The CPUs this process may run on, in order: the default worker count and pinning follow
// the cpuset (containers, taskset) rather than assuming 0..N-1 are all usable.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long cpu = 0; cpu < std::max(online, 1L); ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

std::optional<std::string> resolve(Config& config, const Given& given) {
  const std::vector<int> usable = allowed_cpus();
  if (given.workers == 0) {
    config.workers = std::min(static_cast<int>(usable.size()), kMaxWorkers);
  } else if (given.workers > kMaxWorkers) {
    return "ruvio: --workers above " + std::to_string(kMaxWorkers) +
           " is not supported (the mesh addresses workers with one byte)";
  } else {
    config.workers = given.workers;
  }
  const int n = config.workers;

  if (given.cpus) {
    if (static_cast<int>(config.cpus.size()) < n) {
      return "ruvio: --cpus lists " + std::to_string(config.cpus.size()) + " core(s) but " +
             std::to_string(n) + " workers need one each";
    }
    config.cpus.resize(static_cast<std::size_t>(n));
  } else {
    config.cpus.clear();
    // More workers than usable cores: share cores round-robin rather than pin to a core
    // the process may not use.
    for (int i = 0; i < n; ++i)
      config.cpus.push_back(usable[static_cast<std::size_t>(i) % usable.size()]);
  }

  const bool ephemeral = config.port == 0;  // derived ports make no sense for port 0
  if (!given.worker_base_port) {
    config.worker_base_port = ephemeral ? 0 : config.port + 1;
    if (config.worker_base_port + n - 1 > 65535) {
      return "ruvio: the direct ports default to --port+1 = " +
             std::to_string(config.worker_base_port) + ".." +
             std::to_string(config.worker_base_port + n - 1) +
             ", beyond 65535; set --worker-base-port (0 = none)";
    }
  } else if (config.worker_base_port != 0 && config.worker_base_port + n - 1 > 65535) {
    return "ruvio: --worker-base-port " + std::to_string(config.worker_base_port) +
           " leaves no room for " + std::to_string(n) + " workers (ports up to 65535)";
  }
  if (!given.admin_port) {
    config.admin_port = ephemeral ? 0 : config.port + 10000;
    if (config.admin_port > 65535) {
      return "ruvio: the admin port defaults to --port+10000 = " +
             std::to_string(config.admin_port) + ", beyond 65535; set --admin-port (0 = none)";
    }
  }

  // SO_REUSEPORT would let two of our own sockets share a port silently; refuse overlaps.
  const int base = config.worker_base_port;
  const auto in_direct = [&](int p) { return base != 0 && p != 0 && p >= base && p < base + n; };
  if (in_direct(config.port)) {
    return "ruvio: --port " + std::to_string(config.port) + " falls inside the direct ports " +
           std::to_string(base) + ".." + std::to_string(base + n - 1) + " (--worker-base-port)";
  }
  if (in_direct(config.admin_port)) {
    return "ruvio: --admin-port " + std::to_string(config.admin_port) +
           " falls inside the direct ports " + std::to_string(base) + ".." +
           std::to_string(base + n - 1) + " (--worker-base-port)";
  }
  if (config.admin_port != 0 && config.admin_port == config.port) {
    return "ruvio: --admin-port and --port are both " + std::to_string(config.port);
  }
  if (!config.cluster_config.empty()) {  // refuse a bad topology file before anything starts
    Topology topology;
    if (auto error = build_topology(config, topology)) return *error;
  }
  return std::nullopt;
}

// cxxopts quotes names with typographic quotes; the contract's messages use plain ones.
std::string plain_quotes(std::string text) {
  for (const char* fancy : {"\u2018", "\u2019"}) {
    for (auto at = text.find(fancy); at != std::string::npos; at = text.find(fancy)) {
      text.replace(at, std::strlen(fancy), "'");
    }
  }
  return text;
}

}  // namespace

std::vector<std::string> option_names() {
  std::vector<std::string> names;
  for (const auto& spec : kOptions) names.emplace_back(spec.name);
  return names;
}

std::optional<std::string> parse_percentiles(const std::string& text, std::vector<double>& out) {
  std::vector<double> list;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == ' ') {
      ++pos;
      continue;
    }
    std::size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    char* stop = nullptr;
    const double d = std::strtod(word.c_str(), &stop);
    if (stop != word.c_str() + word.size() || d != d) {
      return std::string("Invalid latency-tracking-info-percentiles parameters");
    }
    if (d < 0.0 || d > 100.0) {
      return std::string(
          "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
    }
    list.push_back(d);
    pos = end;
  }
  out = std::move(list);
  return std::nullopt;
}

std::string format_percentile(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", p);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string format_percentiles(const std::vector<double>& list) {
  std::string s;
  for (double p : list) {
    if (!s.empty()) s += ' ';
    s += format_percentile(p);
  }
  return s;
}

std::optional<std::int64_t> parse_memory_or_percent(const std::string& text) {
  if (text.ends_with('%')) {
    std::int64_t pct = 0;
    const char* end = text.data() + text.size() - 1;
    const auto [ptr, ec] = std::from_chars(text.data(), end, pct);
    if (text.size() < 2 || ec != std::errc() || ptr != end || pct < 0) return std::nullopt;
    return -pct;
  }
  const auto bytes = parse_memory(text);
  if (!bytes || *bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*bytes);
}

std::optional<std::uint64_t> parse_memory(const std::string& text) {
  // Redis's memtoull units: k/m/g are powers of 1000, kb/mb/gb of 1024, b is bytes.
  const std::string lower = lowercase(text);
  struct Unit {
    const char* suffix;
    std::uint64_t multiplier;
  };
  static constexpr std::array<Unit, 7> kUnits = {{{"kb", 1024ULL},
                                                  {"mb", 1024ULL * 1024},
                                                  {"gb", 1024ULL * 1024 * 1024},
                                                  {"k", 1000ULL},
                                                  {"m", 1000ULL * 1000},
                                                  {"g", 1000ULL * 1000 * 1000},
                                                  {"b", 1ULL}}};
  std::string_view digits = lower;
  std::uint64_t multiplier = 1;
  for (const auto& unit : kUnits) {
    if (digits.ends_with(unit.suffix)) {
      digits.remove_suffix(std::strlen(unit.suffix));
      multiplier = unit.multiplier;
      break;
    }
  }
  std::uint64_t value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  if (value > std::numeric_limits<std::uint64_t>::max() / multiplier) return std::nullopt;
  return value * multiplier;
}

std::optional<std::string> parse_client_output_buffer_limit(std::string_view value,
                                                            ClientBufferLimit* limits) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < value.size();) {
    while (i < value.size() && std::isspace(static_cast<unsigned char>(value[i]))) ++i;
    std::size_t j = i;
    while (j < value.size() && !std::isspace(static_cast<unsigned char>(value[j]))) ++j;
    if (j > i) words.emplace_back(value.substr(i, j - i));
    i = j;
  }
  if (words.size() % 4 != 0) return "Wrong number of arguments in buffer limit configuration.";
  ClientBufferLimit next[kClientClasses];
  std::copy(limits, limits + kClientClasses, next);
  for (std::size_t i = 0; i < words.size(); i += 4) {
    const std::string cls = lowercase(words[i]);
    std::size_t index = 0;
    if (cls == "normal") {
      index = static_cast<std::size_t>(ClientClass::kNormal);
    } else if (cls == "replica" || cls == "slave") {
      index = static_cast<std::size_t>(ClientClass::kReplica);
    } else if (cls == "pubsub") {
      index = static_cast<std::size_t>(ClientClass::kPubsub);
    } else {
      return "Invalid client class specified in buffer limit configuration.";
    }
    const auto hard = parse_memory(words[i + 1]);
    const auto soft = parse_memory(words[i + 2]);
    const auto secs = parse_int(words[i + 3], 0, std::numeric_limits<long long>::max());
    if (!hard || !soft || !secs) {
      return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
    }
    next[index] = {*hard, *soft, static_cast<std::int64_t>(*secs)};
  }
  std::copy(next, next + kClientClasses, limits);
  return std::nullopt;
}

std::string format_client_output_buffer_limit(const ClientBufferLimit* limits) {
  static constexpr const char* kNames[kClientClasses] = {"normal", "slave", "pubsub"};
  std::string out;
  for (std::size_t i = 0; i < kClientClasses; ++i) {
    if (i > 0) out += ' ';
    out += std::string(kNames[i]) + " " + std::to_string(limits[i].hard) + " " +
           std::to_string(limits[i].soft) + " " + std::to_string(limits[i].soft_seconds);
  }
  return out;
}

std::optional<ConfigError> parse_config(int argc, char** argv, Config& out) {
  cxxopts::Options options("ruvio", "Ruvio: a Redis-compatible data store, one worker per core.");
  options.custom_help("[--config FILE] [OPTIONS]");
  options.allow_unrecognised_options();
  auto adder = options.add_options();
  adder("config", "Redis-style config file: 'key value' lines, # comments; flags win",
        cxxopts::value<std::string>(), "FILE");
  for (const auto& spec : kOptions)
    adder(spec.name, spec.help, cxxopts::value<std::string>(), spec.arg);
  adder("h,help", "print this help and exit");
  adder("v,version", "print the version and exit");

  Config config;
  Given given;
  try {
    const auto result = options.parse(argc, argv);
    if (result.count("help") != 0) return ConfigError{options.help(), 0};
    if (result.count("version") != 0) return ConfigError{"ruvio " RUVIO_VERSION "\n", 0};
    if (!result.unmatched().empty()) {
      std::string arg = result.unmatched().front();
      if (arg.size() > 1 && arg[0] == '-') {
        if (const auto eq = arg.find('='); eq != std::string::npos) arg.resize(eq);
        return ConfigError{"ruvio: unknown option '" + arg + "'"};
      }
      return ConfigError{"ruvio: unexpected argument '" + arg + "' (options start with --)"};
    }

    if (result.count("config") != 0) {
      config.config_file = result["config"].as<std::string>();
      if (auto error = read_config_file(config.config_file, config, given)) {
        return ConfigError{*error};
      }
    }
    for (const auto& spec : kOptions) {
      if (result.count(spec.name) == 0) continue;
      const auto value = result[spec.name].as<std::string>();
      if (auto reason = spec.apply(value, config, given)) {
        return ConfigError{"ruvio: " +
                           invalid_value(value, std::string("--") + spec.name, *reason)};
      }
    }
  } catch (const cxxopts::exceptions::missing_argument& e) {
    auto text = plain_quotes(e.what());  // "Option 'port' is missing an argument"
    const auto open = text.find('\'');
    const auto close = text.find('\'', open + 1);
    if (open != std::string::npos && close != std::string::npos) {
      return ConfigError{"ruvio: option '--" + text.substr(open + 1, close - open - 1) +
                         "' needs a value"};
    }
    return ConfigError{"ruvio: " + text};
  } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
    // Only the value-less options can get here: "--help=3".
    return ConfigError{"ruvio: " + plain_quotes(e.what()) +
                       " (--help and --version take no value)"};
  } catch (const std::exception& e) {
    return ConfigError{"ruvio: " + plain_quotes(e.what())};
  }

  if (auto error = resolve(config, given)) return ConfigError{*error};
  out = std::move(config);
  return std::nullopt;
}

}  // namespace ruvio
