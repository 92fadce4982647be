// One declaration per command: every row of the command table (worker/commands/*/) takes what
// Redis declares (name, arity, flags, ACL categories) from its CommandDecl alone, and states
// only Ruvio's own traits. A row that states a Redis flag (as `.traits`, or by overriding the
// derived name/arity/flags) fails here, as does a decl whose ACL categories contradict its
// flags the way Redis's setImplicitACLCategories would add them.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "worker/engine/blocking.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_stats.hpp"
#include "worker/engine/command_table.hpp"

using namespace ruvio::worker;

namespace {

// Redis's setImplicitACLCategories: the categories a command's flags imply.
std::uint32_t implied_categories(const CommandDecl& d) {
  std::uint32_t c = 0;
  if (d.flags & kWrite) c |= kCatWrite;
  if ((d.flags & kReadonly) && !(d.acl & kCatScripting)) c |= kCatRead;
  if (d.flags & kAdmin) c |= kCatAdmin | kCatDangerous;
  if (d.flags & kPubsub) c |= kCatPubsub;
  if (d.flags & kFast) c |= kCatFast;
  if (d.flags & kBlocking) c |= kCatBlocking;
  if (!((d.acl | c) & kCatFast)) c |= kCatSlow;
  return c;
}

void check_row(const CommandDef& def, const CommandDef* parent,
               std::set<const CommandDecl*>& seen) {
  REQUIRE(def.decl != nullptr);
  const CommandDecl& d = *def.decl;
  INFO("command: ", std::string(d.name));
  CHECK(seen.insert(&d).second);  // each decl is one row's
  // What a row derives from its decl, never states.
  CHECK(def.name == d.name);
  CHECK(def.arity == d.arity);
  CHECK(def.flags == (d.flags | def.traits));
  // A decl's flags are Redis's, a row's traits Ruvio's own.
  CHECK((d.flags & ~static_cast<std::uint32_t>(kRedisFlags)) == 0u);
  CHECK((def.traits & ~static_cast<std::uint32_t>(kRuvioTraits)) == 0u);
  // The declared ACL categories: known ones, and those Redis adds for the flags.
  CHECK((d.acl >> kAclCategoryNames.size()) == 0u);
  CHECK((d.acl & implied_categories(d)) == implied_categories(d));
  CHECK(((d.acl & kCatFast) != 0) != ((d.acl & kCatSlow) != 0));
  CHECK(!d.group.empty());
  CHECK(!d.summary.empty());
  CHECK(!d.since.empty());
  CHECK(d.arity != 0);
  // Only a blocking command has a blocking spec.
  if (def.blocking != nullptr) CHECK((d.flags & kBlocking) != 0u);
  if (parent != nullptr) {
    const std::string prefix = std::string(parent->decl->name) + "|";
    CHECK(d.name.substr(0, prefix.size()) == prefix);
    CHECK(def.subcommands.empty());
  }
  // A container's declared subcommands are its rows' (in any order: rows may add Ruvio's).
  for (const CommandDecl* sub : d.subcommands) {
    bool found = false;
    for (const CommandDef& row : def.subcommands) found = found || row.decl == sub;
    INFO("declared subcommand: ", std::string(sub->name));
    CHECK(found);
  }
  if (!def.subcommands.empty()) CHECK(!d.subcommands.empty());
}

}  // namespace

TEST_CASE("every row takes Redis's declaration from its CommandDecl alone") {
  std::set<const CommandDecl*> seen;
  std::size_t rows = 0;
  for (const CommandDef* def : command_table().all()) {
    check_row(*def, nullptr, seen);
    ++rows;
    for (const CommandDef& sub : def->subcommands) {
      check_row(sub, def, seen);
      ++rows;
    }
  }
  CHECK(rows > 300);
}

TEST_CASE("the traits and flags of a few rows") {
  const CommandTable& t = command_table();
  // Redis declares these; the rows only point at the decls.
  CHECK(t.find("get")->flags == (kReadonly | kFast));
  CHECK(t.find("get")->decl->acl == (kCatRead | kCatString | kCatFast));
  CHECK(t.find("hdel")->decl->flags == (kWrite | kFast));
  CHECK((t.find("publish")->decl->flags & kMayReplicate) != 0u);  // hidden from COMMAND INFO
  // Ruvio's own, stated by the rows.
  CHECK(t.find("exec")->traits == kTxExec);
  CHECK(t.find("debug")->traits == kRouteDebug);
  CHECK(t.find("touch")->traits == kTouchAlways);
  CHECK((t.find("reset")->traits & (kSubscribedOk | kTxImmediate | kTxUnwatch)) ==
        (kSubscribedOk | kTxImmediate | kTxUnwatch));
  CHECK(t.find("blpop")->blocking == &kBlockList);
  CHECK(t.find("bzmpop")->blocking == &kBlockBzmpop);
  CHECK(t.find("xread")->blocking != nullptr);
  CHECK(t.find("xreadgroup")->blocking != nullptr);
  CHECK(t.find("get")->blocking == nullptr);
  CHECK(t.find("ssubscribe")->acl_args == AclArgs::kAllChannels);
  CHECK(t.find("psubscribe")->acl_args == AclArgs::kAllPatterns);
  CHECK(t.find("spublish")->acl_args == AclArgs::kFirstChannel);
  CHECK((t.find("sort")->getkeys != nullptr));
  CHECK((t.find("sort_ro")->getkeys == nullptr));
  CHECK(t.find("get")->acl_args == AclArgs::kSpecs);
  CHECK((t.find("auth")->redact == &redact_auth));
  CHECK((t.find("get")->redact == nullptr));
}

TEST_CASE("SLOWLOG and MONITOR redact what the row that ran says") {
  const CommandTable& t = command_table();
  std::vector<std::size_t> pos;
  const std::vector<std::string_view> auth = {"AUTH", "user", "pass"};
  CHECK(redacted_args(t.find("auth"), auth, pos));
  CHECK(pos == std::vector<std::size_t>{1, 2});
  pos.clear();
  const std::vector<std::string_view> config = {"CONFIG", "SET", "requirepass", "x", "port", "1"};
  CHECK(redacted_args(t.find("config"), config, pos));  // CONFIG SET's row decides
  CHECK(pos == std::vector<std::size_t>{3});
  pos.clear();
  const std::vector<std::string_view> get = {"GET", "requirepass"};
  CHECK_FALSE(redacted_args(t.find("get"), get, pos));
  CHECK_FALSE(redacted_args(nullptr, auth, pos));
}
