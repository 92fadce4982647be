// CONFIG GET / SET / RESETSTAT / REWRITE / HELP over the parameters Ruvio has. GET matches
// Redis's glob rules (case-insensitive) and replies a map; SET validates every pair before
// applying any, with Redis 7.0's error texts.
#include <optional>
#include <string>
#include <vector>

#include "shared/config.hpp"
#include "shared/glob.hpp"
#include "shared/notify_flags.hpp"
#include "worker/commands/server/config_defaults.hpp"
#include "worker/commands/server/server_family.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/subcommand.hpp"
#include "worker/types/set/set.hpp"

namespace ruvio::worker::srvfam {
namespace {

// Values the worker reports and accepts but that no Config field carries yet.
std::string g_save;
// Parameters CONFIG SET changed since start (canonical names, first change first).
std::vector<std::string> g_changed;

using Getter = std::string (*)(Shard&);
// Returns an error reason ("argument must be a memory value") or nullopt; applies only when
// `apply` is set, so a multi-pair SET is all-or-nothing.
using Setter = std::optional<std::string> (*)(Shard&, std::string_view, bool apply);

struct Param {
  std::string_view name;
  Getter get;
  Setter set;  // nullptr: immutable
};

std::string fixed(std::string_view v) {
  return std::string(v);
}

std::optional<std::string> set_maxmemory(Shard& s, std::string_view v, bool apply) {
  const auto bytes = parse_memory(std::string(v));
  if (!bytes) return std::string("argument must be a memory value");
  if (apply) s.config().maxmemory = *bytes;
  return std::nullopt;
}

// maxmemory-clients: "N%" of maxmemory (kept as -N) or bytes; CONFIG GET answers as Redis.
std::string get_maxmemory_clients(Shard& s) {
  const std::int64_t v = s.config().maxmemory_clients;
  return v < 0 ? std::to_string(-v) + "%" : std::to_string(v);
}

std::optional<std::string> set_maxmemory_clients(Shard& s, std::string_view v, bool apply) {
  const auto m = parse_memory_or_percent(std::string(v));
  if (!m) return std::string("argument must be a memory or percent value");
  if (*m < -100) return std::string("percentage argument must be less or equal to 100");
  if (apply) s.config().maxmemory_clients = *m;
  return std::nullopt;
}

std::optional<std::string> set_policy(Shard& s, std::string_view v, bool apply) {
  static constexpr std::string_view kPolicies[] = {
      "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
      "allkeys-lru",  "allkeys-lfu",  "allkeys-random",  "noeviction"};
  for (std::string_view p : kPolicies) {
    if (iequals(p, v)) {
      if (apply) {
        s.config().maxmemory_policy = std::string(p);
        s.apply_maxmemory_policy();
      }
      return std::nullopt;
    }
  }
  return std::string(
      "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, "
      "volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction");
}

// A size_t config (zset-max-listpack-*): 0..LLONG_MAX, as Redis's numeric configs.
template <std::size_t Config::*F>
std::string get_size(Shard& s) {
  return std::to_string(s.config().*F);
}
template <std::size_t Config::*F>
std::optional<std::string> set_size(Shard& s, std::string_view v, bool apply) {
  auto n = parse_int64(v);
  if (!n) return std::string("argument couldn't be parsed into an integer");
  if (*n < 0) return std::string("argument must be between 0 and 9223372036854775807 inclusive");
  if (apply) s.config().*F = static_cast<std::size_t>(*n);
  return std::nullopt;
}

std::optional<std::string> set_notify_keyspace_events(Shard& s, std::string_view v, bool apply) {
  const auto flags = parse_notify_flags(v);
  if (!flags) return std::string("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
  if (apply) {
    s.config().notify_keyspace_events = *flags;
    s.apply_notify();
  }
  return std::nullopt;
}

std::optional<std::string> set_requirepass(Shard& s, std::string_view v, bool apply) {
  if (apply) {
    s.config().requirepass = std::string(v);
    s.acl().set_default_password(v);
    s.note_acl_change();
  }
  return std::nullopt;
}

// proto-max-bulk-len, client-query-buffer-limit: memory values of at least 1mb.
template <std::uint64_t Config::*F>
std::optional<std::string> set_buffer_bytes(Shard& s, std::string_view v, bool apply) {
  const auto bytes = parse_memory(std::string(v));
  if (!bytes) return std::string("argument must be a memory value");
  if (*bytes < 1024 * 1024 || *bytes > static_cast<std::uint64_t>(INT64_MAX)) {
    return std::string("argument must be between 1048576 and 9223372036854775807 inclusive");
  }
  if (apply) s.config().*F = *bytes;
  return std::nullopt;
}
template <std::uint64_t Config::*F>
std::string get_u64(Shard& s) {
  return std::to_string(s.config().*F);
}

std::optional<std::string> set_obuf_limit(Shard& s, std::string_view v, bool apply) {
  ClientBufferLimit limits[kClientClasses];
  std::copy(std::begin(s.config().obuf_limits), std::end(s.config().obuf_limits), limits);
  if (auto why = parse_client_output_buffer_limit(v, limits)) return why;
  if (apply) std::copy(std::begin(limits), std::end(limits), s.config().obuf_limits);
  return std::nullopt;
}

// maxclients (createUIntConfig 1..UINT_MAX): this worker's share can only rise as far as its
// descriptor limit allows (Server::apply_maxclients, through Shard::raise_maxclients).
std::optional<std::string> set_maxclients(Shard& s, std::string_view v, bool apply) {
  const auto n = parse_int64(v);
  if (!n) return std::string("argument couldn't be parsed into an integer");
  if (*n < 1 || *n > UINT32_MAX) {
    return std::string("argument must be between 1 and 4294967295 inclusive");
  }
  if (s.raise_maxclients) {
    if (auto why = s.raise_maxclients(static_cast<std::uint64_t>(*n), apply)) return why;
  }
  if (apply) s.config().maxclients = static_cast<int>(std::min<std::int64_t>(*n, INT32_MAX));
  return std::nullopt;
}

// Nothing is snapshotted on a schedule; the value is kept so that scripts that switch RDB
// saving off (`CONFIG SET save ""`) keep working.
std::optional<std::string> set_save(Shard&, std::string_view v, bool apply) {
  if (apply) g_save = std::string(v);
  return std::nullopt;
}

// sanitize-dump-payload: an enum config (RESTORE checks deeply whatever it says).
std::optional<std::string> set_sanitize(Shard& s, std::string_view v, bool apply) {
  for (std::string_view m : {"no", "yes", "clients"}) {
    if (iequals(m, v)) {
      if (apply) s.config().sanitize_dump_payload = std::string(m);
      return std::nullopt;
    }
  }
  return std::string("argument(s) must be one of the following: no, yes, clients");
}

// Redis's bool configs: yes/no, any case.
template <bool Config::*F>
std::string get_yes_no(Shard& s) {
  return s.config().*F ? "yes" : "no";
}
template <bool Config::*F>
std::optional<std::string> set_lazyfree(Shard& s, std::string_view v, bool apply) {
  const bool yes = iequals(v, "yes");
  if (!yes && !iequals(v, "no")) return std::string("argument must be 'yes' or 'no'");
  if (apply) {
    s.config().*F = yes;
    s.apply_lazyfree();
  }
  return std::nullopt;
}

std::optional<std::string> set_protected_mode(Shard& s, std::string_view v, bool apply) {
  const bool yes = iequals(v, "yes");
  if (!yes && !iequals(v, "no")) return std::string("argument must be 'yes' or 'no'");
  if (apply) s.config().protected_mode = yes;
  return std::nullopt;
}

std::optional<std::string> set_acllog_max_len(Shard& s, std::string_view v, bool apply) {
  const auto n = parse_int64(v);
  if (!n || *n < 0)
    return std::string("argument must be between 0 and 9223372036854775807 inclusive");
  if (apply) s.acl().log_max_len = static_cast<std::size_t>(*n);
  return std::nullopt;
}

// Redis's size_t configs (createSizeTConfig, 0..LONG_MAX) held by a value type's limits.
template <std::size_t types::SetLimits::*F>
std::string get_set_limit(Shard&) {
  return std::to_string(types::set_limits().*F);
}
template <std::size_t types::SetLimits::*F>
std::optional<std::string> set_set_limit(Shard&, std::string_view v, bool apply) {
  const auto n = parse_int64(v);
  if (!n) return std::string("argument couldn't be parsed into an integer");
  if (*n < 0) return std::string("argument must be between 0 and 9223372036854775807 inclusive");
  if (apply) types::set_limits().*F = static_cast<std::size_t>(*n);
  return std::nullopt;
}

// createSizeTConfig(…, MEMORY_CONFIG): a size with optional units (hash-max-listpack-value).
template <std::size_t Config::*F>
std::optional<std::string> set_memory_size(Shard& s, std::string_view v, bool apply) {
  const auto bytes = parse_memory(std::string(v));
  if (!bytes || *bytes > static_cast<std::uint64_t>(INT64_MAX)) {
    return std::string("argument must be a memory value");
  }
  if (apply) s.config().*F = static_cast<std::size_t>(*bytes);
  return std::nullopt;
}

// Redis's int configs: a canonical integer within [min, max].
template <int Config::*F, long long Min>
std::optional<std::string> set_int(Shard& s, std::string_view v, bool apply) {
  const auto n = parse_int64(v);
  if (!n) return std::string("argument couldn't be parsed into an integer");
  if (*n < Min || *n > INT32_MAX) {
    return "argument must be between " + std::to_string(Min) + " and 2147483647 inclusive";
  }
  if (apply) s.config().*F = static_cast<int>(*n);
  return std::nullopt;
}
template <int Config::*F>
std::string get_int(Shard& s) {
  return std::to_string(s.config().*F);
}

// slowlog-log-slower-than: createLongLongConfig(-1 .. LLONG_MAX).
std::optional<std::string> set_slowlog_slower_than(Shard& s, std::string_view v, bool apply) {
  const auto n = parse_int64(v);
  if (!n) return std::string("argument couldn't be parsed into an integer");
  if (*n < -1) return std::string("argument must be between -1 and 9223372036854775807 inclusive");
  if (apply) s.config().slowlog_log_slower_than = *n;
  return std::nullopt;
}

// slowlog-max-len: createULongConfig(0 .. LONG_MAX); a shorter log drops its oldest entries.
std::optional<std::string> set_slowlog_max_len(Shard& s, std::string_view v, bool apply) {
  const auto n = parse_int64(v);
  if (!n) return std::string("argument couldn't be parsed into an integer");
  if (*n < 0) return std::string("argument must be between 0 and 9223372036854775807 inclusive");
  if (apply) {
    s.config().slowlog_max_len = static_cast<std::uint64_t>(*n);
    if (s.executor != nullptr) s.executor->slowlog().trim(s.config().slowlog_max_len);
  }
  return std::nullopt;
}

// latency-monitor-threshold: createLongLongConfig(0 .. LLONG_MAX), milliseconds.
std::optional<std::string> set_latency_threshold(Shard& s, std::string_view v, bool apply) {
  const auto n = parse_int64(v);
  if (!n) return std::string("argument couldn't be parsed into an integer");
  if (*n < 0) return std::string("argument must be between 0 and 9223372036854775807 inclusive");
  if (apply) s.config().latency_monitor_threshold = *n;
  return std::nullopt;
}

template <bool Config::*F>
std::optional<std::string> set_yes_no(Shard& s, std::string_view v, bool apply) {
  const bool yes = iequals(v, "yes");
  if (!yes && !iequals(v, "no")) return std::string("argument must be 'yes' or 'no'");
  if (apply) s.config().*F = yes;
  return std::nullopt;
}

std::optional<std::string> set_percentiles(Shard& s, std::string_view v, bool apply) {
  std::vector<double> list;
  if (auto why = parse_percentiles(std::string(v), list)) return why;
  if (apply) s.config().latency_tracking_percentiles = std::move(list);
  return std::nullopt;
}

std::optional<std::string> set_lfu_log_factor(Shard& s, std::string_view v, bool apply) {
  auto why = set_int<&Config::lfu_log_factor, 0>(s, v, apply);
  if (!why && apply) s.apply_maxmemory_policy();
  return why;
}

std::optional<std::string> set_tenacity(Shard& s, std::string_view v, bool apply) {
  const auto n = parse_int64(v);
  if (!n) return std::string("argument couldn't be parsed into an integer");
  if (*n < 0 || *n > 100) return std::string("argument must be between 0 and 100 inclusive");
  if (apply) s.config().maxmemory_eviction_tenacity = static_cast<int>(*n);
  return std::nullopt;
}

std::string appendfsync(Shard& s) {
  switch (s.config().durability) {
    case Durability::kAlways:
      return "always";
    case Durability::kEverysec:
      return "everysec";
    case Durability::kMemory:
      break;
  }
  return "no";
}

const Param kParams[] = {
    {"bind", [](Shard& s) { return s.config().bind; }, nullptr},
    {"port", [](Shard& s) { return std::to_string(s.config().port); }, nullptr},
    {"databases", [](Shard& s) { return std::to_string(s.databases()); }, nullptr},
    {"dir", [](Shard& s) { return s.config().dir; }, nullptr},
    {"maxmemory", [](Shard& s) { return std::to_string(s.config().maxmemory); }, set_maxmemory},
    {"maxmemory-policy", [](Shard& s) { return s.config().maxmemory_policy; }, set_policy},
    {"maxmemory-samples", get_int<&Config::maxmemory_samples>,
     set_int<&Config::maxmemory_samples, 1>},
    {"maxmemory-clients", get_maxmemory_clients, set_maxmemory_clients},
    {"requirepass", [](Shard& s) { return s.config().requirepass; }, set_requirepass},
    {"proto-max-bulk-len", get_u64<&Config::proto_max_bulk_len>,
     set_buffer_bytes<&Config::proto_max_bulk_len>},
    {"save", [](Shard&) { return g_save; }, set_save},
    {"appendonly",
     [](Shard& s) { return fixed(s.config().durability == Durability::kMemory ? "no" : "yes"); },
     nullptr},
    {"appendfsync", appendfsync, nullptr},
    {"timeout", get_int<&Config::timeout>, set_int<&Config::timeout, 0>},
    {"tcp-keepalive", get_int<&Config::tcp_keepalive>, set_int<&Config::tcp_keepalive, 0>},
    {"maxclients", get_int<&Config::maxclients>, set_maxclients},
    {"hz", [](Shard&) { return fixed("10"); }, nullptr},
    {"loglevel", [](Shard& s) { return s.config().log_level; }, nullptr},
    {"daemonize", [](Shard&) { return fixed("no"); }, nullptr},
    {"cluster-enabled", [](Shard&) { return fixed("no"); }, nullptr},
    {"notify-keyspace-events",
     [](Shard& s) { return format_notify_flags(s.config().notify_keyspace_events); },
     set_notify_keyspace_events},
    {"lazyfree-lazy-eviction", get_yes_no<&Config::lazyfree_lazy_eviction>,
     set_lazyfree<&Config::lazyfree_lazy_eviction>},
    {"lazyfree-lazy-expire", get_yes_no<&Config::lazyfree_lazy_expire>,
     set_lazyfree<&Config::lazyfree_lazy_expire>},
    {"lazyfree-lazy-server-del", get_yes_no<&Config::lazyfree_lazy_server_del>,
     set_lazyfree<&Config::lazyfree_lazy_server_del>},
    {"lazyfree-lazy-user-del", get_yes_no<&Config::lazyfree_lazy_user_del>,
     set_lazyfree<&Config::lazyfree_lazy_user_del>},
    {"lazyfree-lazy-user-flush", get_yes_no<&Config::lazyfree_lazy_user_flush>,
     set_lazyfree<&Config::lazyfree_lazy_user_flush>},
    {"lfu-log-factor", get_int<&Config::lfu_log_factor>, set_lfu_log_factor},
    {"lfu-decay-time", get_int<&Config::lfu_decay_time>, set_int<&Config::lfu_decay_time, 0>},
    {"maxmemory-eviction-tenacity", get_int<&Config::maxmemory_eviction_tenacity>, set_tenacity},
    {"hash-max-listpack-entries", get_size<&Config::hash_max_listpack_entries>,
     set_size<&Config::hash_max_listpack_entries>},
    {"hash-max-ziplist-entries", get_size<&Config::hash_max_listpack_entries>,
     set_size<&Config::hash_max_listpack_entries>},
    {"hash-max-listpack-value", get_size<&Config::hash_max_listpack_value>,
     set_memory_size<&Config::hash_max_listpack_value>},
    {"hash-max-ziplist-value", get_size<&Config::hash_max_listpack_value>,
     set_memory_size<&Config::hash_max_listpack_value>},
    {"list-max-listpack-size", get_int<&Config::list_max_listpack_size>,
     set_int<&Config::list_max_listpack_size, INT32_MIN>},
    {"list-max-ziplist-size", get_int<&Config::list_max_listpack_size>,
     set_int<&Config::list_max_listpack_size, INT32_MIN>},
    {"list-compress-depth", get_int<&Config::list_compress_depth>,
     set_int<&Config::list_compress_depth, 0>},
    {"set-max-intset-entries", get_set_limit<&types::SetLimits::max_intset_entries>,
     set_set_limit<&types::SetLimits::max_intset_entries>},
    {"set-max-listpack-entries", get_set_limit<&types::SetLimits::max_listpack_entries>,
     set_set_limit<&types::SetLimits::max_listpack_entries>},
    {"set-max-listpack-value", get_set_limit<&types::SetLimits::max_listpack_value>,
     set_set_limit<&types::SetLimits::max_listpack_value>},
    {"zset-max-listpack-entries", get_size<&Config::zset_max_listpack_entries>,
     set_size<&Config::zset_max_listpack_entries>},
    {"zset-max-listpack-value", get_size<&Config::zset_max_listpack_value>,
     set_size<&Config::zset_max_listpack_value>},
    {"zset-max-ziplist-entries", get_size<&Config::zset_max_listpack_entries>,
     set_size<&Config::zset_max_listpack_entries>},
    {"zset-max-ziplist-value", get_size<&Config::zset_max_listpack_value>,
     set_size<&Config::zset_max_listpack_value>},
    {"stream-node-max-bytes", get_size<&Config::stream_node_max_bytes>,
     set_memory_size<&Config::stream_node_max_bytes>},
    {"stream-node-max-entries", get_size<&Config::stream_node_max_entries>,
     set_size<&Config::stream_node_max_entries>},
    {"slowlog-log-slower-than",
     [](Shard& s) { return std::to_string(s.config().slowlog_log_slower_than); },
     set_slowlog_slower_than},
    {"slowlog-max-len", [](Shard& s) { return std::to_string(s.config().slowlog_max_len); },
     set_slowlog_max_len},
    {"latency-monitor-threshold",
     [](Shard& s) { return std::to_string(s.config().latency_monitor_threshold); },
     set_latency_threshold},
    {"latency-tracking", get_yes_no<&Config::latency_tracking>,
     set_yes_no<&Config::latency_tracking>},
    {"latency-tracking-info-percentiles",
     [](Shard& s) { return format_percentiles(s.config().latency_tracking_percentiles); },
     set_percentiles},
    {"io-threads", [](Shard&) { return fixed("1"); }, nullptr},
    {"hll-sparse-max-bytes", get_size<&Config::hll_sparse_max_bytes>,
     set_memory_size<&Config::hll_sparse_max_bytes>},
    {"busy-reply-threshold", get_int<&Config::busy_reply_threshold>,
     set_int<&Config::busy_reply_threshold, 0>},
    {"lua-time-limit", get_int<&Config::busy_reply_threshold>,
     set_int<&Config::busy_reply_threshold, 0>},
    {"client-output-buffer-limit",
     [](Shard& s) { return format_client_output_buffer_limit(s.config().obuf_limits); },
     set_obuf_limit},
    {"client-query-buffer-limit", get_u64<&Config::client_query_buffer_limit>,
     set_buffer_bytes<&Config::client_query_buffer_limit>},
    {"protected-mode", get_yes_no<&Config::protected_mode>, set_protected_mode},
    {"aclfile", [](Shard& s) { return s.config().aclfile; }, nullptr},
    {"acllog-max-len", [](Shard& s) { return std::to_string(s.acl().log_max_len); },
     set_acllog_max_len},
    {"enable-debug-command", [](Shard& s) { return s.config().enable_debug_command; }, nullptr},
    {"sanitize-dump-payload", [](Shard& s) { return s.config().sanitize_dump_payload; },
     set_sanitize},
    {"tracking-table-max-keys", get_size<&Config::tracking_table_max_keys>,
     set_size<&Config::tracking_table_max_keys>},
};

const Param* find_param(std::string_view name) {
  for (const Param& p : kParams) {
    if (iequals(p.name, name)) return &p;
  }
  return nullptr;
}

bool is_redis_default(std::string_view name) {
  for (const ConfigDefault& d : redis_config_defaults()) {
    if (iequals(d.name, name)) return true;
  }
  return false;
}

std::string config_error(std::string_view name, std::string_view reason) {
  std::string msg = "ERR CONFIG SET failed (possibly related to argument '";
  msg.append(name).append("') - ").append(reason);
  return msg;
}

}  // namespace

void cmd_config(Context& ctx) {
  dispatch_subcommand(ctx, *ctx.command);
}

void config_get(Context& ctx) {
  std::vector<const Param*> hits;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    for (const Param& p : kParams) {
      if (!glob_match(ctx.args[i], p.name, true)) continue;
      bool seen = false;
      for (const Param* h : hits) seen = seen || h == &p;
      if (!seen) hits.push_back(&p);
    }
  }
  // Redis's parameters that are not Ruvio's answer their Redis default.
  std::vector<const ConfigDefault*> defaults;
  for (const ConfigDefault& d : redis_config_defaults()) {
    if (find_param(d.name) != nullptr) continue;
    for (std::size_t i = 2; i < ctx.argc(); ++i) {
      if (glob_match(ctx.args[i], d.name, true)) {
        defaults.push_back(&d);
        break;
      }
    }
  }
  ctx.out.map(hits.size() + defaults.size());
  for (const Param* p : hits) {
    ctx.out.bulk(p->name);
    ctx.out.bulk(p->get(ctx.shard));
  }
  for (const ConfigDefault* d : defaults) {
    ctx.out.bulk(d->name);
    ctx.out.bulk(d->value);
  }
}

void config_set(Context& ctx) {
  if (ctx.argc() % 2 != 0) {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::vector<const Param*> params;
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const Param* p = find_param(ctx.args[i]);
    if (p == nullptr && is_redis_default(ctx.args[i])) {
      ctx.out.error(config_error(ctx.args[i], "can't set immutable config"));
      return;
    }
    if (p == nullptr) {
      std::string msg = "ERR Unknown option or number of arguments for CONFIG SET - '";
      msg.append(ctx.args[i]).append("'");
      ctx.out.error(msg);
      return;
    }
    for (const Param* q : params) {
      if (q == p) {
        ctx.out.error(config_error(ctx.args[i], "duplicate parameter"));
        return;
      }
    }
    if (p->set == nullptr) {
      ctx.out.error(config_error(ctx.args[i], "can't set immutable config"));
      return;
    }
    if (auto why = p->set(ctx.shard, ctx.args[i + 1], false)) {
      ctx.out.error(config_error(ctx.args[i], *why));
      return;
    }
    params.push_back(p);
  }
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const Param* p = params[(i - 2) / 2];
    p->set(ctx.shard, ctx.args[i + 1], true);
    // CONFIG REWRITE appends what was set at run time and is not in the file yet.
    bool known = false;
    for (const std::string& n : g_changed) known = known || n == p->name;
    if (!known) g_changed.emplace_back(p->name);
  }
  ctx.out.ok();
}

std::optional<std::string> settable_value(Shard& shard, std::string_view name) {
  const Param* p = find_param(name);
  if (p == nullptr || p->set == nullptr) return std::nullopt;
  return p->get(shard);
}

const std::vector<std::string>& changed_params() {
  return g_changed;
}

void config_resetstat(Context& ctx) {
  ctx.shard.stats() = Stats{};
  reset_info_samples();
  // Redis's resetCommandTableStats + resetErrorTableStats; the slow log and the latency
  // monitor's events stay (SLOWLOG RESET, LATENCY RESET).
  if (ctx.shard.executor != nullptr) ctx.shard.executor->command_stats().reset();
  ctx.out.ok();
}

void config_help(Context& ctx) {
  reply_help(
      ctx, "CONFIG",
      {"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
       "SET <directive> <value>", "    Set the configuration <directive> to <value>.", "RESETSTAT",
       "    Reset statistics reported by the INFO command.", "REWRITE",
       "    Rewrite the configuration file."});
}

}  // namespace ruvio::worker::srvfam
