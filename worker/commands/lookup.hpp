// Key lookups for every command family: Redis's lookupKeyRead / lookupKeyWrite and the type
// check, decided here once. A read counts keyspace_hits / keyspace_misses; a write does not.
// Both expire lazily. A family that changes a value object in place uses Db::open (the write
// handle) instead, which decides WRONGTYPE the same way.
#pragma once

#include <cstdint>
#include <string_view>

#include "worker/commands/common.hpp"
#include "worker/commands/context.hpp"

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
    }
  }
  return e;
}

inline store::Entry lookup_read(Context& ctx, std::string_view key) {
  return lookup(ctx, key, Access::kRead);
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
inline Typed lookup_as(Context& ctx, std::string_view key, store::Type type, Access access) {
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
inline bool lookup_or_wrongtype(Context& ctx, std::string_view key, store::Type type, Access access,
                                store::Entry& out) {
  Typed t = lookup_as(ctx, key, type, access);
  if (t.wrong_type) {
    ctx.out.error(err::kWrongType);
    return false;
  }
  out = t.entry;
  return true;
}

}  // namespace ruvio::worker
