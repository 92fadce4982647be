// Sorted-set family, ranges: ZRANGE (BYSCORE BYLEX REV LIMIT WITHSCORES), ZRANGESTORE, the
// older ZREVRANGE / ZRANGEBYSCORE / ZREVRANGEBYSCORE / ZRANGEBYLEX / ZREVRANGEBYLEX forms and
// ZREMRANGEBYRANK/BYSCORE/BYLEX, as Redis 7.0's zrangeGenericCommand and zremrangeGenericCommand.
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
#include "worker/commands/sorted_set/zset_family.hpp"
#include "worker/engine/blocking_args.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/engine/scan_options.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::worker::zsets {
namespace {
// ---------------------------------------------------------------------------------------
// ZRANGE family (zrangeGenericCommand and its result handlers).

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

struct Collected {
  std::string member;
  double score;
};

// The elements of a range, in reply order, as cursors (read-only use) — one reused buffer.
std::vector<ZCursor>& cursor_buffer() {
  static thread_local std::vector<ZCursor> buf;
  buf.clear();
  return buf;
}

void collect_rank(const ZSet* z, std::int64_t start, std::int64_t end, bool reverse,
                  std::vector<ZCursor>& out) {
  const auto llen = static_cast<std::int64_t>(types::zset_size(z));
  if (start < 0) start = llen + start;
  if (end < 0) end = llen + end;
  if (start < 0) start = 0;
  if (start > end || start >= llen) return;
  if (end >= llen) end = llen - 1;
  std::int64_t n = end - start + 1;
  ZCursor c = types::zset_at(z, static_cast<std::size_t>(reverse ? llen - 1 - start : start));
  for (; n > 0 && c.valid(); --n) {
    out.push_back(c);
    if (reverse) {
      c.prev();
    } else {
      c.next();
    }
  }
}

template <class Range, class InRange>
void collect_range(const ZSet* z, const Range& r, std::int64_t offset, std::int64_t limit,
                   bool reverse, InRange&& in_range, std::vector<ZCursor>& out) {
  if (offset > 0 && offset >= static_cast<std::int64_t>(types::zset_size(z))) return;
  ZCursor c = reverse ? types::zset_last_in(z, r) : types::zset_first_in(z, r);
  auto step = [&] {
    if (reverse) {
      c.prev();
    } else {
      c.next();
    }
  };
  // A negative offset skips everything, as Redis's `while (ln && offset--)`.
  if (offset < 0) return;
  while (c.valid() && offset > 0) {
    step();
    --offset;
  }
  while (c.valid() && limit != 0) {
    if (!in_range(c)) break;
    out.push_back(c);
    step();
    if (limit > 0) --limit;
  }
}

void zrange_generic(Context& ctx, std::size_t argc_start, bool store, RangeType rangetype,
                    Direction direction) {
  std::string_view key = ctx.args[argc_start];
  std::size_t minidx = argc_start + 1, maxidx = argc_start + 2;
  bool withscores = false;
  std::int64_t offset = 0, limit = -1;
  for (std::size_t j = argc_start + 3; j < ctx.argc(); ++j) {
    const std::size_t leftargs = ctx.argc() - j - 1;
    std::string_view a = ctx.args[j];
    if (!store && iequals(a, "withscores")) {
      withscores = true;
    } else if (iequals(a, "limit") && leftargs >= 2) {
      if (!get_long(ctx, ctx.args[j + 1], offset) || !get_long(ctx, ctx.args[j + 2], limit)) {
        return;
      }
      j += 2;
    } else if (direction == Direction::kAuto && iequals(a, "rev")) {
      direction = Direction::kReverse;
    } else if (rangetype == RangeType::kAuto && iequals(a, "bylex")) {
      rangetype = RangeType::kLex;
    } else if (rangetype == RangeType::kAuto && iequals(a, "byscore")) {
      rangetype = RangeType::kScore;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  if (direction == Direction::kAuto) direction = Direction::kForward;
  if (rangetype == RangeType::kAuto) rangetype = RangeType::kRank;
  if (limit != -1 && rangetype == RangeType::kRank) {
    ctx.out.error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return;
  }
  if (withscores && rangetype == RangeType::kLex) {
    ctx.out.error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    return;
  }
  const bool reverse = direction == Direction::kReverse;
  if (reverse && rangetype != RangeType::kRank) std::swap(minidx, maxidx);

  std::int64_t start = 0, end = 0;
  ScoreRange sr;
  LexRange lr;
  switch (rangetype) {
    case RangeType::kAuto:
    case RangeType::kRank:
      if (!get_long(ctx, ctx.args[minidx], start) || !get_long(ctx, ctx.args[maxidx], end)) return;
      break;
    case RangeType::kScore:
      if (!parse_score_range(ctx.args[minidx], ctx.args[maxidx], sr)) {
        ctx.out.error(kNotFloatRange);
        return;
      }
      break;
    case RangeType::kLex:
      if (!parse_lex_range(ctx.args[minidx], ctx.args[maxidx], lr)) {
        ctx.out.error(kNotLexRange);
        return;
      }
      break;
  }

  Entry e;
  if (!lookup_or_wrongtype(ctx, key, Type::kZSet, Access::kRead, e)) return;
  std::vector<ZCursor>& cur = cursor_buffer();
  const ZSet* z = e ? zset_of(e) : nullptr;
  if (z != nullptr) {
    switch (rangetype) {
      case RangeType::kAuto:
      case RangeType::kRank:
        collect_rank(z, start, end, reverse, cur);
        break;
      case RangeType::kScore:
        collect_range(
            z, sr, offset, limit, reverse,
            [&](const ZCursor& c) {
              const double s = c.score();
              return reverse ? sr.contains_min_side(s) : sr.contains_max_side(s);
            },
            cur);
        break;
      case RangeType::kLex: {
        Listpack::IntBuf ib;
        collect_range(
            z, lr, offset, limit, reverse,
            [&](const ZCursor& c) {
              std::string_view m = c.member(ib);
              return reverse ? lr.gte_min(m) : lr.lte_max(m);
            },
            cur);
        break;
      }
    }
  }

  Listpack::IntBuf ib;
  if (!store) {
    reply_header(ctx, cur.size(), withscores);
    for (const ZCursor& c : cur) emit(ctx, c.member(ib), withscores ? c.score() : 0, withscores);
    return;
  }
  // ZRANGESTORE: copy out before the destination (maybe the source itself) is written.
  std::string_view dst = ctx.args[1];
  if (cur.empty()) {
    if (ctx.db().erase_server(dst)) ctx.notify(kNotifyGeneric, "del", dst);
    ctx.out.integer(0);
    return;
  }
  std::vector<Collected> items;
  items.reserve(cur.size());
  for (const ZCursor& c : cur) items.push_back({std::string(c.member(ib)), c.score()});
  const std::size_t hint = rangetype == RangeType::kRank ? items.size() : 0;
  store::Db& db = ctx.db();
  const types::ZSetLimits lim = limits(ctx);
  ZSet* out = types::zset_create(db.heap(), hint, 0, lim);
  for (const Collected& it : items) {
    unsigned flags = 0;
    types::zset_add(db.heap(), out, it.score, it.member, 0, &flags, nullptr, lim);
  }
  db.set_object(dst, out, store::SetOptions{});
  ctx.notify_declared(dst);
  ctx.out.integer(static_cast<std::int64_t>(items.size()));
}

}  // namespace

void zrange(Context& ctx) {
  zrange_generic(ctx, 1, false, RangeType::kAuto, Direction::kAuto);
}
void zrangestore(Context& ctx) {
  zrange_generic(ctx, 2, true, RangeType::kAuto, Direction::kAuto);
}
void zrevrange(Context& ctx) {
  zrange_generic(ctx, 1, false, RangeType::kRank, Direction::kReverse);
}
void zrangebyscore(Context& ctx) {
  zrange_generic(ctx, 1, false, RangeType::kScore, Direction::kForward);
}
void zrevrangebyscore(Context& ctx) {
  zrange_generic(ctx, 1, false, RangeType::kScore, Direction::kReverse);
}
void zrangebylex(Context& ctx) {
  zrange_generic(ctx, 1, false, RangeType::kLex, Direction::kForward);
}
void zrevrangebylex(Context& ctx) {
  zrange_generic(ctx, 1, false, RangeType::kLex, Direction::kReverse);
}

// ---------------------------------------------------------------------------------------
// ZREMRANGEBYRANK / BYSCORE / BYLEX (zremrangeGenericCommand).

void zremrange_generic(Context& ctx, RangeType type) {
  std::int64_t start = 0, end = 0;
  ScoreRange sr;
  LexRange lr;
  if (type == RangeType::kRank) {
    if (!get_long(ctx, ctx.args[2], start) || !get_long(ctx, ctx.args[3], end)) return;
  } else if (type == RangeType::kScore) {
    if (!parse_score_range(ctx.args[2], ctx.args[3], sr)) {
      ctx.out.error(kNotFloatRange);
      return;
    }
  } else if (!parse_lex_range(ctx.args[2], ctx.args[3], lr)) {
    ctx.out.error(kNotLexRange);
    return;
  }
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kZSet, IfMissing::kZero, h)) return;
  // A view of the value until the first write; as<>() may hand out a copy (inline values).
  const auto* cur = static_cast<const ZSet*>(h.peek());
  std::size_t deleted = 0;
  if (type == RangeType::kRank) {
    const auto llen = static_cast<std::int64_t>(types::zset_size(cur));
    if (start < 0) start = llen + start;
    if (end < 0) end = llen + end;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
      ctx.out.integer(0);
      return;
    }
    if (end >= llen) end = llen - 1;
    deleted = types::zset_delete_ranks(h.heap(), h.as<ZSet>(), static_cast<std::size_t>(start),
                                       static_cast<std::size_t>(end));
  } else if (type == RangeType::kScore) {
    if (types::zset_first_in(cur, sr).valid()) {
      deleted = types::zset_delete_range(h.heap(), h.as<ZSet>(), sr);
    }
  } else if (types::zset_first_in(cur, lr).valid()) {
    deleted = types::zset_delete_range(h.heap(), h.as<ZSet>(), lr);
  }
  if (deleted != 0 && types::zset_size(static_cast<const ZSet*>(h.peek())) == 0) h.remove();
  ctx.out.integer(static_cast<std::int64_t>(deleted));
}

void zremrangebyrank(Context& ctx) {
  zremrange_generic(ctx, RangeType::kRank);
}
void zremrangebyscore(Context& ctx) {
  zremrange_generic(ctx, RangeType::kScore);
}
void zremrangebylex(Context& ctx) {
  zremrange_generic(ctx, RangeType::kLex);
}

}  // namespace ruvio::worker::zsets
