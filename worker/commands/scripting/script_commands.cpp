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

// clang-format off
const CommandDef kScriptSubs[] = {
    {&decl::script_debug, script_debug},
    {&decl::script_exists, script_exists},
    {&decl::script_flush, script_flush},
    {&decl::script_help, script_help},
    {&decl::script_kill, script_kill},
    {&decl::script_load, script_load},
};
// clang-format on

void cmd_script(Context& ctx) {
  dispatch_subcommand(ctx, *ctx.command);
}

const CommandDef kScriptCommands[] = {
    {&decl::eval, cmd_eval},
    {&decl::evalsha, cmd_evalsha},
    {&decl::eval_ro, cmd_eval_ro},
    {&decl::evalsha_ro, cmd_evalsha_ro},
    {.decl = &decl::script, .handler = cmd_script, .subcommands = kScriptSubs},
};

}  // namespace

std::span<const CommandDef> script_commands() {
  return kScriptCommands;
}

}  // namespace ruvio::worker
