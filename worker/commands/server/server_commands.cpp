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
    {"command|count", 2, kLoading | kStale, &decl::command_count, command_count, "server",
     "Get total number of Redis commands",
     "2.8.13", "O(1)", "slow connection"},
    {"command|info", -2, kLoading | kStale, &decl::command_info, command_info, "server",
     "Get array of specific Redis command details, or all when no argument is given.",
     "2.8.13", "O(N) where N is the number of commands to look up", "slow connection"},
    {"command|docs", -2, kLoading | kStale, &decl::command_docs, command_docs, "server",
     "Get array of specific Redis command documentation",
     "7.0.0", "O(N) where N is the number of commands to look up", "slow connection"},
    {"command|list", -2, kLoading | kStale, &decl::command_list, command_list, "server",
     "Get an array of Redis command names",
     "7.0.0", "O(N) where N is the total number of Redis commands", "slow connection"},
    {"command|getkeys", -4, kLoading | kStale, &decl::command_getkeys, command_getkeys, "server",
     "Extract keys given a full Redis command",
     "2.8.13", "O(N) where N is the number of arguments to the command", "slow connection"},
    {"command|getkeysandflags", -4, kLoading | kStale, &decl::command_getkeysandflags,
     command_getkeysandflags, "server", "Extract keys and access flags given a full Redis command",
     "7.0.0", "O(N) where N is the number of arguments to the command", "slow connection"},
    {"command|help", 2, kLoading | kStale, &decl::command_help, command_help, "server",
     "Show helpful text about the different subcommands",
     "5.0.0", "O(1)", "slow connection"},
};

const CommandDef kConfigSubs[] = {
    {"config|get", -3, kAdmin | kNoScript | kLoading | kStale, &decl::config_get, config_get, "server",
     "Get the values of configuration parameters",
     "2.0.0", "O(N) when N is the number of configuration parameters provided", "admin slow dangerous"},
    {"config|set", -4, kAdmin | kNoScript | kLoading | kStale, &decl::config_set, config_set, "server",
     "Set configuration parameters to the given values",
     "2.0.0", "O(N) when N is the number of configuration parameters provided", "admin slow dangerous"},
    {"config|resetstat", 2, kAdmin | kNoScript | kLoading | kStale, &decl::config_resetstat, config_resetstat, "server",
     "Reset the stats returned by INFO",
     "2.0.0", "O(1)", "admin slow dangerous", {}, {Where::kAllWorkers, Merge::kFirstError}},
    {"config|rewrite", 2, kAdmin | kNoScript | kLoading | kStale, &decl::config_rewrite, config_rewrite, "server",
     "Rewrite the configuration file with the in memory configuration",
     "2.8.0", "O(1)", "admin slow dangerous"},
    {"config|help", 2, kLoading | kStale, &decl::config_help, config_help, "server",
     "Show helpful text about the different subcommands",
     "5.0.0", "O(1)", "slow"},
};

const CommandDef kServerCommands[] = {
    {"info", -1, kLoading | kStale, &decl::info, cmd_info, "server",
     "Get information and statistics about the server",
     "1.0.0", "O(1)", "slow dangerous", {}, {Where::kAllWorkers, Merge::kInfo}},
    {"command", -1, kLoading | kStale, &decl::command, cmd_command, "server",
     "Get array of Redis command details",
     "2.8.13", "O(N) where N is the total number of Redis commands", "slow connection", kCommandSubs},
    {"config", -2, 0, &decl::config, cmd_config, "server",
     "A container for server configuration commands",
     "2.0.0", "Depends on subcommand.", "slow", kConfigSubs},
    {"time", 1, kLoading | kStale | kFast, &decl::time, cmd_time, "server",
     "Return the current server time",
     "2.6.0", "O(1)", "fast"},
    {"dbsize", 1, kReadonly | kFast, &decl::dbsize, cmd_dbsize, "server",
     "Return the number of keys in the selected database",
     "1.0.0", "O(1)", "keyspace read fast"},
    {"flushdb", -1, kWrite, &decl::flushdb, cmd_flushdb, "server",
     "Remove all keys from the current database",
     "1.0.0", "O(N) where N is the number of keys in the selected database", "keyspace write slow dangerous"},
    {"flushall", -1, kWrite, &decl::flushall, cmd_flushall, "server",
     "Remove all keys from all databases",
     "1.0.0", "O(N) where N is the total number of keys in all databases", "keyspace write slow dangerous"},
    {"swapdb", 3, kWrite | kFast, &decl::swapdb, cmd_swapdb, "server",
     "Swaps two Redis databases",
     "4.0.0", "O(N) where N is the count of clients watching or blocking on keys from both databases.", "keyspace write fast dangerous", {}, {Where::kAllWorkers, Merge::kFirstError}},
    {"shutdown", -1, kAdmin | kNoScript | kLoading | kStale | kNoMulti | kAllowBusy, &decl::shutdown, cmd_shutdown, "server",
     "Synchronously save the dataset to disk and then shut down the server",
     "1.0.0", "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)", "admin slow dangerous"},
};
// clang-format on

}  // namespace

std::span<const CommandDef> server_commands() {
  return kServerCommands;
}

}  // namespace ruvio::worker
