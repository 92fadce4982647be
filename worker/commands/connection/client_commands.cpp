// CLIENT family: the client connections' own introspection and control (ID, SETNAME,
// GETNAME, INFO, LIST, KILL, PAUSE, UNPAUSE, UNBLOCK, REPLY, SETINFO, HELP), with Redis 7.0's
// replies and errors. A subcommand that belongs to another area (TRACKING, NO-EVICT, …) is one
// more row of kClientSubcommands and one handler.
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "worker/commands/connection/client_decls.hpp"
#include "worker/commands/connection/client_extra_decls.hpp"
#include "worker/commands/connection/client_family.hpp"
#include "worker/commands/connection/tracking_commands.hpp"
#include "worker/engine/acl_check.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kBadName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

// Redis's getClientTypeByName: "master" is a type of its own, one no Ruvio client has.
enum class TypeFilter : std::uint8_t { kAny, kNormal, kMaster, kReplica, kPubsub, kBad };

TypeFilter type_by_name(std::string_view t) {
  if (iequals(t, "normal")) return TypeFilter::kNormal;
  if (iequals(t, "master")) return TypeFilter::kMaster;
  if (iequals(t, "replica") || iequals(t, "slave")) return TypeFilter::kReplica;
  if (iequals(t, "pubsub")) return TypeFilter::kPubsub;
  return TypeFilter::kBad;
}

bool type_matches(TypeFilter f, const ClientInfo& c) {
  switch (f) {
    case TypeFilter::kAny:
      return true;
    case TypeFilter::kNormal:
      return !c.subscribed();
    case TypeFilter::kPubsub:
      return c.subscribed();
    default:
      return false;  // no master or replica links
  }
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
  ctx.shard.host().measure_clients(ctx.client.id, false);
  std::string line;
  client_info_line(ctx.client, ctx.now_ms(), line, ctx.args);
  line += '\n';
  ctx.out.verbatim(line);
}

// CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id …]
void client_list(Context& ctx) {
  std::vector<std::uint64_t> ids;
  TypeFilter type = TypeFilter::kAny;
  std::size_t j = 2;
  if (ctx.argc() == 4 && iequals(ctx.args[2], "type")) {
    type = type_by_name(ctx.args[3]);
    if (type == TypeFilter::kBad) {
      ctx.out.error("ERR Unknown client type '" + std::string(ctx.args[3]) + "'");
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
  ctx.shard.host().measure_clients(ctx.client.id, true);
  ctx.shard.host().for_each_client([&](const ClientInfo& c) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), c.id) == ids.end()) return;
    const ClientInfo& shown = c.id == ctx.client.id ? ctx.client : c;
    if (!type_matches(type, shown)) return;
    client_info_line(shown, ctx.now_ms(), text,
                     c.id == ctx.client.id ? ctx.args : std::span<const std::string_view>());
    text += '\n';
  });
  ctx.out.verbatim(text);
}

// CLIENT KILL addr:port (old form: +OK or "No such client", and a client may kill itself)
// or CLIENT KILL <filter> <value> … (a count; SKIPME yes by default). Filters as Redis 7.0,
// plus MAXAGE (Redis 7.4). On the proxy port every worker runs it on its own clients and the
// answers merge (Merge::kKill).
void client_kill(Context& ctx) {
  std::string_view addr, laddr;
  std::uint64_t id = 0;
  std::int64_t max_age = 0;
  TypeFilter type = TypeFilter::kAny;
  bool skipme = true;
  std::string_view user;
  const bool old_form = ctx.argc() == 3;
  if (old_form) {
    addr = ctx.args[2];
    skipme = false;
  } else {
    for (std::size_t i = 2; i < ctx.argc(); i += 2) {
      const std::string_view opt = ctx.args[i];
      if (i + 1 >= ctx.argc()) {
        ctx.out.error(err::kSyntax);
        return;
      }
      const std::string_view val = ctx.args[i + 1];
      if (iequals(opt, "id")) {
        const auto n = parse_int64(val);
        if (!n || *n < 1) {
          ctx.out.error("ERR client-id should be greater than 0");
          return;
        }
        id = static_cast<std::uint64_t>(*n);
      } else if (iequals(opt, "type")) {
        type = type_by_name(val);
        if (type == TypeFilter::kBad) {
          ctx.out.error("ERR Unknown client type '" + std::string(val) + "'");
          return;
        }
      } else if (iequals(opt, "addr")) {
        addr = val;
      } else if (iequals(opt, "laddr")) {
        laddr = val;
      } else if (iequals(opt, "user")) {
        if (!ctx.shard.acl().find(val)) {
          ctx.out.error("ERR No such user '" + std::string(val) + "'");
          return;
        }
        user = val;
      } else if (iequals(opt, "skipme")) {
        if (iequals(val, "yes")) {
          skipme = true;
        } else if (iequals(val, "no")) {
          skipme = false;
        } else {
          ctx.out.error(err::kSyntax);
          return;
        }
      } else if (iequals(opt, "maxage")) {
        const auto n = parse_int64(val);
        if (!n) {
          ctx.out.error(err::kNotInt);
          return;
        }
        max_age = *n;
      } else {
        ctx.out.error(err::kSyntax);
        return;
      }
    }
  }
  std::vector<std::uint64_t> victims;
  bool self = false;
  ctx.shard.host().for_each_client([&](const ClientInfo& c) {
    if (!user.empty() && acl_user_name(c) != user) return;
    if (!addr.empty() && c.addr != addr) return;
    if (!laddr.empty() && c.laddr != laddr) return;
    if (!type_matches(type, c)) return;
    if (id != 0 && c.id != id) return;
    if (max_age != 0 && (ctx.now_ms() - c.created_ms) / 1000 <= max_age) return;
    const bool me = c.id == ctx.client.id && ctx.client.origin < 0;
    if (me && skipme) return;
    if (me) {
      self = true;
    } else {
      victims.push_back(c.id);
    }
  });
  // Closed after the walk: closing edits the list being walked.
  for (std::uint64_t v : victims) ctx.shard.host().kill_client(v);
  const std::size_t killed = victims.size() + (self ? 1 : 0);
  if (old_form) {
    if (killed == 0) {
      ctx.out.error("ERR No such client");
    } else {
      ctx.out.ok();
    }
  } else {
    ctx.out.integer(static_cast<std::int64_t>(killed));
  }
  if (self) ctx.client.close_after_reply = true;
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

// CLIENT REPLY ON|OFF|SKIP. OFF and SKIP answer nothing; the connection drops the replies of
// the commands that follow (Connection::process_input), ON's +OK is the first one kept.
void client_reply(Context& ctx) {
  const std::string_view mode = ctx.args[2];
  if (iequals(mode, "on")) {
    ctx.client.reply_mode = ClientInfo::kReplyOn;
    ctx.out.ok();
  } else if (iequals(mode, "off")) {
    ctx.client.reply_mode = ClientInfo::kReplyOff;
  } else if (iequals(mode, "skip")) {
    if (ctx.client.reply_mode != ClientInfo::kReplyOff) {
      ctx.client.reply_mode = ClientInfo::kReplySkipNext;
    }
  } else {
    ctx.out.error(err::kSyntax);
  }
}

// CLIENT NO-EVICT / NO-TOUCH on|off: the client's flag (Redis's text for anything else).
void client_flag(Context& ctx, bool ClientInfo::*flag) {
  if (iequals(ctx.args[2], "on")) {
    ctx.client.*flag = true;
  } else if (iequals(ctx.args[2], "off")) {
    ctx.client.*flag = false;
  } else {
    ctx.out.error(err::kSyntax);
    return;
  }
  ctx.out.ok();
}
void client_no_evict(Context& ctx) {
  client_flag(ctx, &ClientInfo::no_evict);
}
void client_no_touch(Context& ctx) {
  client_flag(ctx, &ClientInfo::no_touch);
}

// CLIENT SETINFO LIB-NAME|LIB-VER value (Redis 7.2's texts; 7.0 does not have it).
void client_setinfo(Context& ctx) {
  const std::string_view attr = ctx.args[2];
  std::string* dest = nullptr;
  if (iequals(attr, "lib-name")) {
    dest = &ctx.client.lib_name;
  } else if (iequals(attr, "lib-ver")) {
    dest = &ctx.client.lib_ver;
  } else {
    ctx.out.error("ERR Unrecognized option '" + std::string(attr) + "'");
    return;
  }
  if (!valid_client_name(ctx.args[3])) {
    ctx.out.error("ERR " + std::string(attr) +
                  " cannot contain spaces, newlines or special characters.");
    return;
  }
  dest->assign(ctx.args[3]);
  ctx.out.ok();
}

void client_help(Context& ctx) {
  // Redis 7.0.15's text, every subcommand it lists (some are other areas' to implement).
  static constexpr std::string_view kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are:",
      "    * ADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made from the specified address",
      "    * LADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made to specified local address",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Kill connections by type.",
      "    * USER <username>",
      "      Kill connections authenticated by <username>.",
      "    * SKIPME (YES|NO)",
      "      Skip killing current connection (default: yes).",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "HELP",
      "    Prints this help.",
  };
  ctx.out.array(std::size(kLines));
  for (auto line : kLines) ctx.out.simple(line);
}

const CommandDef kClientSubcommands[] = {
    {&decl::client_id, client_id},
    {&decl::client_setname, client_setname},
    {&decl::client_getname, client_getname},
    {&decl::client_info, client_info},
    {.decl = &decl::client_list,
     .handler = client_list,
     .routing = {Where::kAllWorkers, Merge::kText}},
    {.decl = &decl::client_kill,
     .handler = client_kill,
     .routing = {Where::kAllWorkers, Merge::kKill}},
    {.decl = &decl::client_pause,
     .handler = client_pause,
     .routing = {Where::kAllWorkers, Merge::kFirstError}},
    {.decl = &decl::client_unpause,
     .handler = client_unpause,
     .routing = {Where::kAllWorkers, Merge::kFirstError}},
    {.decl = &decl::client_unblock,
     .handler = client_unblock,
     .routing = {Where::kAllWorkers, Merge::kSum}},
    {.decl = &decl::client_reply, .handler = client_reply, .routing = {Where::kHere}},
    {.decl = &decl::client_setinfo, .handler = client_setinfo, .routing = {Where::kHere}},
    {&decl::client_no_evict, client_no_evict},
    {&decl::client_no_touch, client_no_touch},
    {.decl = &decl::client_tracking, .handler = client_tracking, .routing = {Where::kRedirect}},
    {&decl::client_caching, client_caching},
    {&decl::client_getredir, client_getredir},
    {&decl::client_trackinginfo, client_trackinginfo},
    {&decl::client_help, client_help},
};

}  // namespace

bool valid_client_name(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

// Redis 7.0's catClientInfoString: these fields, in this order (CLIENT LIST, CLIENT INFO, and
// the log line of a client closed for its output buffer).
std::span<const CommandDef> client_subcommands() {
  return kClientSubcommands;
}

}  // namespace ruvio::worker
