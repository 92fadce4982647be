// Functions: FCALL, FCALL_RO and FUNCTION (worker/script/functions.* keeps the libraries).
//
// On the proxy port FCALL runs where its declared keys live (the key spec's keynum, as EVAL)
// or, without keys, on the connection's worker. FUNCTION LOAD / DELETE / FLUSH / RESTORE
// carry Redis's request_policy:all_shards tip, so they reach every worker and every worker
// holds the same libraries; each worker logs them in its own WAL and snapshot (a library
// survives a restart, as Redis keeps it in the RDB). KILL reaches every worker (the busy one
// answers OK); LIST, DUMP, STATS answer from the connection's worker.
#include "shared/glob.hpp"
#include "worker/commands/scripting/function_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/subcommand.hpp"
#include "worker/script/functions.hpp"
#include "worker/script/lua_engine.hpp"

namespace ruvio::worker {
namespace {

script::Functions& functions(Context& ctx) {
  return script::engine(*ctx.shard.executor).functions();
}

// The WAL replayer runs what was accepted once: no load timeout for it (Redis's
// mustObeyClient; ClientInfo::obey marks the replayer).
bool replaying(const Context& ctx) {
  return ctx.client.obey;
}

// addReplySubcommandSyntaxError.
std::string syntax_error(const Context& ctx) {
  std::string container(ctx.args[0]);
  for (char& c : container) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
  return "ERR unknown subcommand or wrong number of arguments for '" +
         std::string(ctx.args[1].substr(0, 128)) + "'. Try " + container + " HELP.";
}

void cmd_fcall(Context& ctx) {
  ctx.shard.monitors.feed_script(ctx.client, ctx.args);
  script::engine(*ctx.shard.executor).fcall(ctx, false);
}
void cmd_fcall_ro(Context& ctx) {
  ctx.shard.monitors.feed_script(ctx.client, ctx.args);
  script::engine(*ctx.shard.executor).fcall(ctx, true);
}

void function_load(Context& ctx) {
  bool replace = false;
  std::size_t at = 2;
  for (; at < ctx.argc() - 1; ++at) {
    if (!iequals(ctx.args[at], "replace")) {
      ctx.out.error("ERR Unknown option given: " + std::string(ctx.args[at]));
      return;
    }
    replace = true;
  }
  std::string result;
  if (!functions(ctx).load(ctx.args[at], replace, !replaying(ctx), result)) {
    ctx.out.error("ERR " + result);
    return;
  }
  ctx.shard.count_change();
  ctx.out.bulk(result);
}

void function_delete(Context& ctx) {
  if (!functions(ctx).remove(ctx.args[2])) {
    ctx.out.error("ERR Library not found");
    return;
  }
  ctx.shard.count_change();
  ctx.out.ok();
}

void function_flush(Context& ctx) {
  if (ctx.argc() > 3) {
    ctx.out.error(syntax_error(ctx));
    return;
  }
  if (ctx.argc() == 3 && !iequals(ctx.args[2], "sync") && !iequals(ctx.args[2], "async")) {
    ctx.out.error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    return;
  }
  // ASYNC frees the same way: closing the interpreter is quick.
  script::engine(*ctx.shard.executor).flush_functions();
  ctx.shard.count_change();
  ctx.out.ok();
}

void reply_flags(Context& ctx, std::uint32_t flags) {
  std::size_t n = 0;
  for (auto [name, bit] : script::kScriptFlagNames) n += (flags & bit) ? 1 : 0;
  ctx.out.set(n);
  for (auto [name, bit] : script::kScriptFlagNames) {
    if (flags & bit) ctx.out.simple(name);
  }
}

void function_list(Context& ctx) {
  bool with_code = false;
  bool have_pattern = false;
  std::string_view pattern;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (!with_code && iequals(ctx.args[i], "withcode")) {
      with_code = true;
      continue;
    }
    if (!have_pattern && iequals(ctx.args[i], "libraryname")) {
      if (i >= ctx.argc() - 1) {
        ctx.out.error("ERR library name argument was not given");
        return;
      }
      pattern = ctx.args[++i];
      have_pattern = true;
      continue;
    }
    ctx.out.error("ERR Unknown argument " + std::string(ctx.args[i]));
    return;
  }
  const auto& libs = functions(ctx).libraries();
  std::size_t n = 0;
  for (const auto& [name, lib] : libs) n += !have_pattern || glob_match(pattern, name, true);
  ctx.out.array(n);
  for (const auto& [name, lib] : libs) {
    if (have_pattern && !glob_match(pattern, name, true)) continue;
    ctx.out.map(with_code ? 4 : 3);
    ctx.out.bulk("library_name");
    ctx.out.bulk(name);
    ctx.out.bulk("engine");
    ctx.out.bulk("LUA");
    ctx.out.bulk("functions");
    ctx.out.array(lib->functions.size());
    for (const script::Function& f : lib->functions) {
      ctx.out.map(3);
      ctx.out.bulk("name");
      ctx.out.bulk(f.name);
      ctx.out.bulk("description");
      if (f.has_desc) {
        ctx.out.bulk(f.desc);
      } else {
        ctx.out.null();
      }
      ctx.out.bulk("flags");
      reply_flags(ctx, f.flags);
    }
    if (with_code) {
      ctx.out.bulk("library_code");
      ctx.out.bulk(lib->code);
    }
  }
}

void function_dump(Context& ctx) {
  ctx.out.bulk(functions(ctx).dump());
}

void function_restore(Context& ctx) {
  if (ctx.argc() > 4) {
    ctx.out.error(syntax_error(ctx));
    return;
  }
  script::RestorePolicy policy = script::RestorePolicy::kAppend;
  if (ctx.argc() == 4) {
    if (iequals(ctx.args[3], "append")) {
      policy = script::RestorePolicy::kAppend;
    } else if (iequals(ctx.args[3], "replace")) {
      policy = script::RestorePolicy::kReplace;
    } else if (iequals(ctx.args[3], "flush")) {
      policy = script::RestorePolicy::kFlush;
    } else {
      ctx.out.error(
          "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
      return;
    }
  }
  std::string err;
  if (!functions(ctx).restore(ctx.args[2], policy, err)) {
    ctx.out.error("ERR " + err);
    return;
  }
  ctx.shard.count_change();
  ctx.out.ok();
}

void function_stats(Context& ctx) {
  script::Engine* e = script::started_engine(*ctx.shard.executor);
  if (e != nullptr && e->running() && !e->running_function()) {
    ctx.out.error(
        "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
    return;
  }
  ctx.out.map(2);
  ctx.out.bulk("running_script");
  if (e == nullptr || !e->running()) {
    ctx.out.null();
  } else {
    ctx.out.map(3);
    ctx.out.bulk("name");
    ctx.out.bulk(e->running_name());
    ctx.out.bulk("command");
    ctx.out.array(e->caller_args().size());
    for (std::string_view a : e->caller_args()) ctx.out.bulk(a);
    ctx.out.bulk("duration_ms");
    ctx.out.integer(e->run_duration_ms());
  }
  const script::Functions* f = e != nullptr ? e->functions_if_started() : nullptr;
  ctx.out.bulk("engines");
  ctx.out.map(1);
  ctx.out.bulk("LUA");
  ctx.out.map(2);
  ctx.out.bulk("libraries_count");
  ctx.out.integer(static_cast<std::int64_t>(f != nullptr ? f->library_count() : 0));
  ctx.out.bulk("functions_count");
  ctx.out.integer(static_cast<std::int64_t>(f != nullptr ? f->function_count() : 0));
}

void function_kill(Context& ctx) {
  script::Engine* e = script::started_engine(*ctx.shard.executor);
  const std::string_view err =
      e == nullptr ? "NOTBUSY No scripts in execution right now." : e->kill(false);
  if (err.empty()) {
    ctx.out.ok();
  } else {
    ctx.out.error(err);
  }
}

void function_help(Context& ctx) {
  reply_help(
      ctx, "FUNCTION",
      {"LOAD [REPLACE] <FUNCTION CODE>",
       "    Create a new library with the given library name and code.",
       "DELETE <LIBRARY NAME>",
       "    Delete the given library.",
       "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
       "    Return general information on all the libraries:",
       "    * Library name",
       "    * The engine used to run the Library",
       "    * Library description",
       "    * Functions list",
       "    * Library code (if WITHCODE is given)",
       "    It also possible to get only function that matches a pattern using LIBRARYNAME "
       "argument.",
       "STATS",
       "    Return information about the current function running:",
       "    * Function name",
       "    * Command used to run the function",
       "    * Duration in MS that the function is running",
       "    If no function is running, return nil",
       "    In addition, returns a list of available engines.",
       "KILL",
       "    Kill the current running function.",
       "FLUSH [ASYNC|SYNC]",
       "    Delete all the libraries.",
       "    When called without the optional mode argument, the behavior is determined by the",
       "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
       "    * ASYNC: Asynchronously flush the libraries.",
       "    * SYNC: Synchronously flush the libraries.",
       "DUMP",
       "    Return a serialized payload representing the current libraries, can be restored "
       "using FUNCTION RESTORE command",
       "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
       "    Restore the libraries represented by the given payload, it is possible to give a "
       "restore policy to",
       "    control how to handle existing libraries (default APPEND):",
       "    * FLUSH: delete all existing libraries.",
       "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
       "abort.",
       "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
       "replace the old",
       "      libraries with the new libraries (notice that even on this option there is a "
       "chance of failure",
       "      in case of functions name collision with another library)."});
}

const CommandDef kFunctionSubs[] = {
    {&decl::function_delete, function_delete},
    {&decl::function_dump, function_dump},
    {&decl::function_flush, function_flush},
    {&decl::function_help, function_help},
    {&decl::function_kill, function_kill},
    {&decl::function_list, function_list},
    {&decl::function_load, function_load},
    {&decl::function_restore, function_restore},
    {.decl = &decl::function_stats,
     .handler = function_stats,
     .routing = {Where::kHere, Merge::kFirstError}},
};

const CommandDef kFunctionCommands[] = {
    {&decl::fcall, cmd_fcall},
    {&decl::fcall_ro, cmd_fcall_ro},
    // No handler of its own: the executor picks the subcommand first, so the journal sees
    // LOAD / DELETE / FLUSH / RESTORE as the writes they are.
    {.decl = &decl::function, .handler = nullptr, .subcommands = kFunctionSubs},
};

}  // namespace

std::span<const CommandDef> function_commands() {
  return kFunctionCommands;
}

}  // namespace ruvio::worker
