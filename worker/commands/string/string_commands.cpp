// String family: GET/SET and variants, MGET/MSET, APPEND, ranges, counters, INCRBYFLOAT, LCS.
//
// Every reply and error follows Redis 7.0's t_string.c decision for decision (option
// conflicts, the order in which checks fail, overflow texts), because clients and test
// suites match on them. Reads that Redis performs with lookupKeyRead count keyspace
// hits/misses; the write-path lookups (lookupKeyWrite) do not.
//
// An Entry is only valid until the next mutation of its Db, and a lookup may itself mutate
// (lazy expiry). So a handler finishes reading an entry — usually by writing it into the
// reply — before it looks up another key or writes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "worker/commands/string/string_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"

namespace ruvio::worker {
namespace {

using store::Entry;
using store::SetOptions;

// proto-max-bulk-len's default; Ruvio does not make it configurable (yet).
constexpr std::int64_t kMaxStringLength = 512LL * 1024 * 1024;
// Redis's MAX_LONG_DOUBLE_CHARS: room for "%.17Lf" of the largest finite long double.
constexpr std::size_t kMaxLongDoubleChars = 5 * 1024;

// LCS's table is (len1+1)*(len2+1) cells of 4 bytes; 1 GiB of table at most.
constexpr std::uint64_t kMaxLcsCells = (1ULL << 30) / sizeof(std::uint32_t);

constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

using types::Type;

bool is_string(Entry e) {
  return e.type() == Type::kString;
}

void reply_value(Context& ctx, Entry e) {
  if (e.is_int()) {
    ctx.out.bulk_int(e.int_value());
  } else {
    ctx.out.bulk(e.str());
  }
}

// The bytes of a string entry; an integer is formatted into `buf` (21 bytes at least).
std::string_view string_of(Entry e, char* buf) {
  return e.is_int() ? format_int64(e.int_value(), buf) : e.str();
}

// getGenericCommand: replies with the value or null. False when the key holds another type
// (the WRONGTYPE error has been sent). `found` tells whether the key existed.
bool get_generic(Context& ctx, std::string_view key, bool& found) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, key, Type::kString, Access::kRead, e)) {
    found = true;
    return false;
  }
  found = bool(e);
  if (!e) {
    ctx.out.null();
    return true;
  }
  reply_value(ctx, e);
  return true;
}

// size + append > proto-max-bulk-len, without overflowing.
bool exceeds_max_length(std::int64_t size, std::int64_t append) {
  return size > kMaxStringLength || append > kMaxStringLength - size;
}

// ---------------------------------------------------------------------------------------
// SET / GETEX options (parseExtendedStringArgumentsOrReply).

enum ExtFlag : unsigned {
  kNx = 1u << 0,
  kXx = 1u << 1,
  kEx = 1u << 2,
  kPx = 1u << 3,
  kKeepTtl = 1u << 4,
  kGet = 1u << 5,
  kExAt = 1u << 6,
  kPxAt = 1u << 7,
  kPersist = 1u << 8,
};
constexpr unsigned kAnyExpire = kEx | kPx | kExAt | kPxAt;

struct ExtArgs {
  unsigned flags = 0;
  bool has_expire = false;
  std::string_view expire;  // the EX/PX/EXAT/PXAT argument
};

enum class ExtFor { kSet, kGetEx };

// Each option is refused when a conflicting one came before it; repeating an option (NX NX,
// EX 1 EX 2) is allowed, as in Redis. NX and GET combine since 7.0.
bool parse_extended(Context& ctx, ExtFor which, ExtArgs& ext) {
  const bool is_set = which == ExtFor::kSet;
  std::size_t argc = ctx.argc();
  unsigned& f = ext.flags;
  for (std::size_t j = is_set ? 3 : 2; j < argc; ++j) {
    std::string_view opt = ctx.args[j];
    bool has_next = j + 1 < argc;
    unsigned expire_flag = 0;
    if (iequals(opt, "nx") && !(f & kXx) && is_set) {
      f |= kNx;
    } else if (iequals(opt, "xx") && !(f & kNx) && is_set) {
      f |= kXx;
    } else if (iequals(opt, "get") && is_set) {
      f |= kGet;
    } else if (iequals(opt, "keepttl") && !(f & (kPersist | kAnyExpire)) && is_set) {
      f |= kKeepTtl;
    } else if (iequals(opt, "persist") && !is_set && !(f & (kAnyExpire | kKeepTtl))) {
      f |= kPersist;
    } else if (iequals(opt, "ex") && !(f & (kKeepTtl | kPersist | kExAt | kPx | kPxAt)) &&
               has_next) {
      expire_flag = kEx;
    } else if (iequals(opt, "px") && !(f & (kKeepTtl | kPersist | kEx | kExAt | kPxAt)) &&
               has_next) {
      expire_flag = kPx;
    } else if (iequals(opt, "exat") && !(f & (kKeepTtl | kPersist | kEx | kPx | kPxAt)) &&
               has_next) {
      expire_flag = kExAt;
    } else if (iequals(opt, "pxat") && !(f & (kKeepTtl | kPersist | kEx | kExAt | kPx)) &&
               has_next) {
      expire_flag = kPxAt;
    } else {
      ctx.out.error(err::kSyntax);
      return false;
    }
    if (expire_flag != 0) {
      f |= expire_flag;
      ext.has_expire = true;
      ext.expire = ctx.args[++j];
    }
  }
  return true;
}

void reply_invalid_expire(Context& ctx, std::string_view command) {
  // "ERR invalid expire time in 'set' command"; the name is one of ours, so 64 bytes do.
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "ERR invalid expire time in '%.*s' command",
                        static_cast<int>(command.size()), command.data());
  ctx.out.error(std::string_view(buf, static_cast<std::size_t>(n)));
}

// getExpireMillisecondsOrReply: the absolute expiry in ms, or nullopt after an error reply.
std::optional<std::int64_t> resolve_expire(Context& ctx, std::string_view arg, bool seconds,
                                           bool relative, std::string_view command) {
  auto v = parse_int64(arg);
  if (!v) {
    ctx.out.error(err::kNotInt);
    return std::nullopt;
  }
  std::int64_t ms = *v;
  if (ms <= 0 || (seconds && ms > INT64_MAX / 1000)) {
    reply_invalid_expire(ctx, command);
    return std::nullopt;
  }
  if (seconds) ms *= 1000;
  if (relative) {
    std::int64_t now = ctx.now_ms();
    // Redis detects the overflow of ms + now by the sum turning non-positive.
    if (now > 0 && ms > INT64_MAX - now) {
      reply_invalid_expire(ctx, command);
      return std::nullopt;
    }
    ms += now;
  }
  if (ms <= 0) {
    reply_invalid_expire(ctx, command);
    return std::nullopt;
  }
  return ms;
}

std::optional<std::int64_t> resolve_ext_expire(Context& ctx, const ExtArgs& ext,
                                               std::string_view command) {
  bool seconds = (ext.flags & (kEx | kExAt)) != 0;
  bool relative = (ext.flags & (kEx | kPx)) != 0;
  return resolve_expire(ctx, ext.expire, seconds, relative, command);
}

// ---------------------------------------------------------------------------------------
// GET / SET and variants.

void get(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kString, Access::kRead, e)) return;
  if (!e) {
    ctx.out.null();
  } else {
    reply_value(ctx, e);
  }
}

void set(Context& ctx) {
  ExtArgs ext;
  if (!parse_extended(ctx, ExtFor::kSet, ext)) return;
  SetOptions opt;
  if (ext.has_expire) {
    auto at = resolve_ext_expire(ctx, ext, "set");
    if (!at) return;
    opt.expire_at = *at;
  } else {
    opt.keep_ttl = (ext.flags & kKeepTtl) != 0;
  }

  std::string_view key = ctx.args[1];
  const bool with_get = (ext.flags & kGet) != 0;
  bool found = false;
  if (with_get) {
    // 7.0 replies with the old value before NX/XX decide whether to write.
    if (!get_generic(ctx, key, found)) return;
  } else if (ext.flags & (kNx | kXx)) {
    found = bool(lookup_write(ctx, key));
  }
  if (((ext.flags & kNx) && found) || ((ext.flags & kXx) && !found)) {
    if (!with_get) ctx.out.null();
    return;
  }
  ctx.db().set_string(key, ctx.args[2], opt);
  ctx.notify(kNotifyString, "set", key);
  if (ext.has_expire) ctx.notify(kNotifyGeneric, "expire", key);
  if (!with_get) ctx.out.ok();
  // Logged without GET/NX/XX (decided) and with an absolute expiry.
  if (ext.has_expire) {
    char buf[24];
    ctx.log_as({"SET", key, ctx.args[2], "PXAT", format_int64(opt.expire_at, buf)});
  } else if (with_get || (ext.flags & (kNx | kXx))) {
    if (opt.keep_ttl) {
      ctx.log_as({"SET", key, ctx.args[2], "KEEPTTL"});
    } else {
      ctx.log_as({"SET", key, ctx.args[2]});
    }
  }
}

void setnx(Context& ctx) {
  if (lookup_write(ctx, ctx.args[1])) {
    ctx.out.integer(0);
    return;
  }
  ctx.db().set_string(ctx.args[1], ctx.args[2], SetOptions{});
  ctx.notify(kNotifyString, "set", ctx.args[1]);
  ctx.out.integer(1);
}

void setex_generic(Context& ctx, bool seconds, std::string_view command) {
  auto at = resolve_expire(ctx, ctx.args[2], seconds, /*relative=*/true, command);
  if (!at) return;
  SetOptions opt;
  opt.expire_at = *at;
  ctx.db().set_string(ctx.args[1], ctx.args[3], opt);
  ctx.notify(kNotifyString, "set", ctx.args[1]);
  ctx.notify(kNotifyGeneric, "expire", ctx.args[1]);
  ctx.out.ok();
  char buf[24];
  ctx.log_as({"SET", ctx.args[1], ctx.args[3], "PXAT", format_int64(*at, buf)});
}

void setex(Context& ctx) {
  setex_generic(ctx, /*seconds=*/true, "setex");
}
void psetex(Context& ctx) {
  setex_generic(ctx, /*seconds=*/false, "psetex");
}

void getset(Context& ctx) {
  bool found = false;
  if (!get_generic(ctx, ctx.args[1], found)) return;
  ctx.db().set_string(ctx.args[1], ctx.args[2], SetOptions{});  // drops the TTL, as SET does
  ctx.notify(kNotifyString, "set", ctx.args[1]);
  ctx.log_as({"SET", ctx.args[1], ctx.args[2]});
}

void getdel(Context& ctx) {
  bool found = false;
  if (!get_generic(ctx, ctx.args[1], found)) return;
  if (found && ctx.db().erase(ctx.args[1], ctx.shard.config().lazyfree_lazy_user_del))
    ctx.notify(kNotifyGeneric, "del", ctx.args[1]);
  ctx.log_as({"DEL", ctx.args[1]});
}

void getex(Context& ctx) {
  ExtArgs ext;
  if (!parse_extended(ctx, ExtFor::kGetEx, ext)) return;
  std::string_view key = ctx.args[1];
  Entry e;
  if (!lookup_or_wrongtype(ctx, key, Type::kString, Access::kRead, e)) return;
  if (!e) {
    ctx.out.null();  // a missing key wins over a malformed expire time
    return;
  }
  std::int64_t at = store::kNoExpire;
  if (ext.has_expire) {
    // Parsing the number does not touch the Db, so `e` stays valid.
    auto r = resolve_ext_expire(ctx, ext, "getex");
    if (!r) return;
    at = *r;
  }
  reply_value(ctx, e);

  if ((ext.flags & (kExAt | kPxAt)) && at <= ctx.now_ms()) {
    ctx.db().erase_expired(key);  // an absolute time already past deletes the key
    ctx.notify(kNotifyGeneric, "del", key);
    ctx.log_as({"DEL", key});
  } else if (ext.has_expire) {
    ctx.db().set_expire(key, at);
    ctx.notify(kNotifyGeneric, "expire", key);
    char buf[24];
    ctx.log_as({"PEXPIREAT", key, format_int64(at, buf)});
  } else if (ext.flags & kPersist) {
    if (ctx.db().persist(key)) ctx.notify(kNotifyGeneric, "persist", key);
    ctx.log_as({"PERSIST", key});
  }
}

// ---------------------------------------------------------------------------------------
// Multi-key.

void mget(Context& ctx) {
  std::size_t n = ctx.argc() - 1;
  ctx.out.array(n);
  for (std::size_t j = 1; j <= n; ++j) {
    Typed t = lookup_as(ctx, ctx.args[j], Type::kString, Access::kRead);
    Entry e = t.entry;
    if (!e) {
      ctx.out.null();  // MGET answers null for a key of another type, not WRONGTYPE
    } else {
      reply_value(ctx, e);
    }
  }
}

void mset_generic(Context& ctx, bool nx) {
  if (ctx.argc() % 2 == 0) {
    ctx.out.error(nx ? "ERR wrong number of arguments for 'msetnx' command"
                     : "ERR wrong number of arguments for 'mset' command");
    return;
  }
  if (nx) {
    for (std::size_t j = 1; j < ctx.argc(); j += 2) {
      if (lookup_write(ctx, ctx.args[j])) {
        ctx.out.integer(0);
        return;
      }
    }
  }
  for (std::size_t j = 1; j < ctx.argc(); j += 2) {
    ctx.db().set_string(ctx.args[j], ctx.args[j + 1], SetOptions{});
    ctx.notify(kNotifyString, "set", ctx.args[j]);
  }
  if (nx) {
    ctx.out.integer(1);
  } else {
    ctx.out.ok();
  }
}

void mset(Context& ctx) {
  mset_generic(ctx, false);
}
void msetnx(Context& ctx) {
  mset_generic(ctx, true);
}

// ---------------------------------------------------------------------------------------
// APPEND, STRLEN, ranges.

void append(Context& ctx) {
  std::string_view key = ctx.args[1];
  std::string_view tail = ctx.args[2];
  Entry e;
  if (!lookup_or_wrongtype(ctx, key, Type::kString, Access::kWrite, e)) return;
  if (e) {
    if (exceeds_max_length(static_cast<std::int64_t>(e.str_len()),
                           static_cast<std::int64_t>(tail.size()))) {
      ctx.out.error(kStringTooLong);
      return;
    }
  }
  std::size_t len = ctx.db().append(key, tail, ctx.now_ms());
  ctx.notify(kNotifyString, "append", key);
  ctx.out.integer(static_cast<std::int64_t>(len));
}

void strlen_cmd(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kString, Access::kRead, e)) return;
  if (!e) {
    ctx.out.integer(0);
  } else {
    ctx.out.integer(static_cast<std::int64_t>(e.str_len()));
  }
}

void getrange(Context& ctx) {
  auto start_arg = parse_int64(ctx.args[2]);
  auto end_arg = start_arg ? parse_int64(ctx.args[3]) : std::nullopt;
  if (!start_arg || !end_arg) {
    ctx.out.error(err::kNotInt);
    return;
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kString, Access::kRead, e)) return;
  if (!e) {
    ctx.out.bulk("");
    return;
  }
  char buf[24];
  std::string_view s = string_of(e, buf);
  auto len = static_cast<std::int64_t>(s.size());
  std::int64_t start = *start_arg;
  std::int64_t end = *end_arg;

  if (start < 0 && end < 0 && start > end) {
    ctx.out.bulk("");
    return;
  }
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) {
    ctx.out.bulk("");
  } else {
    ctx.out.bulk(
        s.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start + 1)));
  }
}

void setrange(Context& ctx) {
  std::string_view key = ctx.args[1];
  std::string_view value = ctx.args[3];
  auto offset = parse_int64(ctx.args[2]);
  if (!offset) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (*offset < 0) {
    ctx.out.error("ERR offset is out of range");
    return;
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, key, Type::kString, Access::kWrite, e)) return;
  if (!e) {
    if (value.empty()) {  // nothing to write on a missing key: no key is created
      ctx.out.integer(0);
      return;
    }
  } else {
    if (value.empty()) {
      ctx.out.integer(static_cast<std::int64_t>(e.str_len()));
      return;
    }
  }
  if (exceeds_max_length(*offset, static_cast<std::int64_t>(value.size()))) {
    ctx.out.error(kStringTooLong);
    return;
  }
  std::size_t len = ctx.db().set_range(key, static_cast<std::size_t>(*offset), value, ctx.now_ms());
  ctx.notify(kNotifyString, "setrange", key);
  ctx.out.integer(static_cast<std::int64_t>(len));
}

// ---------------------------------------------------------------------------------------
// Counters.

void incr_decr(Context& ctx, std::int64_t delta) {
  std::string_view key = ctx.args[1];
  Entry e;
  if (!lookup_or_wrongtype(ctx, key, Type::kString, Access::kWrite, e)) return;
  std::int64_t value = 0;
  if (e) {
    if (e.is_int()) {
      value = e.int_value();
    } else {
      auto v = parse_int64(e.str());
      if (!v) {
        ctx.out.error(err::kNotInt);
        return;
      }
      value = *v;
    }
  }
  if ((delta < 0 && value < 0 && delta < INT64_MIN - value) ||
      (delta > 0 && value > 0 && delta > INT64_MAX - value)) {
    ctx.out.error(err::kOverflow);
    return;
  }
  value += delta;
  SetOptions opt;
  opt.keep_ttl = true;
  ctx.db().set_int(key, value, opt);
  ctx.notify(kNotifyString, "incrby", key);  // DECR and DECRBY too, as Redis
  ctx.out.integer(value);
}

void incr(Context& ctx) {
  incr_decr(ctx, 1);
}
void decr(Context& ctx) {
  incr_decr(ctx, -1);
}

void incrby(Context& ctx) {
  auto by = parse_int64(ctx.args[2]);
  if (!by) {
    ctx.out.error(err::kNotInt);
    return;
  }
  incr_decr(ctx, *by);
}

void decrby(Context& ctx) {
  auto by = parse_int64(ctx.args[2]);
  if (!by) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (*by == INT64_MIN) {  // -LLONG_MIN does not exist
    ctx.out.error("ERR decrement would overflow");
    return;
  }
  incr_decr(ctx, -*by);
}

void incrbyfloat(Context& ctx) {
  std::string_view key = ctx.args[1];
  Entry e;
  if (!lookup_or_wrongtype(ctx, key, Type::kString, Access::kWrite, e)) return;
  long double value = 0;
  if (e) {
    if (e.is_int()) {
      value = static_cast<long double>(e.int_value());
    } else {
      auto v = parse_long_double(e.str());
      if (!v) {
        ctx.out.error(err::kNotFloat);
        return;
      }
      value = *v;
    }
  }
  auto incr = parse_long_double(ctx.args[2]);
  if (!incr) {
    ctx.out.error(err::kNotFloat);
    return;
  }
  value += *incr;
  if (std::isnan(value) || std::isinf(value)) {
    ctx.out.error("ERR increment would produce NaN or Infinity");
    return;
  }
  char buf[kMaxLongDoubleChars];
  std::string_view text = format_long_double_human(value, buf, sizeof buf);
  SetOptions opt;
  opt.keep_ttl = true;
  opt.as_text = true;
  ctx.db().set_string(key, text, opt);
  ctx.notify(kNotifyString, "incrbyfloat", key);
  ctx.out.bulk(text);
  ctx.log_as({"SET", key, text, "KEEPTTL"});  // the result, not a float sum to redo
}

// ---------------------------------------------------------------------------------------
// LCS: the textbook O(N*M) table, walked back from the end exactly as Redis walks it, so
// the IDX ranges come out in Redis's order (last match first).

struct LcsRange {
  std::uint32_t a_start, a_end, b_start, b_end;
};

void lcs(Context& ctx) {
  // Copies: the second lookup may expire a key and so invalidate the first Entry.
  std::string a;
  std::string b;
  bool wrong_type = false;
  char buf[24];
  if (Entry ea = lookup_read(ctx, ctx.args[1])) {
    if (is_string(ea)) {
      a.assign(string_of(ea, buf));
    } else {
      wrong_type = true;
    }
  }
  if (Entry eb = lookup_read(ctx, ctx.args[2])) {
    if (is_string(eb)) {
      b.assign(string_of(eb, buf));
    } else {
      wrong_type = true;
    }
  }
  if (wrong_type) {
    ctx.out.error("ERR The specified keys must contain string values");
    return;
  }

  bool get_len = false;
  bool get_idx = false;
  bool with_match_len = false;
  std::int64_t min_match_len = 0;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    std::string_view opt = ctx.args[j];
    bool has_next = j + 1 < ctx.argc();
    if (iequals(opt, "idx")) {
      get_idx = true;
    } else if (iequals(opt, "len")) {
      get_len = true;
    } else if (iequals(opt, "withmatchlen")) {
      with_match_len = true;
    } else if (iequals(opt, "minmatchlen") && has_next) {
      auto v = parse_int64(ctx.args[++j]);
      if (!v) {
        ctx.out.error(err::kNotInt);
        return;
      }
      min_match_len = *v < 0 ? 0 : *v;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  if (get_len && get_idx) {
    ctx.out.error("ERR If you want both the length and indexes, please just use IDX.");
    return;
  }
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    ctx.out.error("ERR String too long for LCS");
    return;
  }

  auto alen = static_cast<std::uint32_t>(a.size());
  auto blen = static_cast<std::uint32_t>(b.size());
  const std::uint64_t cells = (std::uint64_t{alen} + 1) * (std::uint64_t{blen} + 1);
  // Redis would try any size and let the kernel's overcommit decide; a worker killed by the
  // OOM killer drops every connection it holds, so an absurd table is refused up front.
  if (cells > kMaxLcsCells) {
    ctx.out.error("ERR Insufficient memory");
    return;
  }
  std::vector<std::uint32_t> table;
  try {
    table.resize(static_cast<std::size_t>(cells));
  } catch (const std::bad_alloc&) {
    ctx.out.error("ERR Insufficient memory");
    return;
  } catch (const std::length_error&) {
    ctx.out.error("ERR Insufficient memory");
    return;
  }
  auto at = [&](std::uint32_t i, std::uint32_t j) -> std::uint32_t& {
    return table[static_cast<std::size_t>(i) * (blen + 1) + j];
  };
  for (std::uint32_t i = 1; i <= alen; ++i) {
    for (std::uint32_t j = 1; j <= blen; ++j) {
      if (a[i - 1] == b[j - 1]) {
        at(i, j) = at(i - 1, j - 1) + 1;
      } else {
        at(i, j) = std::max(at(i - 1, j), at(i, j - 1));
      }
    }
  }
  const std::uint32_t total = at(alen, blen);

  if (get_len) {
    ctx.out.integer(total);
    return;
  }

  std::string result(total, '\0');
  std::vector<LcsRange> ranges;
  std::uint32_t idx = total;
  // arange_start == alen means "no range open".
  std::uint32_t a_start = alen, a_end = 0, b_start = 0, b_end = 0;
  std::uint32_t i = alen;
  std::uint32_t j = blen;
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[idx - 1] = a[i - 1];
      if (a_start == alen) {
        a_start = a_end = i - 1;
        b_start = b_end = j - 1;
      } else if (a_start == i && b_start == j) {
        --a_start;  // the range continues backwards
        --b_start;
      } else {
        emit = true;
      }
      if (a_start == 0 || b_start == 0) emit = true;
      --idx;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      if (a_start != alen) emit = true;
    }
    if (emit) {
      std::uint32_t match_len = a_end - a_start + 1;
      if (get_idx && (min_match_len == 0 || match_len >= min_match_len)) {
        ranges.push_back({a_start, a_end, b_start, b_end});
      }
      a_start = alen;
    }
  }

  if (!get_idx) {
    ctx.out.bulk(result);
    return;
  }
  ctx.out.map(2);
  ctx.out.bulk("matches");
  ctx.out.array(ranges.size());
  for (const LcsRange& r : ranges) {
    ctx.out.array(with_match_len ? 3 : 2);
    ctx.out.array(2);
    ctx.out.integer(r.a_start);
    ctx.out.integer(r.a_end);
    ctx.out.array(2);
    ctx.out.integer(r.b_start);
    ctx.out.integer(r.b_end);
    if (with_match_len) ctx.out.integer(r.a_end - r.a_start + 1);
  }
  ctx.out.bulk("len");
  ctx.out.integer(total);
}

// ---------------------------------------------------------------------------------------
// The declaration table: each row its decl (<family>_decls.hpp, what Redis declares), its
// handler and Ruvio's own traits.

const CommandDef kStringCommands[] = {
    {&decl::get, get},
    {.decl = &decl::set, .handler = set, .acl_args = AclArgs::kSetKeys},
    {&decl::setnx, setnx},
    {&decl::setex, setex},
    {&decl::psetex, psetex},
    {&decl::getset, getset},
    {&decl::getdel, getdel},
    {&decl::getex, getex},
    {&decl::mget, mget},
    {&decl::mset, mset},
    {.decl = &decl::msetnx, .handler = msetnx, .routing = {Where::kKeyOwner}},
    {&decl::append, append},
    {&decl::strlen, strlen_cmd},
    {&decl::getrange, getrange},
    {&decl::substr, getrange},
    {&decl::setrange, setrange},
    {&decl::incr, incr},
    {&decl::decr, decr},
    {&decl::incrby, incrby},
    {&decl::decrby, decrby},
    {&decl::incrbyfloat, incrbyfloat},
    {&decl::lcs, lcs},
};

}  // namespace

std::span<const CommandDef> string_commands() {
  return kStringCommands;
}

}  // namespace ruvio::worker
