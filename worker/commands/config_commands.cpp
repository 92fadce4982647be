// CONFIG GET / SET / RESETSTAT / REWRITE / HELP over the parameters Ruvio has. GET matches
// Redis's glob rules (case-insensitive) and replies a map; SET validates every pair before
// applying any, with Redis 7.0's error texts.
#include <optional>
#include <string>
#include <vector>

#include "shared/config.hpp"
#include "shared/glob.hpp"
#include "shared/notify_flags.hpp"
#include "worker/commands/command_table.hpp"
#include "worker/commands/common.hpp"
#include "worker/commands/server_family.hpp"
#include "worker/commands/subcommand.hpp"
#include "worker/types/set/set.hpp"

namespace ruvio::worker::srvfam {
namespace {

// Values the worker reports and accepts but that no Config field carries yet.
std::uint64_t g_proto_max_bulk_len = 512ull * 1024 * 1024;
std::string g_save;

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

std::optional<std::string> set_policy(Shard& s, std::string_view v, bool apply) {
  static constexpr std::string_view kPolicies[] = {
      "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
      "allkeys-lru",  "allkeys-lfu",  "allkeys-random",  "noeviction"};
  for (std::string_view p : kPolicies) {
    if (iequals(p, v)) {
      if (apply) s.config().maxmemory_policy = std::string(p);
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
  if (apply) s.config().requirepass = std::string(v);
  return std::nullopt;
}

std::optional<std::string> set_proto_max_bulk_len(Shard&, std::string_view v, bool apply) {
  const auto bytes = parse_memory(std::string(v));
  if (!bytes) return std::string("argument must be a memory value");
  if (*bytes < 1024 * 1024 || *bytes > static_cast<std::uint64_t>(INT64_MAX)) {
    return std::string("argument must be between 1048576 and 9223372036854775807 inclusive");
  }
  if (apply) g_proto_max_bulk_len = *bytes;
  return std::nullopt;
}

// Nothing is snapshotted on a schedule; the value is kept so that scripts that switch RDB
// saving off (`CONFIG SET save ""`) keep working.
std::optional<std::string> set_save(Shard&, std::string_view v, bool apply) {
  if (apply) g_save = std::string(v);
  return std::nullopt;
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
    {"maxmemory-samples", [](Shard&) { return fixed("5"); }, nullptr},
    {"maxmemory-clients", [](Shard&) { return fixed("0"); }, nullptr},
    {"requirepass", [](Shard& s) { return s.config().requirepass; }, set_requirepass},
    {"proto-max-bulk-len", [](Shard&) { return std::to_string(g_proto_max_bulk_len); },
     set_proto_max_bulk_len},
    {"save", [](Shard&) { return g_save; }, set_save},
    {"appendonly",
     [](Shard& s) { return fixed(s.config().durability == Durability::kMemory ? "no" : "yes"); },
     nullptr},
    {"appendfsync", appendfsync, nullptr},
    {"timeout", [](Shard&) { return fixed("0"); }, nullptr},
    {"tcp-keepalive", [](Shard&) { return fixed("300"); }, nullptr},
    {"maxclients", [](Shard&) { return fixed("10000"); }, nullptr},
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
    {"lfu-log-factor", [](Shard&) { return fixed("10"); }, nullptr},
    {"lfu-decay-time", [](Shard&) { return fixed("1"); }, nullptr},
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
    {"slowlog-log-slower-than", [](Shard&) { return fixed("10000"); }, nullptr},
    {"slowlog-max-len", [](Shard&) { return fixed("128"); }, nullptr},
    {"io-threads", [](Shard&) { return fixed("1"); }, nullptr},
    {"hll-sparse-max-bytes", get_size<&Config::hll_sparse_max_bytes>,
     set_memory_size<&Config::hll_sparse_max_bytes>},
    {"busy-reply-threshold", get_int<&Config::busy_reply_threshold>,
     set_int<&Config::busy_reply_threshold, 0>},
    {"lua-time-limit", get_int<&Config::busy_reply_threshold>,
     set_int<&Config::busy_reply_threshold, 0>},
    {"tracking-table-max-keys", get_size<&Config::tracking_table_max_keys>,
     set_size<&Config::tracking_table_max_keys>},
};

const Param* find_param(std::string_view name) {
  for (const Param& p : kParams) {
    if (iequals(p.name, name)) return &p;
  }
  return nullptr;
}

std::string config_error(std::string_view name, std::string_view reason) {
  std::string msg = "ERR CONFIG SET failed (possibly related to argument '";
  msg.append(name).append("') - ").append(reason);
  return msg;
}

}  // namespace

void cmd_config(Context& ctx) {
  dispatch_subcommand(ctx, *command_table().find("config"));
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
  ctx.out.map(hits.size());
  for (const Param* p : hits) {
    ctx.out.bulk(p->name);
    ctx.out.bulk(p->get(ctx.shard));
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
    params[(i - 2) / 2]->set(ctx.shard, ctx.args[i + 1], true);
  }
  ctx.out.ok();
}

void config_resetstat(Context& ctx) {
  ctx.shard.stats() = Stats{};
  reset_info_samples();
  ctx.out.ok();
}

void config_rewrite(Context& ctx) {
  if (ctx.shard.config().config_file.empty()) {
    ctx.out.error("ERR The server is running without a config file");
    return;
  }
  // The supervisor owns the config file; a worker must not rewrite it behind its back.
  ctx.out.error("ERR Rewriting config file: CONFIG REWRITE is not supported by Ruvio");
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
