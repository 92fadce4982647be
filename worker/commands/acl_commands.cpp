// ACL family: ACL SETUSER GETUSER DELUSER LIST USERS WHOAMI CAT GENPASS LOG DRYRUN LOAD SAVE
// HELP (arguments → worker/commands/acl.hpp → reply), and the permission check the executor
// runs for restricted users. SETUSER, DELUSER and LOAD run on every worker (their routing),
// so the users are the same wherever a client connects.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "worker/commands/acl_family.hpp"
#include "worker/commands/command.hpp"
#include "worker/commands/command_table.hpp"
#include "worker/commands/common.hpp"
#include "worker/commands/context.hpp"
#include "worker/commands/decls/acl_decls.hpp"
#include "worker/commands/subcommand.hpp"

namespace ruvio::worker {
namespace {

std::int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void add_log(Shard& shard, const ClientInfo& client, acl::Denied reason, acl::LogContext where,
             std::string object, std::string username) {
  acl::LogEntry e;
  e.reason = reason;
  e.context = where;
  e.object = std::move(object);
  e.username = std::move(username);
  e.ctime_ms = wall_ms();
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

// Closes the clients authenticated as `u` (DELUSER, LOAD): the one running this command
// after its reply, as Redis's CLIENT_CLOSE_AFTER_COMMAND.
void close_clients_of(Context& ctx, const acl::User* u) {
  if (ctx.client.user.get() == u) ctx.client.close_after_reply = true;
  if (ctx.shard.close_clients) {
    ctx.shard.close_clients([u](const ClientInfo& c) { return c.user.get() == u; }, &ctx.client);
  }
}

void syntax_error(Context& ctx) {
  ctx.out.error("ERR unknown subcommand or wrong number of arguments for '" +
                std::string(ctx.args[1]) + "'. Try ACL HELP.");
}

void acl_setuser(Context& ctx) {
  const std::string err = ctx.shard.acl().setuser(ctx.args[2], ctx.args.subspan(3));
  if (err.empty()) {
    ctx.shard.note_acl_change();
    ctx.out.ok();
  } else {
    ctx.out.error("ERR " + err);
  }
}

void acl_deluser(Context& ctx) {
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    if (ctx.args[j] == "default") {
      ctx.out.error("ERR The 'default' user cannot be removed");
      return;
    }
  }
  std::int64_t deleted = 0;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    std::shared_ptr<acl::User> u = ctx.shard.acl().find(ctx.args[j]);
    if (!u || !ctx.shard.acl().erase(ctx.args[j])) continue;
    close_clients_of(ctx, u.get());
    ++deleted;
  }
  if (deleted > 0) ctx.shard.note_acl_change();
  ctx.out.integer(deleted);
}

void describe_selector_reply(Context& ctx, const acl::Selector& s) {
  ctx.out.bulk("commands");
  ctx.out.bulk(acl::describe_commands(s));
  ctx.out.bulk("keys");
  ctx.out.bulk(acl::describe_keys(s));
  ctx.out.bulk("channels");
  ctx.out.bulk(acl::describe_channels(s));
}

void acl_getuser(Context& ctx) {
  std::shared_ptr<acl::User> u = ctx.shard.acl().find(ctx.args[2]);
  if (!u) {
    ctx.out.null();
    return;
  }
  ctx.out.map(6);
  ctx.out.bulk("flags");
  static constexpr std::pair<acl::UserFlag, std::string_view> kNames[] = {
      {acl::kOn, "on"},
      {acl::kOff, "off"},
      {acl::kNoPass, "nopass"},
      {acl::kSkipSanitize, "skip-sanitize-payload"},
      {acl::kSanitize, "sanitize-payload"}};
  std::size_t n = 0;
  for (const auto& f : kNames) n += (u->flags & f.first) ? 1 : 0;
  ctx.out.set(n);
  for (const auto& [flag, name] : kNames) {
    if (u->flags & flag) ctx.out.bulk(name);
  }
  ctx.out.bulk("passwords");
  ctx.out.array(u->passwords.size());
  for (const std::string& p : u->passwords) ctx.out.bulk(p);
  describe_selector_reply(ctx, u->selectors[0]);
  ctx.out.bulk("selectors");
  ctx.out.array(u->selectors.size() - 1);
  for (std::size_t i = 1; i < u->selectors.size(); ++i) {
    ctx.out.map(3);
    describe_selector_reply(ctx, u->selectors[i]);
  }
}

void acl_list(Context& ctx) {
  const auto& users = ctx.shard.acl().all();
  ctx.out.array(users.size());
  for (const auto& [name, u] : users) ctx.out.bulk("user " + name + " " + acl::describe_user(*u));
}

void acl_users(Context& ctx) {
  const auto& users = ctx.shard.acl().all();
  ctx.out.array(users.size());
  for (const auto& [name, u] : users) ctx.out.bulk(name);
}

void acl_whoami(Context& ctx) {
  ctx.out.bulk(acl_user_name(ctx.client));
}

void acl_cat(Context& ctx) {
  if (ctx.argc() > 3) {
    syntax_error(ctx);
    return;
  }
  if (ctx.argc() == 2) {
    ctx.out.array(acl::kCategories.size());
    for (std::string_view c : acl::kCategories) ctx.out.bulk(c);
    return;
  }
  const std::uint32_t flag = acl::category_flag(ctx.args[2]);
  if (flag == 0) {
    ctx.out.error("ERR Unknown category '" + std::string(ctx.args[2].substr(0, 128)) + "'");
    return;
  }
  const acl::CommandIds& ids = acl::command_ids();
  std::vector<std::string_view> names;
  for (int id : ids.top) {
    if (ids.cats[static_cast<std::size_t>(id)] & flag)
      names.push_back(ids.fullname[static_cast<std::size_t>(id)]);
    for (int sub : ids.subs[static_cast<std::size_t>(id)]) {
      if (ids.cats[static_cast<std::size_t>(sub)] & flag)
        names.push_back(ids.fullname[static_cast<std::size_t>(sub)]);
    }
  }
  ctx.out.array(names.size());
  for (std::string_view n : names) ctx.out.bulk(n);
}

void acl_genpass(Context& ctx) {
  if (ctx.argc() > 3) {
    syntax_error(ctx);
    return;
  }
  std::int64_t bits = 256;
  if (ctx.argc() == 3) {
    auto v = parse_int64(ctx.args[2]);
    if (!v) {
      ctx.out.error(err::kNotInt);
      return;
    }
    bits = *v;
  }
  if (bits <= 0 || bits > 4096) {
    ctx.out.error(
        "ERR ACL GENPASS argument must be the number of bits for the output password, a "
        "positive number up to 4096");
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device rd;  // /dev/urandom, as Redis's getRandomHexChars
  std::string pass(static_cast<std::size_t>((bits + 3) / 4), '0');
  for (char& c : pass) c = kHex[rd() & 15];
  ctx.out.bulk(pass);
}

void acl_log(Context& ctx) {
  if (ctx.argc() > 3) {
    syntax_error(ctx);
    return;
  }
  acl::Users& users = ctx.shard.acl();
  std::int64_t count = 10;
  if (ctx.argc() == 3) {
    if (iequals(ctx.args[2], "reset")) {
      users.log_reset();
      ctx.out.ok();
      return;
    }
    auto v = parse_int64(ctx.args[2]);
    if (!v) {
      ctx.out.error(err::kNotInt);
      return;
    }
    count = *v < 0 ? 0 : *v;
  }
  const auto& log = users.log_entries();
  write_acl_log(ctx.out, log, std::min(static_cast<std::size_t>(count), log.size()), wall_ms());
}

void acl_dryrun(Context& ctx) {
  std::shared_ptr<acl::User> u = ctx.shard.acl().find(ctx.args[2]);
  if (!u) {
    ctx.out.error("ERR User '" + std::string(ctx.args[2]) + "' not found");
    return;
  }
  const auto args = ctx.args.subspan(3);
  const CommandDef* def = command_table().find(args[0]);
  if (def != nullptr && !def->subcommands.empty() && args.size() >= 2) {
    def = CommandTable::find_sub(*def, args[1]);
  }
  if (def == nullptr) {
    ctx.out.error("ERR Command '" + std::string(args[0]) + "' not found");
    return;
  }
  const int n = static_cast<int>(args.size());
  if (def->arity >= 0 ? n != def->arity : n < -def->arity) {
    ctx.out.error("ERR wrong number of arguments for '" + std::string(def->name) + "' command");
    return;
  }
  const acl::Verdict v = acl::check(*u, *def, args);
  switch (v.denied) {
    case acl::Denied::kOk:
      ctx.out.ok();
      return;
    case acl::Denied::kCommand:
      ctx.out.bulk("This user has no permissions to run the '" + std::string(def->name) +
                   "' command");
      return;
    case acl::Denied::kKey:
      ctx.out.bulk("This user has no permissions to access the '" + std::string(args[v.pos]) +
                   "' key");
      return;
    default:
      ctx.out.bulk("This user has no permissions to access the '" + std::string(args[v.pos]) +
                   "' channel");
      return;
  }
}

constexpr std::string_view kNoAclFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";

void acl_load(Context& ctx) {
  const std::string& file = ctx.shard.config().aclfile;
  if (file.empty()) {
    ctx.out.error(kNoAclFile);
    return;
  }
  std::string err;
  const std::optional<std::string> text = acl::read_acl_file(file, err);
  if (!text) {
    ctx.out.error("ERR " + err);
    return;
  }
  std::vector<std::shared_ptr<acl::User>> removed;
  err = ctx.shard.acl().load(*text, file, &removed);
  if (!err.empty()) {
    ctx.out.error("ERR " + err);
    return;
  }
  for (const auto& u : removed) close_clients_of(ctx, u.get());
  ctx.shard.note_acl_change();
  ctx.out.ok();
}

void acl_save(Context& ctx) {
  const std::string& file = ctx.shard.config().aclfile;
  if (file.empty()) {
    ctx.out.error(kNoAclFile);
    return;
  }
  // Written whole to a temporary name and renamed over the file, as Redis does.
  const std::string tmp = file + ".tmp-" + std::to_string(::getpid());
  const std::string text = ctx.shard.acl().save_text();
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr) ok = (std::fclose(f) == 0) && ok;
  ok = ok && std::rename(tmp.c_str(), file.c_str()) == 0;
  if (!ok) {
    std::remove(tmp.c_str());
    ctx.out.error(
        "ERR There was an error trying to save the ACLs. Please check the server logs for more "
        "information");
    return;
  }
  ctx.out.ok();
}

void acl_help(Context& ctx) {
  reply_help(ctx, "ACL",
             {"CAT [<category>]",
              "    List all commands that belong to <category>, or all command categories",
              "    when no category is specified.",
              "DELUSER <username> [<username> ...]",
              "    Delete a list of users.",
              "DRYRUN <username> <command> [<arg> ...]",
              "    Returns whether the user can execute the given command without executing the "
              "command.",
              "GETUSER <username>",
              "    Get the user's details.",
              "GENPASS [<bits>]",
              "    Generate a secure 256-bit user password. The optional `bits` argument can",
              "    be used to specify a different size.",
              "LIST",
              "    Show users details in config file format.",
              "LOAD",
              "    Reload users from the ACL file.",
              "LOG [<count> | RESET]",
              "    Show the ACL log entries.",
              "SAVE",
              "    Save the current config to the ACL file.",
              "SETUSER <username> <attribute> [<attribute> ...]",
              "    Create or modify a user with the specified attributes.",
              "USERS",
              "    List all the registered usernames.",
              "WHOAMI",
              "    Return the current connection username."});
}

constexpr std::uint32_t kAclAdmin = kAdmin | kNoScript | kLoading | kStale;
constexpr std::uint32_t kAclUser = kNoScript | kLoading | kStale;
constexpr std::string_view kAdminCats = "admin slow dangerous";
constexpr Routing kEveryWorker{Where::kAllWorkers, Merge::kFirstError};

// In redis-server's order (COMMAND INFO / DOCS list subcommands so).
const CommandDef kAclSubcommands[] = {
    {"acl|dryrun", -4, kAclAdmin, &decl::acl_dryrun, acl_dryrun, "server",
     "Returns whether the user can execute the given command without executing the command.",
     "7.0.0", "O(1).", kAdminCats},
    {"acl|setuser",
     -3,
     kAclAdmin,
     &decl::acl_setuser,
     acl_setuser,
     "server",
     "Modify or create the rules for a specific ACL user",
     "6.0.0",
     "O(N). Where N is the number of rules provided.",
     kAdminCats,
     {},
     kEveryWorker},
    {"acl|load",
     2,
     kAclAdmin,
     &decl::acl_load,
     acl_load,
     "server",
     "Reload the ACLs from the configured ACL file",
     "6.0.0",
     "O(N). Where N is the number of configured users.",
     kAdminCats,
     {},
     kEveryWorker},
    {"acl|help", 2, kLoading | kStale, &decl::acl_help, acl_help, "server",
     "Show helpful text about the different subcommands", "6.0.0", "O(1)", "slow"},
    {"acl|whoami", 2, kAclUser, &decl::acl_whoami, acl_whoami, "server",
     "Return the name of the user associated to the current connection", "6.0.0", "O(1)", "slow"},
    {"acl|list", 2, kAclAdmin, &decl::acl_list, acl_list, "server",
     "List the current ACL rules in ACL config file format", "6.0.0",
     "O(N). Where N is the number of configured users.", kAdminCats},
    {"acl|log",
     -2,
     kAclAdmin,
     &decl::acl_log,
     acl_log,
     "server",
     "List latest events denied because of ACLs in place",
     "6.0.0",
     "O(N) with N being the number of entries shown.",
     kAdminCats,
     {},
     {Where::kAllWorkers, Merge::kAclLog}},
    {"acl|save", 2, kAclAdmin, &decl::acl_save, acl_save, "server",
     "Save the current ACL rules in the configured ACL file", "6.0.0",
     "O(N). Where N is the number of configured users.", kAdminCats},
    {"acl|deluser",
     -3,
     kAclAdmin,
     &decl::acl_deluser,
     acl_deluser,
     "server",
     "Remove the specified ACL users and the associated rules",
     "6.0.0",
     "O(1) amortized time considering the typical user.",
     kAdminCats,
     {},
     kEveryWorker},
    {"acl|getuser", 3, kAclAdmin, &decl::acl_getuser, acl_getuser, "server",
     "Get the rules for a specific ACL user", "6.0.0",
     "O(N). Where N is the number of password, command and pattern rules that the user has.",
     kAdminCats},
    {"acl|cat", -2, kAclUser, &decl::acl_cat, acl_cat, "server",
     "List the ACL categories or the commands inside a category", "6.0.0",
     "O(1) since the categories and commands are a fixed set.", "slow"},
    {"acl|genpass", -2, kAclUser, &decl::acl_genpass, acl_genpass, "server",
     "Generate a pseudorandom secure password to use for ACL users", "6.0.0", "O(1)", "slow"},
    {"acl|users", 2, kAclAdmin, &decl::acl_users, acl_users, "server",
     "List the username of all the configured ACL rules", "6.0.0",
     "O(N). Where N is the number of configured users.", kAdminCats},
};

const CommandDef kAclCommands[] = {
    {"acl", -2, 0, &decl::acl, nullptr, "server", "A container for Access List Control commands",
     "6.0.0", "Depends on subcommand.", "slow", kAclSubcommands},
};

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

std::span<const CommandDef> acl_commands() {
  return kAclCommands;
}

}  // namespace ruvio::worker
