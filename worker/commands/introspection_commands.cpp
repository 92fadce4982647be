// COMMAND, COMMAND COUNT/INFO/DOCS/LIST/GETKEYS/HELP, answered from the declaration tables.
// Reply shapes are Redis 7.0's (COMMAND INFO: name, arity, flags, first, last, step, ACL
// categories, tips, key specs, subcommands). Key specs are derived from (first, last, step):
// one index/range spec, which is what clients use to find keys.
#include <string>
#include <vector>

#include "worker/commands/command_table.hpp"
#include "worker/commands/common.hpp"
#include "worker/commands/glob.hpp"
#include "worker/commands/server_family.hpp"
#include "worker/commands/subcommand.hpp"

namespace ruvio::worker::srvfam {
namespace {

// Redis's flag names, in the order COMMAND INFO lists them.
struct FlagName {
  std::uint32_t bit;
  std::string_view name;
};
constexpr FlagName kFlagNames[] = {
    {kWrite, "write"},
    {kReadonly, "readonly"},
    {kDenyOom, "denyoom"},
    {kAdmin, "admin"},
    {kPubsub, "pubsub"},
    {kNoScript, "noscript"},
    {kBlocking, "blocking"},
    {kLoading, "loading"},
    {kStale, "stale"},
    {kSkipMonitor, "skip_monitor"},
    {kSkipSlowlog, "skip_slowlog"},
    {kFast, "fast"},
    {kNoAuth, "no_auth"},
    {kMayReplicate, "may_replicate"},
    {kSentinel, "sentinel"},
    {kNoMulti, "no_multi"},
    {kAllowBusy, "allow_busy"},
};

// Calls f on each space-separated word of s.
template <class F>
void for_each_word(std::string_view s, F&& f) {
  while (!s.empty()) {
    const auto sp = s.find(' ');
    const std::string_view w = s.substr(0, sp);
    if (!w.empty()) f(w);
    if (sp == std::string_view::npos) break;
    s.remove_prefix(sp + 1);
  }
}

// "object|encoding" for a subcommand declared as "encoding" or "object|encoding".
std::string full_name(const CommandDef& def, const CommandDef* parent) {
  if (parent == nullptr || def.name.find('|') != std::string_view::npos) {
    return std::string(def.name);
  }
  std::string n(parent->name);
  return n.append("|").append(def.name);
}

void reply_info(Context& ctx, const CommandDef& def, const CommandDef* parent) {
  auto& out = ctx.out;
  out.array(10);
  out.bulk(full_name(def, parent));
  out.integer(def.arity);

  std::size_t nflags = def.keys.incomplete ? 1 : 0;
  for (const FlagName& f : kFlagNames) nflags += (def.flags & f.bit) ? 1 : 0;
  out.set(nflags);
  for (const FlagName& f : kFlagNames) {
    if (def.flags & f.bit) out.simple(f.name);
  }
  if (def.keys.incomplete) out.simple("movablekeys");

  out.integer(def.keys.first);
  out.integer(def.keys.last);
  out.integer(def.keys.step);

  std::size_t ncats = 0;
  for_each_word(def.acl, [&](std::string_view) { ++ncats; });
  out.set(ncats);
  for_each_word(def.acl, [&](std::string_view w) {
    std::string cat = "@";
    out.simple(cat.append(w));
  });

  out.set(0);  // tips

  // Redis 7.0 sends key specs as a set, and an empty subcommand list as an empty set.
  if (def.keys.first > 0) {
    out.set(1);
    out.map(3);
    out.bulk("flags");
    const bool write = (def.flags & kWrite) != 0;
    out.set(2);
    out.simple(write ? "RW" : "RO");
    out.simple(write ? "update" : "access");
    out.bulk("begin_search");
    out.map(2);
    out.bulk("type");
    out.bulk("index");
    out.bulk("spec");
    out.map(1);
    out.bulk("index");
    out.integer(def.keys.first);
    out.bulk("find_keys");
    out.map(2);
    out.bulk("type");
    out.bulk("range");
    out.bulk("spec");
    out.map(3);
    out.bulk("lastkey");
    out.integer(def.keys.last < 0 ? def.keys.last : def.keys.last - def.keys.first);
    out.bulk("keystep");
    out.integer(def.keys.step);
    out.bulk("limit");
    out.integer(0);
  } else {
    out.set(0);
  }

  if (def.subcommands.empty()) {
    out.set(0);
    return;
  }
  out.array(def.subcommands.size());
  for (const CommandDef& sub : def.subcommands) reply_info(ctx, sub, &def);
}

void reply_docs(Context& ctx, const CommandDef& def, const CommandDef* parent) {
  auto& out = ctx.out;
  out.bulk(full_name(def, parent));
  const bool subs = !def.subcommands.empty();
  out.map(4 + (subs ? 1 : 0));
  out.bulk("summary");
  out.bulk(def.summary);
  out.bulk("since");
  out.bulk(def.since);
  out.bulk("group");
  out.bulk(def.group);
  out.bulk("complexity");
  out.bulk(def.complexity);
  if (subs) {
    out.bulk("subcommands");
    out.map(def.subcommands.size());
    for (const CommandDef& sub : def.subcommands) reply_docs(ctx, sub, &def);
  }
}

// "get" or "object|encoding", case-insensitive. The parent is set for a subcommand.
const CommandDef* lookup(std::string_view name, const CommandDef** parent) {
  *parent = nullptr;
  const auto bar = name.find('|');
  if (bar == std::string_view::npos) return command_table().find(name);
  const CommandDef* p = command_table().find(name.substr(0, bar));
  if (p == nullptr) return nullptr;
  *parent = p;
  return CommandTable::find_sub(*p, name.substr(bar + 1));
}

bool has_category(const CommandDef& def, std::string_view cat) {
  bool hit = false;
  for_each_word(def.acl, [&](std::string_view w) { hit = hit || iequals(w, cat); });
  return hit;
}

}  // namespace

void cmd_command(Context& ctx) {
  if (ctx.argc() > 1) {
    dispatch_subcommand(ctx, *command_table().find("command"));
    return;
  }
  const auto& all = command_table().all();
  ctx.out.array(all.size());
  for (const CommandDef* def : all) reply_info(ctx, *def, nullptr);
}

void command_count(Context& ctx) {
  ctx.out.integer(static_cast<std::int64_t>(command_table().all().size()));
}

void command_info(Context& ctx) {
  if (ctx.argc() == 2) {
    const auto& all = command_table().all();
    ctx.out.array(all.size());
    for (const CommandDef* def : all) reply_info(ctx, *def, nullptr);
    return;
  }
  ctx.out.array(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const CommandDef* parent = nullptr;
    const CommandDef* def = lookup(ctx.args[i], &parent);
    if (def == nullptr) {
      ctx.out.null();
    } else {
      reply_info(ctx, *def, parent);
    }
  }
}

void command_docs(Context& ctx) {
  if (ctx.argc() == 2) {
    const auto& all = command_table().all();
    ctx.out.map(all.size());
    for (const CommandDef* def : all) reply_docs(ctx, *def, nullptr);
    return;
  }
  std::vector<std::pair<const CommandDef*, const CommandDef*>> found;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const CommandDef* parent = nullptr;
    if (const CommandDef* def = lookup(ctx.args[i], &parent)) found.emplace_back(def, parent);
  }
  ctx.out.map(found.size());
  for (const auto& [def, parent] : found) reply_docs(ctx, *def, parent);
}

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
void command_list(Context& ctx) {
  enum class Filter { kNone, kModule, kAclCat, kPattern } filter = Filter::kNone;
  std::string_view arg;
  if (ctx.argc() == 5 && iequals(ctx.args[2], "filterby")) {
    arg = ctx.args[4];
    if (iequals(ctx.args[3], "module")) {
      filter = Filter::kModule;
    } else if (iequals(ctx.args[3], "aclcat")) {
      filter = Filter::kAclCat;
    } else if (iequals(ctx.args[3], "pattern")) {
      filter = Filter::kPattern;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  } else if (ctx.argc() != 2) {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::vector<std::string> names;
  auto consider = [&](const CommandDef& def, const CommandDef* parent) {
    std::string name = full_name(def, parent);
    switch (filter) {
      case Filter::kNone:
        break;
      case Filter::kModule:
        return;  // no module commands
      case Filter::kAclCat:
        if (!has_category(def, arg)) return;
        break;
      case Filter::kPattern:
        if (!glob_match(arg, name, true)) return;
        break;
    }
    names.push_back(std::move(name));
  };
  for (const CommandDef* def : command_table().all()) {
    consider(*def, nullptr);
    for (const CommandDef& sub : def->subcommands) consider(sub, def);
  }
  ctx.out.array(names.size());
  for (const std::string& n : names) ctx.out.bulk(n);
}

void command_getkeys(Context& ctx) {
  const std::span<const std::string_view> line = ctx.args.subspan(2);
  const CommandDef* def = command_table().find(line[0]);
  if (def != nullptr && !def->subcommands.empty() && line.size() >= 2) {
    def = CommandTable::find_sub(*def, line[1]);
  }
  if (def == nullptr) {
    ctx.out.error("ERR Invalid command specified");
    return;
  }
  const auto argc = static_cast<int>(line.size());
  if ((def->arity > 0 && def->arity != argc) || argc < -def->arity) {
    ctx.out.error("ERR Invalid number of arguments specified for command");
    return;
  }
  const std::vector<std::string_view> keys = CommandTable::keys(*def, line);
  if (keys.empty()) {
    ctx.out.error("ERR The command has no key arguments");
    return;
  }
  ctx.out.array(keys.size());
  for (std::string_view k : keys) ctx.out.bulk(k);
}

void command_help(Context& ctx) {
  reply_help(ctx, "COMMAND",
             {"(no subcommand)", "    Return details about all Redis commands.", "COUNT",
              "    Return the total number of commands in this Redis server.", "LIST",
              "    Return a list of all commands in this Redis server.",
              "INFO [<command-name> ...]", "    Return details about multiple Redis commands.",
              "    If no command names are given, documentation details for all",
              "    commands are returned.", "DOCS [<command-name> ...]",
              "    Return documentation details about multiple Redis commands.",
              "    If no command names are given, documentation details for all",
              "    commands are returned.", "GETKEYS <full-command>",
              "    Return the keys from a full Redis command.", "GETKEYSANDFLAGS <full-command>",
              "    Return the keys and the access flags from a full Redis command."});
}

}  // namespace ruvio::worker::srvfam
