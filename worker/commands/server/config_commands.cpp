// CONFIG GET / SET / RESETSTAT / REWRITE / HELP over the parameter table
// (shared/config_table.hpp). GET matches Redis's glob rules (case-insensitive) and replies a
// map; SET validates every pair on a copy of the configuration before applying any, with
// Redis 7.0's error texts, then runs what each changed parameter's row asks of the worker.
#include <optional>
#include <string>
#include <vector>

#include "shared/config.hpp"
#include "shared/config_table.hpp"
#include "shared/glob.hpp"
#include "worker/commands/server/server_family.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/subcommand.hpp"

namespace ruvio::worker::srvfam {
namespace {

// What a changed parameter asks of the worker. With apply false only whether it may: the
// descriptor limit may refuse maxclients, as Redis's setrlimit does.
std::optional<std::string> run_effect(Shard& s, ParamEffect effect, bool apply) {
  const Config& c = s.config();
  switch (effect) {
    case ParamEffect::kMaxclients:
      return s.host().raise_maxclients(static_cast<std::uint64_t>(c.maxclients), apply);
    case ParamEffect::kNone:
      return std::nullopt;
    default:
      break;
  }
  if (!apply) return std::nullopt;
  switch (effect) {
    case ParamEffect::kLazyfree:
      s.apply_lazyfree();
      break;
    case ParamEffect::kEviction:
      s.apply_maxmemory_policy();
      break;
    case ParamEffect::kNotify:
      s.apply_notify();
      break;
    case ParamEffect::kPassword:
      s.acl().set_default_password(c.requirepass);
      s.note_acl_change();
      break;
    case ParamEffect::kSlowlogLen:
      if (s.executor != nullptr) s.executor->slowlog().trim(c.slowlog_max_len);
      break;
    case ParamEffect::kAcllogLen:
      s.acl().log_max_len = static_cast<std::size_t>(c.acllog_max_len);
      break;
    default:
      break;
  }
  return std::nullopt;
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
  // Each name once (a row's name and its alias are two names), in the table's order per pattern.
  std::vector<std::pair<const Param*, std::string_view>> hits;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    for (const Param& p : config_params()) {
      if ((p.where & kConfig) == 0) continue;
      for (const std::string_view name : {p.name, p.alias}) {
        if (name.empty() || !glob_match(ctx.args[i], name, true)) continue;
        bool seen = false;
        for (const auto& h : hits) seen = seen || h.second.data() == name.data();
        if (!seen) hits.emplace_back(&p, name);
      }
    }
  }
  ctx.out.map(hits.size());
  for (const auto& [p, name] : hits) {
    ctx.out.bulk(name);
    ctx.out.bulk(param_get(*p, ctx.shard.config()));
  }
}

void config_set(Context& ctx) {
  if (ctx.argc() % 2 != 0) {
    ctx.out.error(err::kSyntax);
    return;
  }
  // A name and its alias are two parameters here, as in Redis 7.0 (both may be set at once).
  std::vector<const Param*> params;
  std::vector<std::string> names;
  Config next = ctx.shard.config();
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const std::string_view arg = ctx.args[i];
    const Param* p = find_param(arg, kConfig);
    if (p == nullptr) {
      std::string msg = "ERR Unknown option or number of arguments for CONFIG SET - '";
      msg.append(arg).append("'");
      ctx.out.error(msg);
      return;
    }
    const std::string name = ascii_lower(arg);
    for (const std::string& n : names) {
      if (n == name) {
        ctx.out.error(config_error(arg, "duplicate parameter"));
        return;
      }
    }
    if (!p->settable) {
      ctx.out.error(config_error(arg, "can't set immutable config"));
      return;
    }
    if (auto why = param_set(*p, ctx.args[i + 1], next)) {
      ctx.out.error(config_error(arg, *why));
      return;
    }
    params.push_back(p);
    names.push_back(name);
  }
  Config& live = ctx.shard.config();
  std::swap(live, next);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (auto why = run_effect(ctx.shard, params[i]->effect, false)) {
      std::swap(live, next);  // nothing was applied yet
      ctx.out.error(config_error(ctx.args[2 + 2 * i], *why));
      return;
    }
  }
  for (const Param* p : params) {
    run_effect(ctx.shard, p->effect, true);
    // CONFIG REWRITE appends what was set at run time and is not in the file yet.
    bool known = false;
    for (std::string_view n : ctx.shard.config_changed) known = known || n == p->name;
    if (!known) ctx.shard.config_changed.push_back(p->name);
  }
  ctx.out.ok();
}

std::optional<std::string> settable_value(Shard& shard, std::string_view name) {
  const Param* p = find_param(name, kConfig);
  if (p == nullptr || !p->settable) return std::nullopt;
  return param_get(*p, shard.config());
}

void config_resetstat(Context& ctx) {
  ctx.shard.stats() = Stats{};  // the memory peak and the sampled rates with the counters
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
