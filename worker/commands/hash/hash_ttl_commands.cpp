// Hash-field TTLs, as Redis 7.4: HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT (NX XX GT LT) HTTL
// HPTTL HEXPIRETIME HPEXPIRETIME HPERSIST, and the active expiry of fields.
//
// Replies are Redis 7.4's hexpireGenericCommand / httlGenericCommand / hpersistCommand: one
// integer per field, -2 no such field (or already expired), and for HEXPIRE* 0 condition not
// met, 1 set, 2 deleted because the time is not in the future; HTTL* -1 without TTL; HPERSIST
// -1 without TTL, 1 removed. A missing key: HEXPIRE* answer -2 per field, the others null.
// Only the hashtable encoding holds TTLs (hash.hpp), so the first HEXPIRE on a listpack
// converts it, as Valkey 9 does.
//
// The WAL gets absolute times: a relative HEXPIRE is logged as HPEXPIREAT of the fields it
// changed, with no condition (it was decided here), so replay sets the same instants.
#include <string>
#include <vector>

#include "worker/commands/hash/hash_family.hpp"
#include "worker/commands/hash/hash_ttl_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/persist/effect.hpp"
#include "worker/types/hash/field_expiry_index.hpp"
#include "worker/types/hash/hash.hpp"

namespace ruvio::worker {
namespace {

namespace H = types::hash;
using H::Hash;
using types::Type;

// Redis 7.4's HFE_MAX_ABS_TIME_MSEC: 48-bit expiry times with 2 bits reserved.
constexpr std::int64_t kMaxAbsMs = (std::int64_t{1} << 46) - 1;

enum Cond : unsigned { kNone = 0, kNX = 1, kXX = 2, kGT = 4, kLT = 8 };

H::FieldExpiryIndex& index_of(Shard& shard, int db) {
  std::vector<H::FieldExpiryIndex>& v = shard.hash_field_ttls.index;
  if (v.size() <= static_cast<std::size_t>(db)) v.resize(static_cast<std::size_t>(db) + 1);
  return v[static_cast<std::size_t>(db)];
}

std::string expire_time_error(Context& ctx) {
  return "ERR invalid expire time in '" + std::string(ctx.command->name) + "' command";
}

// FIELDS numfields field...: at `at` (the FIELDS keyword). nullopt after an error reply.
std::optional<std::size_t> parse_fields(Context& ctx, std::size_t at, std::string_view count_err) {
  if (at >= ctx.argc() || !iequals(ctx.args[at], "fields")) {
    ctx.out.error("ERR Mandatory argument FIELDS is missing or not at the right position");
    return std::nullopt;
  }
  std::optional<std::int64_t> n =
      at + 1 < ctx.argc() ? parse_int64(ctx.args[at + 1]) : std::optional<std::int64_t>{};
  if (!n || *n < 1) {
    ctx.out.error(count_err);
    return std::nullopt;
  }
  if (static_cast<std::uint64_t>(*n) != ctx.argc() - at - 2) {
    ctx.out.error("ERR The `numfields` parameter must match the number of arguments");
    return std::nullopt;
  }
  return at + 2;
}

void hexpire_generic(Context& ctx, bool ms, bool absolute) {
  const std::string_view key = ctx.args[1];
  hash_purge(ctx, key);
  Typed t = lookup_as(ctx, key, Type::kHash, Access::kWrite);
  if (t.wrong_type) {
    ctx.out.error(err::kWrongType);
    return;
  }
  std::optional<std::int64_t> when = parse_int64(ctx.args[2]);
  if (!when) {
    ctx.out.error(err::kNotInt);
    return;
  }
  std::int64_t at = *when;
  if (at < 0) {
    ctx.out.error("ERR invalid expire time, must be >= 0");
    return;
  }
  if (!ms) {
    if (at > kMaxAbsMs / 1000) {
      ctx.out.error(expire_time_error(ctx));
      return;
    }
    at *= 1000;
  }
  const std::int64_t base = absolute ? 0 : ctx.now_ms();
  if (at > kMaxAbsMs - base) {
    ctx.out.error(expire_time_error(ctx));
    return;
  }
  at += base;
  unsigned cond = kNone;
  std::size_t fields_at = 3;
  if (ctx.argc() > 3) {
    const std::string_view o = ctx.args[3];
    if (iequals(o, "nx")) cond = kNX;
    if (iequals(o, "xx")) cond = kXX;
    if (iequals(o, "gt")) cond = kGT;
    if (iequals(o, "lt")) cond = kLT;
    if (cond != kNone) fields_at = 4;
  }
  std::optional<std::size_t> first =
      parse_fields(ctx, fields_at, "ERR Parameter `numFields` should be greater than 0");
  if (!first) return;
  const std::size_t n = ctx.argc() - *first;
  ctx.out.array(n);
  if (!t) {
    for (std::size_t i = 0; i < n; ++i) ctx.out.integer(-2);
    return;
  }
  store::WriteHandle w = ctx.db().open(key, Type::kHash, ctx.now_ms());
  std::vector<std::string_view> changed;
  bool deleted_key = false;
  bool indexed = false;  // some field got this TTL: the active expiry's index learns it once
  for (std::size_t i = *first; i < ctx.argc(); ++i) {
    const std::string_view f = ctx.args[i];
    if (deleted_key) {
      ctx.out.integer(-2);
      continue;
    }
    std::optional<std::int64_t> prev =
        H::field_expire(static_cast<const Hash*>(w.peek()), f, ctx.now_ms());
    if (!prev) {
      ctx.out.integer(-2);
      continue;
    }
    const bool has = *prev >= 0;
    // A field without TTL counts as an infinite one: LT holds, GT and XX do not.
    if ((cond == kNX && has) || (cond == kXX && !has) || (cond == kGT && (!has || *prev >= at)) ||
        (cond == kLT && has && *prev <= at)) {
      ctx.out.integer(0);
      continue;
    }
    auto* h = w.as<Hash>();
    changed.push_back(f);
    if (at <= ctx.now_ms()) {  // checkAlreadyExpired
      H::del(w.heap(), h, f);
      ctx.out.integer(2);
      if (H::length(h) == 0) {
        w.remove();
        deleted_key = true;
      }
      continue;
    }
    H::set_field_expire(w.heap(), h, f, at);
    indexed = true;
    ctx.out.integer(1);
  }
  if (indexed && !deleted_key) index_of(ctx.shard, ctx.client.db).note(key, at);
  if (changed.empty()) return;
  std::vector<std::string_view> effect;
  char abuf[24], nbuf[24];
  effect.push_back("HPEXPIREAT");
  effect.push_back(key);
  effect.push_back(format_int64(at, abuf));
  effect.push_back("FIELDS");
  effect.push_back(format_int64(static_cast<std::int64_t>(changed.size()), nbuf));
  effect.insert(effect.end(), changed.begin(), changed.end());
  ctx.log_as(effect);
}

void hexpire(Context& ctx) {
  hexpire_generic(ctx, false, false);
}
void hpexpire(Context& ctx) {
  hexpire_generic(ctx, true, false);
}
void hexpireat(Context& ctx) {
  hexpire_generic(ctx, false, true);
}
void hpexpireat(Context& ctx) {
  hexpire_generic(ctx, true, true);
}

enum class TtlReply { kTtl, kPttl, kExpireTime, kPexpireTime };

void httl_generic(Context& ctx, TtlReply what) {
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  if (h == nullptr) {
    ctx.out.null();
    return;
  }
  std::optional<std::size_t> first =
      parse_fields(ctx, 2, "ERR Number of fields must be a positive integer");
  if (!first) return;
  ctx.out.array(ctx.argc() - *first);
  const std::int64_t now = ctx.now_ms();
  for (std::size_t i = *first; i < ctx.argc(); ++i) {
    std::optional<std::int64_t> at = H::field_expire(h, ctx.args[i], now);
    if (!at) {
      ctx.out.integer(-2);
    } else if (*at < 0) {
      ctx.out.integer(-1);
    } else {
      switch (what) {
        case TtlReply::kTtl:
          ctx.out.integer((*at - now + 999) / 1000);
          break;
        case TtlReply::kPttl:
          ctx.out.integer(*at - now);
          break;
        case TtlReply::kExpireTime:
          ctx.out.integer((*at + 999) / 1000);
          break;
        case TtlReply::kPexpireTime:
          ctx.out.integer(*at);
          break;
      }
    }
  }
}

void httl(Context& ctx) {
  httl_generic(ctx, TtlReply::kTtl);
}
void hpttl(Context& ctx) {
  httl_generic(ctx, TtlReply::kPttl);
}
void hexpiretime(Context& ctx) {
  httl_generic(ctx, TtlReply::kExpireTime);
}
void hpexpiretime(Context& ctx) {
  httl_generic(ctx, TtlReply::kPexpireTime);
}

void hpersist(Context& ctx) {
  const std::string_view key = ctx.args[1];
  bool wrong;
  const Hash* h = hash_read(ctx, key, &wrong);
  if (wrong) return;
  if (h == nullptr) {
    ctx.out.null();
    return;
  }
  std::optional<std::size_t> first =
      parse_fields(ctx, 2, "ERR Number of fields must be a positive integer");
  if (!first) return;
  ctx.out.array(ctx.argc() - *first);
  store::WriteHandle w = ctx.db().open(key, Type::kHash, ctx.now_ms());
  for (std::size_t i = *first; i < ctx.argc(); ++i) {
    std::optional<std::int64_t> at =
        H::field_expire(static_cast<const Hash*>(w.peek()), ctx.args[i], ctx.now_ms());
    if (!at) {
      ctx.out.integer(-2);
    } else if (*at < 0) {
      ctx.out.integer(-1);
    } else {
      H::set_field_expire(w.heap(), w.as<Hash>(), ctx.args[i], -1);
      ctx.out.integer(1);
    }
  }
}

const CommandDef kHashTtlCommands[] = {
    {&decl::hexpire, hexpire},
    {&decl::hpexpire, hpexpire},
    {&decl::hexpireat, hexpireat},
    {&decl::hpexpireat, hpexpireat},
    {&decl::httl, httl},
    {&decl::hpttl, hpttl},
    {&decl::hexpiretime, hexpiretime},
    {&decl::hpexpiretime, hpexpiretime},
    {&decl::hpersist, hpersist},
};

}  // namespace

std::span<const CommandDef> hash_ttl_commands() {
  return kHashTtlCommands;
}

void note_hash_field_ttls(Shard& shard, int db, std::string_view key) {
  const store::Entry e = shard.db(db).peek(key);
  if (!e || e.type() != Type::kHash) return;
  const std::int64_t at = H::next_field_expire(static_cast<const Hash*>(e.object()));
  if (at >= 0) index_of(shard, db).note(key, at);
}

void swap_hash_field_ttls(Shard& shard, int a, int b) {
  // Both slots exist before either reference is taken: index_of may grow the vector, which
  // would leave the first reference dangling (a SWAPDB 0 15 as the first field-TTL touch).
  index_of(shard, std::max(a, b));
  index_of(shard, a).swap(index_of(shard, b));
}

namespace {

// Once after start: the hashes a snapshot brought, indexed by one bounded scan per tick (WAL
// replay and every later write index through the commands).
void seed_step(Shard& shard, std::size_t budget) {
  HashFieldTtls& st = shard.hash_field_ttls;
  st.seed_cursor.resize(static_cast<std::size_t>(shard.databases()), 0);
  bool done = true;
  for (int i = 0; i < shard.databases(); ++i) {
    store::Db& db = shard.db(i);
    std::uint64_t& cur = st.seed_cursor[static_cast<std::size_t>(i)];
    if (cur == UINT64_MAX || db.size() == 0) continue;
    std::size_t visited = 0;
    do {
      cur = db.scan(cur, 16, [&](store::Entry e) {
        ++visited;
        if (e.type() != Type::kHash) return;
        const std::int64_t at = H::next_field_expire(static_cast<const Hash*>(e.object()));
        if (at >= 0) index_of(shard, i).note(e.key(), at);
      });
    } while (cur != 0 && visited < budget);
    if (cur == 0) {
      cur = UINT64_MAX;  // this db is done
    } else {
      done = false;
    }
  }
  st.seeded = done;
}

}  // namespace

std::size_t hash_field_expire_step(Shard& shard, std::int64_t now_ms, std::size_t budget,
                                   Journal* journal) {
  if (!H::field_ttls_seen()) return 0;
  HashFieldTtls& st = shard.hash_field_ttls;
  if (!st.seeded) seed_step(shard, budget);
  std::size_t removed = 0;
  std::string unused_reply;
  proto::ReplyWriter sink(unused_reply);
  for (int i = 0; i < shard.databases(); ++i) {
    H::FieldExpiryIndex& idx = index_of(shard, i);
    if (idx.next() >= now_ms) continue;
    store::Db& db = shard.db(i);
    // Bounded: `budget` keys a tick, and as many expired fields (a hash with more keeps its
    // place at the front for the next tick).
    idx.take_due(now_ms, budget, st.due);
    std::size_t fields_left = budget * 10;
    for (const std::string& key : st.due) {
      store::WriteHandle w = db.open(key, Type::kHash, now_ms);
      if (!w) continue;  // gone, or no longer a hash: the entry was stale
      auto* h = w.as<Hash>();
      const std::string_view head[] = {"HDEL", key};
      if (journal != nullptr && !journal->before_write(head, sink)) {
        idx.note(key, now_ms - 1);  // the WAL refuses writes: try again next tick
        continue;
      }
      const std::size_t n = H::expire_fields(w.heap(), h, now_ms, fields_left, st.gone);
      removed += n;
      fields_left -= std::min(fields_left, n);
      const bool empty = H::length(h) == 0;
      const std::int64_t next = H::next_field_expire(h);
      w.release();
      // As Redis propagates field expiry: HDEL of the fields (the last one deletes the key on
      // replay too). The emptied key goes through lazy free as UNLINK's do: a value above
      // the lazy free threshold (a big table emptied by expiry) is freed by the queue in
      // steps, not inline in this tick.
      if (empty) db.erase(key, /*lazy=*/true);
      if (n > 0 && journal != nullptr) {
        std::vector<std::string_view> hdel;
        hdel.reserve(n + 2);
        hdel.push_back("HDEL");
        hdel.push_back(key);
        hdel.insert(hdel.end(), st.gone.begin(), st.gone.end());
        journal->after_write(i, hdel);
      }
      if (!empty && next >= 0) idx.note(key, next);
      if (fields_left == 0) break;
    }
    // The field budget ran out: the keys taken and not reached go back for the next tick
    // (noting one already served again is harmless: its exact next time).
    if (fields_left == 0) {
      for (const std::string& key : st.due) note_hash_field_ttls(shard, i, key);
    }
  }
  return removed;
}

}  // namespace ruvio::worker
