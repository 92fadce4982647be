// Sorted-set family, set operations: ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD,
// as Redis 7.0's zunionInterDiffGenericCommand (WEIGHTS, AGGREGATE, WITHSCORES, LIMIT).
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
// ZUNION / ZINTER / ZDIFF [STORE], ZINTERCARD (zunionInterDiffGenericCommand).

enum class SetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// A source of ZUNION/ZINTER/ZDIFF: a sorted set, or a plain set whose members all score 1
// (Redis's zuiInitIterator/zuiFind over OBJ_SET), or a missing key (empty).
struct Source {
  const ZSet* z = nullptr;
  const types::SetObject* set = nullptr;
  double weight = 1;
  std::size_t size() const {
    if (z != nullptr) return types::zset_size(z);
    return set == nullptr ? 0 : types::set::size(set);
  }
  bool same(const Source& o) const {
    return z != nullptr ? z == o.z : set != nullptr && set == o.set;
  }
  std::optional<double> score(std::string_view m) const {
    if (z != nullptr) return types::zset_score(z, m);
    if (set != nullptr && types::set::contains(set, m)) return 1.0;
    return std::nullopt;
  }
  // f(member, score) for every member; the member view lasts for the call.
  template <class F>
  void each(F&& f) const {
    if (z != nullptr) {
      Listpack::IntBuf ib;
      for (ZCursor c = types::zset_at(z, 0); c.valid(); c.next()) f(c.member(ib), c.score());
    } else if (set != nullptr) {
      types::set::for_each(set, [&](const types::SetElem& e) {
        Listpack::IntBuf ib;
        f(e.text(ib), 1.0);
      });
    }
  }
};

void aggregate(double& target, double val, Aggregate a) {
  if (a == Aggregate::kSum) {
    target = target + val;
    if (std::isnan(target)) target = 0.0;
  } else if (a == Aggregate::kMin) {
    target = val < target ? val : target;
  } else {
    target = val > target ? val : target;
  }
}

void zsetop_generic(Context& ctx, std::size_t numkeys_idx, bool store, SetOp op,
                    bool cardinality_only) {
  std::int64_t setnum = 0;
  if (!get_long(ctx, ctx.args[numkeys_idx], setnum)) return;
  if (setnum < 1) {
    std::string msg = "ERR at least 1 input key is needed for '";
    msg.append(ctx.command->name).append("' command");
    ctx.out.error(msg);
    return;
  }
  if (setnum > static_cast<std::int64_t>(ctx.argc() - (numkeys_idx + 1))) {
    ctx.out.error(err::kSyntax);
    return;
  }
  std::vector<Source> src(static_cast<std::size_t>(setnum));
  std::size_t j = numkeys_idx + 1;
  for (std::size_t i = 0; i < src.size(); ++i, ++j) {
    const Entry e = lookup(ctx, ctx.args[j], store ? Access::kWrite : Access::kRead);
    if (e && e.type() == Type::kZSet) {
      src[i].z = zset_of(e);
    } else if (e && e.type() == Type::kSet) {
      src[i].set = static_cast<const types::SetObject*>(e.object());
    } else if (e) {
      ctx.out.error(err::kWrongType);
      return;
    }
  }
  Aggregate agg = Aggregate::kSum;
  bool withscores = false;
  std::int64_t limit = 0;
  while (j < ctx.argc()) {
    const std::size_t remaining = ctx.argc() - j;
    std::string_view a = ctx.args[j];
    if (op != SetOp::kDiff && !cardinality_only && remaining >= src.size() + 1 &&
        iequals(a, "weights")) {
      ++j;
      for (std::size_t i = 0; i < src.size(); ++i, ++j) {
        auto w = parse_double(ctx.args[j]);
        if (!w) {
          ctx.out.error("ERR weight value is not a float");
          return;
        }
        src[i].weight = *w;
      }
    } else if (op != SetOp::kDiff && !cardinality_only && remaining >= 2 &&
               iequals(a, "aggregate")) {
      std::string_view v = ctx.args[j + 1];
      if (iequals(v, "sum")) {
        agg = Aggregate::kSum;
      } else if (iequals(v, "min")) {
        agg = Aggregate::kMin;
      } else if (iequals(v, "max")) {
        agg = Aggregate::kMax;
      } else {
        ctx.out.error(err::kSyntax);
        return;
      }
      j += 2;
    } else if (!store && !cardinality_only && iequals(a, "withscores")) {
      ++j;
      withscores = true;
    } else if (cardinality_only && remaining >= 2 && iequals(a, "limit")) {
      auto v = parse_int64(ctx.args[j + 1]);
      if (!v || *v < 0) {
        ctx.out.error("ERR LIMIT can't be negative");
        return;
      }
      limit = *v;
      j += 2;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  if (op != SetOp::kDiff) {
    std::stable_sort(src.begin(), src.end(),
                     [](const Source& a, const Source& b) { return a.size() < b.size(); });
  }

  // The result is built as a skiplist (Redis's dstzset), then stored or replied.
  store::Heap scratch;
  store::Heap& heap = store ? ctx.db().heap() : scratch;
  const types::ZSetLimits lim = limits(ctx);
  types::ZSetLimits big = lim;
  big.max_entries = 0;
  ZSet* dst = types::zset_create(heap, 1, 0, big);
  std::size_t maxelelen = 0, totelelen = 0;
  std::int64_t cardinality = 0;
  Listpack::IntBuf ib;
  auto put = [&](std::string_view m, double score) {
    unsigned out = 0;
    types::zset_add(heap, dst, score, m, 0, &out, nullptr, big);
    totelelen += m.size();
    maxelelen = std::max(maxelelen, m.size());
  };

  if (op == SetOp::kInter) {
    if (src[0].size() != 0) {
      bool done = false;
      src[0].each([&](std::string_view m, double own) {
        if (done) return;
        double score = src[0].weight * own;
        if (std::isnan(score)) score = 0;
        std::size_t k = 1;
        for (; k < src.size(); ++k) {
          double value;
          if (src[k].same(src[0])) {
            value = own * src[k].weight;
          } else if (auto s = src[k].score(m)) {
            value = *s * src[k].weight;
          } else {
            break;
          }
          aggregate(score, value, agg);
        }
        if (k != src.size()) return;
        if (cardinality_only) {
          ++cardinality;
          done = limit != 0 && cardinality == limit;
        } else {
          put(m, score);
        }
      });
    }
  } else if (op == SetOp::kUnion) {
    for (const Source& s : src) {
      if (s.size() == 0) continue;
      s.each([&](std::string_view m, double own) {
        double score = s.weight * own;
        if (std::isnan(score)) score = 0;
        auto* sl = static_cast<types::Skiplist*>(dst->ptr);
        if (types::ZNode* n = sl->find(m)) {
          double v = n->score;
          aggregate(v, score, agg);
          if (v == n->score) {
            n->score = v;  // the same place in the order, but 0 and -0 differ in print
          } else {
            sl->update_score(n, v);
          }
        } else {
          put(m, score);
        }
      });
    }
  } else if (src[0].size() != 0) {
    src[0].each([&](std::string_view m, double own) {
      bool found = false;
      for (std::size_t k = 1; k < src.size() && !found; ++k) found = src[k].score(m).has_value();
      if (!found) put(m, own);
    });
  }

  if (cardinality_only) {
    types::zset_destroy(heap, dst);
    ctx.out.integer(cardinality);
    return;
  }
  const std::size_t len = types::zset_size(dst);
  if (store) {
    std::string_view dstkey = ctx.args[1];
    if (len != 0) {
      types::zset_to_listpack_if_needed(heap, dst, maxelelen, totelelen, lim);
      ctx.db().set_object(dstkey, dst, store::SetOptions{});
      ctx.notify_declared(dstkey);
      ctx.out.integer(static_cast<std::int64_t>(len));
    } else {
      types::zset_destroy(heap, dst);
      if (ctx.db().erase_server(dstkey)) ctx.notify(kNotifyGeneric, "del", dstkey);
      ctx.out.integer(0);
    }
    return;
  }
  reply_header(ctx, len, withscores);
  for (ZCursor c = types::zset_at(dst, 0); c.valid(); c.next()) {
    emit(ctx, c.member(ib), c.score(), withscores);
  }
  types::zset_destroy(heap, dst);
}

}  // namespace

void zunion(Context& ctx) {
  zsetop_generic(ctx, 1, false, SetOp::kUnion, false);
}
void zinter(Context& ctx) {
  zsetop_generic(ctx, 1, false, SetOp::kInter, false);
}
void zdiff(Context& ctx) {
  zsetop_generic(ctx, 1, false, SetOp::kDiff, false);
}
void zunionstore(Context& ctx) {
  zsetop_generic(ctx, 2, true, SetOp::kUnion, false);
}
void zinterstore(Context& ctx) {
  zsetop_generic(ctx, 2, true, SetOp::kInter, false);
}
void zdiffstore(Context& ctx) {
  zsetop_generic(ctx, 2, true, SetOp::kDiff, false);
}
void zintercard(Context& ctx) {
  zsetop_generic(ctx, 1, false, SetOp::kInter, true);
}

}  // namespace ruvio::worker::zsets
