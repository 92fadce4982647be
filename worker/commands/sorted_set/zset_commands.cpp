// Sorted-set family: ZADD … ZSCAN (blocking BZPOP*/BZMPOP come with the blocking framework).
//
// Arguments → worker/types/zset calls → replies, decision for decision as Redis 7.0's
// t_zset.c: the order in which options and ranges are checked, which errors win, RESP2 flat
// versus RESP3 nested WITHSCORES replies, and when a key is created or deleted. Scores are
// replied with "%.17g" (ReplyWriter::double_value), as 7.0's addReplyDouble.
//
// An Entry is valid only until the next mutation of its Db, so a handler reads its sources
// before it writes a destination.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "shared/glob.hpp"
#include "worker/commands/sorted_set/zset_decls.hpp"
#include "worker/commands/sorted_set/zset_family.hpp"
#include "worker/engine/blocking_args.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/engine/scan_options.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::worker {
namespace zsets {

types::ZSetLimits limits(Context& ctx) {
  const Config& c = ctx.shard.config();
  return {c.zset_max_listpack_entries, c.zset_max_listpack_value};
}

const ZSet* zset_of(Entry e) {
  return static_cast<const ZSet*>(e.object());
}

bool resp3(Context& ctx) {
  return ctx.out.protocol() >= 3;
}

bool get_long(Context& ctx, std::string_view s, std::int64_t& out, std::string_view msg) {
  auto v = parse_int64(s);
  if (!v) {
    ctx.out.error(msg);
    return false;
  }
  out = *v;
  return true;
}

namespace {

// strtod over a NUL-terminated copy, as Redis reads range bounds (a leading space and an empty
// string are accepted; the text ends at the first NUL byte, as C sees it).
bool strtod_all(std::string_view s, double& out) {
  char small[128];
  std::string large;
  const char* p;
  if (s.size() < sizeof(small)) {
    std::memcpy(small, s.data(), s.size());
    small[s.size()] = '\0';
    p = small;
  } else {
    large.assign(s);
    p = large.c_str();
  }
  char* end = nullptr;
  out = std::strtod(p, &end);
  return *end == '\0' && !std::isnan(out);
}

}  // namespace

bool parse_score_range(std::string_view min, std::string_view max, ScoreRange& r) {
  auto one = [](std::string_view s, double& v, bool& ex) {
    ex = false;
    if (!s.empty() && s[0] == '(') {
      ex = true;
      s.remove_prefix(1);
    }
    return strtod_all(s, v);
  };
  return one(min, r.min, r.minex) && one(max, r.max, r.maxex);
}

namespace {

// zslParseLexRangeItem.
bool parse_lex_item(std::string_view s, LexBound& b) {
  if (s.empty()) return false;
  switch (s[0]) {
    case '+':
      if (s.size() > 1 && s[1] != '\0') return false;
      b = {LexBound::kPlusInf, {}, true};
      return true;
    case '-':
      if (s.size() > 1 && s[1] != '\0') return false;
      b = {LexBound::kMinusInf, {}, true};
      return true;
    case '(':
      b = {LexBound::kValue, s.substr(1), true};
      return true;
    case '[':
      b = {LexBound::kValue, s.substr(1), false};
      return true;
    default:
      return false;
  }
}

}  // namespace

bool parse_lex_range(std::string_view min, std::string_view max, LexRange& r) {
  return parse_lex_item(min, r.min) && parse_lex_item(max, r.max);
}

void emit(Context& ctx, std::string_view member, double score, bool withscores) {
  if (withscores && resp3(ctx)) ctx.out.array(2);
  ctx.out.bulk(member);
  if (withscores) ctx.out.double_value(score);
}

void reply_header(Context& ctx, std::size_t n, bool withscores) {
  ctx.out.array(withscores && !resp3(ctx) ? n * 2 : n);
}

}  // namespace zsets

namespace {

using namespace zsets;

// ---------------------------------------------------------------------------------------
// ZADD / ZINCRBY (zaddGenericCommand).

void zadd_generic(Context& ctx, unsigned flags) {
  std::size_t scoreidx = 2;
  bool ch = false;
  for (; scoreidx < ctx.argc(); ++scoreidx) {
    std::string_view opt = ctx.args[scoreidx];
    if (iequals(opt, "nx")) {
      flags |= types::kZNx;
    } else if (iequals(opt, "xx")) {
      flags |= types::kZXx;
    } else if (iequals(opt, "ch")) {
      ch = true;
    } else if (iequals(opt, "incr")) {
      flags |= types::kZIncr;
    } else if (iequals(opt, "gt")) {
      flags |= types::kZGt;
    } else if (iequals(opt, "lt")) {
      flags |= types::kZLt;
    } else {
      break;
    }
  }
  const bool incr = flags & types::kZIncr, nx = flags & types::kZNx, xx = flags & types::kZXx,
             gt = flags & types::kZGt, lt = flags & types::kZLt;
  std::size_t elements = ctx.argc() - scoreidx;
  if (elements % 2 != 0 || elements == 0) {
    ctx.out.error(err::kSyntax);
    return;
  }
  elements /= 2;
  if (nx && xx) {
    ctx.out.error("ERR XX and NX options at the same time are not compatible");
    return;
  }
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    ctx.out.error("ERR GT, LT, and/or NX options at the same time are not compatible");
    return;
  }
  if (incr && elements > 1) {
    ctx.out.error("ERR INCR option supports a single increment-element pair");
    return;
  }
  static thread_local std::vector<double> scores;
  scores.clear();
  for (std::size_t j = 0; j < elements; ++j) {
    auto v = parse_double(ctx.args[scoreidx + j * 2]);
    if (!v) {
      ctx.out.error(err::kNotFloat);
      return;
    }
    scores.push_back(*v);
  }

  std::string_view key = ctx.args[1];
  store::WriteHandle h;
  if (!open_or_reply(ctx, key, Type::kZSet, IfMissing::kNothing, h)) return;
  h.notify_as(kNotifyZset, incr ? "zincr" : "zadd");  // ZINCRBY: "zincr"
  const types::ZSetLimits lim = limits(ctx);
  std::size_t added = 0, updated = 0, processed = 0;
  double score = 0;
  if (!h) {
    if (xx) {
      if (incr) {
        ctx.out.null();
      } else {
        ctx.out.integer(0);
      }
      return;
    }
    // Redis 7.0 sizes a new key by its first member only (zaddGenericCommand), and zsetAdd
    // converts a listpack member by member: the members added before the conversion went
    // through the listpack's integer form, so a -0 score among them comes back as 0.
    h.set(types::zset_create(h.heap(), lim.max_entries == 0 ? 1 : 0, ctx.args[scoreidx + 1].size(),
                             lim));
  }
  // changed() only when something changes (WATCH and the WAL see no effect for a no-op ZADD NX).
  auto* z = h.mut_as<ZSet>();
  for (std::size_t j = 0; j < elements; ++j) {
    unsigned out = 0;
    double newscore = 0;
    const bool ok = types::zset_add(h.heap(), z, scores[j], ctx.args[scoreidx + 1 + j * 2], flags,
                                    &out, &newscore, lim);
    if (!ok) {
      ctx.out.error(kNanErr);
      if (added || updated) h.changed();
      return;
    }
    if (out & types::kZAdded) ++added;
    if (out & types::kZUpdated) ++updated;
    if (!(out & types::kZNop)) ++processed;
    score = newscore;
  }
  if (added || updated) h.changed();
  if (incr) {
    if (processed) {
      ctx.out.double_value(score);
    } else {
      ctx.out.null();
    }
  } else {
    ctx.out.integer(static_cast<std::int64_t>(ch ? added + updated : added));
  }
}

void zadd(Context& ctx) {
  zadd_generic(ctx, 0);
}
void zincrby(Context& ctx) {
  zadd_generic(ctx, types::kZIncr);
}

// ---------------------------------------------------------------------------------------
// ZREM, ZCARD, ZSCORE, ZMSCORE, ZRANK, ZCOUNT, ZLEXCOUNT.

void zrem(Context& ctx) {
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kZSet, IfMissing::kZero, h)) return;
  std::int64_t deleted = 0;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    if (!types::zset_score(static_cast<const ZSet*>(h.peek()), ctx.args[j])) continue;
    ZSet* z = h.as<ZSet>();  // a heap copy when the value was inline: peek() follows it
    types::zset_remove(h.heap(), z, ctx.args[j]);
    ++deleted;
    if (types::zset_size(z) == 0) {
      h.remove();
      break;
    }
  }
  ctx.out.integer(deleted);
}

void zcard(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  ctx.out.integer(e ? static_cast<std::int64_t>(types::zset_size(zset_of(e))) : 0);
}

void zscore(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  std::optional<double> s;
  if (e) s = types::zset_score(zset_of(e), ctx.args[2]);
  if (s) {
    ctx.out.double_value(*s);
  } else {
    ctx.out.null();
  }
}

void zmscore(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  ctx.out.array(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    std::optional<double> s;
    if (e) s = types::zset_score(zset_of(e), ctx.args[j]);
    if (s) {
      ctx.out.double_value(*s);
    } else {
      ctx.out.null();
    }
  }
}

void zrank_generic(Context& ctx, bool reverse) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  std::optional<std::size_t> r;
  if (e) r = types::zset_rank(zset_of(e), ctx.args[2], reverse);
  if (r) {
    ctx.out.integer(static_cast<std::int64_t>(*r));
  } else {
    ctx.out.null();
  }
}
void zrank(Context& ctx) {
  zrank_generic(ctx, false);
}
void zrevrank(Context& ctx) {
  zrank_generic(ctx, true);
}

void zcount(Context& ctx) {
  ScoreRange r;
  if (!parse_score_range(ctx.args[2], ctx.args[3], r)) {
    ctx.out.error(kNotFloatRange);
    return;
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  std::int64_t n = 0;
  if (e) {
    for (ZCursor c = types::zset_first_in(zset_of(e), r);
         c.valid() && r.contains_max_side(c.score()); c.next()) {
      ++n;
    }
  }
  ctx.out.integer(n);
}

void zlexcount(Context& ctx) {
  LexRange r;
  if (!parse_lex_range(ctx.args[2], ctx.args[3], r)) {
    ctx.out.error(kNotLexRange);
    return;
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  std::int64_t n = 0;
  if (e) {
    Listpack::IntBuf ib;
    for (ZCursor c = types::zset_first_in(zset_of(e), r); c.valid() && r.lte_max(c.member(ib));
         c.next()) {
      ++n;
    }
  }
  ctx.out.integer(n);
}

// ---------------------------------------------------------------------------------------
// ZPOPMIN / ZPOPMAX / ZMPOP (genericZpopCommand).

// Returns the key popped from (empty when none was).
std::string_view zpop_generic(Context& ctx, std::span<const std::string_view> keys, bool max,
                              bool emitkey, std::int64_t count, bool nested, bool nil_when_empty) {
  store::WriteHandle h;
  std::string_view key;
  for (std::string_view k : keys) {
    if (!open_or_reply(ctx, k, Type::kZSet, IfMissing::kNothing, h)) return {};
    h.notify_as(kNotifyZset, max ? "zpopmax" : "zpopmin");  // ZMPOP, BZPOPMIN ... too
    if (h) {
      key = k;
      break;
    }
  }
  if (!h) {
    if (nil_when_empty) {
      ctx.out.null_array();
    } else {
      ctx.out.array(0);
    }
    return {};
  }
  if (count == 0) {
    ctx.out.array(0);
    return key;
  }
  if (count == -1) count = 1;
  auto* z = h.as<ZSet>();
  const auto llen = static_cast<std::int64_t>(types::zset_size(z));
  std::int64_t rangelen = count > llen ? llen : count;
  if (!nested && !emitkey) {
    ctx.out.array(rangelen * 2);
  } else if (nested && !emitkey) {
    ctx.out.array(rangelen);
  } else if (!nested && emitkey) {
    ctx.out.array(rangelen * 2 + 1);
    ctx.out.bulk(key);
  } else {
    ctx.out.array(2);
    ctx.out.bulk(key);
    ctx.out.array(rangelen);
  }
  Listpack::IntBuf ib;
  std::string member;
  for (; rangelen > 0; --rangelen) {
    ZCursor c = types::zset_at(z, max ? types::zset_size(z) - 1 : 0);
    member.assign(c.member(ib));
    const double score = c.score();
    if (nested) ctx.out.array(2);
    ctx.out.bulk(member);
    ctx.out.double_value(score);
    types::zset_remove(h.heap(), z, member);
  }
  if (types::zset_size(z) == 0) h.remove();
  return key;
}

void zpop_minmax(Context& ctx, bool max) {
  if (ctx.argc() > 3) {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::int64_t count = -1;
  if (ctx.argc() == 3) {
    // getPositiveLongFromObjectOrReply: a non-number gets the same message.
    auto v = parse_int64(ctx.args[2]);
    if (!v || *v < 0) {
      ctx.out.error("ERR value is out of range, must be positive");
      return;
    }
    count = *v;
  }
  const bool nested = resp3(ctx) && count != -1;
  zpop_generic(ctx, ctx.args.subspan(1, 1), max, false, count, nested, false);
}
void zpopmin(Context& ctx) {
  zpop_minmax(ctx, false);
}
void zpopmax(Context& ctx) {
  zpop_minmax(ctx, true);
}

// ZMPOP and BZMPOP from their numkeys argument on (zmpopGenericCommand); logs the pop.
void zmpop_from(Context& ctx, std::size_t numkeys_idx) {
  constexpr std::string_view kNumkeys = "ERR numkeys should be greater than 0";
  std::int64_t numkeys = 0;
  if (!get_long(ctx, ctx.args[numkeys_idx], numkeys, kNumkeys)) return;
  if (numkeys < 1) {
    ctx.out.error(kNumkeys);
    return;
  }
  const std::size_t where_idx = numkeys_idx + 1 + static_cast<std::size_t>(numkeys);
  if (numkeys >= static_cast<std::int64_t>(ctx.argc() - numkeys_idx + 1) ||
      where_idx >= ctx.argc()) {
    ctx.out.error(err::kSyntax);
    return;
  }
  bool max;
  if (iequals(ctx.args[where_idx], "min")) {
    max = false;
  } else if (iequals(ctx.args[where_idx], "max")) {
    max = true;
  } else {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::int64_t count = -1;
  for (std::size_t j = where_idx + 1; j < ctx.argc(); ++j) {
    const bool moreargs = j + 1 < ctx.argc();
    if (count == -1 && iequals(ctx.args[j], "count") && moreargs) {
      ++j;
      constexpr std::string_view kCount = "ERR count should be greater than 0";
      if (!get_long(ctx, ctx.args[j], count, kCount)) return;
      if (count < 1) {
        ctx.out.error(kCount);
        return;
      }
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  if (count == -1) count = 1;
  const std::string_view key =
      zpop_generic(ctx, ctx.args.subspan(numkeys_idx + 1, static_cast<std::size_t>(numkeys)), max,
                   true, count, true, true);
  if (numkeys_idx != 1 && !key.empty()) {
    // BZMPOP: the pop as it happened, without the wait.
    char num[24];
    ctx.log_as({"ZMPOP", "1", key, max ? "MAX" : "MIN", "COUNT", format_int64(count, num)});
  }
}
void zmpop(Context& ctx) {
  zmpop_from(ctx, 1);
}

// BZPOPMIN / BZPOPMAX key [key ...] timeout: [key, member, score] of the first non-empty
// sorted set; a null array on timeout (and inside MULTI, where Redis never blocks).
void bzpop_generic(Context& ctx, bool max) {
  if (!timeout_ok(ctx, ctx.args[ctx.argc() - 1]) || unblocked_by_error(ctx) ||
      answered_timeout(ctx)) {
    return;
  }
  const std::string_view key =
      zpop_generic(ctx, ctx.args.subspan(1, ctx.argc() - 2), max, true, -1, false, true);
  if (!key.empty()) ctx.log_as({max ? "ZPOPMAX" : "ZPOPMIN", key});
}
void bzpopmin(Context& ctx) {
  bzpop_generic(ctx, false);
}
void bzpopmax(Context& ctx) {
  bzpop_generic(ctx, true);
}

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]: ZMPOP's reply, or a null array.
void bzmpop(Context& ctx) {
  if (!timeout_ok(ctx, ctx.args[1]) || unblocked_by_error(ctx) || answered_timeout(ctx)) return;
  zmpop_from(ctx, 2);
}

// ---------------------------------------------------------------------------------------
// ZRANDMEMBER, ZSCAN.

std::mt19937_64& rng() {
  static thread_local std::mt19937_64 r{std::random_device{}()};
  return r;
}

void zrandmember(Context& ctx) {
  if (ctx.argc() < 3) {
    Entry e;
    if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
    if (!e) {
      ctx.out.null();
      return;
    }
    const ZSet* z = zset_of(e);
    Listpack::IntBuf ib;
    ctx.out.bulk(types::zset_at(z, rng()() % types::zset_size(z)).member(ib));
    return;
  }
  std::int64_t l = 0;
  if (!get_long(ctx, ctx.args[2], l)) return;
  if (l == INT64_MIN) {
    ctx.out.error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return;
  }
  bool withscores = false;
  if (ctx.argc() > 4 || (ctx.argc() == 4 && !iequals(ctx.args[3], "withscores"))) {
    ctx.out.error(err::kSyntax);
    return;
  }
  if (ctx.argc() == 4) {
    withscores = true;
    if (l < -INT64_MAX / 2 || l > INT64_MAX / 2) {
      ctx.out.error("ERR value is out of range");
      return;
    }
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  if (!e) {
    ctx.out.array(0);
    return;
  }
  const ZSet* z = zset_of(e);
  const std::size_t size = types::zset_size(z);
  const bool uniq = l >= 0;
  const std::uint64_t count = uniq ? static_cast<std::uint64_t>(l) : static_cast<std::uint64_t>(-l);
  if (count == 0) {
    ctx.out.array(0);
    return;
  }
  Listpack::IntBuf ib;
  if (!uniq || count == 1) {
    reply_header(ctx, count, withscores);
    for (std::uint64_t i = 0; i < count; ++i) {
      ZCursor c = types::zset_at(z, rng()() % size);
      emit(ctx, c.member(ib), withscores ? c.score() : 0, withscores);
    }
    return;
  }
  if (count >= size) {
    reply_header(ctx, size, withscores);
    for (ZCursor c = types::zset_at(z, 0); c.valid(); c.next()) {
      emit(ctx, c.member(ib), withscores ? c.score() : 0, withscores);
    }
    return;
  }
  // Distinct ranks: a partial Fisher-Yates when the count is a large part of the zset,
  // otherwise random draws with the repeats thrown back (no O(size) buffer for a big zset).
  static thread_local std::vector<std::size_t> ranks;
  ranks.clear();
  if (count * 3 > size) {
    ranks.resize(size);
    for (std::size_t i = 0; i < size; ++i) ranks[i] = i;
    for (std::size_t i = 0; i < count; ++i) {
      std::swap(ranks[i], ranks[i + rng()() % (size - i)]);
    }
    ranks.resize(count);
  } else {
    std::unordered_set<std::size_t> seen;
    while (ranks.size() < count) {
      const std::size_t r = rng()() % size;
      if (seen.insert(r).second) ranks.push_back(r);
    }
  }
  reply_header(ctx, count, withscores);
  for (std::size_t i = 0; i < count; ++i) {
    ZCursor c = types::zset_at(z, ranks[i]);
    emit(ctx, c.member(ib), withscores ? c.score() : 0, withscores);
  }
}

void zscan(Context& ctx) {
  auto cursor = parse_scan_cursor(ctx.args[2]);
  if (!cursor) {
    ctx.out.error("ERR invalid cursor");
    return;
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  if (!e) {
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
  const ZSet* z = zset_of(e);
  std::vector<std::pair<std::string, double>> found;
  auto text = z->enc == types::kZListpack ? types::score_text : types::score_text_g17;
  std::uint64_t next = 0;
  Listpack::IntBuf ib;
  if (z->enc == types::kZListpack) {
    for (ZCursor c = types::zset_at(z, 0); c.valid(); c.next()) {
      found.emplace_back(std::string(c.member(ib)), c.score());
    }
  } else {
    const auto* sl = static_cast<const types::Skiplist*>(z->ptr);
    std::int64_t maxiter = count * 10;
    next = *cursor;
    do {
      next = sl->index().scan(
          next, [&](types::ZNode* n) { found.emplace_back(std::string(n->member()), n->score); });
    } while (next != 0 && maxiter-- > 0 && static_cast<std::int64_t>(found.size()) < count);
  }
  std::size_t kept = 0;
  for (auto& f : found) {
    if (use_pattern && !glob_match(pattern, f.first)) continue;
    if (&found[kept] != &f) found[kept] = std::move(f);
    ++kept;
  }
  found.resize(kept);
  ctx.out.array(2);
  char buf[32];
  {
    auto r = std::to_chars(buf, buf + sizeof(buf), next);
    ctx.out.bulk({buf, static_cast<std::size_t>(r.ptr - buf)});
  }
  ctx.out.array(found.size() * 2);
  for (const auto& f : found) {
    ctx.out.bulk(f.first);
    ctx.out.bulk(text(f.second, buf));
  }
}

// ---------------------------------------------------------------------------------------
// The declaration table: each row its decl (<family>_decls.hpp, what Redis declares), its
// handler and Ruvio's own traits.

const CommandDef kZSetCommands[] = {
    {&decl::zadd, zadd},
    {&decl::zincrby, zincrby},
    {&decl::zrem, zrem},
    {&decl::zcard, zcard},
    {&decl::zcount, zcount},
    {&decl::zlexcount, zlexcount},
    {&decl::zscore, zscore},
    {&decl::zmscore, zmscore},
    {&decl::zrank, zrank},
    {&decl::zrevrank, zrevrank},
    {&decl::zrange, zrange},
    {&decl::zrangestore, zrangestore},
    {&decl::zrevrange, zrevrange},
    {&decl::zrangebyscore, zrangebyscore},
    {&decl::zrevrangebyscore, zrevrangebyscore},
    {&decl::zrangebylex, zrangebylex},
    {&decl::zrevrangebylex, zrevrangebylex},
    {&decl::zremrangebyrank, zremrangebyrank},
    {&decl::zremrangebyscore, zremrangebyscore},
    {&decl::zremrangebylex, zremrangebylex},
    {&decl::zpopmin, zpopmin},
    {&decl::zpopmax, zpopmax},
    {&decl::zmpop, zmpop},
    {.decl = &decl::bzpopmin, .handler = bzpopmin, .blocking = &kBlockZset},
    {.decl = &decl::bzpopmax, .handler = bzpopmax, .blocking = &kBlockZset},
    {.decl = &decl::bzmpop, .handler = bzmpop, .blocking = &kBlockBzmpop},
    {&decl::zunion, zunion},
    {&decl::zinter, zinter},
    {&decl::zdiff, zdiff},
    {&decl::zunionstore, zunionstore},
    {&decl::zinterstore, zinterstore},
    {&decl::zdiffstore, zdiffstore},
    {&decl::zintercard, zintercard},
    {&decl::zrandmember, zrandmember},
    {&decl::zscan, zscan},
};

}  // namespace

std::span<const CommandDef> zset_commands() {
  return kZSetCommands;
}

}  // namespace ruvio::worker
