// Set family: SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SRANDMEMBER SPOP SMOVE, the
// algebra (SINTER SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE) and SSCAN.
//
// Replies and errors follow Redis 7.0's t_set.c decision for decision (which argument is
// checked first, which key's type, what a missing key answers); encodings and conversions are
// Redis 7.2's (worker/types/set/set.hpp). A command mutates a set through the object pointer
// of its write handle and calls value() only when something changed, so a no-op SADD/SREM
// does not invalidate WATCHes or reach the WAL, as in Redis. SPOP is logged as the SREM of
// what it popped (or DEL when it took everything).
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "shared/glob.hpp"
#include "worker/commands/set/set_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/engine/scan_options.hpp"
#include "worker/types/set/set.hpp"

namespace ruvio::worker {
namespace {

using types::SetElem;
using types::SetObject;
using types::Type;
namespace set = types::set;

constexpr std::string_view kPositive = "ERR value is out of range, must be positive";

// The encoding thresholds of this shard's configuration (CONFIG SET set-max-*).
types::SetLimits limits(const Context& ctx) {
  const Config& c = ctx.shard.config();
  return {c.set_max_intset_entries, c.set_max_listpack_entries, c.set_max_listpack_value};
}

std::mt19937_64& rng() {
  static std::mt19937_64 r{std::random_device{}()};
  return r;
}

void reply_elem(Context& ctx, const SetElem& e) {
  if (e.is_int) {
    ctx.out.bulk_int(e.i);
  } else {
    ctx.out.bulk(e.str);
  }
}

// The set a read command names: null when missing; false (WRONGTYPE sent) for another type.
bool read_set(Context& ctx, std::string_view key, const SetObject*& out) {
  store::Entry e;
  if (!lookup_or_wrongtype(ctx, key, Type::kSet, Access::kRead, e)) return false;
  out = e ? static_cast<const SetObject*>(e.object()) : nullptr;
  return true;
}

// getPositiveLongFromObjectOrReply with Redis's default message.
bool parse_positive(Context& ctx, std::string_view s, std::int64_t& out) {
  const auto v = parse_int64(s);
  if (!v || *v < 0) {
    ctx.out.error(kPositive);
    return false;
  }
  out = *v;
  return true;
}

void cmd_sadd(Context& ctx) {
  const types::SetLimits lim = limits(ctx);
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kSet, IfMissing::kNothing, h)) return;
  if (!h) h.set(set::create(h.heap(), ctx.args[2], ctx.argc() - 2, lim));
  auto* s = h.mut_as<SetObject>();
  std::int64_t added = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i)
    added += set::add(h.heap(), s, ctx.args[i], lim) ? 1 : 0;
  if (added) h.changed();
  ctx.out.integer(added);
}

void cmd_srem(Context& ctx) {
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kSet, IfMissing::kZero, h)) return;
  auto* s = h.mut_as<SetObject>();
  std::int64_t deleted = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (!set::remove(h.heap(), s, ctx.args[i])) continue;
    ++deleted;
    if (set::size(s) == 0) break;
  }
  if (deleted) {
    h.changed();
    if (set::size(s) == 0) h.remove();
  }
  ctx.out.integer(deleted);
}

void cmd_scard(Context& ctx) {
  const SetObject* s;
  if (!read_set(ctx, ctx.args[1], s)) return;
  ctx.out.integer(s ? static_cast<std::int64_t>(set::size(s)) : 0);
}

void cmd_sismember(Context& ctx) {
  const SetObject* s;
  if (!read_set(ctx, ctx.args[1], s)) return;
  ctx.out.integer(s && set::contains(s, ctx.args[2]) ? 1 : 0);
}

void cmd_smismember(Context& ctx) {
  const SetObject* s;
  if (!read_set(ctx, ctx.args[1], s)) return;
  ctx.out.array(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i)
    ctx.out.integer(s && set::contains(s, ctx.args[i]) ? 1 : 0);
}

void reply_all(Context& ctx, const SetObject* s) {
  ctx.out.set(s ? set::size(s) : 0);
  if (s) set::for_each(s, [&](const SetElem& e) { reply_elem(ctx, e); });
}

void cmd_smembers(Context& ctx) {
  const SetObject* s;
  if (!read_set(ctx, ctx.args[1], s)) return;
  reply_all(ctx, s);
}

// ---- random members ------------------------------------------------------------------------

void srandmember_count(Context& ctx) {
  const auto l = parse_int64(ctx.args[2]);
  if (!l) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (*l == INT64_MIN) {
    ctx.out.error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return;
  }
  const SetObject* s;
  if (!read_set(ctx, ctx.args[1], s)) return;
  if (!s || *l == 0) {
    ctx.out.array(0);
    return;
  }
  const bool uniq = *l > 0;
  const std::uint64_t count =
      uniq ? static_cast<std::uint64_t>(*l) : 0 - static_cast<std::uint64_t>(*l);
  const std::size_t size = set::size(s);
  if (!uniq || count == 1) {
    ctx.out.array(count);
    for (std::uint64_t i = 0; i < count; ++i) reply_elem(ctx, set::random(s, rng()));
    return;
  }
  if (count >= size) {
    ctx.out.array(size);
    set::for_each(s, [&](const SetElem& e) { reply_elem(ctx, e); });
    return;
  }
  if (s->enc == types::kSetHashtable && count * 3 <= size) {
    // Few of many (Redis's case 4): fair single draws until distinct, O(count) not O(size).
    std::unordered_set<std::string_view> seen;
    ctx.out.array(count);
    while (seen.size() < count) {
      const SetElem e = set::random(s, rng());
      if (seen.insert(e.str).second) reply_elem(ctx, e);
    }
    return;
  }
  // count < size: a partial Fisher-Yates over the members' positions.
  static std::vector<SetElem> all;
  all.clear();
  set::for_each(s, [&](const SetElem& e) { all.push_back(e); });
  for (std::size_t i = 0; i < count; ++i) {
    std::uniform_int_distribution<std::size_t> pick(i, all.size() - 1);
    std::swap(all[i], all[pick(rng())]);
  }
  ctx.out.array(count);
  for (std::size_t i = 0; i < count; ++i) reply_elem(ctx, all[i]);
}

void cmd_srandmember(Context& ctx) {
  if (ctx.argc() == 3) {
    srandmember_count(ctx);
    return;
  }
  if (ctx.argc() > 3) {
    ctx.out.error(err::kSyntax);
    return;
  }
  const SetObject* s;
  if (!read_set(ctx, ctx.args[1], s)) return;
  if (!s) {
    ctx.out.null();
    return;
  }
  reply_elem(ctx, set::random(s, rng()));
}

void spop_count(Context& ctx) {
  std::int64_t count;
  if (!parse_positive(ctx, ctx.args[2], count)) return;
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kSet, IfMissing::kEmptySet, h)) return;
  if (count == 0) {
    ctx.out.set(0);
    return;
  }
  auto* s = h.as<SetObject>();
  const std::size_t size = set::size(s);
  if (static_cast<std::uint64_t>(count) >= size) {
    reply_all(ctx, s);
    h.remove();
    ctx.log_as({"DEL", ctx.args[1]});
    return;
  }
  // Popped members as text, for the reply and the SREM effect.
  static std::vector<std::string> popped;
  static std::vector<std::string_view> effect;
  popped.clear();
  const std::size_t remaining = size - static_cast<std::size_t>(count);
  types::Listpack::IntBuf buf;
  const types::SetLimits lim = limits(ctx);
  if (remaining * 5 > static_cast<std::size_t>(count)) {
    for (std::int64_t i = 0; i < count; ++i) {
      popped.emplace_back(set::random(s, rng()).text(buf));
      set::remove(h.heap(), s, popped.back());
    }
  } else {
    // Most members go: the few that stay move to a new set (Redis's CASE 3, which is also
    // where its encoding is chosen afresh), the old one is replied and freed.
    SetObject* keep = nullptr;
    for (std::size_t i = 0; i < remaining; ++i) {
      const std::string m(set::random(s, rng()).text(buf));
      if (keep == nullptr) keep = set::create(h.heap(), m, remaining, lim);
      set::add(h.heap(), keep, m, lim);
      set::remove(h.heap(), s, m);
    }
    set::for_each(s, [&](const SetElem& e) { popped.emplace_back(e.text(buf)); });
    set::destroy(h.heap(), s);
    h.set(keep);
  }
  ctx.out.set(popped.size());
  effect.clear();
  effect.push_back("SREM");
  effect.push_back(ctx.args[1]);
  for (const std::string& m : popped) {
    ctx.out.bulk(m);
    effect.push_back(m);
  }
  ctx.log_as(std::span<const std::string_view>(effect));
}

void cmd_spop(Context& ctx) {
  if (ctx.argc() == 3) {
    spop_count(ctx);
    return;
  }
  if (ctx.argc() > 3) {
    ctx.out.error(err::kSyntax);
    return;
  }
  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kSet, IfMissing::kNull, h)) return;
  auto* s = h.as<SetObject>();
  types::Listpack::IntBuf buf;
  static std::string member;
  member.assign(set::random(s, rng()).text(buf));
  set::remove(h.heap(), s, member);
  ctx.out.bulk(member);
  if (set::size(s) == 0) h.remove();
  ctx.log_as({"SREM", ctx.args[1], member});
}

void cmd_smove(Context& ctx) {
  const std::string_view src = ctx.args[1], dst = ctx.args[2], member = ctx.args[3];
  const store::Entry se = lookup_write(ctx, src);
  const bool src_set = se && se.type() == Type::kSet;
  const bool src_exists = bool(se);
  const auto* sobj = src_set ? static_cast<const SetObject*>(se.object()) : nullptr;
  const store::Entry de = lookup_write(ctx, dst);
  const bool dst_wrong = de && de.type() != Type::kSet;
  if (!src_exists) {
    ctx.out.integer(0);
    return;
  }
  if (!src_set || dst_wrong) {
    ctx.out.error(err::kWrongType);
    return;
  }
  if (src == dst) {
    ctx.out.integer(set::contains(sobj, member) ? 1 : 0);
    return;
  }
  {
    store::WriteHandle h = ctx.db().open(src, Type::kSet, ctx.now_ms());
    h.notify_as(kNotifySet, "srem");
    auto* s = h.mut_as<SetObject>();
    if (!set::remove(h.heap(), s, member)) {
      ctx.out.integer(0);
      return;
    }
    h.changed();
    if (set::size(s) == 0) h.remove();
  }
  store::WriteHandle h = ctx.db().open(dst, Type::kSet, ctx.now_ms());
  h.notify_as(kNotifySet, "sadd");
  const types::SetLimits lim = limits(ctx);
  if (!h) h.set(set::create(h.heap(), member, 1, lim));
  auto* d = h.mut_as<SetObject>();
  if (set::add(h.heap(), d, member, lim)) h.changed();
  ctx.out.integer(1);
}

// ---- algebra -------------------------------------------------------------------------------

// The sets named by args[from, from + n): null entries for missing keys. False when one has
// another type (WRONGTYPE sent).
bool gather(Context& ctx, std::size_t from, std::size_t n, std::vector<const SetObject*>& sets) {
  sets.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const SetObject* s;
    if (!read_set(ctx, ctx.args[from + i], s)) return false;
    sets.push_back(s);
  }
  return true;
}

bool member_of(const SetObject* s, const SetElem& e) {
  types::Listpack::IntBuf buf;
  return set::contains(s, e.text(buf));
}

// Stores `result` at dst (replacing any value) or deletes dst when empty; replies the size.
void store_result(Context& ctx, std::string_view dst, SetObject* result) {
  store::Db& db = ctx.db();
  const std::size_t n = result ? set::size(result) : 0;
  if (n == 0) {
    if (result) set::destroy(db.heap(), result);
    if (db.erase_server(dst)) ctx.notify(kNotifyGeneric, "del", dst);
    ctx.out.integer(0);
    return;
  }
  db.set_object(dst, result, store::SetOptions{});
  ctx.notify_declared(dst);
  ctx.out.integer(static_cast<std::int64_t>(n));
}

void sinter_generic(Context& ctx, std::size_t from, std::size_t n, std::string_view dst, bool store,
                    bool card_only, std::uint64_t limit) {
  static std::vector<const SetObject*> sets;
  if (!gather(ctx, from, n, sets)) return;
  const bool empty = std::any_of(sets.begin(), sets.end(), [](auto* s) { return !s; });
  if (empty) {
    if (store) {
      if (ctx.db().erase_server(dst)) ctx.notify(kNotifyGeneric, "del", dst);
      ctx.out.integer(0);
    } else if (card_only) {
      ctx.out.integer(0);
    } else {
      ctx.out.set(0);
    }
    return;
  }
  std::stable_sort(sets.begin(), sets.end(),
                   [](auto* a, auto* b) { return set::size(a) < set::size(b); });
  static std::vector<SetElem> hits;
  hits.clear();
  std::uint64_t card = 0;
  bool stop = false;
  set::for_each(sets[0], [&](const SetElem& e) {
    if (stop) return;
    for (std::size_t j = 1; j < sets.size(); ++j) {
      if (sets[j] == sets[0]) continue;
      if (!member_of(sets[j], e)) return;
    }
    ++card;
    if (card_only) {
      if (limit && card >= limit) stop = true;
    } else {
      hits.push_back(e);
    }
  });
  if (card_only) {
    ctx.out.integer(static_cast<std::int64_t>(card));
    return;
  }
  if (!store) {
    ctx.out.set(hits.size());
    for (const SetElem& e : hits) reply_elem(ctx, e);
    return;
  }
  store::Heap& heap = ctx.db().heap();
  const types::SetLimits lim = limits(ctx);
  SetObject* result = set::create(heap, "0", 0, lim);
  types::Listpack::IntBuf buf;
  for (const SetElem& e : hits) set::add(heap, result, e.text(buf), lim);
  store_result(ctx, dst, result);
}

enum class Op { kUnion, kDiff };

// sunionDiffGenericCommand's choice: algorithm 1 (look each member of the first set up in
// the others) when half its work is at most algorithm 2's (add all, remove the rest).
bool diff_by_lookup(const std::vector<const SetObject*>& sets) {
  std::int64_t one = 0, two = 0;
  for (const SetObject* s : sets) {
    if (!s) continue;
    one += static_cast<std::int64_t>(set::size(sets[0]));
    two += static_cast<std::int64_t>(set::size(s));
  }
  return one / 2 <= two;
}

void sunion_diff(Context& ctx, std::size_t from, std::size_t n, std::string_view dst, bool store,
                 Op op) {
  static std::vector<const SetObject*> sets;
  if (!gather(ctx, from, n, sets)) return;
  store::Heap& heap = ctx.db().heap();
  const types::SetLimits lim = limits(ctx);
  SetObject* result = set::create(heap, "0", 0, lim);  // an empty intset, as createIntsetObject
  types::Listpack::IntBuf buf;
  if (op == Op::kUnion) {
    for (const SetObject* s : sets) {
      if (s) set::for_each(s, [&](const SetElem& e) { set::add(heap, result, e.text(buf), lim); });
    }
  } else if (sets[0] && !diff_by_lookup(sets)) {
    // Redis's DIFF algorithm 2: add the first set, remove the others. The members it added
    // and removed again decide the result's encoding (an intset that met a string stays
    // converted), so the choice between the algorithms is Redis's, work figures included.
    std::size_t card = 0;
    for (std::size_t j = 0; j < sets.size(); ++j) {
      if (!sets[j]) continue;
      set::for_each(sets[j], [&](const SetElem& e) {
        if (j == 0) {
          card += set::add(heap, result, e.text(buf), lim) ? 1 : 0;
        } else {
          card -= set::remove(heap, result, e.text(buf)) ? 1 : 0;
        }
      });
      if (card == 0) break;
    }
  } else if (sets[0]) {
    set::for_each(sets[0], [&](const SetElem& e) {
      for (std::size_t j = 1; j < sets.size(); ++j) {
        if (!sets[j]) continue;
        if (sets[j] == sets[0] || member_of(sets[j], e)) return;
      }
      set::add(heap, result, e.text(buf), lim);
    });
  }
  if (store) {
    store_result(ctx, dst, result);
    return;
  }
  reply_all(ctx, result);
  set::destroy(heap, result);
}

void cmd_sinter(Context& ctx) {
  sinter_generic(ctx, 1, ctx.argc() - 1, {}, false, false, 0);
}

void cmd_sinterstore(Context& ctx) {
  sinter_generic(ctx, 2, ctx.argc() - 2, ctx.args[1], true, false, 0);
}

void cmd_sintercard(Context& ctx) {
  const auto numkeys = parse_int64(ctx.args[1]);
  if (!numkeys || *numkeys < 1) {
    ctx.out.error("ERR numkeys should be greater than 0");
    return;
  }
  if (static_cast<std::uint64_t>(*numkeys) > ctx.argc() - 2) {
    ctx.out.error("ERR Number of keys can't be greater than number of args");
    return;
  }
  std::uint64_t limit = 0;
  for (std::size_t j = 2 + static_cast<std::size_t>(*numkeys); j < ctx.argc(); ++j) {
    const bool more = j + 1 < ctx.argc();
    if (iequals(ctx.args[j], "limit") && more) {
      ++j;
      const auto l = parse_int64(ctx.args[j]);
      if (!l || *l < 0) {
        ctx.out.error("ERR LIMIT can't be negative");
        return;
      }
      limit = static_cast<std::uint64_t>(*l);
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  sinter_generic(ctx, 2, static_cast<std::size_t>(*numkeys), {}, false, true, limit);
}

void cmd_sunion(Context& ctx) {
  sunion_diff(ctx, 1, ctx.argc() - 1, {}, false, Op::kUnion);
}
void cmd_sunionstore(Context& ctx) {
  sunion_diff(ctx, 2, ctx.argc() - 2, ctx.args[1], true, Op::kUnion);
}
void cmd_sdiff(Context& ctx) {
  sunion_diff(ctx, 1, ctx.argc() - 1, {}, false, Op::kDiff);
}
void cmd_sdiffstore(Context& ctx) {
  sunion_diff(ctx, 2, ctx.argc() - 2, ctx.args[1], true, Op::kDiff);
}

// ---- SSCAN -----------------------------------------------------------------------------------

void cmd_sscan(Context& ctx) {
  const auto cursor = parse_scan_cursor(ctx.args[2]);
  if (!cursor) {
    ctx.out.error("ERR invalid cursor");
    return;
  }
  const SetObject* s;
  if (!read_set(ctx, ctx.args[1], s)) return;
  if (!s) {
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
  static std::vector<SetElem> found;
  found.clear();
  std::uint64_t next = 0;
  if (s->enc == types::kSetHashtable) {
    next = *cursor;
    std::int64_t budget = count * 10;
    do {
      next = set::scan_step(s, next, [&](const SetElem& e) { found.push_back(e); });
    } while (next != 0 && budget-- > 0 && found.size() < static_cast<std::size_t>(count));
  } else {
    set::for_each(s, [&](const SetElem& e) { found.push_back(e); });
  }
  types::Listpack::IntBuf buf;
  if (use_pattern) {
    std::erase_if(found, [&](const SetElem& e) { return !glob_match(pattern, e.text(buf)); });
  }
  char cbuf[24];
  const int len = std::snprintf(cbuf, sizeof cbuf, "%llu", static_cast<unsigned long long>(next));
  ctx.out.array(2);
  ctx.out.bulk(std::string_view(cbuf, static_cast<std::size_t>(len)));
  ctx.out.array(found.size());
  for (const SetElem& e : found) reply_elem(ctx, e);
}

// ---------------------------------------------------------------------------------------
// The declaration table: each row its decl (<family>_decls.hpp, what Redis declares), its
// handler and Ruvio's own traits.

const CommandDef kSetCommands[] = {
    {&decl::sadd, cmd_sadd},
    {&decl::srem, cmd_srem},
    {&decl::scard, cmd_scard},
    {&decl::sismember, cmd_sismember},
    {&decl::smismember, cmd_smismember},
    {&decl::smembers, cmd_smembers},
    {&decl::srandmember, cmd_srandmember},
    {&decl::spop, cmd_spop},
    {&decl::smove, cmd_smove},
    {&decl::sinter, cmd_sinter},
    {&decl::sintercard, cmd_sintercard},
    {&decl::sinterstore, cmd_sinterstore},
    {&decl::sunion, cmd_sunion},
    {&decl::sunionstore, cmd_sunionstore},
    {&decl::sdiff, cmd_sdiff},
    {&decl::sdiffstore, cmd_sdiffstore},
    {&decl::sscan, cmd_sscan},
};

}  // namespace

std::span<const CommandDef> set_commands() {
  return kSetCommands;
}

}  // namespace ruvio::worker
