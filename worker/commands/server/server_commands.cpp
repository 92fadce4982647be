// The server family: TIME, DBSIZE, FLUSHDB, FLUSHALL, SWAPDB, SHUTDOWN, and the
// declaration table that also lists INFO (info_command.cpp), COMMAND
// (introspection_commands.cpp) and CONFIG (config_commands.cpp).
#include <sys/time.h>

#include <climits>
#include <cstdio>

#include "worker/commands/hash/hash_family.hpp"
#include "worker/commands/server/server_decls.hpp"
#include "worker/commands/server/server_family.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_stats.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/persist/service.hpp"

namespace ruvio::worker {
namespace {

using namespace srvfam;

void cmd_time(Context& ctx) {
  // The real clock, not the loop's cached one: TIME is how clients measure the server.
  timeval tv{};
  gettimeofday(&tv, nullptr);
  char buf[24];
  ctx.out.array(2);
  ctx.out.bulk(format_int64(tv.tv_sec, buf));
  ctx.out.bulk(format_int64(tv.tv_usec, buf));
}

void cmd_dbsize(Context& ctx) {
  ctx.out.integer(static_cast<std::int64_t>(ctx.db().size()));
}

// [ASYNC|SYNC]; without either, lazyfree-lazy-user-flush decides. SYNC frees at once and
// gives the pages back to the OS right after, so RSS falls as the user expects. ASYNC empties
// the database at once and leaves the freeing to the lazy free queue, which the server's
// housekeeping drains in bounded steps (and then gives the pages back).
enum class FlushMode { kInvalid, kSync, kAsync };

FlushMode flush_mode(Context& ctx) {
  if (ctx.argc() > 2 ||
      (ctx.argc() == 2 && !iequals(ctx.args[1], "sync") && !iequals(ctx.args[1], "async"))) {
    ctx.out.error(err::kSyntax);
    return FlushMode::kInvalid;
  }
  if (ctx.argc() == 2) return iequals(ctx.args[1], "async") ? FlushMode::kAsync : FlushMode::kSync;
  return ctx.shard.config().lazyfree_lazy_user_flush ? FlushMode::kAsync : FlushMode::kSync;
}

void cmd_flushdb(Context& ctx) {
  const FlushMode mode = flush_mode(ctx);
  if (mode == FlushMode::kInvalid) return;
  ctx.db().clear(mode == FlushMode::kAsync);
  if (mode == FlushMode::kSync) ctx.shard.release_memory();
  ctx.out.ok();
}

void cmd_flushall(Context& ctx) {
  const FlushMode mode = flush_mode(ctx);
  if (mode == FlushMode::kInvalid) return;
  for (int i = 0; i < ctx.shard.databases(); ++i) ctx.shard.db(i).clear(mode == FlushMode::kAsync);
  if (mode == FlushMode::kSync) ctx.shard.release_memory();
  ctx.out.ok();
}

void cmd_swapdb(Context& ctx) {
  if (ctx.client.cluster_mode) {
    ctx.out.error("ERR SWAPDB is not allowed in cluster mode");
    return;
  }
  const auto a = parse_int64(ctx.args[1]);
  if (!a || *a < INT_MIN || *a > INT_MAX) {
    ctx.out.error("ERR invalid first DB index");
    return;
  }
  const auto b = parse_int64(ctx.args[2]);
  if (!b || *b < INT_MIN || *b > INT_MAX) {
    ctx.out.error("ERR invalid second DB index");
    return;
  }
  const int n = ctx.shard.databases();
  if (*a < 0 || *a >= n || *b < 0 || *b >= n) {
    ctx.out.error(err::kDbIndex);
    return;
  }
  if (*a != *b) {
    ctx.shard.swap_db(static_cast<int>(*a), static_cast<int>(*b));
    swap_hash_field_ttls(ctx.shard, static_cast<int>(*a), static_cast<int>(*b));
  }
  ctx.out.ok();
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. On success nothing is replied: the server
// closes the connection, as Redis does (redis-cli then shows "not connected>").
void cmd_shutdown(Context& ctx) {
  bool nosave = false;
  bool save = false;
  bool abort = false;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    const std::string_view a = ctx.args[i];
    if (iequals(a, "nosave")) {
      nosave = true;
    } else if (iequals(a, "save")) {
      save = true;
    } else if (iequals(a, "now") || iequals(a, "force")) {
      // No replicas to wait for and no save that can fail: nothing to change.
    } else if (iequals(a, "abort")) {
      abort = true;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  if ((abort && ctx.argc() != 2) || (nosave && save)) {
    ctx.out.error(err::kSyntax);
    return;
  }
  if (abort) {
    ctx.out.error("ERR No shutdown in progress.");
    return;
  }
  // SHUTDOWN SAVE: the snapshot first; if it fails the server stays up (Redis's rule).
  if (save && ctx.shard.persistence != nullptr) {
    if (auto fail = ctx.shard.persistence->save()) {
      ctx.out.error("ERR Errors trying to SHUTDOWN. Check logs.");
      return;
    }
  }
  ctx.shard.shutdown_requested = true;
}

// clang-format off
const CommandDef kCommandSubs[] = {
    {&decl::command_count, command_count},
    {&decl::command_info, command_info},
    {&decl::command_docs, command_docs},
    {&decl::command_list, command_list},
    {&decl::command_getkeys, command_getkeys},
    {&decl::command_getkeysandflags, command_getkeysandflags},
    {&decl::command_help, command_help},
};
// clang-format on

const CommandDef kConfigSubs[] = {
    {&decl::config_get, config_get},
    {.decl = &decl::config_set, .handler = config_set, .redact = redact_config_set},
    {.decl = &decl::config_resetstat,
     .handler = config_resetstat,
     .routing = {Where::kAllWorkers, Merge::kFirstError}},
    {&decl::config_rewrite, config_rewrite},
    {&decl::config_help, config_help},
};

const CommandDef kServerCommands[] = {
    {.decl = &decl::info, .handler = cmd_info, .routing = {Where::kAllWorkers, Merge::kInfo}},
    {.decl = &decl::command, .handler = cmd_command, .subcommands = kCommandSubs},
    {.decl = &decl::config, .handler = cmd_config, .subcommands = kConfigSubs},
    {&decl::time, cmd_time},
    {&decl::dbsize, cmd_dbsize},
    {&decl::flushdb, cmd_flushdb},
    {&decl::flushall, cmd_flushall},
    {.decl = &decl::swapdb,
     .handler = cmd_swapdb,
     .routing = {Where::kAllWorkers, Merge::kFirstError}},
    {&decl::shutdown, cmd_shutdown},
};

}  // namespace

std::span<const CommandDef> server_commands() {
  return kServerCommands;
}

}  // namespace ruvio::worker
