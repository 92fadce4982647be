// The serialization family: DUMP, RESTORE (Redis 7.0's payload format, worker/persist/
// rdb_value.hpp) and MIGRATE (migrate.cpp). RESTORE's checks run in Redis's order: options,
// BUSYKEY, TTL, payload footer, payload body; nothing changes before all of them pass.
#include "worker/commands/command.hpp"
#include "worker/commands/common.hpp"
#include "worker/commands/context.hpp"
#include "worker/commands/decls/dump_decls.hpp"
#include "worker/persist/rdb_value.hpp"
#include "worker/types/value.hpp"

namespace ruvio::worker {
namespace {

persist::rdb::BuildLimits rdb_limits(Context& ctx) {
  const Config& c = ctx.shard.config();
  persist::rdb::BuildLimits lim;
  lim.hash = {c.hash_max_listpack_entries, c.hash_max_listpack_value};
  lim.zset = {c.zset_max_listpack_entries, c.zset_max_listpack_value};
  lim.list_fill = c.list_max_listpack_size;
  lim.list_depth = c.list_compress_depth;
  return lim;
}

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
  if (!persist::rdb::decode_value(db.heap(), payload, rdb_limits(ctx), v)) {
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
  }
  // The journal replays the restore itself, with the expiry made absolute (as Redis
  // propagates it) and REPLACE, which the replayed order makes harmless. IDLETIME/FREQ are
  // access metadata, not data: left out.
  char buf[24];
  ctx.log_as({"RESTORE", key, format_int64(at, buf), payload, "REPLACE", "ABSTTL"});
  ctx.out.ok();
}

// clang-format off
const CommandDef kDumpCommands[] = {
    {"dump", 2, kReadonly, &decl::dump, cmd_dump, "generic",
     "Return a serialized version of the value stored at the specified key.",
     "2.6.0", "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).", "keyspace read slow"},
    {"restore", -4, kWrite | kDenyOom, &decl::restore, cmd_restore, "generic",
     "Create a key using the provided serialized value, previously obtained using DUMP.",
     "2.6.0", "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).", "keyspace write slow dangerous"},
};
// clang-format on

}  // namespace

std::span<const CommandDef> dump_commands() {
  return kDumpCommands;
}

}  // namespace ruvio::worker
