// The permission check the executor runs for restricted users (Redis's ACLCheckAllPerm and its
// error texts for each place a command runs), AUTH against the user table, and the ACL LOG
// entries it records (worker/engine/acl.hpp holds the rules and the log).
#include "worker/engine/acl_check.hpp"

#include "worker/engine/client_info.hpp"
#include "worker/engine/context.hpp"

namespace ruvio::worker {
namespace {

void add_log(Shard& shard, const ClientInfo& client, acl::Denied reason, acl::LogContext where,
             std::string object, std::string username) {
  acl::LogEntry e;
  e.reason = reason;
  e.context = where;
  e.object = std::move(object);
  e.username = std::move(username);
  e.ctime_ms = wall_clock_ms();
  e.client_info = client_info_line(client, shard.now_ms());
  shard.acl().log(std::move(e));
}

std::string_view reason_text(acl::Denied d) {
  switch (d) {
    case acl::Denied::kCommand:
      return "command";
    case acl::Denied::kKey:
      return "key";
    case acl::Denied::kChannel:
      return "channel";
    case acl::Denied::kAuth:
      return "auth";
    default:
      return "unknown";
  }
}

}  // namespace

std::string_view acl_user_name(const ClientInfo& client) {
  return client.user ? std::string_view(client.user->name) : std::string_view("default");
}

bool acl_authenticate(Context& ctx, std::string_view user, std::string_view pass) {
  std::shared_ptr<acl::User> u = ctx.shard.acl().authenticate(user, pass);
  if (u) {
    ctx.client.user = std::move(u);
    ctx.client.authenticated = true;
    return true;
  }
  add_log(ctx.shard, ctx.client, acl::Denied::kAuth,
          ctx.client.in_multi ? acl::LogContext::kMulti : acl::LogContext::kToplevel,
          std::string(ctx.args[0]), std::string(user));
  return false;
}

bool acl_refused(Shard& shard, ClientInfo& client, const CommandDef& def,
                 std::span<const std::string_view> args, AclWhere where, proto::ReplyWriter* out,
                 std::string* error, const ClientInfo* log_as) {
  const acl::Verdict v = acl::check(*client.user, def, args);
  if (v.denied == acl::Denied::kOk) return false;
  const acl::LogContext lc = where == AclWhere::kScript ? acl::LogContext::kLua
                             : where == AclWhere::kToplevel && !client.in_multi
                                 ? acl::LogContext::kToplevel
                                 : acl::LogContext::kMulti;
  std::string object =
      v.denied == acl::Denied::kCommand ? std::string(def.name) : std::string(args[v.pos]);
  const ClientInfo& shown = log_as != nullptr ? *log_as : client;
  add_log(shard, shown, v.denied, lc, std::move(object), client.user->name);
  if (where == AclWhere::kScript) {
    *error = v.denied == acl::Denied::kCommand
                 ? "The user executing the script can't run this command or subcommand"
             : v.denied == acl::Denied::kKey
                 ? "The user executing the script can't access at least one of the keys "
                   "mentioned in the command arguments"
                 : "The user executing the script can't publish to the channel mentioned in "
                   "the command";
    return true;
  }
  if (where == AclWhere::kExec) {
    out->error(
        std::string("NOPERM ACLs rules changed between the moment the transaction was accumulated "
                    "and the EXEC call. This command is no longer allowed for the following "
                    "reason: ") +
        (v.denied == acl::Denied::kCommand ? "no permission to execute the command or "
                                             "subcommand"
         : v.denied == acl::Denied::kKey
             ? "no permission to touch the specified keys"
             : "no permission to access one of the channels used as arguments"));
    return true;
  }
  // A refused EXEC answers in its abort form, in MULTI or not (Redis's rejectCommand).
  std::string text = (def.flags & kTxExec) ? "EXECABORT Transaction discarded because of: " : "";
  if (v.denied == acl::Denied::kCommand) {
    text +=
        "NOPERM this user has no permissions to run the '" + std::string(def.name) + "' command";
  } else if (v.denied == acl::Denied::kKey) {
    text += "NOPERM this user has no permissions to access one of the keys used as arguments";
  } else {
    text += "NOPERM this user has no permissions to access one of the channels used as arguments";
  }
  out->error(text);
  return true;
}

void write_acl_log(proto::ReplyWriter& out, const std::deque<acl::LogEntry>& log, std::size_t n,
                   std::int64_t now_ms) {
  out.array(n);
  for (std::size_t i = 0; i < n; ++i) {
    const acl::LogEntry& e = log[i];
    out.map(7);
    out.bulk("count");
    out.integer(static_cast<std::int64_t>(e.count));
    out.bulk("reason");
    out.bulk(reason_text(e.reason));
    out.bulk("context");
    out.bulk(e.context == acl::LogContext::kToplevel ? "toplevel"
             : e.context == acl::LogContext::kMulti  ? "multi"
                                                     : "lua");
    out.bulk("object");
    out.bulk(e.object);
    out.bulk("username");
    out.bulk(e.username);
    out.bulk("age-seconds");
    out.double_value(static_cast<double>(now_ms - e.ctime_ms) / 1000);
    out.bulk("client-info");
    out.bulk(e.client_info);
  }
}

void write_acl_log_raw(Shard& shard, proto::ReplyWriter& out) {
  const auto& log = shard.acl().log_entries();
  out.array(log.size());
  for (const acl::LogEntry& e : log) {
    out.array(7);
    out.integer(static_cast<std::int64_t>(e.count));
    out.integer(static_cast<std::int64_t>(e.reason));
    out.integer(static_cast<std::int64_t>(e.context));
    out.bulk(e.object);
    out.bulk(e.username);
    out.integer(e.ctime_ms);
    out.bulk(e.client_info);
  }
}

}  // namespace ruvio::worker
