// Connection family: PING, ECHO, QUIT, HELLO, AUTH, SELECT, RESET, CLIENT …
// These change only the connection's own state (ClientInfo); they never touch keys.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "worker/commands/connection/client_decls.hpp"
#include "worker/commands/connection/client_family.hpp"
#include "worker/commands/connection/connection_decls.hpp"
#include "worker/engine/acl_check.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_stats.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"

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
    ctx.out.encoded("+PONG\r\n");
  }
}

void echo(Context& ctx) {
  ctx.out.bulk(ctx.args[1]);
}

void quit(Context& ctx) {
  ctx.out.ok();
  ctx.client.close_after_reply = true;
}

void auth(Context& ctx) {
  if (ctx.argc() > 3) {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::string_view user = "default";
  std::string_view pass;
  if (ctx.argc() == 2) {
    if (ctx.shard.acl().default_user()->flags & acl::kNoPass) {
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
  if (acl_authenticate(ctx, user, pass)) {
    ctx.out.ok();
  } else {
    ctx.out.error("WRONGPASS invalid username-password pair or user is disabled.");
  }
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
    if (!acl_authenticate(ctx, user, pass)) {
      ctx.out.error("WRONGPASS invalid username-password pair or user is disabled.");
      return;
    }
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
  ctx.shard.monitors.remove(ctx.client);  // RESET ends MONITOR
  ctx.client.in_multi = false;
  ctx.client.multi_failed = false;
  ctx.client.queued.clear();
  ctx.client.multi_bytes = 0;
  ctx.client.db = 0;
  ctx.client.resp = 2;
  ctx.out.set_protocol(2);
  ctx.client.name.clear();
  ctx.client.reply_mode = ClientInfo::kReplyOn;
  // CLIENT NO-EVICT survives RESET in 7.0 (clearClientConnectionState keeps it); NO-TOUCH
  // is 7.2's, whose RESET clears it.
  ctx.client.no_touch = false;
  if (ctx.client.tracking) {  // RESET turns client tracking off, as Redis's resetCommand
    ctx.shard.tracking.disable(ctx.client.id);
    ctx.client.tracking = ctx.client.tracking_bcast = false;
    ctx.client.tracking_redir = 0;
    ctx.shard.update_listener();
  }
  ctx.client.user = ctx.shard.acl().default_user();
  ctx.client.authenticated = ctx.shard.acl().default_open();
  ctx.out.simple("RESET");
}

const CommandDef kConnectionCommands[] = {
    {.decl = &decl::ping, .handler = ping, .traits = kSubscribedOk, .routing = {Where::kHere}},
    {&decl::echo, echo},
    {.decl = &decl::quit, .handler = quit, .traits = kSubscribedOk | kTxImmediate},
    {.decl = &decl::auth, .handler = auth, .redact = redact_auth},
    {.decl = &decl::hello, .handler = hello, .redact = redact_hello},
    {&decl::select, select},
    {.decl = &decl::reset, .handler = reset, .traits = kSubscribedOk | kTxImmediate | kTxUnwatch},
    {.decl = &decl::client, .handler = nullptr, .subcommands = client_subcommands()},
};

}  // namespace

std::span<const CommandDef> connection_commands() {
  return kConnectionCommands;
}

}  // namespace ruvio::worker
