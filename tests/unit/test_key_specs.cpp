// for_each_key over Redis 7 key specs: the shapes redis-server 7.0 declares for EVAL
// (keynum), ZUNIONSTORE (two specs), XREAD (keyword + limit), MIGRATE (incomplete), SORT
// (unknown), MSET (step 2), with well-formed and malformed arguments; and COMMAND INFO's
// legacy (first, last, step) derived from them.
#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "worker/engine/command.hpp"
#include "worker/engine/command_table.hpp"

using namespace ruvio::worker;

namespace {

struct Walk {
  KeysFound found;
  std::vector<std::string> keys;
};

// A row for `decl` declared with `arity` and `flags` (deques: the rows point at their decls).
const CommandDef& def_with(const CommandDecl& decl, int arity, std::uint32_t flags = 0) {
  static std::deque<CommandDecl> decls;
  static std::deque<CommandDef> defs;
  CommandDecl& d = decls.emplace_back(decl);
  d.name = "x";
  d.arity = arity;
  d.flags = flags;
  return defs.emplace_back(CommandDef{&d, nullptr});
}

Walk walk(const CommandDef& def, std::vector<std::string_view> args, std::uint8_t options = 0) {
  Walk w;
  w.found = for_each_key(
      def, args, [&](std::size_t pos, const KeySpec&) { w.keys.emplace_back(args[pos]); }, options);
  return w;
}

using Keys = std::vector<std::string>;

constexpr KeySpec kEvalKeys[] = {
    {kKeyRW | kKeyAccess | kKeyUpdate, bs_index(2), fk_keynum(0, 1, 1)},
};
constexpr KeySpec kZunionstoreKeys[] = {
    {kKeyOW | kKeyUpdate, bs_index(1), fk_range(0, 1, 0)},
    {kKeyRO | kKeyAccess, bs_index(2), fk_keynum(0, 1, 1)},
};
constexpr KeySpec kXreadKeys[] = {
    {kKeyRO | kKeyAccess, bs_keyword("STREAMS", 1), fk_range(-1, 1, 2)},
};
constexpr KeySpec kMigrateKeys[] = {
    {kKeyRW | kKeyAccess | kKeyDelete, bs_index(3), fk_range(0, 1, 0)},
    {kKeyRW | kKeyAccess | kKeyDelete | kKeyIncomplete, bs_keyword("KEYS", -2), fk_range(-1, 1, 0)},
};
constexpr KeySpec kSortKeys[] = {
    {kKeyRO | kKeyAccess, bs_index(1), fk_range(0, 1, 0)},
    {kKeyOW | kKeyUpdate, bs_unknown(), fk_unknown()},
};
constexpr KeySpec kMsetKeys[] = {
    {kKeyOW | kKeyUpdate, bs_index(1), fk_range(-1, 2, 0)},
};
constexpr KeySpec kSpublishKeys[] = {
    {kKeyNotKey, bs_index(1), fk_range(0, 1, 0)},
};
constexpr KeySpec kGetKeys[] = {
    {kKeyRO | kKeyAccess, bs_index(1), fk_range(0, 1, 0)},
};
constexpr KeySpec kCopyKeys[] = {
    {kKeyRO | kKeyAccess, bs_index(1), fk_range(0, 1, 0)},
    {kKeyOW | kKeyUpdate, bs_index(2), fk_range(0, 1, 0)},
};
constexpr KeySpec kObjectKeys[] = {
    {kKeyRO, bs_index(2), fk_range(0, 1, 0)},
};

constexpr CommandDecl kEval{.keys = kEvalKeys};
constexpr CommandDecl kZunionstore{.keys = kZunionstoreKeys};
constexpr CommandDecl kXread{.keys = kXreadKeys};
constexpr CommandDecl kMigrate{.keys = kMigrateKeys};
constexpr CommandDecl kSort{.keys = kSortKeys};
constexpr CommandDecl kMset{.keys = kMsetKeys};
constexpr CommandDecl kSpublish{.keys = kSpublishKeys};
constexpr CommandDecl kGet{.keys = kGetKeys};
constexpr CommandDecl kCopy{.keys = kCopyKeys};
constexpr CommandDecl kObject{.keys = kObjectKeys};
constexpr CommandDecl kNoKeys{};

}  // namespace

TEST_CASE("for_each_key: EVAL's numkeys (begin_search index 2, keynum 0 1 1)") {
  const CommandDef& eval = def_with(kEval, -3, kNoMandatoryKeys);
  auto w = walk(eval, {"EVAL", "s", "2", "a", "b", "c"});
  CHECK(w.found == KeysFound::kOk);
  CHECK(w.keys == Keys{"a", "b"});

  // numkeys 0: an invalid spec, as in Redis (no keys; COMMAND GETKEYS answers an empty list
  // for EVAL, which may run without keys).
  w = walk(eval, {"EVAL", "s", "0"});
  CHECK(w.found == KeysFound::kInvalid);
  CHECK(w.keys.empty());
  w = walk(eval, {"EVAL", "s", "0", "a"});
  CHECK(w.found == KeysFound::kInvalid);
  CHECK(w.keys.empty());

  // Malformed numkeys: no keys; the command's handler answers Redis's error ("Number of keys
  // can't be negative" / "... greater than number of args" / not an integer).
  for (std::string_view n : {"-1", "3", "99999999999999999999", "1x", " 1", "+1", ""}) {
    CAPTURE(n);
    w = walk(eval, {"EVAL", "s", n, "a", "b"});
    CHECK(w.found == KeysFound::kInvalid);
  }
  w = walk(eval, {"EVAL", "s", "2", "a"});  // numkeys past argc
  CHECK(w.found == KeysFound::kInvalid);
  w = walk(eval, {"EVAL", "s"});  // no numkeys at all (short of arity)
  CHECK(w.found == KeysFound::kInvalid);
}

TEST_CASE("for_each_key: ZUNIONSTORE's two specs (destination, then keynum)") {
  const CommandDef& z = def_with(kZunionstore, -4);
  auto w = walk(z, {"ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"});
  CHECK(w.found == KeysFound::kOk);
  CHECK(w.keys == Keys{"d", "a", "b"});
  w = walk(z, {"ZUNIONSTORE", "d", "-1", "a"});
  CHECK(w.found == KeysFound::kInvalid);
  w = walk(z, {"ZUNIONSTORE", "d", "5", "a"});
  CHECK(w.found == KeysFound::kInvalid);
  // Redis: no keys at all (COMMAND GETKEYS answers "Invalid arguments"), not d alone.
  w = walk(z, {"ZUNIONSTORE", "d", "0", "a"});
  CHECK(w.found == KeysFound::kInvalid);
}

TEST_CASE("for_each_key: XREAD's STREAMS keyword (startfrom 1, range -1 step 1 limit 2)") {
  const CommandDef& x = def_with(kXread, -4);
  auto w = walk(x, {"XREAD", "COUNT", "2", "STREAMS", "a", "b", "0", "0"});
  CHECK(w.found == KeysFound::kOk);
  CHECK(w.keys == Keys{"a", "b"});
  w = walk(x, {"XREAD", "streams", "s", "$"});  // keyword matched case-insensitively
  CHECK(w.keys == Keys{"s"});
  w = walk(x, {"XREAD", "BLOCK", "0", "STREAMS", "a", "0", "b"});  // odd: half rounded down
  CHECK(w.keys == Keys{"a"});
  w = walk(x, {"XREAD", "COUNT", "2", "x", "y"});  // no keyword: this spec has no keys
  CHECK(w.found == KeysFound::kOk);
  CHECK(w.keys.empty());
  w = walk(x, {"XREAD", "a", "b", "STREAMS"});  // keyword last: nothing after it
  CHECK(w.keys.empty());
}

TEST_CASE("for_each_key: MIGRATE's incomplete KEYS spec and SORT's unknown STORE") {
  const CommandDef& m = def_with(kMigrate, -6);
  auto w = walk(m, {"MIGRATE", "h", "1", "k", "0", "5"});
  CHECK(w.found == KeysFound::kOk);
  CHECK(w.keys == Keys{"k"});
  w = walk(m, {"MIGRATE", "h", "1", "", "0", "5", "KEYS", "a", "b"});
  CHECK(w.found == KeysFound::kIncomplete);
  CHECK(w.keys == Keys{"", "a", "b"});

  const CommandDef& s = def_with(kSort, -2);
  w = walk(s, {"SORT", "k", "STORE", "d"});
  CHECK(w.found == KeysFound::kIncomplete);
  CHECK(w.keys == Keys{"k"});
}

TEST_CASE("for_each_key: SORT's own finder (Redis's sortGetKeys) gives the last STORE key") {
  const CommandDef& s = *command_table().find("sort");
  auto w = walk(s, {"SORT", "k", "STORE", "d"});
  CHECK(w.found == KeysFound::kIncomplete);
  CHECK(w.keys == Keys{"k", "d"});
  CHECK(walk(s, {"sort", "k", "store", "a", "STORE", "b", "store", "d"}).keys == Keys{"k", "d"});
  CHECK(walk(s, {"sort", "k", "by", "store", "limit", "store", "x", "store", "d"}).keys ==
        Keys{"k", "d"});
  // A STORE's key is read as the next word, as Redis's finder reads it.
  CHECK(walk(s, {"sort", "k", "store", "get", "store", "x"}).keys == Keys{"k", "get"});
  CHECK(walk(s, {"sort", "k", "store"}).keys == Keys{"k"});
  CHECK(walk(s, {"sort", "k", "limit", "0"}).keys == Keys{"k"});
  CHECK(walk(*command_table().find("sort_ro"), {"sort_ro", "k", "store", "d"}).keys == Keys{"k"});
}

TEST_CASE("for_each_key: MIGRATE's own finder (Redis's migrateGetKeys)") {
  const CommandDef& m = *command_table().find("migrate");
  auto w = walk(m, {"MIGRATE", "h", "1", "k", "0", "5", "COPY"});
  CHECK(w.found == KeysFound::kOk);
  CHECK(w.keys == Keys{"k"});
  CHECK(walk(m, {"MIGRATE", "h", "1", "", "0", "5", "KEYS", "a", "b"}).keys == Keys{"a", "b"});
  // AUTH2's two arguments are skipped: a user named KEYS is no keyword.
  CHECK(walk(m, {"migrate", "h", "1", "", "0", "5", "auth2", "keys", "p", "keys", "b"}).keys ==
        Keys{"b"});
  CHECK(walk(m, {"migrate", "h", "1", "", "0", "5", "auth", "keys", "keys", "b"}).keys ==
        Keys{"b"});
  CHECK(walk(m, {"migrate", "h", "1", "k", "0", "5", "keys", "b"}).found == KeysFound::kInvalid);
  // KEYS last: Redis's spec walk does not find it (its search starts one before the end).
  CHECK(walk(m, {"migrate", "h", "1", "", "0", "5", "keys"}).keys == Keys{""});
}

TEST_CASE("for_each_key: ranges, subcommands, NOT_KEY specs") {
  auto w = walk(def_with(kMset, -3), {"MSET", "a", "1", "b", "2"});
  CHECK(w.keys == Keys{"a", "b"});
  w = walk(def_with(kMset, -3), {"MSET", "a", "1", "b"});  // odd: Redis's GETKEYS gives a, b
  CHECK(w.keys == Keys{"a", "b"});
  w = walk(def_with(kCopy, -3), {"COPY", "a", "b", "DB", "1"});
  CHECK(w.keys == Keys{"a", "b"});
  w = walk(def_with(kObject, 3), {"OBJECT", "ENCODING", "k"});
  CHECK(w.keys == Keys{"k"});
  w = walk(def_with(kGet, 2), {"GET"});
  CHECK(w.found == KeysFound::kInvalid);
  w = walk(def_with(kNoKeys, -1), {"PING", "x"});
  CHECK(w.found == KeysFound::kOk);
  CHECK(w.keys.empty());

  const CommandDef& sp = def_with(kSpublish, 3);
  w = walk(sp, {"SPUBLISH", "ch", "m"});
  CHECK(w.keys.empty());
  w = walk(sp, {"SPUBLISH", "ch", "m"}, kKeysIncludeNotKeys);
  CHECK(w.keys == Keys{"ch"});
}

TEST_CASE("legacy_range follows populateCommandLegacyRangeSpec") {
  auto r = legacy_range(kGet);
  CHECK((r.first == 1 && r.last == 1 && r.step == 1 && !r.movable));
  r = legacy_range(kMset);
  CHECK((r.first == 1 && r.last == -1 && r.step == 2 && !r.movable));
  r = legacy_range(kCopy);
  CHECK((r.first == 1 && r.last == 2 && r.step == 1 && !r.movable));
  r = legacy_range(kEval);
  CHECK((r.first == 0 && r.last == 0 && r.step == 0 && r.movable));
  r = legacy_range(kZunionstore);
  CHECK((r.first == 1 && r.last == 1 && r.step == 1 && r.movable));
  r = legacy_range(kMigrate);
  CHECK((r.first == 3 && r.last == 3 && r.step == 1 && r.movable));
  r = legacy_range(kSort);
  CHECK((r.first == 1 && r.last == 1 && r.step == 1 && r.movable));
  r = legacy_range(kNoKeys);
  CHECK((r.first == 0 && r.last == 0 && r.step == 0 && !r.movable));
}

namespace {

Routing route(std::string_view name, std::string_view sub = {}) {
  const CommandDef* def = command_table().find(name);
  REQUIRE(def != nullptr);
  if (!sub.empty()) def = CommandTable::find_sub(*def, sub);
  REQUIRE(def != nullptr);
  return routing_of(*def);
}

bool is(Routing r, Where where, Merge merge) {
  return r.where == where && r.merge == merge;
}

}  // namespace

TEST_CASE("routing_of reads Redis's tips and the declared Ruvio routing") {
  // request_policy:multi_shard + response_policy
  CHECK(is(route("del"), Where::kSplit, Merge::kSum));
  CHECK(is(route("exists"), Where::kSplit, Merge::kSum));
  CHECK(is(route("mset"), Where::kSplit, Merge::kFirstError));
  CHECK(is(route("mget"), Where::kSplit, Merge::kKeyOrder));
  // request_policy:all_shards / all_nodes
  CHECK(is(route("dbsize"), Where::kAllWorkers, Merge::kSum));
  CHECK(is(route("flushall"), Where::kAllWorkers, Merge::kFirstError));
  CHECK(is(route("keys"), Where::kAllWorkers, Merge::kConcat));
  CHECK(is(route("config", "set"), Where::kAllWorkers, Merge::kFirstError));
  CHECK(is(route("memory", "purge"), Where::kAllWorkers, Merge::kFirstError));
  // response_policy:special with no Ruvio merge: this worker answers
  CHECK(route("memory", "stats").where == Where::kHere);
  // keys decide; keyless runs where it is
  CHECK(route("get").where == Where::kKeyOwner);
  CHECK(route("config", "get").where == Where::kKeyOwner);
  // declared Ruvio routing
  CHECK(route("scan").where == Where::kCursor);
  CHECK(is(route("randomkey"), Where::kAllWorkers, Merge::kRandom));
  CHECK(is(route("info"), Where::kAllWorkers, Merge::kInfo));
  CHECK(is(route("client", "list"), Where::kAllWorkers, Merge::kText));
  CHECK(is(route("pubsub", "numsub"), Where::kAllWorkers, Merge::kNumsub));
  CHECK(is(route("publish"), Where::kAllWorkers, Merge::kSum));
  CHECK(route("msetnx").where == Where::kKeyOwner);  // atomic: its tips would split it
  CHECK(route("ping").where == Where::kHere);        // its tips would fan it out
  CHECK(route("ssubscribe").where == Where::kHere);
}

TEST_CASE("transaction and subscribed-mode roles are declared flags") {
  auto flags = [](std::string_view name) { return command_table().find(name)->flags; };
  CHECK((flags("exec") & kTxExec));
  CHECK((flags("discard") & kTxDiscard));
  CHECK((flags("multi") & kTxImmediate));
  CHECK((flags("watch") & (kTxImmediate | kTxWatch)) == (kTxImmediate | kTxWatch));
  CHECK((flags("reset") & (kTxImmediate | kTxUnwatch)) == (kTxImmediate | kTxUnwatch));
  CHECK((flags("unwatch") & kTxUnwatch));
  CHECK_FALSE((flags("unwatch") & kTxImmediate));
  CHECK((flags("shutdown") & kNoMulti));
  CHECK((flags("save") & kNoMulti));
  for (auto name : {"ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe", "psubscribe",
                    "punsubscribe", "quit", "reset"}) {
    CAPTURE(name);
    CHECK((flags(name) & kSubscribedOk));
  }
  CHECK_FALSE((flags("get") & kSubscribedOk));
  CHECK_FALSE((flags("exec") & kSubscribedOk));
}

namespace {

void check_args(std::span<const Arg> args, std::size_t nkeys) {
  for (const Arg& a : args) {
    CAPTURE(a.name);
    CHECK(a.key_spec_index < static_cast<int>(nkeys));
    // A key names its spec; so may a pattern whose expansions are keys (SORT's BY and GET).
    if (a.type == ArgType::kKey) CHECK(a.key_spec_index >= 0);
    if (a.type != ArgType::kKey && a.type != ArgType::kPattern) CHECK(a.key_spec_index < 0);
    CHECK((a.type == ArgType::kOneof || a.type == ArgType::kBlock) == !a.args.empty());
    check_args(a.args, nkeys);
  }
}

}  // namespace

TEST_CASE("every declared command has a consistent declaration") {
  auto check = [](const CommandDef& def) {
    CAPTURE(def.name);
    REQUIRE(def.decl != nullptr);
    check_args(def.decl->args, def.decl->keys.size());
    for (const KeySpec& k : def.decl->keys) {
      if (k.find.type == FindKeys::kRange) CHECK(k.find.b > 0);
      if (k.find.type == FindKeys::kKeynum) CHECK(k.find.c > 0);
    }
    const Routing r = routing_of(def);
    CHECK(r.where != Where::kTips);
    CHECK(r.merge != Merge::kTips);
  };
  for (const CommandDef* def : command_table().all()) {
    check(*def);
    for (const CommandDef& sub : def->subcommands) check(sub);
  }
}
