// COMMAND, COMMAND COUNT/INFO/DOCS/LIST/GETKEYS/HELP, answered from the declaration tables.
// Reply shapes are Redis 7.0's (COMMAND INFO: name, arity, flags, first, last, step, ACL
// categories, tips, key specs, subcommands; COMMAND DOCS: summary, since, group, complexity,
// doc_flags, deprecated_since, replaced_by, history, arguments, subcommands), each written
// from the command's CommandDef and CommandDecl the way redis-server's commandInfo/Docs do.
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "shared/glob.hpp"
#include "worker/commands/server/server_family.hpp"
#include "worker/engine/acl.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/subcommand.hpp"

namespace ruvio::worker::srvfam {
namespace {

// Derived from the key specs, never declared (Redis's CMD_MOVABLE_KEYS).
constexpr std::uint32_t kMovableKeys = kRedisFlags + 1;  // the first bit no decl states

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
    // may_replicate (PUBLISH: CLIENT PAUSE WRITE postpones it) and sentinel are hidden, as in
    // Redis 7.0's COMMAND INFO.
    {kNoMandatoryKeys, "no_mandatory_keys"},
    {kNoAsyncLoading, "no_async_loading"},
    {kNoMulti, "no_multi"},
    {kMovableKeys, "movablekeys"},
    {kAllowBusy, "allow_busy"},
};

std::string_view arg_type_name(ArgType type) {
  switch (type) {
    case ArgType::kString:
      return "string";
    case ArgType::kInteger:
      return "integer";
    case ArgType::kDouble:
      return "double";
    case ArgType::kKey:
      return "key";
    case ArgType::kPattern:
      return "pattern";
    case ArgType::kUnixTime:
      return "unix-time";
    case ArgType::kPureToken:
      return "pure-token";
    case ArgType::kOneof:
      return "oneof";
    case ArgType::kBlock:
      return "block";
  }
  return "";
}

// "object|encoding" for a subcommand declared as "encoding" or "object|encoding".
std::string full_name(const CommandDef& def, const CommandDef* parent) {
  if (parent == nullptr || def.name.find('|') != std::string_view::npos) {
    return std::string(def.name);
  }
  std::string n(parent->name);
  return n.append("|").append(def.name);
}

// Writes `bits` as a set of status words from `names`, in the table's order (Redis's
// addReplyCommandFlags).
template <std::size_t N>
void reply_flags(proto::ReplyWriter& out, std::uint32_t bits, const FlagName (&names)[N]) {
  std::size_t n = 0;
  for (const FlagName& f : names) n += (bits & f.bit) ? 1 : 0;
  out.set(n);
  for (const FlagName& f : names) {
    if (bits & f.bit) out.simple(f.name);
  }
}

constexpr FlagName kKeyFlagNames[] = {
    {kKeyRO, "RO"},
    {kKeyRW, "RW"},
    {kKeyOW, "OW"},
    {kKeyRM, "RM"},
    {kKeyAccess, "access"},
    {kKeyUpdate, "update"},
    {kKeyInsert, "insert"},
    {kKeyDelete, "delete"},
    {kKeyNotKey, "not_key"},
    {kKeyIncomplete, "incomplete"},
    {kKeyVariableFlags, "variable_flags"},
};
constexpr FlagName kArgFlagNames[] = {
    {kArgOptional, "optional"},
    {kArgMultiple, "multiple"},
    {kArgMultipleToken, "multiple_token"},
};
constexpr FlagName kDocFlagNames[] = {{kDocDeprecated, "deprecated"}, {kDocSyscmd, "syscmd"}};

void reply_key_spec(proto::ReplyWriter& out, const KeySpec& spec) {
  out.map(spec.notes.empty() ? 3 : 4);
  if (!spec.notes.empty()) {
    out.bulk("notes");
    out.bulk(spec.notes);
  }
  out.bulk("flags");
  reply_flags(out, spec.flags, kKeyFlagNames);
  out.bulk("begin_search");
  out.map(2);
  out.bulk("type");
  if (spec.begin.type == BeginSearch::kUnknown) {
    out.bulk("unknown");
    out.bulk("spec");
    out.map(0);
  } else if (spec.begin.type == BeginSearch::kIndex) {
    out.bulk("index");
    out.bulk("spec");
    out.map(1);
    out.bulk("index");
    out.integer(spec.begin.pos);
  } else {
    out.bulk("keyword");
    out.bulk("spec");
    out.map(2);
    out.bulk("keyword");
    out.bulk(spec.begin.keyword);
    out.bulk("startfrom");
    out.integer(spec.begin.pos);
  }
  out.bulk("find_keys");
  out.map(2);
  out.bulk("type");
  if (spec.find.type == FindKeys::kUnknown) {
    out.bulk("unknown");
    out.bulk("spec");
    out.map(0);
    return;
  }
  const bool range = spec.find.type == FindKeys::kRange;
  out.bulk(range ? "range" : "keynum");
  out.bulk("spec");
  out.map(3);
  out.bulk(range ? "lastkey" : "keynumidx");
  out.integer(spec.find.a);
  out.bulk(range ? "keystep" : "firstkey");
  out.integer(spec.find.b);
  out.bulk(range ? "limit" : "keystep");
  out.integer(spec.find.c);
}

void reply_info(Context& ctx, const CommandDef& def, const CommandDef* parent) {
  auto& out = ctx.out;
  const CommandDecl& decl = *def.decl;
  const LegacyRange range = legacy_range(decl);
  out.array(10);
  out.bulk(full_name(def, parent));
  out.integer(decl.arity);
  reply_flags(out, decl.flags | (range.movable ? kMovableKeys : 0u), kFlagNames);
  out.integer(range.first);
  out.integer(range.last);
  out.integer(range.step);

  // Redis's addReplyCommandCategories: the categories in ACLCommandCategories' order.
  out.set(static_cast<std::size_t>(std::popcount(decl.acl)));
  for (std::size_t j = 0; j < kAclCategoryNames.size(); ++j) {
    if (!(decl.acl & (1u << j))) continue;
    std::string cat = "@";
    out.simple(cat.append(kAclCategoryNames[j]));
  }

  out.set(decl.tips.size());
  for (Tip tip : decl.tips) out.bulk(tip_name(tip));
  // Redis 7.0 sends key specs as a set, and an empty subcommand list as an empty set.
  out.set(decl.keys.size());
  for (const KeySpec& spec : decl.keys) reply_key_spec(out, spec);

  if (def.subcommands.empty()) {
    out.set(0);
    return;
  }
  out.array(def.subcommands.size());
  for (const CommandDef& sub : def.subcommands) reply_info(ctx, sub, &def);
}

// Redis's addReplyCommandArgList.
void reply_args(proto::ReplyWriter& out, std::span<const Arg> args) {
  out.array(args.size());
  for (const Arg& a : args) {
    const bool nested = a.type == ArgType::kOneof || a.type == ArgType::kBlock;
    // A pure token always has its token, even an empty one (MIGRATE's "" for the key).
    const bool has_token = !a.token.empty() || a.type == ArgType::kPureToken;
    out.map(2 + (a.key_spec_index >= 0) + has_token + !a.summary.empty() + !a.since.empty() +
            !a.deprecated_since.empty() + (a.flags != 0) + nested);
    out.bulk("name");
    out.bulk(a.name);
    out.bulk("type");
    out.bulk(arg_type_name(a.type));
    if (a.key_spec_index >= 0) {
      out.bulk("key_spec_index");
      out.integer(a.key_spec_index);
    }
    auto field = [&](std::string_view name, std::string_view value) {
      if (value.empty()) return;
      out.bulk(name);
      out.bulk(value);
    };
    if (has_token) {
      out.bulk("token");
      out.bulk(a.token);
    }
    field("summary", a.summary);
    field("since", a.since);
    field("deprecated_since", a.deprecated_since);
    if (a.flags != 0) {
      out.bulk("flags");
      reply_flags(out, a.flags, kArgFlagNames);
    }
    if (nested) {
      out.bulk("arguments");
      reply_args(out, a.args);
    }
  }
}

// Redis's addReplyCommandDocs.
void reply_docs(Context& ctx, const CommandDef& def, const CommandDef* parent) {
  auto& out = ctx.out;
  const CommandDecl& decl = *def.decl;
  out.bulk(full_name(def, parent));
  const bool subs = !def.subcommands.empty();
  // LOLWUT declares no complexity, and Redis then sends none.
  out.map(3 + !decl.complexity.empty() + (decl.doc_flags != 0) + !decl.deprecated_since.empty() +
          !decl.replaced_by.empty() + !decl.history.empty() + !decl.args.empty() + subs);
  out.bulk("summary");
  out.bulk(decl.summary);
  out.bulk("since");
  out.bulk(decl.since);
  out.bulk("group");
  out.bulk(decl.group);
  if (!decl.complexity.empty()) {
    out.bulk("complexity");
    out.bulk(decl.complexity);
  }
  if (decl.doc_flags != 0) {
    out.bulk("doc_flags");
    reply_flags(out, decl.doc_flags, kDocFlagNames);
  }
  if (!decl.deprecated_since.empty()) {
    out.bulk("deprecated_since");
    out.bulk(decl.deprecated_since);
  }
  if (!decl.replaced_by.empty()) {
    out.bulk("replaced_by");
    out.bulk(decl.replaced_by);
  }
  if (!decl.history.empty()) {
    out.bulk("history");
    out.set(decl.history.size());
    for (const History& h : decl.history) {
      out.array(2);
      out.bulk(h.version);
      out.bulk(h.change);
    }
  }
  if (!decl.args.empty()) {
    out.bulk("arguments");
    reply_args(out, decl.args);
  }
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
  for (std::size_t j = 0; j < kAclCategoryNames.size(); ++j) {
    if (iequals(kAclCategoryNames[j], cat)) return (def.decl->acl & (1u << j)) != 0;
  }
  return false;
}

}  // namespace

void cmd_command(Context& ctx) {
  if (ctx.argc() > 1) {
    dispatch_subcommand(ctx, *ctx.command);
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

// Redis 7.0's getKeysSubcommandImpl: the keys of a full command line as the key specs (and
// SORT's own finder) find them, with their flags for GETKEYSANDFLAGS (as the ACL key check sees
// them).
namespace {
void getkeys_impl(Context& ctx, bool with_flags) {
  const std::span<const std::string_view> line = ctx.args.subspan(2);
  const CommandDef* def = command_table().find(line[0]);
  if (def != nullptr && !def->subcommands.empty() && line.size() >= 2) {
    def = CommandTable::find_sub(*def, line[1]);
  }
  if (def == nullptr) {
    ctx.out.error("ERR Invalid command specified");
    return;
  }
  bool has_keys = false;
  for (const KeySpec& spec : def->decl->keys) has_keys |= !(spec.flags & kKeyNotKey);
  if (!has_keys) {
    ctx.out.error("ERR The command has no key arguments");
    return;
  }
  const auto argc = static_cast<int>(line.size());
  if ((def->arity > 0 && def->arity != argc) || argc < -def->arity) {
    ctx.out.error("ERR Invalid number of arguments specified for command");
    return;
  }
  const auto keys = acl::keys_and_flags(*def, line);
  if (!keys || keys->empty()) {
    if (def->flags & kNoMandatoryKeys) {
      ctx.out.array(0);
    } else {
      ctx.out.error("ERR Invalid arguments specified for command");
    }
    return;
  }
  ctx.out.array(keys->size());
  for (const acl::KeyAndFlags& k : *keys) {
    if (!with_flags) {
      ctx.out.bulk(line[k.pos]);
      continue;
    }
    ctx.out.array(2);
    ctx.out.bulk(line[k.pos]);
    reply_flags(ctx.out, k.flags, kKeyFlagNames);
  }
}
}  // namespace

void command_getkeys(Context& ctx) {
  getkeys_impl(ctx, false);
}

void command_getkeysandflags(Context& ctx) {
  getkeys_impl(ctx, true);
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
