// Hash family: HSET … HSCAN, decision for decision as Redis 7.0's t_hash.c (the order in
// which checks fail, which key a failed command still creates, the error texts), over the
// hash type of worker/types/hash/. The field-TTL commands of Redis 7.4 are in
// hash_ttl_commands.cpp.
//
// Reads go through lookup_as (keyspace hits/misses as lookupKeyRead); writes through the
// write handle, which is only asked for value() — the "this key changed" signal — when the
// command really writes (HSETNX of an existing field, HDEL of a missing one change nothing).
#include <cmath>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "shared/config.hpp"
#include "shared/glob.hpp"
#include "worker/commands/hash/hash_decls.hpp"
#include "worker/commands/hash/hash_family.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/engine/scan_options.hpp"
#include "worker/types/hash/hash.hpp"

namespace ruvio::worker {
namespace {

namespace H = types::hash;
using H::Hash;
using types::Listpack;
using types::Type;

// Redis's MAX_LONG_DOUBLE_CHARS.
constexpr std::size_t kMaxLongDoubleChars = 5 * 1024;

std::string arity_error(Context& ctx) {
  return "ERR wrong number of arguments for '" + std::string(ctx.command->name) + "' command";
}

}  // namespace

H::Limits hash_limits(Context& ctx) {
  const Config& c = ctx.shard.config();
  return {static_cast<std::size_t>(c.hash_max_listpack_entries),
          static_cast<std::size_t>(c.hash_max_listpack_value)};
}

void hash_purge(Context& ctx, std::string_view key) {
  store::Entry e = ctx.db().peek(key);
  if (!e || e.type() != Type::kHash) return;
  if (!H::needs_purge(static_cast<const Hash*>(e.object()), ctx.now_ms())) return;
  store::WriteHandle w = ctx.db().open(key, Type::kHash, ctx.now_ms());
  if (!w) return;
  w.notify_as(kNotifyHash, "hexpired");
  auto* h = w.as<Hash>();
  H::expire_fields(w.heap(), h, ctx.now_ms());
  if (H::length(h) == 0) w.remove();
}

const Hash* hash_read(Context& ctx, std::string_view key, bool* wrong_type) {
  Typed t = lookup_as(ctx, key, Type::kHash, Access::kRead);
  *wrong_type = t.wrong_type;
  if (t.wrong_type) {
    ctx.out.error(err::kWrongType);
    return nullptr;
  }
  if (!t) return nullptr;
  const auto* h = static_cast<const Hash*>(t.entry.object());
  if (H::needs_purge(h, ctx.now_ms())) {  // lazy field expiry, before anything is counted
    hash_purge(ctx, key);
    store::Entry e = ctx.db().peek(key);
    return e ? static_cast<const Hash*>(e.object()) : nullptr;
  }
  return h;
}

namespace {

// hashTypeLookupWriteOrCreate: the handle, with the key made when missing; false (WRONGTYPE
// sent) for a key of another type.
// Lazy field expiry through an open handle (no second lookup on the write path): the key
// goes when no field is left, and the handle then reads as missing.
void purge_open(Context& ctx, store::WriteHandle& w) {
  if (!w || !H::needs_purge(static_cast<const Hash*>(w.peek()), ctx.now_ms())) return;
  auto* h = w.as<Hash>();
  H::expire_fields(w.heap(), h, ctx.now_ms());
  if (H::length(h) == 0) w.remove();
}

bool open_or_create(Context& ctx, std::string_view key, store::WriteHandle& w) {
  if (!open_or_reply(ctx, key, Type::kHash, IfMissing::kNothing, w)) return false;
  purge_open(ctx, w);
  if (!w) w.set(H::create(w.heap()));
  return true;
}

// lookupKeyWrite for a command that does not create: false when WRONGTYPE or missing (then
// answered as `missing` says), also when lazy field expiry emptied the key.
bool open_existing(Context& ctx, std::string_view key, store::WriteHandle& w, IfMissing missing) {
  if (!open_or_reply(ctx, key, Type::kHash, IfMissing::kNothing, w)) return false;
  purge_open(ctx, w);
  if (!w) reply_missing(ctx, missing);
  return bool(w);
}

const Hash* peek_hash(store::WriteHandle& w) {
  return static_cast<const Hash*>(w.peek());
}

void hset_generic(Context& ctx, bool reply_count) {
  if (ctx.argc() % 2 == 1) {
    ctx.out.error(arity_error(ctx));
    return;
  }
  store::WriteHandle w;
  if (!open_or_create(ctx, ctx.args[1], w)) return;
  w.notify_as(kNotifyHash, "hset");  // HMSET too
  auto* h = w.as<Hash>();
  const H::Limits lim = hash_limits(ctx);
  H::try_conversion(w.heap(), h, ctx.args.subspan(2), lim);
  std::int64_t created = 0;
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    created += H::set(w.heap(), h, ctx.args[i], ctx.args[i + 1], lim) ? 1 : 0;
  }
  if (reply_count) {
    ctx.out.integer(created);
  } else {
    ctx.out.ok();
  }
}

void hset(Context& ctx) {
  hset_generic(ctx, true);
}
void hmset(Context& ctx) {
  hset_generic(ctx, false);
}

void hsetnx(Context& ctx) {
  store::WriteHandle w;
  if (!open_or_create(ctx, ctx.args[1], w)) return;
  w.notify_as(kNotifyHash, "hset");
  Listpack::IntBuf buf;
  if (H::get(peek_hash(w), ctx.args[2], buf, ctx.now_ms())) {
    ctx.out.integer(0);
    return;
  }
  auto* h = w.as<Hash>();
  const H::Limits lim = hash_limits(ctx);
  H::try_conversion(w.heap(), h, ctx.args.subspan(2, 2), lim);
  H::set(w.heap(), h, ctx.args[2], ctx.args[3], lim);
  ctx.out.integer(1);
}

void hget(Context& ctx) {
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  Listpack::IntBuf buf;
  std::optional<std::string_view> v;
  if (h != nullptr) v = H::get(h, ctx.args[2], buf, ctx.now_ms());
  if (v) {
    ctx.out.bulk(*v);
  } else {
    ctx.out.null();
  }
}

void hmget(Context& ctx) {
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  ctx.out.array(ctx.argc() - 2);
  Listpack::IntBuf buf;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    std::optional<std::string_view> v;
    if (h != nullptr) v = H::get(h, ctx.args[i], buf, ctx.now_ms());
    if (v) {
      ctx.out.bulk(*v);
    } else {
      ctx.out.null();
    }
  }
}

void hdel(Context& ctx) {
  store::WriteHandle w;
  if (!open_existing(ctx, ctx.args[1], w, IfMissing::kZero)) return;
  std::int64_t deleted = 0;
  Listpack::IntBuf buf;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (!H::get(peek_hash(w), ctx.args[i], buf, ctx.now_ms())) continue;
    auto* h = w.as<Hash>();
    if (H::del(w.heap(), h, ctx.args[i])) ++deleted;
    if (H::length(h) == 0) {
      w.remove();
      break;
    }
  }
  ctx.out.integer(deleted);
}

void hlen(Context& ctx) {
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  ctx.out.integer(h == nullptr ? 0 : static_cast<std::int64_t>(H::length(h)));
}

void hstrlen(Context& ctx) {
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  Listpack::IntBuf buf;
  std::optional<std::string_view> v;
  if (h != nullptr) v = H::get(h, ctx.args[2], buf, ctx.now_ms());
  ctx.out.integer(v ? static_cast<std::int64_t>(v->size()) : 0);
}

void hexists(Context& ctx) {
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  Listpack::IntBuf buf;
  ctx.out.integer(h != nullptr && H::get(h, ctx.args[2], buf, ctx.now_ms()) ? 1 : 0);
}

enum GetAll : unsigned { kKeys = 1, kVals = 2 };

void getall_generic(Context& ctx, unsigned what) {
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  const std::size_t n = h == nullptr ? 0 : H::length(h);
  if (what == (kKeys | kVals)) {
    ctx.out.map(n);
  } else {
    ctx.out.array(n);
  }
  if (h == nullptr) return;
  H::for_each(h, ctx.now_ms(), [&](std::string_view f, std::string_view v) {
    if (what & kKeys) ctx.out.bulk(f);
    if (what & kVals) ctx.out.bulk(v);
  });
}

void hkeys(Context& ctx) {
  getall_generic(ctx, kKeys);
}
void hvals(Context& ctx) {
  getall_generic(ctx, kVals);
}
void hgetall(Context& ctx) {
  getall_generic(ctx, kKeys | kVals);
}

void hincrby(Context& ctx) {
  std::optional<std::int64_t> incr = parse_int64(ctx.args[3]);
  if (!incr) {
    ctx.out.error(err::kNotInt);
    return;
  }
  store::WriteHandle w;
  if (!open_or_create(ctx, ctx.args[1], w)) return;
  std::int64_t value = 0;
  Listpack::IntBuf buf;
  if (auto cur = H::get(peek_hash(w), ctx.args[2], buf, ctx.now_ms())) {
    std::optional<std::int64_t> v = parse_int64(*cur);
    if (!v) {
      ctx.out.error("ERR hash value is not an integer");
      return;
    }
    value = *v;
  }
  if ((*incr < 0 && value < 0 && *incr < INT64_MIN - value) ||
      (*incr > 0 && value > 0 && *incr > INT64_MAX - value)) {
    ctx.out.error(err::kOverflow);
    return;
  }
  value += *incr;
  char text[24];
  H::set(w.heap(), w.as<Hash>(), ctx.args[2], format_int64(value, text), hash_limits(ctx), true);
  ctx.out.integer(value);
}

void hincrbyfloat(Context& ctx) {
  std::optional<long double> incr = parse_long_double(ctx.args[3]);
  if (!incr) {
    ctx.out.error(err::kNotFloat);
    return;
  }
  if (std::isnan(*incr) || std::isinf(*incr)) {
    ctx.out.error("ERR value is NaN or Infinity");
    return;
  }
  store::WriteHandle w;
  if (!open_or_create(ctx, ctx.args[1], w)) return;
  long double value = 0;
  Listpack::IntBuf buf;
  if (auto cur = H::get(peek_hash(w), ctx.args[2], buf, ctx.now_ms())) {
    std::optional<long double> v = parse_long_double(*cur);
    if (!v) {
      ctx.out.error("ERR hash value is not a float");
      return;
    }
    value = *v;
  }
  value += *incr;
  if (std::isnan(value) || std::isinf(value)) {
    ctx.out.error("ERR increment would produce NaN or Infinity");
    return;
  }
  char text[kMaxLongDoubleChars];
  std::string_view s = format_long_double_human(value, text, sizeof text);
  H::set(w.heap(), w.as<Hash>(), ctx.args[2], s, hash_limits(ctx), true);
  ctx.out.bulk(s);
  // The result, not a float sum to redo. HSET would drop a field TTL that HINCRBYFLOAT keeps:
  // such a field is logged as the command itself (the same binary replays the same sum).
  if (H::field_expire(peek_hash(w), ctx.args[2], ctx.now_ms()).value_or(-1) < 0) {
    ctx.log_as({"HSET", ctx.args[1], ctx.args[2], s});
  }
}

std::mt19937_64& rng() {
  static std::mt19937_64 r{std::random_device{}()};
  return r;
}

void hrandfield(Context& ctx) {
  Listpack::IntBuf fb, vb;
  std::string_view f, v;
  if (ctx.argc() < 3) {
    bool wrong;
    const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
    if (wrong) return;
    if (h == nullptr) {
      ctx.out.null();
      return;
    }
    H::random_pair(h, rng(), fb, vb, &f, &v);
    ctx.out.bulk(f);
    return;
  }
  std::optional<std::int64_t> count = parse_int64(ctx.args[2]);
  if (!count) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (*count < -INT64_MAX) {
    ctx.out.error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return;
  }
  bool withvalues = false;
  if (ctx.argc() > 4 || (ctx.argc() == 4 && !iequals(ctx.args[3], "withvalues"))) {
    ctx.out.error(err::kSyntax);
    return;
  }
  if (ctx.argc() == 4) {
    withvalues = true;
    if (*count < -INT64_MAX / 2 || *count > INT64_MAX / 2) {
      ctx.out.error("ERR value is out of range");
      return;
    }
  }
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  if (h == nullptr || *count == 0) {
    ctx.out.array(0);
    return;
  }
  // hrandfieldWithCountCommand's cases. RESP3 WITHVALUES: an array of [field, value] pairs.
  const bool resp3_pairs = withvalues && ctx.out.protocol() > 2;
  auto emit = [&](std::string_view field, std::string_view value) {
    if (resp3_pairs) ctx.out.array(2);
    ctx.out.bulk(field);
    if (withvalues) ctx.out.bulk(value);
  };
  auto header = [&](std::size_t n) { ctx.out.array(withvalues && !resp3_pairs ? n * 2 : n); };
  const std::size_t size = H::length(h);
  if (*count < 0 || *count == 1) {  // with repetitions
    const auto n = static_cast<std::size_t>(*count < 0 ? -*count : 1);
    header(n);
    for (std::size_t i = 0; i < n; ++i) {
      H::random_pair(h, rng(), fb, vb, &f, &v);
      emit(f, v);
    }
    return;
  }
  if (static_cast<std::uint64_t>(*count) >= size) {  // the whole hash
    header(size);
    H::for_each(h, ctx.now_ms(), emit);
    return;
  }
  const auto n = static_cast<std::size_t>(*count);
  header(n);
  if (h->enc == H::kHashtable && n * 3 <= size) {  // few of many: pick until distinct
    std::unordered_set<std::string_view> seen;
    while (seen.size() < n) {
      H::random_pair(h, rng(), fb, vb, &f, &v);
      if (seen.insert(f).second) emit(f, v);
    }
    return;
  }
  std::vector<std::pair<std::string, std::string>> all;  // many of the hash: a partial shuffle
  all.reserve(size);
  H::for_each(h, ctx.now_ms(), [&](std::string_view a, std::string_view b) {
    all.emplace_back(std::string(a), withvalues ? std::string(b) : std::string());
  });
  for (std::size_t i = 0; i < n; ++i) {
    std::swap(all[i], all[std::uniform_int_distribution<std::size_t>(i, all.size() - 1)(rng())]);
    emit(all[i].first, all[i].second);
  }
}

void hscan(Context& ctx) {
  std::optional<std::uint64_t> cursor = parse_scan_cursor(ctx.args[2]);
  if (!cursor) {
    ctx.out.error("ERR invalid cursor");
    return;
  }
  // hscanCommand: the cursor, then the key, then scanGenericCommand's options.
  bool wrong;
  const Hash* h = hash_read(ctx, ctx.args[1], &wrong);
  if (wrong) return;
  if (h == nullptr) {
    ctx.out.array(2);
    ctx.out.bulk("0");
    ctx.out.array(0);
    return;
  }
  const auto opts = parse_scan_options(ctx, 3, false);
  if (!opts) return;
  const std::int64_t count = opts->count;
  const std::string_view pattern = opts->pattern;
  const bool use_pattern = opts->use_pattern;
  std::vector<std::pair<std::string_view, std::string_view>> found;
  std::vector<std::string> ints;  // a listpack's integer entries, formatted
  const bool lp = h->enc == H::kListpack;
  if (lp) ints.reserve(H::length(h) * 2);
  const std::uint64_t next = H::scan(h, *cursor, static_cast<std::size_t>(count), ctx.now_ms(),
                                     [&](std::string_view f, std::string_view v) {
                                       if (use_pattern && !glob_match(pattern, f)) return;
                                       if (lp) {
                                         ints.emplace_back(f);
                                         std::string_view fs = ints.back();
                                         ints.emplace_back(v);
                                         found.emplace_back(fs, ints.back());
                                       } else {
                                         found.emplace_back(f, v);
                                       }
                                     });
  char buf[24];
  ctx.out.array(2);
  ctx.out.bulk(format_int64(static_cast<std::int64_t>(next), buf));
  ctx.out.array(found.size() * 2);
  for (const auto& [f, v] : found) {
    ctx.out.bulk(f);
    ctx.out.bulk(v);
  }
}

const CommandDef kHashCommands[] = {
    {&decl::hset, hset},
    {&decl::hmset, hmset},
    {&decl::hsetnx, hsetnx},
    {&decl::hget, hget},
    {&decl::hmget, hmget},
    {&decl::hdel, hdel},
    {&decl::hlen, hlen},
    {&decl::hstrlen, hstrlen},
    {&decl::hexists, hexists},
    {&decl::hkeys, hkeys},
    {&decl::hvals, hvals},
    {&decl::hgetall, hgetall},
    {&decl::hincrby, hincrby},
    {&decl::hincrbyfloat, hincrbyfloat},
    {&decl::hrandfield, hrandfield},
    {&decl::hscan, hscan},
};

}  // namespace

std::span<const CommandDef> hash_commands() {
  return kHashCommands;
}

}  // namespace ruvio::worker
