// CONFIG GET / SET / RESETSTAT / REWRITE / HELP over the parameter table
// (shared/config_table.hpp). GET matches Redis's glob rules (case-insensitive) and replies a
// map; SET validates every pair on a copy of the configuration before applying any, with
// Redis 7.0's error texts, then runs what each changed parameter's row asks of the worker.
#include <algorithm>
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

// What a changed parameter asks of the worker; the reason when it cannot (the descriptor limit
// may refuse maxclients, as Redis's setrlimit does).
std::optional<std::string> run_effect(Shard& s, ParamEffect effect) {
  const Config& c = s.config();
  switch (effect) {
    case ParamEffect::kMaxclients:
      return s.host().raise_maxclients(static_cast<std::uint64_t>(c.maxclients));
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
    case ParamEffect::kHz:
      s.host().apply_hz();
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

// Redis 7.0's configGetCommand: a name without glob characters is looked up (any case, hidden
// parameters too) and answered under the name as given; a pattern matches every name and alias
// but the hidden ones. Each name once (compared in any case), in the table's order per pattern.
void config_get(Context& ctx) {
  std::vector<std::pair<const Param*, std::string_view>> hits;
  const auto seen = [&](std::string_view name) {
    for (const auto& h : hits) {
      if (ascii_lower(h.second) == ascii_lower(name)) return true;
    }
    return false;
  };
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const std::string_view pattern = ctx.args[i];
    if (pattern.find_first_of("[*?") == std::string_view::npos) {
      const Param* p = find_param(pattern, kConfig);
      if (p != nullptr && !seen(pattern)) hits.emplace_back(p, pattern);
      continue;
    }
    for (const Param& p : config_params()) {
      if ((p.where & kConfig) == 0 || p.hidden) continue;
      for (const std::string_view name : {p.name, p.alias}) {
        if (name.empty() || !glob_match(pattern, name, true) || seen(name)) continue;
        hits.emplace_back(&p, name);
      }
    }
  }
  ctx.out.map(hits.size());
  for (const auto& [p, name] : hits) {
    ctx.out.bulk(name);
    ctx.out.bulk(param_get(*p, ctx.shard.config()));
  }
}

// Redis 7.0's configSetCommand in its three passes, so that the same call fails on the same
// argument with the same words: the names first (the first unknown, immutable or repeated one
// decides), then every value on a copy (the error names the parameter as declared), then the
// effects, each once; an effect that fails restores every old value and re-runs the effects
// already run, as Redis's restoreBackupConfig does.
void config_set(Context& ctx) {
  if (ctx.argc() % 2 != 0) {
    ctx.out.error(err::kSyntax);
    return;
  }
  // A name and its alias are two parameters here, as in Redis 7.0 (both may be set at once).
  std::vector<const Param*> params;
  std::vector<std::string_view> names;  // as declared: the row's name or its alias
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const std::string_view arg = ctx.args[i];
    const Param* p = find_param(arg, kConfig);
    if (p == nullptr) {
      std::string msg = "ERR Unknown option or number of arguments for CONFIG SET - '";
      msg.append(arg).append("'");
      ctx.out.error(msg);
      return;
    }
    const bool same =
        p->pinned && ascii_lower(ctx.args[i + 1]) == ascii_lower(param_get(*p, ctx.shard.config()));
    if (!p->settable && !same) {
      ctx.out.error(config_error(
          arg, p->protect ? "can't set protected config" : "can't set immutable config"));
      return;
    }
    const std::string_view name =
        !p->alias.empty() && ascii_lower(arg) == p->alias ? p->alias : p->name;
    for (const std::string_view n : names) {
      if (n.data() == name.data()) {
        ctx.out.error(config_error(arg, "duplicate parameter"));
        return;
      }
    }
    params.push_back(p);
    names.push_back(name);
  }
  Config next = ctx.shard.config();
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i]->settable) continue;  // pinned to the value it was given
    if (auto why = param_set(*params[i], ctx.args[3 + 2 * i], next)) {
      ctx.out.error(config_error(names[i], *why));
      return;
    }
  }
  Config& live = ctx.shard.config();
  std::swap(live, next);  // `next` holds the old values now
  std::vector<ParamEffect> done;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const ParamEffect effect = params[i]->effect;
    if (effect == ParamEffect::kNone || std::find(done.begin(), done.end(), effect) != done.end()) {
      continue;
    }
    if (auto why = run_effect(ctx.shard, effect)) {
      std::swap(live, next);
      for (const ParamEffect undo : done) run_effect(ctx.shard, undo);
      ctx.out.error(config_error(names[i], *why));
      return;
    }
    done.push_back(effect);
  }
  for (const Param* p : params) {
    if (!p->settable) continue;
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
