// Key lookups for every command family: Redis's lookupKeyRead / lookupKeyWrite and the type
// check, decided here once. A read counts keyspace_hits / keyspace_misses; a write does not.
// Both expire lazily. A family that changes a value object in place uses Db::open (the write
// handle) instead, which decides WRONGTYPE the same way.
#pragma once

#include <cstdint>
#include <string_view>

#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/store/db.hpp"

namespace ruvio::worker {

enum class Access : std::uint8_t { kRead, kWrite };

// Inline: GET and SET run through these on every call.
inline store::Entry lookup(Context& ctx, std::string_view key, Access access) {
  store::Entry e = ctx.db().find(key, ctx.now_ms());
  if (access == Access::kRead) {
    if (e) {
      ++ctx.shard.stats().keyspace_hits;
    } else {
      ++ctx.shard.stats().keyspace_misses;
      ctx.notify(kNotifyKeyMiss, "keymiss", key);  // class m
    }
  }
  return e;
}

inline store::Entry lookup_read(Context& ctx, std::string_view key) {
  return lookup(ctx, key, Access::kRead);
}
// TYPE, TTL & co., EXISTS: a read (hits and misses count) that does not touch the LRU/LFU
// clock, as Redis's LOOKUP_NOTOUCH.
inline store::Entry lookup_read_notouch(Context& ctx, std::string_view key) {
  store::Entry e = ctx.db().find_notouch(key, ctx.now_ms());
  if (e) {
    ++ctx.shard.stats().keyspace_hits;
  } else {
    ++ctx.shard.stats().keyspace_misses;
  }
  return e;
}
inline store::Entry lookup_write(Context& ctx, std::string_view key) {
  return lookup(ctx, key, Access::kWrite);
}

// A lookup for a value of one type: a key of another type comes back as no entry with
// wrong_type set, so the command answers WRONGTYPE (or, as MGET, null).
struct Typed {
  store::Entry entry;
  bool wrong_type = false;
  explicit operator bool() const { return bool(entry); }
};
inline Typed lookup_as(Context& ctx, std::string_view key, types::Type type, Access access) {
  Typed t;
  store::Entry e = lookup(ctx, key, access);
  if (e && e.type() != type) {
    t.wrong_type = true;
  } else {
    t.entry = e;
  }
  return t;
}

// lookup_as, replying WRONGTYPE for a key of another type: false when it did.
inline bool lookup_or_wrongtype(Context& ctx, std::string_view key, types::Type type, Access access,
                                store::Entry& out) {
  Typed t = lookup_as(ctx, key, type, access);
  if (t.wrong_type) {
    ctx.out.error(err::kWrongType);
    return false;
  }
  out = t.entry;
  return true;
}

// What a write command answers when its key is missing (Redis's "nothing to do" reply).
enum class IfMissing : std::uint8_t {
  kNothing,    // no reply: the command creates the key, or goes on to its next key
  kZero,       // :0 (SREM, HDEL, ZREM, LREM ...)
  kNull,       // the null bulk (LPOP without count, SPOP without count)
  kNullArray,  // the null array (LPOP with count)
  kEmptySet,   // the empty set/array (SPOP with count)
  kOk,         // +OK (LTRIM)
  kNoSuchKey,  // -ERR no such key (LSET)
};

// The reply of `missing` (none for kNothing).
// Db::open with the prologue every family repeats (open_or_reply, below): a key of another type is
// answered WRONGTYPE, a missing key as `missing` says; false then (the command is done). True: the
// handle holds the value (or, kNothing on a missing key, is empty for the command to set()).
inline void reply_missing(Context& ctx, IfMissing missing) {
  switch (missing) {
    case IfMissing::kZero:
      ctx.out.integer(0);
      break;
    case IfMissing::kNull:
      ctx.out.null();
      break;
    case IfMissing::kNullArray:
      ctx.out.null_array();
      break;
    case IfMissing::kEmptySet:
      ctx.out.set(0);
      break;
    case IfMissing::kOk:
      ctx.out.ok();
      break;
    case IfMissing::kNoSuchKey:
      ctx.out.error(err::kNoSuchKey);
      break;
    case IfMissing::kNothing:
      break;
  }
}

inline bool open_or_reply(Context& ctx, std::string_view key, types::Type type, IfMissing missing,
                          store::WriteHandle& out) {
  out = ctx.db().open(key, type, ctx.now_ms());
  if (out.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return false;
  }
  if (out || missing == IfMissing::kNothing) return true;
  reply_missing(ctx, missing);
  return false;
}

}  // namespace ruvio::worker
