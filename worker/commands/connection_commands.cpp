// Connection family: PING, ECHO, QUIT, HELLO, AUTH, SELECT, RESET, CLIENT …
// These change only the connection's own state (ClientInfo); they never touch keys.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "worker/commands/command.hpp"
#include "worker/commands/common.hpp"
#include "worker/commands/context.hpp"
#include "worker/commands/decls/connection_decls.hpp"
#include "worker/commands/tracking_commands.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kRedisVersion = "7.0.15";  // what clients see, for compatibility

void ping(Context& ctx) {
  if (ctx.argc() > 2) {
    ctx.out.error("ERR wrong number of arguments for 'ping' command");
  } else if (ctx.client.subscribed() && ctx.client.resp == 2) {
    // Subscribed RESP2 clients get PING as a message-shaped array.
    ctx.out.array(2);
    ctx.out.bulk("pong");
    ctx.out.bulk(ctx.argc() == 2 ? ctx.args[1] : std::string_view{});
  } else if (ctx.argc() == 2) {
    ctx.out.bulk(ctx.args[1]);
  } else {
    ctx.out.simple("PONG");
  }
}

void echo(Context& ctx) {
  ctx.out.bulk(ctx.args[1]);
}

void quit(Context& ctx) {
  ctx.out.ok();
  ctx.client.close_after_reply = true;
}

// Redis 7 has one user, "default", whose password is requirepass (nopass when empty).
bool check_password(Context& ctx, std::string_view user, std::string_view pass) {
  const std::string& required = ctx.shard.config().requirepass;
  if (user != "default") return false;
  return required.empty() || pass == required;
}

void auth(Context& ctx) {
  if (ctx.argc() > 3) {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::string_view user = "default";
  std::string_view pass;
  if (ctx.argc() == 2) {
    if (ctx.shard.config().requirepass.empty()) {
      ctx.out.error(
          "ERR AUTH <password> called without any password configured for the default user. "
          "Are you sure your configuration is correct?");
      return;
    }
    pass = ctx.args[1];
  } else {
    user = ctx.args[1];
    pass = ctx.args[2];
  }
  if (check_password(ctx, user, pass)) {
    ctx.client.authenticated = true;
    ctx.out.ok();
  } else {
    ctx.out.error("WRONGPASS invalid username-password pair or user is disabled.");
  }
}

// Redis accepts names of printable ASCII without spaces ('!'..'~').
bool valid_client_name(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}
constexpr std::string_view kBadName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

void hello(Context& ctx) {
  std::int64_t ver = 0;
  if (ctx.argc() >= 2) {
    auto v = parse_int64(ctx.args[1]);
    if (!v) {
      ctx.out.error("ERR Protocol version is not an integer or out of range");
      return;
    }
    if (*v < 2 || *v > 3) {
      ctx.out.error("NOPROTO unsupported protocol version");
      return;
    }
    ver = *v;
  }
  std::string_view user, pass, name;
  bool has_auth = false, has_name = false;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    std::size_t more = ctx.argc() - 1 - j;
    if (iequals(ctx.args[j], "auth") && more >= 2) {
      user = ctx.args[j + 1];
      pass = ctx.args[j + 2];
      has_auth = true;
      j += 2;
    } else if (iequals(ctx.args[j], "setname") && more >= 1) {
      name = ctx.args[j + 1];
      if (!valid_client_name(name)) {
        ctx.out.error(kBadName);
        return;
      }
      has_name = true;
      j += 1;
    } else {
      ctx.out.error("ERR Syntax error in HELLO option '" + std::string(ctx.args[j]) + "'");
      return;
    }
  }
  if (has_auth) {
    if (!check_password(ctx, user, pass)) {
      ctx.out.error("WRONGPASS invalid username-password pair or user is disabled.");
      return;
    }
    ctx.client.authenticated = true;
  }
  if (!ctx.client.authenticated) {
    ctx.out.error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
        "HELLO AUTH <user> <pass> option can be used to authenticate the client and "
        "select the RESP protocol version at the same time");
    return;
  }
  if (has_name) ctx.client.name = name;
  if (ver != 0) {
    ctx.client.resp = static_cast<int>(ver);
    ctx.out.set_protocol(ctx.client.resp);
  }
  ctx.out.map(7);
  ctx.out.bulk("server");
  ctx.out.bulk("redis");
  ctx.out.bulk("version");
  ctx.out.bulk(kRedisVersion);
  ctx.out.bulk("proto");
  ctx.out.integer(ctx.client.resp);
  ctx.out.bulk("id");
  ctx.out.integer(static_cast<std::int64_t>(ctx.client.id));
  ctx.out.bulk("mode");
  ctx.out.bulk(ctx.client.cluster_mode ? "cluster" : "standalone");
  ctx.out.bulk("role");
  ctx.out.bulk("master");
  ctx.out.bulk("modules");
  ctx.out.array(0);
}

void select(Context& ctx) {
  // Redis's getIntFromObjectOrReply: an int, not only an int64.
  auto idx = parse_int64(ctx.args[1]);
  if (!idx || *idx < INT_MIN || *idx > INT_MAX) {
    ctx.out.error(idx ? err::kIntRange : err::kNotInt);
    return;
  }
  if (ctx.client.cluster_mode && *idx != 0) {
    ctx.out.error("ERR SELECT is not allowed in cluster mode");
    return;
  }
  if (*idx < 0 || *idx >= ctx.shard.databases()) {
    ctx.out.error(err::kDbIndex);
    return;
  }
  ctx.client.db = static_cast<int>(*idx);
  ctx.out.ok();
}

void reset(Context& ctx) {
  if (ctx.shard.pubsub != nullptr) ctx.shard.pubsub->forget(ctx.client);
  ctx.shard.unwatch(ctx.shard.watcher_of(ctx.client));
  ctx.client.in_multi = false;
  ctx.client.multi_failed = false;
  ctx.client.queued.clear();
  ctx.client.db = 0;
  ctx.client.resp = 2;
  ctx.out.set_protocol(2);
  ctx.client.name.clear();
  ctx.client.authenticated = ctx.shard.config().requirepass.empty();
  ctx.out.simple("RESET");
}

// One CLIENT LIST line, with Redis 7.0's field names and order.
void client_line(const ClientInfo& c, std::int64_t now_ms, std::string& out) {
  auto age = (now_ms - c.created_ms) / 1000;
  auto idle = (now_ms - c.last_interaction_ms) / 1000;
  out += "id=" + std::to_string(c.id) + " addr=" + c.addr + " laddr=" + c.laddr +
         " fd=" + std::to_string(c.fd) + " name=" + c.name + " age=" + std::to_string(age) +
         " idle=" + std::to_string(idle) + " flags=" +
         (c.in_multi       ? "x"
          : c.blocked      ? "b"
          : c.subscribed() ? "P"
                           : "N") +
         " db=" + std::to_string(c.db) + " sub=" + std::to_string(c.subscriptions) +
         " psub=" + std::to_string(c.pattern_subscriptions) +
         " ssub=" + std::to_string(c.shard_subscriptions) +
         " multi=" + (c.in_multi ? std::to_string(c.queued.size()) : std::string("-1")) +
         " qbuf=" + std::to_string(c.query_buffer_bytes) +
         " qbuf-free=" + std::to_string(c.query_buffer_free) + " argv-mem=0 multi-mem=0 rbs=" +
         std::to_string(c.query_buffer_bytes + c.query_buffer_free) +
         " rbp=0 obl=0 oll=" + std::to_string(c.output_list_length) +
         " omem=" + std::to_string(c.output_buffer_bytes) + " tot-mem=" +
         std::to_string(c.query_buffer_bytes + c.query_buffer_free + c.output_buffer_bytes) +
         " events=r cmd=" + std::string(c.last_command) +
         " user=default redir=-1 resp=" + std::to_string(c.resp) + "\n";
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: ends the wait of a client blocked on this worker (every
// worker is asked on the proxy port; the one where it waits answers 1).
void client_unblock(Context& ctx) {
  if (ctx.argc() > 4) {
    ctx.out.error("ERR unknown subcommand or wrong number of arguments for '" +
                  std::string(ctx.args[1]) + "'. Try CLIENT HELP.");
    return;
  }
  bool error = false;
  if (ctx.argc() == 4) {
    if (iequals(ctx.args[3], "error")) {
      error = true;
    } else if (!iequals(ctx.args[3], "timeout")) {
      ctx.out.error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
      return;
    }
  }
  const auto id = parse_int64(ctx.args[2]);
  if (!id) {
    ctx.out.error(err::kNotInt);
    return;
  }
  const bool found =
      *id > 0 && ctx.shard.blocking().unblock_client(static_cast<std::uint64_t>(*id), error);
  ctx.out.integer(found ? 1 : 0);
}

void client_id(Context& ctx) {
  ctx.out.integer(static_cast<std::int64_t>(ctx.client.id));
}

void client_setname(Context& ctx) {
  if (!valid_client_name(ctx.args[2])) {
    ctx.out.error(kBadName);
    return;
  }
  ctx.client.name = ctx.args[2];
  ctx.out.ok();
}

void client_getname(Context& ctx) {
  if (ctx.client.name.empty()) {
    ctx.out.null();
  } else {
    ctx.out.bulk(ctx.client.name);
  }
}

void client_info(Context& ctx) {
  std::string line;
  client_line(ctx.client, ctx.now_ms(), line);
  ctx.out.verbatim(line);
}

void client_list(Context& ctx) {
  // CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id …]
  std::vector<std::uint64_t> ids;
  bool only_none = false;
  std::size_t j = 2;
  if (ctx.argc() == 4 && iequals(ctx.args[2], "type")) {
    std::string_view t = ctx.args[3];
    if (iequals(t, "normal")) {
    } else if (iequals(t, "master") || iequals(t, "replica") || iequals(t, "slave") ||
               iequals(t, "pubsub")) {
      only_none = true;
    } else {
      ctx.out.error("ERR Unknown client type '" + std::string(t) + "'");
      return;
    }
    j = ctx.argc();
  } else if (ctx.argc() > 3 && iequals(ctx.args[2], "id")) {
    for (j = 3; j < ctx.argc(); ++j) {
      auto id = parse_int64(ctx.args[j]);
      if (!id || *id <= 0) {
        ctx.out.error("ERR Invalid client ID");
        return;
      }
      ids.push_back(static_cast<std::uint64_t>(*id));
    }
  }
  if (j != ctx.argc()) {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::string text;
  if (!only_none) {
    ctx.shard.for_each_client([&](const ClientInfo& c) {
      if (!ids.empty() && std::find(ids.begin(), ids.end(), c.id) == ids.end()) return;
      client_line(c.id == ctx.client.id ? ctx.client : c, ctx.now_ms(), text);
    });
  }
  ctx.out.verbatim(text);
}

// CLIENT PAUSE timeout [WRITE|ALL]: the checks in Redis 7.0's order (mode, then timeout).
void client_pause(Context& ctx) {
  if (ctx.argc() > 4) {
    // The subcommand as the client spelled it, as Redis quotes it.
    ctx.out.error("ERR unknown subcommand or wrong number of arguments for '" +
                  std::string(ctx.args[1].substr(0, 128)) + "'. Try CLIENT HELP.");
    return;
  }
  ClientPause::Mode mode = ClientPause::Mode::kAll;
  if (ctx.argc() == 4) {
    if (iequals(ctx.args[3], "write")) {
      mode = ClientPause::Mode::kWrite;
    } else if (!iequals(ctx.args[3], "all")) {
      ctx.out.error("ERR CLIENT PAUSE mode must be WRITE or ALL");
      return;
    }
  }
  auto timeout = parse_int64(ctx.args[2]);
  if (!timeout) {
    ctx.out.error("ERR timeout is not an integer or out of range");
    return;
  }
  if (*timeout < 0) {
    ctx.out.error("ERR timeout is negative");
    return;
  }
  // Redis 7.0 adds the timeout to the clock without an overflow check: a timeout near
  // LLONG_MAX wraps to an end in the past, which pauses nothing new. Unsigned arithmetic
  // gives the same end without undefined behaviour.
  std::int64_t end = 0;
  if (*timeout > 0) {
    end = static_cast<std::int64_t>(static_cast<std::uint64_t>(*timeout) +
                                    static_cast<std::uint64_t>(ctx.now_ms()));
  }
  ctx.shard.client_pause.expire(ctx.now_ms());
  ctx.shard.client_pause.pause(mode, end);
  ctx.out.ok();
}

void client_unpause(Context& ctx) {
  ctx.shard.client_pause.unpause();
  ctx.out.ok();
}

void client_help(Context& ctx) {
  static constexpr std::string_view kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "HELP",
      "    Print this help.",
  };
  ctx.out.array(std::size(kLines));
  for (auto line : kLines) ctx.out.simple(line);
}

constexpr std::uint32_t kConn = kNoScript | kLoading | kStale;

const CommandDef kClientSubcommands[] = {
    {"client|id", 2, kConn, &decl::client_id, client_id, "connection",
     "Returns the client ID for the current connection", "5.0.0", "O(1)", "slow connection"},
    {"client|setname", 3, kConn, &decl::client_setname, client_setname, "connection",
     "Set the current connection name", "2.6.9", "O(1)", "slow connection"},
    {"client|getname", 2, kConn, &decl::client_getname, client_getname, "connection",
     "Get the current connection name", "2.6.9", "O(1)", "slow connection"},
    {"client|info", 2, kConn, &decl::client_info, client_info, "connection",
     "Returns information about the current client connection.", "6.2.0", "O(1)",
     "slow connection"},
    {"client|list",
     -2,
     kAdmin | kConn,
     &decl::client_list,
     client_list,
     "connection",
     "Get the list of client connections",
     "2.4.0",
     "O(N) where N is the number of client connections",
     "admin slow dangerous connection",
     {},
     {Where::kAllWorkers, Merge::kText}},
    {"client|pause",
     -3,
     kAdmin | kConn,
     &decl::client_pause,
     client_pause,
     "connection",
     "Stop processing commands from clients for some time",
     "2.9.50",
     "O(1)",
     "admin slow dangerous connection",
     {},
     {Where::kAllWorkers, Merge::kFirstError}},
    {"client|unpause",
     2,
     kAdmin | kConn,
     &decl::client_unpause,
     client_unpause,
     "connection",
     "Resume processing of clients that were paused",
     "6.2.0",
     "O(N) Where N is the number of paused clients",
     "admin slow dangerous connection",
     {},
     {Where::kAllWorkers, Merge::kFirstError}},
    {"client|unblock",
     -3,
     kAdmin | kConn,
     &decl::client_unblock,
     client_unblock,
     "connection",
     "Unblock a client blocked in a blocking command from a different connection",
     "5.0.0",
     "O(log N) where N is the number of client connections",
     "admin slow dangerous connection",
     {},
     {Where::kAllWorkers, Merge::kSum}},
    {"client|help", 2, kLoading | kStale, &decl::client_help, client_help, "connection",
     "Show helpful text about the different subcommands", "5.0.0", "O(1)", "slow connection"},
    {"client|tracking", -3, kConn, &decl::client_tracking, client_tracking, "connection",
     "Enable or disable server assisted client side caching support", "6.0.0",
     "O(1). Some options may introduce additional complexity.", "slow connection"},
    {"client|caching", 3, kConn, &decl::client_caching, client_caching, "connection",
     "Instruct the server about tracking or not keys in the next request", "6.0.0", "O(1)",
     "slow connection"},
    {"client|getredir", 2, kConn, &decl::client_getredir, client_getredir, "connection",
     "Get tracking notifications redirection client ID if any", "6.0.0", "O(1)", "slow connection"},
    {"client|trackinginfo", 2, kConn, &decl::client_trackinginfo, client_trackinginfo, "connection",
     "Return information about server assisted client side caching for the current connection",
     "6.2.0", "O(1)", "slow connection"},
};

const CommandDef kConnectionCommands[] = {
    {"ping",
     -1,
     kFast | kSubscribedOk,
     &decl::ping,
     ping,
     "connection",
     "Ping the server",
     "1.0.0",
     "O(1)",
     "fast connection",
     {},
     {Where::kHere}},
    {"echo", 2, kLoading | kStale | kFast, &decl::echo, echo, "connection", "Echo the given string",
     "1.0.0", "O(1)", "fast connection"},
    {"quit", -1, kAllowBusy | kNoAuth | kConn | kFast | kSubscribedOk | kTxImmediate, &decl::quit,
     quit, "connection", "Close the connection", "1.0.0", "O(1)", "fast connection"},
    {"auth", -2, kConn | kFast | kNoAuth | kAllowBusy, &decl::auth, auth, "connection",
     "Authenticate to the server", "1.0.0",
     "O(N) where N is the number of passwords defined for the user", "fast connection"},
    {"hello", -1, kConn | kFast | kNoAuth | kAllowBusy, &decl::hello, hello, "connection",
     "Handshake with Redis", "6.0.0", "O(1)", "fast connection"},
    {"select", 2, kLoading | kStale | kFast, &decl::select, select, "connection",
     "Change the selected database for the current connection", "1.0.0", "O(1)", "fast connection"},
    {"reset", 1, kConn | kFast | kNoAuth | kAllowBusy | kSubscribedOk | kTxImmediate | kTxUnwatch,
     &decl::reset, reset, "connection", "Reset the connection", "6.2.0", "O(1)", "fast connection"},
    {"client", -2, kConn, &decl::client, nullptr, "connection",
     "A container for client connection commands", "2.4.0", "Depends on subcommand.", "slow",
     kClientSubcommands},
};

}  // namespace

std::span<const CommandDef> connection_commands() {
  return kConnectionCommands;
}

}  // namespace ruvio::worker
