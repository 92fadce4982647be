// The serialization family: DUMP, RESTORE (Redis 7.0's payload format, worker/persist/
// rdb_value.hpp) and MIGRATE (migrate.cpp). RESTORE's checks run in Redis's order: options,
// BUSYKEY, TTL, payload footer, payload body; nothing changes before all of them pass.
#include <string>
#include <vector>

#include "worker/commands/generic/dump_decls.hpp"
#include "worker/commands/generic/migrate_link.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_stats.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/persist/rdb_value.hpp"
#include "worker/types/value.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kBadFooter = "ERR DUMP payload version or checksum are wrong";
constexpr std::string_view kBadData = "ERR Bad data format";

void cmd_dump(Context& ctx) {
  const store::Entry e = ctx.db().find(ctx.args[1], ctx.now_ms());
  if (!e) {
    ctx.out.null();
    return;
  }
  thread_local std::string payload;
  if (!persist::rdb::dump_payload(e, ctx.now_ms(), payload)) {
    ctx.out.error("ERR DUMP of this type is not supported by this server yet");
    return;
  }
  ctx.out.bulk(payload);
}

struct RestoreArgs {
  bool replace = false;
  bool absttl = false;
  std::int64_t idle = -1;
  std::int64_t freq = -1;
};

// restoreCommand's option loop: IDLETIME and FREQ exclude each other (the second is then a
// syntax error), each value checked as it is met.
bool parse_restore(Context& ctx, RestoreArgs& a) {
  for (std::size_t j = 4; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.args[j];
    const bool more = j + 1 < ctx.argc();
    if (iequals(opt, "replace")) {
      a.replace = true;
    } else if (iequals(opt, "absttl")) {
      a.absttl = true;
    } else if (iequals(opt, "idletime") && more && a.freq == -1) {
      const auto v = parse_int64(ctx.args[++j]);
      if (!v) return ctx.out.error(err::kNotInt), false;
      if (*v < 0) return ctx.out.error("ERR Invalid IDLETIME value, must be >= 0"), false;
      a.idle = *v;
    } else if (iequals(opt, "freq") && more && a.idle == -1) {
      const auto v = parse_int64(ctx.args[++j]);
      if (!v) return ctx.out.error(err::kNotInt), false;
      if (*v < 0 || *v > 255) {
        return ctx.out.error("ERR Invalid FREQ value, must be >= 0 and <= 255"), false;
      }
      a.freq = *v;
    } else {
      return ctx.out.error(err::kSyntax), false;
    }
  }
  return true;
}

void cmd_restore(Context& ctx) {
  RestoreArgs a;
  if (!parse_restore(ctx, a)) return;
  const std::string_view key = ctx.args[1];
  store::Db& db = ctx.db();
  if (!a.replace && db.find(key, ctx.now_ms())) {
    ctx.out.error("BUSYKEY Target key name already exists.");
    return;
  }
  const auto ttl_arg = parse_int64(ctx.args[2]);
  if (!ttl_arg) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (*ttl_arg < 0) {
    ctx.out.error("ERR Invalid TTL value, must be >= 0");
    return;
  }
  const std::string_view payload = ctx.args[3];
  if (!persist::rdb::verify_payload(payload)) {
    ctx.out.error(kBadFooter);
    return;
  }
  persist::rdb::Loaded v;
  // The decoder checks every payload deeply (rdb_value.hpp): each one counts as Redis counts
  // a sanitized RESTORE.
  ++ctx.shard.stats().dump_payload_sanitizations;
  if (!persist::rdb::decode_value(db.heap(), payload,
                                  persist::rdb::build_limits(ctx.shard.config()), v)) {
    ctx.out.error(kBadData);
    return;
  }
  const bool deleted = a.replace && db.erase_server(key);
  std::int64_t at = *ttl_arg;
  if (at != 0 && !a.absttl) at += ctx.now_ms();
  if (at != 0 && at <= ctx.now_ms()) {
    // Already expired: nothing is created (a replaced key is just deleted).
    if (v.obj != nullptr) types::ops_of(v.obj).destroy(db.heap(), v.obj);
    if (deleted) ctx.log_as({"DEL", key});
    ctx.out.ok();
    return;
  }
  store::SetOptions opt;
  opt.expire_at = at != 0 ? at : store::kNoExpire;
  if (v.is_string) {
    db.set_string(key, v.str, opt);
  } else {
    db.set_object(key, v.obj, opt);
    // dbAdd's signalKeyAsReady: a client blocked on this list, zset or stream is served.
    if (store::KeyspaceListener* l = db.events().listener) l->key_ready(db, key);
  }
  db.set_access(key, a.idle, a.freq, ctx.now_ms());  // objectSetLRUOrLFU
  // The journal replays the restore itself, with the expiry made absolute (as Redis
  // propagates it) and REPLACE, which the replayed order makes harmless. IDLETIME/FREQ are
  // access metadata, not data: applied here, left out of the log.
  char buf[24];
  ctx.log_as({"RESTORE", key, format_int64(at, buf), payload, "REPLACE", "ABSTTL"});
  ctx.out.ok();
}

void append_bulk(std::string& out, std::string_view s) {
  out.push_back('$');
  out.append(std::to_string(s.size()));
  out.append("\r\n");
  out.append(s);
  out.append("\r\n");
}

void append_command(std::string& out, std::initializer_list<std::string_view> args) {
  out.push_back('*');
  out.append(std::to_string(args.size()));
  out.append("\r\n");
  for (std::string_view a : args) append_bulk(out, a);
}

struct MigrateArgs {
  bool copy = false;
  bool replace = false;
  std::string_view user, password;
  bool auth = false;
  bool auth2 = false;  // AUTH2: a username is sent (even an empty one)
  std::vector<std::string_view> keys;
};

// migrateCommand's option loop: KEYS takes every argument after it (and wants the key
// argument empty).
bool parse_migrate(Context& ctx, MigrateArgs& a) {
  std::size_t first = 3, count = 1;
  for (std::size_t j = 6; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.args[j];
    const std::size_t more = ctx.argc() - 1 - j;
    if (iequals(opt, "copy")) {
      a.copy = true;
    } else if (iequals(opt, "replace")) {
      a.replace = true;
    } else if (iequals(opt, "auth")) {
      if (more < 1) return ctx.out.error(err::kSyntax), false;
      a.auth = true;
      a.password = ctx.args[++j];
    } else if (iequals(opt, "auth2")) {
      if (more < 2) return ctx.out.error(err::kSyntax), false;
      a.auth = a.auth2 = true;
      a.user = ctx.args[++j];
      a.password = ctx.args[++j];
    } else if (iequals(opt, "keys")) {
      if (!ctx.args[3].empty()) {
        ctx.out.error(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string");
        return false;
      }
      first = j + 1;
      count = ctx.argc() - j - 1;
      break;
    } else {
      return ctx.out.error(err::kSyntax), false;
    }
  }
  for (std::size_t i = first; i < first + count; ++i) a.keys.push_back(ctx.args[i]);
  return true;
}

void cmd_migrate(Context& ctx) {
  MigrateArgs a;
  if (!parse_migrate(ctx, a)) return;
  const auto timeout_arg = parse_int64(ctx.args[5]);
  const auto dbid = parse_int64(ctx.args[4]);
  if (!timeout_arg || !dbid) {
    ctx.out.error(err::kNotInt);
    return;
  }
  const int timeout = *timeout_arg <= 0 || *timeout_arg > INT32_MAX
                          ? (*timeout_arg <= 0 ? 1000 : INT32_MAX)
                          : static_cast<int>(*timeout_arg);
  store::Db& db = ctx.db();
  std::vector<std::string_view> present;
  for (std::string_view k : a.keys) {
    if (db.find(k, ctx.now_ms())) present.push_back(k);
  }
  if (present.empty()) {
    ctx.out.simple("NOKEY");
    return;
  }
  // The request: [AUTH] SELECT, then one RESTORE per key still alive, TTL relative.
  std::string req;
  if (a.auth) {
    if (a.auth2) {
      append_command(req, {"AUTH", a.user, a.password});
    } else {
      append_command(req, {"AUTH", a.password});
    }
  }
  char dbbuf[24];
  append_command(req, {"SELECT", format_int64(*dbid, dbbuf)});
  std::vector<std::string_view> sent;
  std::string payload;
  for (std::string_view k : present) {
    const store::Entry e = db.find(k, ctx.now_ms());
    if (!e) continue;
    std::int64_t ttl = 0;
    if (e.expire_at() != store::kNoExpire) {
      ttl = e.expire_at() - ctx.now_ms();
      if (ttl < 0) continue;
    }
    if (!persist::rdb::dump_payload(e, ctx.now_ms(), payload)) continue;
    char tbuf[24];
    req.append(a.replace ? "*5\r\n" : "*4\r\n");
    append_bulk(req, "RESTORE");
    append_bulk(req, k);
    append_bulk(req, format_int64(ttl, tbuf));
    append_bulk(req, payload);
    if (a.replace) append_bulk(req, "REPLACE");
    sent.push_back(k);
  }
  // One retry when nothing was answered yet (Redis's may_retry).
  for (int attempt = 0;; ++attempt) {
    MigrateLink link;
    if (!link.connect(std::string(ctx.args[1]), std::string(ctx.args[2]), timeout)) {
      ctx.out.error("IOERR error or timeout connecting to the client");
      return;
    }
    std::string auth_reply, select_reply, line;
    const bool wrote = link.write_all(req, timeout);
    bool head = wrote && (!a.auth || link.read_line(auth_reply, timeout)) &&
                link.read_line(select_reply, timeout);
    if (!head) {
      if (attempt == 0) continue;
      ctx.out.error(wrote ? "IOERR error or timeout reading to target instance"
                          : "IOERR error or timeout writing to target instance");
      return;
    }
    std::string target_error;
    std::vector<std::string_view> moved;
    std::size_t answered = 0;
    for (; answered < sent.size(); ++answered) {
      if (!link.read_line(line, timeout)) break;
      const std::string* err = a.auth && auth_reply.starts_with('-') ? &auth_reply
                               : select_reply.starts_with('-')       ? &select_reply
                               : line.starts_with('-')               ? &line
                                                                     : nullptr;
      if (err != nullptr) {
        if (target_error.empty()) target_error = err->substr(1);
      } else if (!a.copy) {
        db.erase(sent[answered]);
        moved.push_back(sent[answered]);
      }
    }
    if (!target_error.empty() || answered == sent.size() || answered > 0 || attempt > 0) {
      if (!moved.empty()) {
        moved.insert(moved.begin(), "DEL");
        ctx.log_as(std::span<const std::string_view>(moved));
      }
      if (!target_error.empty()) {
        ctx.out.error("ERR Target instance replied with error: " + target_error);
      } else if (answered < sent.size()) {
        ctx.out.error("IOERR error or timeout reading to target instance");
      } else {
        ctx.out.ok();
      }
      return;
    }
  }
}

// Redis 7.0's migrateGetKeys: the key argument, or with KEYS (the key argument empty) every
// argument after it, the options before KEYS skipped with their arguments (AUTH 1, AUTH2 2).
// The KEYS spec is INCOMPLETE (a password may read "KEYS"), so no spec walk can tell; but
// Redis walks the specs first, and when its keyword search (from the next-to-last argument
// back) finds no KEYS, the key argument alone is its answer (MIGRATE … "" 0 5 KEYS: "").
KeysFound migrate_getkeys(const CommandDef& def, std::span<const std::string_view> args,
                          KeyVisitor visit) {
  bool keyword = false;
  for (std::size_t i = 1; i + 1 < args.size(); ++i) keyword |= iequals(args[i], "keys");
  std::size_t first = 3, num = 1;
  for (std::size_t i = 6; keyword && i < args.size(); ++i) {
    if (iequals(args[i], "keys")) {
      if (!args[3].empty()) return KeysFound::kInvalid;  // the handler answers the error
      first = i + 1;
      num = args.size() - first;
      break;
    }
    if (iequals(args[i], "auth")) {
      i += 1;
    } else if (iequals(args[i], "auth2")) {
      i += 2;
    }
  }
  if (first + num > args.size()) return KeysFound::kInvalid;
  for (std::size_t i = first; i < first + num; ++i) visit.fn(visit.context, i, def.decl->keys[0]);
  return KeysFound::kOk;
}

const CommandDef kDumpCommands[] = {
    {&decl::dump, cmd_dump},
    {&decl::restore, cmd_restore},
    {.decl = &decl::migrate,
     .handler = cmd_migrate,
     .redact = redact_migrate,
     .getkeys = migrate_getkeys},
};

}  // namespace

std::span<const CommandDef> dump_commands() {
  return kDumpCommands;
}

}  // namespace ruvio::worker
