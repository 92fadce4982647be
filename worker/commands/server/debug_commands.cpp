// DEBUG: the subcommands Redis's own tests and operators use (debug.c), refused unless
// enable-debug-command is yes (or local, from a loopback connection), as Redis 7. DIGEST and
// DIGEST-VALUE are debug_digest.hpp; RELOAD (the snapshot file written, the worker emptied,
// the file loaded back) is debug_reload.hpp.
#include <fmt/format.h>
#include <mimalloc.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "shared/glob.hpp"
#include "worker/commands/server/debug_decls.hpp"
#include "worker/commands/server/debug_reload.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/debug_digest.hpp"
#include "worker/persist/rdb_value.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/value.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";

// Redis's islocalClient: a unix socket or a loopback address.
bool is_local(const ClientInfo& c) {
  const std::string_view a = c.addr;
  return a.empty() || a.starts_with("127.") || a.starts_with("::1") || a.starts_with("[::1]") ||
         a.starts_with("/");
}

// One listpack as Redis's lpRepr shows it: its bytes and entries, then each entry.
void repr_listpack(std::string& out, types::Listpack lp, std::string_view indent) {
  out += fmt::format("{}{{total bytes {}}} {{num entries {}}}\n", indent, lp.bytes(), lp.count());
  std::size_t i = 0;
  for (types::Listpack::Pos p = lp.first(); p != types::Listpack::kNone; p = lp.next(p), ++i) {
    const types::Listpack::Entry e = lp.get(p);
    if (e.is_int) {
      out += fmt::format("{}{{index {:5}}} {{value int {}}}\n", indent, i, e.i);
    } else {
      out += fmt::format("{}{{index {:5}}} {{value str {}}}\n", indent, i, e.str);
    }
  }
}

// DEBUG LISTPACK / QUICKLIST: the structure goes to the log (Redis prints it on stdout, which
// is its log under systemd): the listpack's entries, or the quicklist's nodes with their
// counts, sizes and compression (and with 1, each node's entries).
void log_structure(const store::Entry& e, bool quicklist, bool entries) {
  std::string out;
  if (!quicklist) {
    const std::string_view blob = types::ops_of(e.object()).compact_blob(e.object());
    repr_listpack(
        out, types::Listpack(reinterpret_cast<std::uint8_t*>(const_cast<char*>(blob.data()))), "");
  } else {
    types::ListObject scratch{};
    const types::ListObject* o = types::list_view(e.object(), scratch);
    out +=
        fmt::format("{{quicklist count:{} len:{} compress:{}}}\n", o->count, o->nnodes, o->depth);
    const types::ListNode* nodes = types::Quicklist::node_array(o);
    for (std::uint32_t i = 0; i < o->nnodes; ++i) {
      const types::Listpack lp = types::Quicklist::lp(o, i);
      out += fmt::format("{{node {}}}\n       count:{} encoding:{} size:{} stored:{}\n", i,
                         nodes[i].count, nodes[i].raw != 0 ? "LZF" : "RAW", lp.bytes(),
                         nodes[i].raw != 0 ? mi_usable_size(nodes[i].lp) : lp.bytes());
      if (entries) repr_listpack(out, lp, "       ");
    }
  }
  spdlog::warn("DEBUG {} {}:\n{}", quicklist ? "QUICKLIST" : "LISTPACK", e.key(), out);
}

bool allowed(Context& ctx) {
  return debug_allowed(ctx.shard, ctx.client);
}

constexpr std::string_view kHelp[] = {
    "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CHANGE-REPL-ID",
    "    Change the replication IDs of the instance.",
    "    Dangerous: should be used only for testing the replication subsystem.",
    "DIGEST",
    "    Output a hex signature representing the current DB content.",
    "DIGEST-VALUE <key> [<key> ...]",
    "    Output a hex signature of the values of all the specified keys.",
    "ERROR <string>",
    "    Return a Redis protocol error with <string> as message. Useful for clients",
    "    unit tests to simulate Redis errors.",
    "LOG <message>",
    "    Write <message> to the server log.",
    "OBJECT <key>",
    "    Show low level info about `key` and associated value.",
    "PROTOCOL <type>",
    "    Reply with a test value of the specified type. <type> can be: string,",
    "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
    "    true, false.",
    "RELOAD [option ...]",
    "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
    "    * MERGE: conflicting keys will be loaded from RDB.",
    "    * NOFLUSH: the existing database will not be removed before load, but",
    "      conflicting keys will generate an exception and kill the server.",
    "    * NOSAVE: the database will be loaded from an existing RDB file.",
    "    Examples:",
    "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
    "      the database.",
    "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
    "      existing RDB file.",
    "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
    "      file to the database.",
    "SET-ACTIVE-EXPIRE <0|1>",
    "    Setting it to 0 disables expiring keys in background when they are not",
    "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
    "    default.",
    "QUICKLIST-PACKED-THRESHOLD <size>",
    "    Sets the threshold for elements to be inserted as plain vs packed nodes",
    "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
    "SLEEP <seconds>",
    "    Stop the server for <seconds>. Decimals allowed.",
    "STRINGMATCH-TEST",
    "    Run a fuzz tester against the stringmatchlen() function.",
    "LISTPACK <key>",
    "    Show low level info about the listpack encoding of <key>.",
    "QUICKLIST <key> [<0|1>]",
    "    Show low level info about the quicklist encoding of <key>.",
    "    The optional argument (0 by default) sets the level of detail",
    "HELP",
    "    Prints this help.",
};

void reply_unknown(Context& ctx) {
  std::string e = "ERR unknown subcommand or wrong number of arguments for '";
  e.append(ctx.args[1]);
  e.append("'. Try DEBUG HELP.");
  ctx.out.error(e);
}

// DEBUG OBJECT: the fields Redis prints, measured on this server's value.
void debug_object(Context& ctx) {
  const store::Entry e = ctx.db().peek(ctx.args[2]);
  if (!e) {
    ctx.out.error(err::kNoSuchKey);
    return;
  }
  std::string body;
  const std::size_t serialized =
      persist::rdb::encode_value(e, ctx.now_ms(), body) ? body.size() - 1 : 0;
  // Redis shares the integers 0..9999 (OBJ_SHARED_INTEGERS), refcount INT_MAX.
  const bool shared =
      e.type() == types::Type::kString && e.is_int() && e.int_value() >= 0 && e.int_value() < 10000;
  const std::int64_t idle = ctx.db().idle_seconds(e, ctx.now_ms());
  const std::int64_t lru = (ctx.now_ms() / 1000 - idle) & ((1 << 24) - 1);
  std::string extra;
  if (e.type() == types::Type::kList) {
    types::ListObject scratch;
    const types::ListObject* l = types::list_view(e.object(), scratch);
    std::size_t raw = 0;
    for (std::uint32_t n = 0; n < l->nnodes; ++n) {
      raw += types::Quicklist::lp(l, n).bytes();
    }
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  " ql_nodes:%u ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d "
                  "ql_uncompressed_size:%zu",
                  l->nnodes, l->nnodes != 0 ? static_cast<double>(l->count) / l->nnodes : 0.0,
                  ctx.shard.config().list_max_listpack_size, l->depth != 0 ? 1 : 0, raw);
    extra = buf;
  }
  char buf[300];
  std::snprintf(buf, sizeof buf,
                "Value at:%p refcount:%d encoding:%.*s serializedlength:%zu lru:%lld "
                "lru_seconds_idle:%lld",
                static_cast<const void*>(e.record()), shared ? 2147483647 : 1,
                static_cast<int>(e.encoding().size()), e.encoding().data(), serialized,
                static_cast<long long>(lru), static_cast<long long>(idle));
  ctx.out.simple(std::string(buf) + extra);
}

void debug_protocol(Context& ctx) {
  const std::string_view t = ctx.args[2];
  proto::ReplyWriter& out = ctx.out;
  if (iequals(t, "string")) {
    out.bulk("Hello World");
  } else if (iequals(t, "integer")) {
    out.integer(12345);
  } else if (iequals(t, "double")) {
    out.double_value(3.141);
  } else if (iequals(t, "bignum")) {
    out.big_number("1234567999999999999999999999999999999");
  } else if (iequals(t, "null")) {
    out.null();
  } else if (iequals(t, "array") || iequals(t, "set")) {
    iequals(t, "set") ? out.set(3) : out.array(3);
    for (int j = 0; j < 3; ++j) out.integer(j);
  } else if (iequals(t, "map")) {
    out.map(3);
    for (int j = 0; j < 3; ++j) {
      out.integer(j);
      out.boolean(j == 1);
    }
  } else if (iequals(t, "attrib")) {
    if (ctx.client.resp >= 3) {
      out.attribute(1);
      out.bulk("key-popularity");
      out.array(2);
      out.bulk("key:123");
      out.integer(90);
    }
    out.bulk("Some real reply following the attribute");
  } else if (iequals(t, "push")) {
    if (ctx.client.resp < 3) {
      out.error("ERR RESP2 is not supported by this command");
      return;
    }
    out.push(2);
    out.bulk("server-cpu-usage");
    out.integer(42);
    out.bulk("Some real reply following the push reply");
  } else if (iequals(t, "true") || iequals(t, "false")) {
    out.boolean(iequals(t, "true"));
  } else if (iequals(t, "verbatim")) {
    out.verbatim("This is a verbatim\nstring", "txt");
  } else {
    out.error(
        "ERR Wrong protocol type name. Please use one of the following: "
        "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
  }
}

// stringmatchlen_fuzz_test: random patterns against random strings; it passes by not crashing.
void debug_stringmatch(Context& ctx) {
  std::mt19937 rng(12345);
  std::string pat, str;
  for (int i = 0; i < 20000; ++i) {
    pat.resize(rng() % 50);
    str.resize(rng() % 50);
    for (char& c : pat) c = "*?[]^-\\ab"[rng() % 9];
    for (char& c : str) c = static_cast<char>(rng() % 256);
    (void)glob_match(pat, str, (i & 1) != 0);
  }
  ctx.out.simple("Apparently Redis did not crash: test passed");
}

void cmd_debug(Context& ctx) {
  if (!allowed(ctx)) {
    ctx.out.error(kNotAllowed);
    return;
  }
  const std::string_view sub = ctx.args[1];
  const std::size_t argc = ctx.argc();
  if (iequals(sub, "help") && argc == 2) {
    ctx.out.array(std::size(kHelp));
    for (std::string_view line : kHelp) ctx.out.simple(line);
  } else if (iequals(sub, "sleep") && argc == 3) {
    const double secs = std::strtod(std::string(ctx.args[2]).c_str(), nullptr);
    if (secs > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long long>(secs * 1e6)));
    ctx.out.ok();
  } else if (iequals(sub, "set-active-expire") && argc == 3) {
    ctx.shard.active_expire_enabled = std::atoi(std::string(ctx.args[2]).c_str()) != 0;
    ctx.out.ok();
  } else if (iequals(sub, "lru-advance") && argc == 3) {
    // Ruvio's own (not in DEBUG HELP, which stays Redis's): moves this worker's LRU clock
    // <seconds> ahead and runs one timer tick of its merge pass, so tests can age keys by
    // hours without waiting (lru_clock.hpp). Expiry and every other clock are untouched.
    const std::optional<std::int64_t> s = parse_int64(ctx.args[2]);
    if (!s || *s < 0) {
      ctx.out.error(err::kNotInt);
      return;
    }
    ctx.shard.lru_clock().shift(*s);
    ctx.shard.lru_clock().advance(ctx.now_ms());
    ctx.shard.lru_pass_step();
    ctx.out.ok();
  } else if (iequals(sub, "digest") && argc == 2) {
    ctx.out.simple(digest_hex(digest_dataset(ctx.shard)));
  } else if (iequals(sub, "digest-value") && argc >= 2) {
    ctx.out.array(argc - 2);
    for (std::size_t j = 2; j < argc; ++j) {
      Digest d{};
      // As Redis: logically expired keys still count (no lazy expiry here).
      if (const store::Entry e = ctx.db().peek(ctx.args[j])) digest_value(e, d);
      ctx.out.simple(digest_hex(d));
    }
  } else if (iequals(sub, "object") && argc == 3) {
    debug_object(ctx);
  } else if (iequals(sub, "protocol") && argc == 3) {
    debug_protocol(ctx);
  } else if (iequals(sub, "reload") && argc >= 2) {
    debug_reload(ctx);
  } else if ((iequals(sub, "listpack") && argc == 3) ||
             (iequals(sub, "quicklist") && (argc == 3 || argc == 4))) {
    const store::Entry e = ctx.db().peek(ctx.args[2]);
    const bool lp = iequals(sub, "listpack");
    if (!e) {
      ctx.out.error(err::kNoSuchKey);
    } else if (e.encoding() != (lp ? "listpack" : "quicklist")) {
      ctx.out.error(lp ? "ERR Not a listpack encoded object."
                       : "ERR Not a quicklist encoded object.");
    } else {
      log_structure(e, !lp, !lp && argc == 4 && ctx.args[3] == "1");
      ctx.out.simple(lp ? "Listpack structure printed on stdout"
                        : "Quicklist structure printed on stdout");
    }
  } else if (iequals(sub, "quicklist-packed-threshold") && argc == 3) {
    const auto sz = parse_memory(std::string(ctx.args[2]));
    if (!sz || *sz > (1ull << 32) - (1u << 20)) {
      ctx.out.error("ERR argument must be a memory value bigger than 1 and smaller than 4gb");
      return;
    }
    ctx.out.ok();  // nodes are always packed here: no element reaches a 1 GB plain node
  } else if (iequals(sub, "stringmatch-test") && argc == 2) {
    debug_stringmatch(ctx);
  } else if (iequals(sub, "command-id") && (argc == 3 || argc == 4)) {
    // Ruvio's own (not in DEBUG HELP): the CommandDef::id a mesh frame names a command by,
    // a subcommand's with a fourth argument, for tests that write mesh frames by hand.
    const CommandDef* def = command_table().find(ctx.args[2]);
    if (def != nullptr && argc == 4) def = CommandTable::find_sub(*def, ctx.args[3]);
    if (def == nullptr) {
      ctx.out.error("ERR no such command");
      return;
    }
    ctx.out.integer(def->id);
  } else if (iequals(sub, "error") && argc == 3) {
    ctx.out.error(ctx.args[2]);  // as given, no "ERR " added (addReplyErrorSds)
  } else if (iequals(sub, "log") && argc == 3) {
    spdlog::warn("DEBUG LOG: {}", ctx.args[2]);
    ctx.out.ok();
  } else if (iequals(sub, "change-repl-id") && argc == 2) {
    ctx.shard.change_repl_id();
    ctx.out.ok();
  } else {
    reply_unknown(ctx);
  }
}

const CommandDef kDebugCommands[] = {
    {.decl = &decl::debug, .handler = cmd_debug, .traits = kRouteDebug},
};

}  // namespace

bool debug_allowed(Shard& shard, const ClientInfo& client) {
  const std::string& mode = shard.config().enable_debug_command;
  return mode == "yes" || (mode == "local" && is_local(client));
}

std::span<const CommandDef> debug_commands() {
  return kDebugCommands;
}

}  // namespace ruvio::worker
