// Declarative command table entries (after Redis's commands/*.json and Dragonfly's
// CommandRegistry). A command is declared once: its CommandDecl holds everything Redis 7
// declares about it (name, arity, flags, ACL categories, docs, key specs, tips, arguments,
// subcommands), taken from redis-server 7.0.15 by tests/tools/snapshot_command_decls.py into
// worker/commands/<group>/<family>_decls.json (or written there by hand, every field, for what
// 7.0.15 lacks) and generated from it at build time by tools/emit_command_decls.py into
// <family>_decls.hpp. A family's table row (CommandDef) states only that decl, the handler and
// Ruvio's own traits. The router, the cluster slot check, transactions and COMMAND GETKEYS
// find keys with for_each_key(); COMMAND INFO/DOCS are written from the same data. Nothing
// parses argument positions or compares names by hand.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ruvio::worker {

struct Context;

enum CommandFlag : std::uint32_t {
  kWrite = 1u << 0,
  kReadonly = 1u << 1,
  kFast = 1u << 2,
  kAdmin = 1u << 3,
  kPubsub = 1u << 4,
  kNoScript = 1u << 5,
  kLoading = 1u << 6,  // allowed while loading
  kStale = 1u << 7,
  kNoAuth = 1u << 8,   // allowed before AUTH (AUTH, HELLO, QUIT, RESET)
  kDenyOom = 1u << 9,  // may grow memory: refused with -OOM over maxmemory
  kBlocking = 1u << 10,
  kSkipMonitor = 1u << 11,
  kSkipSlowlog = 1u << 12,
  kSentinel = 1u << 13,
  kNoMulti = 1u << 14,  // refused inside MULTI ("Command not allowed inside a transaction")
  kMayReplicate = 1u << 15,
  kAllowBusy = 1u << 16,
  kNoAsyncLoading = 1u << 17,    // refused during an async (diskless replica) load
  kNoMandatoryKeys = 1u << 18,   // may run with no key at all (EVAL with numkeys 0)
  kRedisFlags = (1u << 19) - 1,  // the bits above: a CommandDecl's flags are only these

  // Ruvio's own (never shown by COMMAND INFO): what Redis decides by comparing command procs.
  kSubscribedOk = 1u << 24,  // admitted in RESP2 subscribed mode (PING, (P|S)(UN)SUBSCRIBE, …)
  kTxImmediate = 1u << 25,   // runs at once inside MULTI instead of being queued
  kTxExec = 1u << 26,        // EXEC: ends MULTI and runs the queue
  kTxDiscard = 1u << 27,     // DISCARD: ends MULTI, drops the queue
  kTxWatch = 1u << 28,       // WATCH: registers its keys on their owner
  kTxUnwatch = 1u << 29,     // drops this connection's WATCHes everywhere (UNWATCH, RESET)
  kRouteDebug = 1u << 30,    // DEBUG: the router picks the workers by its subcommand
  kTouchAlways = 1u << 31,   // TOUCH: touches its keys under CLIENT NO-TOUCH too (Redis 7.2)
  kRuvioTraits = kSubscribedOk | kTxImmediate | kTxExec | kTxDiscard | kTxWatch | kTxUnwatch |
                 kRouteDebug | kTouchAlways,  // a CommandDef's traits are only these
};

// ---- ACL categories (Redis's ACLCommandCategories, in its order) ----------------------------

enum AclCategory : std::uint32_t {
  kCatKeyspace = 1u << 0,
  kCatRead = 1u << 1,
  kCatWrite = 1u << 2,
  kCatSet = 1u << 3,
  kCatSortedset = 1u << 4,
  kCatList = 1u << 5,
  kCatHash = 1u << 6,
  kCatString = 1u << 7,
  kCatBitmap = 1u << 8,
  kCatHyperloglog = 1u << 9,
  kCatGeo = 1u << 10,
  kCatStream = 1u << 11,
  kCatPubsub = 1u << 12,
  kCatAdmin = 1u << 13,
  kCatFast = 1u << 14,
  kCatSlow = 1u << 15,
  kCatBlocking = 1u << 16,
  kCatDangerous = 1u << 17,
  kCatConnection = 1u << 18,
  kCatTransaction = 1u << 19,
  kCatScripting = 1u << 20,
};
// Bit j of an AclCategory set is named kAclCategoryNames[j] (ACL CAT and COMMAND INFO list
// them in this order).
inline constexpr std::array<std::string_view, 21> kAclCategoryNames = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};

// ---- key specs (Redis 7: src/commands/*.json "key_specs") -----------------------------------

enum KeyFlag : std::uint16_t {
  kKeyRO = 1u << 0,
  kKeyRW = 1u << 1,
  kKeyOW = 1u << 2,
  kKeyRM = 1u << 3,
  kKeyAccess = 1u << 4,
  kKeyUpdate = 1u << 5,
  kKeyInsert = 1u << 6,
  kKeyDelete = 1u << 7,
  kKeyNotKey = 1u << 8,  // a channel hashed like a key (SPUBLISH), not a key
  kKeyIncomplete = 1u << 9,
  kKeyVariableFlags = 1u << 10,
};

// Where the search for a spec's keys begins: a fixed index, or just after the first
// `keyword` found from `startfrom` (negative: searched backwards from the end), or unknown
// (SORT's STORE: only the handler can tell).
struct BeginSearch {
  enum Type : std::uint8_t { kIndex, kKeyword, kUnknown } type = kIndex;
  int pos = 0;  // index: the position; keyword: startfrom
  std::string_view keyword = {};
};
constexpr BeginSearch bs_index(int pos) {
  return {BeginSearch::kIndex, pos, {}};
}
constexpr BeginSearch bs_keyword(std::string_view keyword, int startfrom) {
  return {BeginSearch::kKeyword, startfrom, keyword};
}
constexpr BeginSearch bs_unknown() {
  return {BeginSearch::kUnknown, 0, {}};
}

// Which arguments from there are keys: a range (lastkey relative to the first key, or
// negative from the end; `limit` > 1 keeps 1/limit of what remains) or a count read from the
// argument at keynumidx, keys starting firstkey after it.
struct FindKeys {
  enum Type : std::uint8_t { kRange, kKeynum, kUnknown } type = kRange;
  int a = 0;  // range: lastkey   keynum: keynumidx
  int b = 0;  // range: keystep   keynum: firstkey
  int c = 0;  // range: limit     keynum: keystep
};
constexpr FindKeys fk_range(int lastkey, int keystep, int limit) {
  return {FindKeys::kRange, lastkey, keystep, limit};
}
constexpr FindKeys fk_keynum(int keynumidx, int firstkey, int keystep) {
  return {FindKeys::kKeynum, keynumidx, firstkey, keystep};
}
constexpr FindKeys fk_unknown() {
  return {FindKeys::kUnknown, 0, 0, 0};
}

struct KeySpec {
  std::uint16_t flags = 0;  // KeyFlag
  BeginSearch begin;
  FindKeys find;
  std::string_view notes = {};
};

// ---- tips, in the order Redis lists them -----------------------------------------------------

enum class Tip : std::uint8_t {
  kNondeterministicOutput,
  kNondeterministicOutputOrder,
  kRequestAllNodes,
  kRequestAllShards,
  kRequestMultiShard,
  kRequestSpecial,
  kResponseOneSucceeded,
  kResponseAllSucceeded,
  kResponseAggLogicalAnd,
  kResponseAggLogicalOr,
  kResponseAggMin,
  kResponseAggMax,
  kResponseAggSum,
  kResponseSpecial,
};
std::string_view tip_name(Tip tip);

// ---- docs ------------------------------------------------------------------------------------

enum DocFlag : std::uint8_t { kDocDeprecated = 1u << 0, kDocSyscmd = 1u << 1 };
enum ArgFlag : std::uint8_t {
  kArgOptional = 1u << 0,
  kArgMultiple = 1u << 1,
  kArgMultipleToken = 1u << 2,
};

enum class ArgType : std::uint8_t {
  kString,
  kInteger,
  kDouble,
  kKey,
  kPattern,
  kUnixTime,
  kPureToken,
  kOneof,
  kBlock,
};

// One node of a command's argument tree (COMMAND DOCS "arguments"). redis-server 7.0 sends
// no display_text, so there is none here.
struct Arg {
  std::string_view name;
  ArgType type = ArgType::kString;
  int key_spec_index = -1;  // which KeySpec finds this key argument
  std::string_view token = {};
  std::string_view summary = {};
  std::string_view since = {};
  std::string_view deprecated_since = {};
  std::uint8_t flags = 0;          // ArgFlag
  std::span<const Arg> args = {};  // a oneof's or block's children
};

struct History {
  std::string_view version;
  std::string_view change;
};

// Everything Redis 7 declares about a command or subcommand (COMMAND INFO and COMMAND DOCS),
// generated from the committed <family>_decls.json: what redis-server 7.0.15 declares or, for
// what it lacks, what is written there by hand (its "written_by_hand" says why).
struct CommandDecl {
  std::string_view name = {};   // lower case; a subcommand's is "container|sub"
  int arity = 0;                // Redis arity: exact n, or -n for "at least n" (name counts)
  std::uint32_t flags = 0;      // Redis's command flags: CommandFlag bits within kRedisFlags
  std::uint32_t acl = 0;        // AclCategory bits
  std::string_view group = {};  // "string", "generic", "connection", "server", ...
  std::string_view summary = {};
  std::string_view since = {};
  std::string_view complexity = {};  // LOLWUT and MONITOR declare none
  std::span<const KeySpec> keys = {};
  std::span<const Tip> tips = {};
  std::uint8_t doc_flags = 0;  // DocFlag
  std::string_view deprecated_since = {};
  std::string_view replaced_by = {};
  std::span<const History> history = {};
  std::span<const Arg> args = {};
  // A container's subcommands that Ruvio declares, in Redis's order (their rows, with the
  // handlers, are the container row's `subcommands`).
  std::span<const CommandDecl* const> subcommands = {};
};

// ---- routing on the proxy port ---------------------------------------------------------------

// Where a command runs and how the parts' replies merge. kTips (the default) takes both from
// the Redis tips and the key specs: request_policy all_shards/all_nodes → every worker,
// multi_shard → one part per key owner, none → the keys' owner (CROSSSLOT across owners),
// keyless → here; response_policy picks the merge. A Ruvio routing declared on the command
// overrides that where Redis has no tip (SCAN's cursor, INFO, CLIENT LIST, PUBSUB, PUBLISH)
// or where its tip does not fit one atomic worker (MSETNX, PING).
enum class Where : std::uint8_t {
  kTips,
  kHere,        // connection state, or not worth a hop (PING, SSUBSCRIBE)
  kKeyOwner,    // the keys' one owner, whatever the tips say
  kSplit,       // one part per key owner (multi_shard)
  kAllWorkers,  // every worker, replies merged
  kCursor,      // the SCAN cursor names the worker
  kRedirect,    // CLIENT TRACKING: here, once a REDIRECT target's worker said it has it
};
enum class Merge : std::uint8_t {
  kTips,
  kFirstError,  // all_succeeded: the first error, else the first reply
  kSum,         // agg_sum
  kMin,         // agg_min
  kMax,         // agg_max
  kAnd,         // agg_logical_and
  kOr,          // agg_logical_or
  kOneOk,       // one_succeeded: the first non-error
  kConcat,      // arrays concatenated (all_shards without a response policy)
  kKeyOrder,    // multi_shard without a response policy: elements back in key order (MGET)
  kRandom,      // RANDOMKEY: the first non-null from a random worker on
  kInfo,        // INFO: counters summed, per-worker lines
  kText,        // CLIENT LIST: verbatim texts concatenated
  kUnion,       // PUBSUB CHANNELS: each element once
  kNumsub,      // PUBSUB NUMSUB: counts added per channel
  kNumpat,      // PUBSUB NUMPAT: distinct patterns of every worker
  kKill,        // CLIENT KILL: +OK if a worker killed (old form), else counts summed
  kSlowlog,     // SLOWLOG GET: every worker's entries, newest first, cut to the count asked
  kAclLog,      // ACL LOG: every worker's entries regrouped as one log (RESET: every worker)
  kLatency,     // LATENCY (all but HELP): as one monitor (latency_merge.hpp)
};
struct Routing {
  Where where = Where::kTips;
  Merge merge = Merge::kTips;
};

struct CommandDef;
// The route with every kTips resolved: Where is never kTips, Merge never kTips.
Routing routing_of(const CommandDef& def);

using Handler = void (*)(Context&);

enum class KeysFound : std::uint8_t;
struct KeyVisitor;
// A command's own key finder (Redis's getkeys_proc) for a key no spec can find (SORT's
// STORE): every key finder (for_each_key) asks it instead of the specs.
using GetKeys = KeysFound (*)(const CommandDef& def, std::span<const std::string_view> args,
                              KeyVisitor visit);

struct BlockingSpec;  // worker/engine/blocking.hpp

// Which arguments SLOWLOG and MONITOR show as "(redacted)" (Redis's redactClientCommandArgument,
// called by AUTH, HELLO, MIGRATE and CONFIG SET): their positions appended to `positions`.
using Redact = void (*)(std::span<const std::string_view> args,
                        std::vector<std::size_t>& positions);

// What the ACL engine reads from a command's arguments besides its key specs: which are
// channels (Redis's ACLSelectorCheckCmd list), or key flags that only the command's getkeys
// procedure knows (Redis's setGetKeys, bitfieldGetKeys; SORT's keys come from its getkeys).
enum class AclArgs : std::uint8_t {
  kSpecs,         // the key specs alone, no channels
  kFirstChannel,  // PUBLISH, SPUBLISH: the first argument is a channel
  kAllChannels,   // SUBSCRIBE, SSUBSCRIBE: every argument is a channel
  kAllPatterns,   // PSUBSCRIBE: every argument a pattern, matched literally
  kSetKeys,       // SET: the key is also read with GET
  kBitfieldKeys,  // BITFIELD: only GET/OVERFLOW operations make a read
};

// One row of a family's table: the declaration, the handler and Ruvio's own traits, nothing
// Redis declares. name, arity and flags are the decl's, copied into the row by their default
// initializers for the hot path (a row never states them: test_command_decls.cpp checks).
struct CommandDef {
  const CommandDecl* decl;
  Handler handler;           // nullptr on a container command that only has subcommands
  std::uint32_t traits = 0;  // Ruvio's own flags: CommandFlag bits within kRuvioTraits
  Routing routing = {};      // where it runs on the proxy port, how replies merge
  std::span<const CommandDef> subcommands = {};  // CLIENT, CONFIG, OBJECT, COMMAND, MEMORY
  // A blocking command's timeout, value type and argument checks (BLPOP … XREADGROUP).
  const BlockingSpec* blocking = nullptr;
  AclArgs acl_args = AclArgs::kSpecs;
  Redact redact = nullptr;    // passwords in the arguments (command_stats.hpp's redact_*)
  GetKeys getkeys = nullptr;  // a key finder of its own, asked instead of the specs

  // Derived from decl and traits; not to be stated in a row.
  std::string_view name = decl->name;
  int arity = decl->arity;
  std::uint32_t flags = decl->flags | traits;
  // Dense index of this command or subcommand, given by the CommandTable at start: INFO
  // commandstats counts in a flat array by it (no name lookup per command).
  mutable std::uint16_t id = 0;

  bool has_tip(Tip tip) const {
    for (Tip t : decl->tips) {
      if (t == tip) return true;
    }
    return false;
  }
};

// ---- finding keys ----------------------------------------------------------------------------

enum class KeysFound : std::uint8_t {
  kOk,
  // A spec could not be followed (numkeys not a number, 0, negative or past the end, a range
  // out of bounds): as Redis's getKeysUsingKeySpecs, the keys visited so far do not count and
  // the command's own handler will answer the syntax/arity error.
  kInvalid,
  // An INCOMPLETE spec was walked or an unknown one skipped (of a command without its own
  // finder), or SORT's BY/GET keys: the keys visited are keys, but more may hide behind
  // arguments only the handler parses.
  kIncomplete,
};

enum KeysOption : std::uint8_t {
  kKeysIncludeNotKeys = 1u << 0,  // also NOT_KEY specs (shard channels route like keys)
};

// A callback view: no allocation, no std::function.
struct KeyVisitor {
  void* context;
  void (*fn)(void* context, std::size_t pos, const KeySpec& spec);
};
KeysFound walk_keys(const CommandDef& def, std::span<const std::string_view> args,
                    std::uint8_t options, KeyVisitor visit);

// Calls fn(pos, spec) for each key argument of the full command line `args` (args[0] = the
// command name; for a subcommand, def is the subcommand and args still start at the
// container's name), spec by spec in declaration order, as Redis's getKeysUsingKeySpecs does.
// On kInvalid fn may already have been called for earlier specs: callers drop what they saw.
template <class F>
KeysFound for_each_key(const CommandDef& def, std::span<const std::string_view> args, F&& fn,
                       std::uint8_t options = 0) {
  return walk_keys(def, args, options,
                   KeyVisitor{&fn, [](void* c, std::size_t pos, const KeySpec& spec) {
                                (*static_cast<F*>(c))(pos, spec);
                              }});
}

// COMMAND INFO's legacy (first, last, step), derived from the key specs as Redis's
// populateCommandLegacyRangeSpec does; movable: the keys are not all in that range.
struct LegacyRange {
  int first = 0;
  int last = 0;
  int step = 0;
  bool movable = false;
};
LegacyRange legacy_range(const CommandDecl& decl);

}  // namespace ruvio::worker
