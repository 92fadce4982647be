// Scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (worker/script/ runs them).
//
// On the proxy port EVAL runs where its declared keys live (the key spec's keynum, as any
// keyed command) or, without keys, on the connection's worker. SCRIPT LOAD / FLUSH reach
// every worker (Redis's request_policy:all_nodes tip), so every worker's cache holds the same
// scripts and EVALSHA works wherever its keys take it.
#include "worker/commands/scripting/script_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/subcommand.hpp"
#include "worker/script/lua_engine.hpp"

namespace ruvio::worker {
namespace {

script::Engine& engine(Context& ctx) {
  return script::engine(*ctx.shard.executor);
}

void cmd_eval(Context& ctx) {
  ctx.shard.monitors.feed_script(ctx.client, ctx.args);
  engine(ctx).eval(ctx, false, false);
}
void cmd_evalsha(Context& ctx) {
  ctx.shard.monitors.feed_script(ctx.client, ctx.args);
  engine(ctx).eval(ctx, true, false);
}
void cmd_eval_ro(Context& ctx) {
  ctx.shard.monitors.feed_script(ctx.client, ctx.args);
  engine(ctx).eval(ctx, false, true);
}
void cmd_evalsha_ro(Context& ctx) {
  ctx.shard.monitors.feed_script(ctx.client, ctx.args);
  engine(ctx).eval(ctx, true, true);
}

void script_load(Context& ctx) {
  engine(ctx).load(ctx.args[2], ctx.out);
}

void script_exists(Context& ctx) {
  ctx.out.array(ctx.argc() - 2);
  const script::Engine* e = script::started_engine(*ctx.shard.executor);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    // Redis's script dict compares SHAs without regard to case.
    std::string_view sha = ctx.args[i];
    char lower[40];
    bool found = false;
    if (e != nullptr && sha.size() == 40) {
      for (std::size_t j = 0; j < 40; ++j) {
        const char c = sha[j];
        lower[j] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
      }
      found = e->exists({lower, 40});
    }
    ctx.out.integer(found ? 1 : 0);
  }
}

void script_flush(Context& ctx) {
  if (ctx.argc() == 3 && !iequals(ctx.args[2], "sync") && !iequals(ctx.args[2], "async")) {
    ctx.out.error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  if (ctx.argc() > 3) {
    ctx.out.error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  // ASYNC frees the same way: the interpreter is small and closing it is quick.
  if (script::started_engine(*ctx.shard.executor) != nullptr)
    script::engine(*ctx.shard.executor).flush();
  ctx.out.ok();
}

// Reaches a worker while its script is past busy-reply-threshold (the engine's hook lets
// other clients in then), or any other time, to answer NOTBUSY.
void script_kill(Context& ctx) {
  script::Engine* e = script::started_engine(*ctx.shard.executor);
  const std::string_view err =
      e == nullptr ? "NOTBUSY No scripts in execution right now." : e->kill(true);
  if (err.empty()) {
    ctx.out.ok();
  } else {
    ctx.out.error(err);
  }
}

void script_debug(Context& ctx) {
  if (iequals(ctx.args[2], "no")) {
    ctx.out.ok();
  } else if (iequals(ctx.args[2], "yes") || iequals(ctx.args[2], "sync")) {
    ctx.out.error("ERR SCRIPT DEBUG is not supported: this server has no Lua debugger");
  } else {
    ctx.out.error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
  }
}

void script_help(Context& ctx) {
  reply_help(
      ctx, "SCRIPT",
      {"DEBUG (YES|SYNC|NO)", "    Set the debug mode for subsequent scripts executed.",
       "EXISTS <sha1> [<sha1> ...]",
       "    Return information about the existence of the scripts in the script cache.",
       "FLUSH [ASYNC|SYNC]", "    Flush the Lua scripts cache. Very dangerous on replicas.",
       "    When called without the optional mode argument, the behavior is determined by the",
       "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
       "    * ASYNC: Asynchronously flush the scripts cache.",
       "    * SYNC: Synchronously flush the scripts cache.", "KILL",
       "    Kill the currently executing Lua script.", "LOAD <script>",
       "    Load a script into the scripts cache without executing it."});
}

constexpr std::uint32_t kEval = kNoScript | kStale | kSkipMonitor | kNoMandatoryKeys;
constexpr const char* kEvalDoc = "Depends on the script that is executed.";

const CommandDef kScriptSubs[] = {
    {"script|debug", 3, kNoScript, &decl::script_debug, script_debug, "scripting",
     "Set the debug mode for executed scripts.", "3.2.0", "O(1)", "slow scripting"},
    {"script|exists", -3, kNoScript, &decl::script_exists, script_exists, "scripting",
     "Check existence of scripts in the script cache.", "2.6.0",
     "O(N) with N being the number of scripts to check (so checking a single script is an O(1) "
     "operation).",
     "slow scripting"},
    {"script|flush", -2, kNoScript, &decl::script_flush, script_flush, "scripting",
     "Remove all the scripts from the script cache.", "2.6.0",
     "O(N) with N being the number of scripts in cache", "slow scripting"},
    {"script|help", 2, kLoading | kStale, &decl::script_help, script_help, "scripting",
     "Show helpful text about the different subcommands", "5.0.0", "O(1)", "slow scripting"},
    {"script|kill", 2, kNoScript | kAllowBusy, &decl::script_kill, script_kill, "scripting",
     "Kill the script currently in execution.", "2.6.0", "O(1)", "slow scripting"},
    {"script|load", 3, kNoScript | kStale, &decl::script_load, script_load, "scripting",
     "Load the specified Lua script into the script cache.", "2.6.0",
     "O(N) with N being the length in bytes of the script body.", "slow scripting"},
};

void cmd_script(Context& ctx) {
  dispatch_subcommand(ctx, *ctx.command);
}

const CommandDef kScriptCommands[] = {
    {"eval", -3, kEval, &decl::eval, cmd_eval, "scripting", "Execute a Lua script server side",
     "2.6.0", kEvalDoc, "slow scripting"},
    {"evalsha", -3, kEval, &decl::evalsha, cmd_evalsha, "scripting",
     "Execute a Lua script server side", "2.6.0", kEvalDoc, "slow scripting"},
    {"eval_ro", -3, kEval | kReadonly, &decl::eval_ro, cmd_eval_ro, "scripting",
     "Execute a read-only Lua script server side", "7.0.0", kEvalDoc, "slow scripting"},
    {"evalsha_ro", -3, kEval | kReadonly, &decl::evalsha_ro, cmd_evalsha_ro, "scripting",
     "Execute a read-only Lua script server side", "7.0.0", kEvalDoc, "slow scripting"},
    {"script", -2, 0, &decl::script, cmd_script, "scripting",
     "A container for Lua scripts management commands", "2.6.0", "Depends on subcommand.", "slow",
     kScriptSubs},
};

}  // namespace

std::span<const CommandDef> script_commands() {
  return kScriptCommands;
}

}  // namespace ruvio::worker
