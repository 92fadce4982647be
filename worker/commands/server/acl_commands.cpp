// ACL family: ACL SETUSER GETUSER DELUSER LIST USERS WHOAMI CAT GENPASS LOG DRYRUN LOAD SAVE
// HELP (arguments → worker/engine/acl.hpp → reply), and the permission check the executor
// runs for restricted users. SETUSER, DELUSER and LOAD run on every worker (their routing),
// so the users are the same wherever a client connects.
#include <unistd.h>

#include <cstdio>
#include <random>

#include "worker/commands/server/acl_decls.hpp"
#include "worker/engine/acl_check.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/subcommand.hpp"

namespace ruvio::worker {
namespace {

// Closes the clients authenticated as `u` (DELUSER, LOAD): the one running this command
// after its reply, as Redis's CLIENT_CLOSE_AFTER_COMMAND.
void close_clients_of(Context& ctx, const acl::User* u) {
  if (ctx.client.user.get() == u) ctx.client.close_after_reply = true;
  ctx.shard.host().close_clients([u](const ClientInfo& c) { return c.user.get() == u; },
                                 &ctx.client);
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
  write_acl_log(ctx.out, log, std::min(static_cast<std::size_t>(count), log.size()),
                wall_clock_ms());
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

constexpr Routing kEveryWorker{Where::kAllWorkers, Merge::kFirstError};

// In redis-server's order (COMMAND INFO / DOCS list subcommands so).
const CommandDef kAclSubcommands[] = {
    {&decl::acl_dryrun, acl_dryrun},
    {.decl = &decl::acl_setuser, .handler = acl_setuser, .routing = kEveryWorker},
    {.decl = &decl::acl_load, .handler = acl_load, .routing = kEveryWorker},
    {&decl::acl_help, acl_help},
    {&decl::acl_whoami, acl_whoami},
    {&decl::acl_list, acl_list},
    {.decl = &decl::acl_log, .handler = acl_log, .routing = {Where::kAllWorkers, Merge::kAclLog}},
    {&decl::acl_save, acl_save},
    {.decl = &decl::acl_deluser, .handler = acl_deluser, .routing = kEveryWorker},
    {&decl::acl_getuser, acl_getuser},
    {&decl::acl_cat, acl_cat},
    {&decl::acl_genpass, acl_genpass},
    {&decl::acl_users, acl_users},
};

const CommandDef kAclCommands[] = {
    {.decl = &decl::acl, .handler = nullptr, .subcommands = kAclSubcommands},
};

}  // namespace

std::span<const CommandDef> acl_commands() {
  return kAclCommands;
}

}  // namespace ruvio::worker
