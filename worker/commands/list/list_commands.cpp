// List family: pushes, pops (with count), ranges, LINDEX/LSET/LINSERT/LREM/LTRIM/LPOS, LMOVE,
// RPOPLPUSH and LMPOP.
//
// Replies and errors follow Redis 7.0's t_list.c decision for decision, in its order of
// checks (argument parsing before or after the key lookup, command by command), because
// clients and test suites match on them. The data structure is worker/types/list/; this file
// only translates arguments and replies. Every write here replays to the same result, so the
// journal logs the command as sent.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "worker/commands/list/list_decls.hpp"
#include "worker/engine/blocking.hpp"
#include "worker/engine/blocking_args.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/types/list/list.hpp"

namespace ruvio::worker {
namespace {

using types::ListEnd;
using types::ListObject;
using types::Listpack;
using types::ListPos;
using types::Quicklist;
using types::Type;

constexpr std::string_view kOutOfRange = "ERR index out of range";

int fill_of(Context& ctx) {
  return ctx.shard.config().list_max_listpack_size;
}

// A new list takes list-compress-depth as it is now (Redis sets it at creation).
ListObject* new_list(Context& ctx, store::Heap& heap) {
  return Quicklist::create(heap, ctx.shard.config().list_compress_depth);
}

void reply_entry(Context& ctx, const Listpack::Entry& e) {
  if (e.is_int) {
    ctx.out.bulk_int(e.i);
  } else {
    ctx.out.bulk(e.str);
  }
}

// getLongFromObjectOrReply.
bool parse_long(Context& ctx, std::string_view arg, std::int64_t& out) {
  const auto v = parse_int64(arg);
  if (!v) {
    ctx.out.error(err::kNotInt);
    return false;
  }
  out = *v;
  return true;
}

// getRangeLongFromObjectOrReply: `msg` (with "ERR " in front) replaces both the not-an-integer
// and the out-of-range texts when given, as in Redis.
bool parse_range(Context& ctx, std::string_view arg, std::int64_t min, std::int64_t max,
                 std::int64_t& out, std::string_view msg) {
  const auto v = parse_int64(arg);
  if (!v || *v < min || *v > max) {
    if (!msg.empty()) {
      std::string text = "ERR ";
      text.append(msg);
      ctx.out.error(text);
    } else if (!v) {
      ctx.out.error(err::kNotInt);
    } else {
      ctx.out.error("ERR value is out of range, must be between " + std::to_string(min) + " and " +
                    std::to_string(max));
    }
    return false;
  }
  out = *v;
  return true;
}

// getListPositionFromObjectOrReply.
bool parse_end(Context& ctx, std::string_view arg, ListEnd& end) {
  if (iequals(arg, "left")) {
    end = ListEnd::kHead;
  } else if (iequals(arg, "right")) {
    end = ListEnd::kTail;
  } else {
    ctx.out.error(err::kSyntax);
    return false;
  }
  return true;
}

// A read-only view of a list entry (no write goes through it); `scratch` holds the view of a
// list inline in its record (types::list_view).
Quicklist view(Context& ctx, store::Entry e, ListObject& scratch) {
  return Quicklist(ctx.db().heap(), const_cast<ListObject*>(types::list_view(e.object(), scratch)),
                   fill_of(ctx));
}

// Replies with entries [first, last] of the list, backwards when `reverse` (from last).
void reply_range(Context& ctx, const Quicklist& ql, std::uint64_t first, std::uint64_t last,
                 bool reverse) {
  const std::uint64_t n = last - first + 1;
  ctx.out.array(n);
  ListPos p = ql.seek(static_cast<std::int64_t>(reverse ? last : first));
  for (std::uint64_t i = 0; i < n; ++i) {
    reply_entry(ctx, ql.get(p));
    p = reverse ? ql.prev(p) : ql.next(p);
  }
}

// ---- pushes ---------------------------------------------------------------------------------

std::string_view push_event(ListEnd end) {
  return end == ListEnd::kHead ? "lpush" : "rpush";
}
std::string_view pop_event(ListEnd end) {
  return end == ListEnd::kHead ? "lpop" : "rpop";
}

void push_generic(Context& ctx, ListEnd end, bool only_existing) {
  store::WriteHandle h;
  const IfMissing missing = only_existing ? IfMissing::kZero : IfMissing::kNothing;
  if (!open_or_reply(ctx, ctx.args[1], Type::kList, missing, h)) return;
  h.notify_as(kNotifyList, push_event(end));  // LPUSHX too
  if (!h) h.set(new_list(ctx, h.heap()));
  Quicklist ql(h.heap(), h.as<ListObject>(), fill_of(ctx));
  for (std::size_t j = 2; j < ctx.argc(); ++j) types::list_push(ql, end, ctx.args[j]);
  ctx.out.integer(static_cast<std::int64_t>(ql.size()));
}

void lpush(Context& ctx) {
  push_generic(ctx, ListEnd::kHead, false);
}
void rpush(Context& ctx) {
  push_generic(ctx, ListEnd::kTail, false);
}
void lpushx(Context& ctx) {
  push_generic(ctx, ListEnd::kHead, true);
}
void rpushx(Context& ctx) {
  push_generic(ctx, ListEnd::kTail, true);
}

// ---- pops -----------------------------------------------------------------------------------

// Pops up to `count` entries from one end of an existing, non-empty list, replying with them
// as an array (or, with `single`, the one entry as a bulk); deletes the key when emptied.
void pop_and_reply(Context& ctx, store::WriteHandle& h, ListEnd end, std::uint64_t count,
                   bool single) {
  h.notify_as(kNotifyList, pop_event(end));  // LMPOP, BLPOP ... too
  Quicklist ql(h.heap(), h.as<ListObject>(), fill_of(ctx));
  const std::uint64_t n = count > ql.size() ? ql.size() : count;
  if (single) {
    const ListPos p = end == ListEnd::kHead ? ql.first() : ql.last();
    reply_entry(ctx, ql.get(p));
    ql.erase(p);
  } else if (end == ListEnd::kHead) {
    reply_range(ctx, ql, 0, n - 1, false);
    ql.erase_range(0, n);
  } else {
    reply_range(ctx, ql, ql.size() - n, ql.size() - 1, true);
    ql.erase_range(ql.size() - n, n);
  }
  if (ql.size() == 0) h.remove();
}

void pop_generic(Context& ctx, ListEnd end) {
  const bool has_count = ctx.argc() == 3;
  std::int64_t count = 0;
  if (ctx.argc() > 3) {
    ctx.out.error("ERR wrong number of arguments for '" + std::string(ctx.command->name) +
                  "' command");
    return;
  }
  if (has_count && !parse_range(ctx, ctx.args[2], 0, INT64_MAX, count,
                                "value is out of range, must be positive")) {
    return;
  }
  store::WriteHandle h;
  const IfMissing missing = has_count ? IfMissing::kNullArray : IfMissing::kNull;
  if (!open_or_reply(ctx, ctx.args[1], Type::kList, missing, h)) return;
  if (has_count && count == 0) {
    ctx.out.array(0);
    return;
  }
  pop_and_reply(ctx, h, end, has_count ? static_cast<std::uint64_t>(count) : 1, !has_count);
}

void lpop(Context& ctx) {
  pop_generic(ctx, ListEnd::kHead);
}
void rpop(Context& ctx) {
  pop_generic(ctx, ListEnd::kTail);
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] (numkeys at `numkeys_idx`)
void mpop_generic(Context& ctx, std::size_t numkeys_idx) {
  std::int64_t numkeys = 0;
  if (!parse_range(ctx, ctx.args[numkeys_idx], 1, INT64_MAX, numkeys,
                   "numkeys should be greater than 0")) {
    return;
  }
  if (static_cast<std::uint64_t>(numkeys) > ctx.argc()) {
    ctx.out.error(err::kSyntax);
    return;
  }
  const std::uint64_t where_idx = numkeys_idx + static_cast<std::uint64_t>(numkeys) + 1;
  if (where_idx >= ctx.argc()) {
    ctx.out.error(err::kSyntax);
    return;
  }
  ListEnd end;
  if (!parse_end(ctx, ctx.args[where_idx], end)) return;
  std::int64_t count = -1;
  for (std::size_t j = where_idx + 1; j < ctx.argc(); ++j) {
    const bool more = j + 1 < ctx.argc();
    if (count == -1 && iequals(ctx.args[j], "count") && more) {
      ++j;
      if (!parse_range(ctx, ctx.args[j], 1, INT64_MAX, count, "count should be greater than 0")) {
        return;
      }
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  if (count == -1) count = 1;
  for (std::size_t k = numkeys_idx + 1; k < where_idx; ++k) {
    store::WriteHandle h;
    if (!open_or_reply(ctx, ctx.args[k], Type::kList, IfMissing::kNothing, h)) return;
    if (!h) continue;
    ctx.out.array(2);
    ctx.out.bulk(ctx.args[k]);
    pop_and_reply(ctx, h, end, static_cast<std::uint64_t>(count), false);
    if (numkeys_idx != 1) {
      char buf[24];
      ctx.log_as({end == ListEnd::kHead ? "LPOP" : "RPOP", ctx.args[k], format_int64(count, buf)});
    }
    return;
  }
  ctx.out.null_array();
}

void lmpop(Context& ctx) {
  mpop_generic(ctx, 1);
}

// ---- reads ----------------------------------------------------------------------------------

void llen(Context& ctx) {
  store::Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kList, Access::kRead, e)) return;
  ListObject scratch;
  ctx.out.integer(e ? static_cast<std::int64_t>(types::list_view(e.object(), scratch)->count) : 0);
}

void lrange(Context& ctx) {
  std::int64_t start;
  std::int64_t end;
  if (!parse_long(ctx, ctx.args[2], start) || !parse_long(ctx, ctx.args[3], end)) return;
  store::Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kList, Access::kRead, e)) return;
  if (!e) {
    ctx.out.array(0);
    return;
  }
  ListObject scratch;
  const Quicklist ql = view(ctx, e, scratch);
  std::uint64_t first;
  std::uint64_t last;
  if (!types::list_range(ql.size(), start, end, first, last)) {
    ctx.out.array(0);
    return;
  }
  reply_range(ctx, ql, first, last, false);
}

void lindex(Context& ctx) {
  store::Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kList, Access::kRead, e)) return;
  if (!e) {
    ctx.out.null();
    return;
  }
  std::int64_t index;
  if (!parse_long(ctx, ctx.args[2], index)) return;
  ListObject scratch;
  const Quicklist ql = view(ctx, e, scratch);
  const ListPos p = ql.seek(index);
  if (!p) {
    ctx.out.null();
    return;
  }
  reply_entry(ctx, ql.get(p));
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void lpos(Context& ctx) {
  std::int64_t rank = 1;
  std::int64_t count = -1;  // -1: no COUNT option
  std::int64_t maxlen = 0;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.args[j];
    const bool more = j + 1 < ctx.argc();
    if (iequals(opt, "rank") && more) {
      ++j;
      if (!parse_long(ctx, ctx.args[j], rank)) return;
      if (rank == 0) {
        ctx.out.error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list");
        return;
      }
    } else if (iequals(opt, "count") && more) {
      ++j;
      if (!parse_range(ctx, ctx.args[j], 0, INT64_MAX, count, "COUNT can't be negative")) return;
    } else if (iequals(opt, "maxlen") && more) {
      ++j;
      if (!parse_range(ctx, ctx.args[j], 0, INT64_MAX, maxlen, "MAXLEN can't be negative")) {
        return;
      }
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  store::Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kList, Access::kRead, e)) return;
  if (!e) {
    if (count != -1) {
      ctx.out.array(0);
    } else {
      ctx.out.null();
    }
    return;
  }
  ListObject scratch;
  const Quicklist ql = view(ctx, e, scratch);
  if (count == -1) {
    std::int64_t found = -1;
    types::list_positions(ql, ctx.args[2], rank, 1, maxlen, [&](std::int64_t i) {
      if (found < 0) found = i;
    });
    if (found < 0) {
      ctx.out.null();
    } else {
      ctx.out.integer(found);
    }
    return;
  }
  // The count of matches is known only at the end: collect them (a reused buffer).
  static std::vector<std::int64_t> hits;
  hits.clear();
  types::list_positions(ql, ctx.args[2], rank, count, maxlen,
                        [&](std::int64_t i) { hits.push_back(i); });
  ctx.out.array(hits.size());
  for (std::int64_t i : hits) ctx.out.integer(i);
}

// ---- in-place writes ------------------------------------------------------------------------

void lset(Context& ctx) {
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kList, IfMissing::kNoSuchKey, h)) return;
  std::int64_t index;
  if (!parse_long(ctx, ctx.args[2], index)) return;
  auto* o = h.mut_as<ListObject>();
  Quicklist ql(h.heap(), o, fill_of(ctx));
  // One seek: the position found is the one replaced (marking the key dirty moves nothing).
  const ListPos p = ql.seek(index);
  if (!p) {
    ctx.out.error(kOutOfRange);
    return;
  }
  h.changed();
  const std::string_view value = ctx.args[3];
  ql.replace(p, Listpack::Elem(value), value.size());
  ctx.out.ok();
}

// LINSERT key BEFORE|AFTER pivot element
void linsert(Context& ctx) {
  Listpack::Where where;
  if (iequals(ctx.args[2], "after")) {
    where = Listpack::Where::kAfter;
  } else if (iequals(ctx.args[2], "before")) {
    where = Listpack::Where::kBefore;
  } else {
    ctx.out.error(err::kSyntax);
    return;
  }
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kList, IfMissing::kZero, h)) return;
  auto* o = h.mut_as<ListObject>();
  Quicklist ql(h.heap(), o, fill_of(ctx));
  if (!types::list_insert(ql, where, ctx.args[3], ctx.args[4])) {
    ctx.out.integer(-1);
    return;
  }
  h.changed();
  ctx.out.integer(static_cast<std::int64_t>(ql.size()));
}

void lrem(Context& ctx) {
  std::int64_t count;
  if (!parse_long(ctx, ctx.args[2], count)) return;
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kList, IfMissing::kZero, h)) return;
  auto* o = h.mut_as<ListObject>();
  Quicklist ql(h.heap(), o, fill_of(ctx));
  const std::uint64_t removed = types::list_remove(ql, ctx.args[3], count);
  if (removed > 0) {
    h.changed();
    if (ql.size() == 0) h.remove();
  }
  ctx.out.integer(static_cast<std::int64_t>(removed));
}

void ltrim(Context& ctx) {
  std::int64_t start;
  std::int64_t end;
  if (!parse_long(ctx, ctx.args[2], start) || !parse_long(ctx, ctx.args[3], end)) return;
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kList, IfMissing::kOk, h)) return;
  // Redis signals the key as modified even when nothing is trimmed.
  Quicklist ql(h.heap(), h.as<ListObject>(), fill_of(ctx));
  types::list_trim(ql, start, end);
  if (ql.size() == 0) h.remove();
  ctx.out.ok();
}

// ---- moves ----------------------------------------------------------------------------------

// lmoveGenericCommand: pops from `src`'s `from` end and pushes at `dst`'s `to` end, replying
// with the entry moved. The source and destination may be the same key (a rotation, which
// keeps the key and its TTL).
void move_generic(Context& ctx, std::string_view src, std::string_view dst, ListEnd from,
                  ListEnd to) {
  store::Entry se;
  if (!lookup_or_wrongtype(ctx, src, Type::kList, Access::kWrite, se)) return;
  if (!se) {
    ctx.out.null();
    return;
  }
  store::Entry de;
  if (!lookup_or_wrongtype(ctx, dst, Type::kList, Access::kWrite, de)) return;
  // The moved entry, held across the two handles (a reused buffer: no allocation per call).
  static std::string moved;
  const auto take = [&](const Quicklist& ql) {
    const Listpack::Entry e = ql.get(from == ListEnd::kHead ? ql.first() : ql.last());
    if (e.is_int) {
      char buf[24];
      moved.assign(format_int64(e.i, buf));
    } else {
      moved.assign(e.str);
    }
  };
  if (src == dst) {
    store::WriteHandle h = ctx.db().open(src, Type::kList, ctx.now_ms());
    h.notify_as(kNotifyList, push_event(to));
    Quicklist ql(h.heap(), h.as<ListObject>(), fill_of(ctx));
    take(ql);
    ql.erase(from == ListEnd::kHead ? ql.first() : ql.last());
    types::list_push(ql, to, moved);
    ctx.out.bulk(moved);
    h.release();
    ctx.notify(kNotifyList, pop_event(from), src);
    return;
  }
  {
    ListObject scratch;
    take(view(ctx, ctx.db().peek(src), scratch));  // `se` may be stale after dst's lookup
  }
  // Redis's order (lmoveHandlePush first): the push on dst, its WATCH/tracking signal, then
  // the pop on src, src's "del" when emptied, and src's signal.
  {
    store::WriteHandle h = ctx.db().open(dst, Type::kList, ctx.now_ms());
    h.notify_as(kNotifyList, push_event(to));
    if (!h) h.set(new_list(ctx, h.heap()));
    Quicklist ql(h.heap(), h.as<ListObject>(), fill_of(ctx));
    types::list_push(ql, to, moved);
    ctx.out.bulk(moved);
  }
  store::WriteHandle h = ctx.db().open(src, Type::kList, ctx.now_ms());
  h.notify_as(kNotifyList, pop_event(from));
  Quicklist ql(h.heap(), h.as<ListObject>(), fill_of(ctx));
  ql.erase(from == ListEnd::kHead ? ql.first() : ql.last());
  if (ql.size() == 0) h.remove();
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT
void lmove(Context& ctx) {
  ListEnd from;
  ListEnd to;
  if (!parse_end(ctx, ctx.args[3], from) || !parse_end(ctx, ctx.args[4], to)) return;
  move_generic(ctx, ctx.args[1], ctx.args[2], from, to);
}

void rpoplpush(Context& ctx) {
  move_generic(ctx, ctx.args[1], ctx.args[2], ListEnd::kTail, ListEnd::kHead);
}

// ---- blocking forms ---------------------------------------------------------------------------
// The executor parks these while every key they wait on is empty (blocking.hpp); when they
// run, they serve what is there or answer the empty reply: the timeout's, or, inside MULTI
// (where Redis never blocks), the non-blocking one.

// BLPOP / BRPOP key [key ...] timeout: [key, element] from the first non-empty list.
void bpop_generic(Context& ctx, ListEnd end) {
  if (!timeout_ok(ctx, ctx.args[ctx.argc() - 1]) || unblocked_by_error(ctx) ||
      answered_timeout(ctx)) {
    return;
  }
  for (std::size_t j = 1; j + 1 < ctx.argc(); ++j) {
    store::WriteHandle h;
    if (!open_or_reply(ctx, ctx.args[j], Type::kList, IfMissing::kNothing, h)) return;
    if (!h) continue;
    ctx.out.array(2);
    ctx.out.bulk(ctx.args[j]);
    pop_and_reply(ctx, h, end, 1, true);
    ctx.log_as({end == ListEnd::kHead ? "LPOP" : "RPOP", ctx.args[j]});
    return;
  }
  ctx.out.null_array();
}

void blpop(Context& ctx) {
  bpop_generic(ctx, ListEnd::kHead);
}
void brpop(Context& ctx) {
  bpop_generic(ctx, ListEnd::kTail);
}

void bmove_generic(Context& ctx, ListEnd from, ListEnd to, std::string_view timeout) {
  if (!timeout_ok(ctx, timeout) || unblocked_by_error(ctx) || answered_timeout(ctx)) return;
  store::Entry se;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kList, Access::kWrite, se)) return;
  if (!se) {
    ctx.out.null();  // MULTI's immediate answer (the timeout's is a null array)
    return;
  }
  move_generic(ctx, ctx.args[1], ctx.args[2], from, to);
  ctx.log_as({"LMOVE", ctx.args[1], ctx.args[2], from == ListEnd::kHead ? "LEFT" : "RIGHT",
              to == ListEnd::kHead ? "LEFT" : "RIGHT"});
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
void blmove(Context& ctx) {
  ListEnd from;
  ListEnd to;
  if (!parse_end(ctx, ctx.args[3], from) || !parse_end(ctx, ctx.args[4], to)) return;
  bmove_generic(ctx, from, to, ctx.args[5]);
}

void brpoplpush(Context& ctx) {
  bmove_generic(ctx, ListEnd::kTail, ListEnd::kHead, ctx.args[3]);
}

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
void blmpop(Context& ctx) {
  if (!timeout_ok(ctx, ctx.args[1]) || unblocked_by_error(ctx) || answered_timeout(ctx)) return;
  mpop_generic(ctx, 2);
}

// ---------------------------------------------------------------------------------------
// The declaration table: each row its decl (<family>_decls.hpp, what Redis declares), its
// handler and Ruvio's own traits.

const CommandDef kListCommands[] = {
    {&decl::lpush, lpush},
    {&decl::rpush, rpush},
    {&decl::lpushx, lpushx},
    {&decl::rpushx, rpushx},
    {&decl::lpop, lpop},
    {&decl::rpop, rpop},
    {&decl::lmpop, lmpop},
    {&decl::llen, llen},
    {&decl::lrange, lrange},
    {&decl::lindex, lindex},
    {&decl::lpos, lpos},
    {&decl::lset, lset},
    {&decl::linsert, linsert},
    {&decl::lrem, lrem},
    {&decl::ltrim, ltrim},
    {&decl::lmove, lmove},
    {.decl = &decl::blpop, .handler = blpop, .blocking = &kBlockList},
    {.decl = &decl::brpop, .handler = brpop, .blocking = &kBlockList},
    {.decl = &decl::blmove, .handler = blmove, .blocking = &kBlockBlmove},
    {.decl = &decl::brpoplpush, .handler = brpoplpush, .blocking = &kBlockList},
    {.decl = &decl::blmpop, .handler = blmpop, .blocking = &kBlockBlmpop},
    {&decl::rpoplpush, rpoplpush},
};

}  // namespace

std::span<const CommandDef> list_commands() {
  return kListCommands;
}

}  // namespace ruvio::worker
