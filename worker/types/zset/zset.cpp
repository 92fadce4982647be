// Sorted-set semantics over the two encodings (zset.hpp draws the object and the listpack
// layout). Follows Redis 7.0's t_zset.c decisions: zsetAdd's NX/XX/GT/LT/INCR rules, the
// conversion points, and d2string for stored scores.
#include "worker/types/zset/zset.hpp"

#include <mimalloc.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace ruvio::types {

std::string_view score_text(double d, char* buf) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  // double2ll: an integral value within +-LLONG_MAX/2 prints as an integer (so -0 is "0").
  constexpr double kHalf = static_cast<double>(INT64_MAX / 2);
  if (d >= -kHalf && d <= kHalf) {
    const auto ll = static_cast<long long>(d);
    if (static_cast<double>(ll) == d) {
      auto r = std::to_chars(buf, buf + 32, ll);
      return {buf, static_cast<std::size_t>(r.ptr - buf)};
    }
  }
  auto r = std::to_chars(buf, buf + 32, d, std::chars_format::general, 17);
  return {buf, static_cast<std::size_t>(r.ptr - buf)};
}

std::string_view score_text_g17(double d, char* buf) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  auto r = std::to_chars(buf, buf + 32, d, std::chars_format::general, 17);
  return {buf, static_cast<std::size_t>(r.ptr - buf)};
}

namespace {

// Either form: a heap object's blob or the one folded in a record (value.hpp).
Listpack lp_of(const ZSet* z) {
  return Listpack(is_folded(z) ? folded_blob(z) : static_cast<std::uint8_t*>(z->ptr));
}
Skiplist* sl_of(const ZSet* z) {
  return static_cast<Skiplist*>(z->ptr);
}

double lp_score_at(const Listpack& lp, Listpack::Pos p) {
  Listpack::Entry e = lp.get(p);
  if (e.is_int) return static_cast<double>(e.i);
  char buf[128];
  std::string large;
  const char* s;
  if (e.str.size() < sizeof(buf)) {
    std::memcpy(buf, e.str.data(), e.str.size());
    buf[e.str.size()] = '\0';
    s = buf;
  } else {
    large.assign(e.str);
    s = large.c_str();
  }
  return std::strtod(s, nullptr);
}

// The member entry of `member`, kNone when absent.
Listpack::Pos lp_find(const Listpack& lp, std::string_view member) {
  Listpack::Pos p = lp.first();
  if (p == Listpack::kNone) return p;
  return lp.find(p, member, 1);
}

// zzlInsert: before the first element that sorts after (score, member).
void lp_insert(store::Heap& heap, ZSet* z, std::string_view member, double score) {
  Listpack lp = lp_of(z);
  char sbuf[32];
  std::string_view stext = score_text(score, sbuf);
  Listpack::IntBuf ib;
  for (Listpack::Pos p = lp.first(); p != Listpack::kNone;) {
    Listpack::Pos sp = lp.next(p);
    const double s = lp_score_at(lp, sp);
    if (s > score || (s == score && member_cmp(lp.get_str(p, ib), member) > 0)) {
      Listpack::Pos mp = lp.insert(heap, p, Listpack::Where::kBefore, member);
      lp.insert(heap, mp, Listpack::Where::kAfter, stext);
      z->ptr = lp.blob();
      return;
    }
    p = lp.next(sp);
  }
  lp.append(heap, member);
  lp.append(heap, stext);
  z->ptr = lp.blob();
}

void lp_delete_at(store::Heap& heap, ZSet* z, Listpack::Pos member_pos) {
  Listpack lp = lp_of(z);
  lp.erase(heap, member_pos, 2);
  z->ptr = lp.blob();
}

ZSet* make_obj(store::Heap& heap, ZEnc enc, void* ptr) {
  auto* z = static_cast<ZSet*>(heap.alloc(sizeof(ZSet)));
  z->type_id = kTypeZSet;
  z->enc = enc;
  std::memset(z->pad, 0, sizeof(z->pad));
  z->ptr = ptr;
  return z;
}

Skiplist* new_skiplist(store::Heap& heap) {
  void* mem = heap.alloc(sizeof(Skiplist));
  return new (mem) Skiplist(&heap);
}

void free_skiplist(store::Heap& heap, Skiplist* sl) {
  sl->destroy(heap);
  sl->~Skiplist();
  heap.release(sl);
}

}  // namespace

// ---- cursor -----------------------------------------------------------------------------------

std::string_view ZCursor::member(Listpack::IntBuf& buf) const {
  if (node_ != nullptr) return node_->member();
  return lp_of(z_).get_str(pos_, buf);
}

double ZCursor::score() const {
  if (node_ != nullptr) return node_->score;
  Listpack lp = lp_of(z_);
  return lp_score_at(lp, lp.next(pos_));
}

void ZCursor::next() {
  if (node_ != nullptr) {
    node_ = node_->next();
    return;
  }
  Listpack lp = lp_of(z_);
  Listpack::Pos sp = lp.next(pos_);
  pos_ = sp == Listpack::kNone ? Listpack::kNone : lp.next(sp);
}

void ZCursor::prev() {
  if (node_ != nullptr) {
    node_ = node_->backward;
    return;
  }
  Listpack lp = lp_of(z_);
  Listpack::Pos sp = lp.prev(pos_);
  pos_ = sp == Listpack::kNone ? Listpack::kNone : lp.prev(sp);
}

// ---- lifetime -------------------------------------------------------------------------------

ZSet* zset_create(store::Heap& heap, std::size_t size_hint, std::size_t len_hint,
                  const ZSetLimits& lim) {
  if (size_hint <= lim.max_entries && len_hint <= lim.max_value) {
    return make_obj(heap, kZListpack, Listpack::create(heap).blob());
  }
  return make_obj(heap, kZSkiplist, new_skiplist(heap));
}

void zset_destroy(store::Heap& heap, ZSet* z) {
  if (z->enc == kZListpack) {
    Listpack lp = lp_of(z);
    lp.destroy(heap);
  } else {
    free_skiplist(heap, sl_of(z));
  }
  heap.release(z);
}

ZSet* zset_copy(store::Heap& heap, const ZSet* z) {
  if (z->enc == kZListpack) return make_obj(heap, kZListpack, lp_of(z).clone(heap).blob());
  Skiplist* sl = new_skiplist(heap);
  for (ZNode* n = sl_of(z)->first(); n != nullptr; n = n->next()) {
    sl->insert(heap, n->score, n->member());
  }
  return make_obj(heap, kZSkiplist, sl);
}

std::size_t zset_memory(const ZSet* z) {
  std::size_t n = mi_usable_size(z);
  if (z->enc == kZListpack) return n + lp_of(z).alloc_size();
  return n + mi_usable_size(z->ptr) + sl_of(z)->memory_usage();
}

std::size_t zset_size(const ZSet* z) {
  if (z->enc == kZListpack) return lp_of(z).count() / 2;
  return sl_of(z)->size();
}

std::optional<double> zset_score(const ZSet* z, std::string_view member) {
  if (z->enc == kZListpack) {
    Listpack lp = lp_of(z);
    Listpack::Pos p = lp_find(lp, member);
    if (p == Listpack::kNone) return std::nullopt;
    return lp_score_at(lp, lp.next(p));
  }
  ZNode* n = sl_of(z)->find(member);
  if (n == nullptr) return std::nullopt;
  return n->score;
}

// ---- conversions ------------------------------------------------------------------------------

void zset_to_skiplist(store::Heap& heap, ZSet* z) {
  if (z->enc != kZListpack) return;
  Listpack lp = lp_of(z);
  Skiplist* sl = new_skiplist(heap);
  Listpack::IntBuf ib;
  for (Listpack::Pos p = lp.first(); p != Listpack::kNone;) {
    Listpack::Pos sp = lp.next(p);
    sl->insert(heap, lp_score_at(lp, sp), lp.get_str(p, ib));
    p = lp.next(sp);
  }
  lp.destroy(heap);
  z->ptr = sl;
  z->enc = kZSkiplist;
}

void zset_maybe_convert(store::Heap& heap, ZSet* z, std::size_t size_hint, const ZSetLimits& lim) {
  if (z->enc == kZListpack && size_hint > lim.max_entries) zset_to_skiplist(heap, z);
}

void zset_to_listpack_if_needed(store::Heap& heap, ZSet* z, std::size_t maxelelen,
                                std::size_t totelelen, const ZSetLimits& lim) {
  if (z->enc != kZSkiplist) return;
  Skiplist* sl = sl_of(z);
  if (sl->size() > lim.max_entries || maxelelen > lim.max_value ||
      totelelen > Listpack::kSafeBytes) {
    return;
  }
  Listpack lp = Listpack::create(heap);
  char sbuf[32];
  for (ZNode* n = sl->first(); n != nullptr; n = n->next()) {
    lp.append(heap, n->member());
    lp.append(heap, score_text(n->score, sbuf));
  }
  free_skiplist(heap, sl);
  z->ptr = lp.blob();
  z->enc = kZListpack;
}

// ---- writes -----------------------------------------------------------------------------------

bool zset_add(store::Heap& heap, ZSet* z, double score, std::string_view member, unsigned in,
              unsigned* out, double* newscore, const ZSetLimits& lim) {
  const bool incr = in & kZIncr, nx = in & kZNx, xx = in & kZXx, gt = in & kZGt, lt = in & kZLt;
  *out = 0;
  if (std::isnan(score)) {
    *out = kZNan;
    return false;
  }
  // The existing score, wherever it is.
  auto update = [&](double cur, auto&& apply) -> bool {
    if (nx) {
      *out |= kZNop;
      return true;
    }
    if (incr) {
      score += cur;
      if (std::isnan(score)) {
        *out |= kZNan;
        return false;
      }
    }
    if ((lt && score >= cur) || (gt && score <= cur)) {
      *out |= kZNop;
      return true;
    }
    if (newscore != nullptr) *newscore = score;
    if (score != cur) {
      apply();
      *out |= kZUpdated;
    }
    return true;
  };

  if (z->enc == kZListpack) {
    Listpack lp = lp_of(z);
    Listpack::Pos p = lp_find(lp, member);
    if (p != Listpack::kNone) {
      return update(lp_score_at(lp, lp.next(p)), [&] {
        lp_delete_at(heap, z, p);
        lp_insert(heap, z, member, score);
      });
    }
    if (xx) {
      *out |= kZNop;
      return true;
    }
    if (zset_size(z) + 1 > lim.max_entries || member.size() > lim.max_value ||
        !lp.safe_to_add(member.size())) {
      zset_to_skiplist(heap, z);
    } else {
      lp_insert(heap, z, member, score);
      if (newscore != nullptr) *newscore = score;
      *out |= kZAdded;
      return true;
    }
  }
  Skiplist* sl = sl_of(z);
  if (ZNode* n = sl->find(member)) {
    return update(n->score, [&] { sl->update_score(n, score); });
  }
  if (xx) {
    *out |= kZNop;
    return true;
  }
  sl->insert(heap, score, member);
  if (newscore != nullptr) *newscore = score;
  *out |= kZAdded;
  return true;
}

bool zset_remove(store::Heap& heap, ZSet* z, std::string_view member) {
  if (z->enc == kZListpack) {
    Listpack::Pos p = lp_find(lp_of(z), member);
    if (p == Listpack::kNone) return false;
    lp_delete_at(heap, z, p);
    return true;
  }
  return sl_of(z)->erase(heap, member);
}

// ---- reads ------------------------------------------------------------------------------------

std::optional<std::size_t> zset_rank(const ZSet* z, std::string_view member, bool reverse) {
  const std::size_t len = zset_size(z);
  std::size_t rank;  // 0-based ascending
  if (z->enc == kZListpack) {
    Listpack lp = lp_of(z);
    Listpack::IntBuf ib;
    std::size_t i = 0;
    Listpack::Pos p = lp.first();
    for (; p != Listpack::kNone; p = lp.next(lp.next(p)), ++i) {
      if (lp.get_str(p, ib) == member) break;
    }
    if (p == Listpack::kNone) return std::nullopt;
    rank = i;
  } else {
    Skiplist* sl = sl_of(z);
    ZNode* n = sl->find(member);
    if (n == nullptr) return std::nullopt;
    rank = sl->rank_of(n) - 1;
  }
  return reverse ? len - 1 - rank : rank;
}

ZCursor zset_at(const ZSet* z, std::size_t rank) {
  if (z->enc == kZListpack) return {z, lp_of(z).seek(static_cast<std::int64_t>(rank) * 2)};
  return {z, sl_of(z)->at_rank(rank + 1)};
}

namespace {

template <class Range, class Pred>
ZCursor lp_first(const ZSet* z, const Range&, Pred&& in) {
  Listpack lp = lp_of(z);
  for (ZCursor c(z, lp.first()); c.valid(); c.next()) {
    int v = in(c);
    if (v == 0) return c;
    if (v > 0) break;
  }
  return {};
}

}  // namespace

ZCursor zset_first_in(const ZSet* z, const ScoreRange& r) {
  if (z->enc == kZSkiplist) return {z, sl_of(z)->first_in(r)};
  if (r.empty()) return {};
  return lp_first(z, r, [&](const ZCursor& c) {
    const double s = c.score();
    if (!r.contains_min_side(s)) return -1;
    return r.contains_max_side(s) ? 0 : 1;
  });
}

ZCursor zset_last_in(const ZSet* z, const ScoreRange& r) {
  if (z->enc == kZSkiplist) return {z, sl_of(z)->last_in(r)};
  if (r.empty()) return {};
  Listpack lp = lp_of(z);
  Listpack::Pos last = lp.last();
  if (last == Listpack::kNone) return {};
  for (ZCursor c(z, lp.prev(last)); c.valid(); c.prev()) {
    const double s = c.score();
    if (!r.contains_max_side(s)) continue;
    if (r.contains_min_side(s)) return c;
    break;
  }
  return {};
}

ZCursor zset_first_in(const ZSet* z, const LexRange& r) {
  if (z->enc == kZSkiplist) return {z, sl_of(z)->first_in(r)};
  if (r.empty()) return {};
  Listpack::IntBuf ib;
  return lp_first(z, r, [&](const ZCursor& c) {
    std::string_view m = c.member(ib);
    if (!r.gte_min(m)) return -1;
    return r.lte_max(m) ? 0 : 1;
  });
}

ZCursor zset_last_in(const ZSet* z, const LexRange& r) {
  if (z->enc == kZSkiplist) return {z, sl_of(z)->last_in(r)};
  if (r.empty()) return {};
  Listpack lp = lp_of(z);
  Listpack::Pos last = lp.last();
  if (last == Listpack::kNone) return {};
  Listpack::IntBuf ib;
  for (ZCursor c(z, lp.prev(last)); c.valid(); c.prev()) {
    std::string_view m = c.member(ib);
    if (!r.lte_max(m)) continue;
    if (r.gte_min(m)) return c;
    break;
  }
  return {};
}

// ---- range deletes ----------------------------------------------------------------------------

std::size_t zset_delete_ranks(store::Heap& heap, ZSet* z, std::size_t start, std::size_t end) {
  const std::size_t n = end - start + 1;
  if (z->enc == kZListpack) {
    Listpack lp = lp_of(z);
    lp.erase_range(heap, static_cast<std::int64_t>(start) * 2, n * 2);
    z->ptr = lp.blob();
    return n;
  }
  Skiplist* sl = sl_of(z);
  ZNode* x = sl->at_rank(start + 1);
  for (std::size_t i = 0; i < n && x != nullptr; ++i) {
    ZNode* next = x->next();
    sl->erase_node(heap, x);
    x = next;
  }
  return n;
}

namespace {

template <class Range, class InMax>
std::size_t delete_from(store::Heap& heap, ZSet* z, ZCursor c, InMax&& in_max) {
  std::size_t deleted = 0;
  if (z->enc == kZListpack) {
    Listpack::Pos p = c.pos();
    Listpack::IntBuf ib;
    while (p != Listpack::kNone) {
      ZCursor cur(z, p);
      if (!in_max(cur, ib)) break;
      Listpack lp = lp_of(z);
      p = lp.erase(heap, p, 2);
      z->ptr = lp.blob();
      ++deleted;
    }
    return deleted;
  }
  Skiplist* sl = sl_of(z);
  Listpack::IntBuf ib;
  for (ZNode* x = c.node(); x != nullptr;) {
    ZCursor cur(z, x);
    if (!in_max(cur, ib)) break;
    ZNode* next = x->next();
    sl->erase_node(heap, x);
    x = next;
    ++deleted;
  }
  return deleted;
}

}  // namespace

std::size_t zset_delete_range(store::Heap& heap, ZSet* z, const ScoreRange& r) {
  ZCursor c = zset_first_in(z, r);
  if (!c.valid()) return 0;
  return delete_from<ScoreRange>(heap, z, c, [&](const ZCursor& cur, Listpack::IntBuf&) {
    return r.contains_max_side(cur.score());
  });
}

std::size_t zset_delete_range(store::Heap& heap, ZSet* z, const LexRange& r) {
  ZCursor c = zset_first_in(z, r);
  if (!c.valid()) return 0;
  return delete_from<LexRange>(heap, z, c, [&](const ZCursor& cur, Listpack::IntBuf& ib) {
    return r.lte_max(cur.member(ib));
  });
}

// ---- the value-object table -------------------------------------------------------------------
//
// Snapshot bytes: listpack -> the blob as it is; skiplist -> in order, per element
// [f64 score LE][u32 member length LE][member bytes].

namespace {

void save(const Object* o, std::string& out) {
  const auto* z = static_cast<const ZSet*>(o);
  if (z->enc == kZListpack) {
    auto sp = lp_of(z).span();
    out.append(reinterpret_cast<const char*>(sp.data()), sp.size());
    return;
  }
  for (ZNode* n = sl_of(z)->first(); n != nullptr; n = n->next()) {
    char hdr[12];
    std::memcpy(hdr, &n->score, 8);
    const std::uint32_t len = n->mlen;
    std::memcpy(hdr + 8, &len, 4);
    out.append(hdr, sizeof(hdr));
    out.append(n->member());
  }
}

Object* load(store::Heap& heap, std::uint8_t enc, std::string_view in) {
  if (enc == kZListpack) {
    auto lp = Listpack::load(heap, {reinterpret_cast<const std::uint8_t*>(in.data()), in.size()});
    if (!lp) return nullptr;
    if (lp->count() % 2 != 0) {
      lp->destroy(heap);
      return nullptr;
    }
    return make_obj(heap, kZListpack, lp->blob());
  }
  if (enc != kZSkiplist) return nullptr;
  ZSet* z = make_obj(heap, kZSkiplist, new_skiplist(heap));
  Skiplist* sl = sl_of(z);
  while (!in.empty()) {
    double score;
    std::uint32_t len;
    if (in.size() < 12) break;
    std::memcpy(&score, in.data(), 8);
    std::memcpy(&len, in.data() + 8, 4);
    if (in.size() - 12 < len) break;
    std::string_view m = in.substr(12, len);
    if (sl->find(m) != nullptr || std::isnan(score)) break;
    sl->insert(heap, score, m);
    in.remove_prefix(12 + len);
  }
  if (!in.empty()) {
    zset_destroy(heap, z);
    return nullptr;
  }
  return z;
}

}  // namespace

const ValueOps kZSetOps = {
    "zset",
    types::Type::kZSet,
    [](store::Heap& heap, Object* o) { zset_destroy(heap, static_cast<ZSet*>(o)); },
    [](store::Heap& heap, const Object* o) -> Object* {
      return zset_copy(heap, static_cast<const ZSet*>(o));
    },
    [](const Object* o) { return zset_memory(static_cast<const ZSet*>(o)); },
    [](const Object* o) -> std::string_view {
      return o->enc == kZListpack ? "listpack" : "skiplist";
    },
    [](const Object* o) -> std::size_t {
      const auto* z = static_cast<const ZSet*>(o);
      return z->enc == kZListpack ? 1 : zset_size(z);
    },
    save,
    load,
    // release_some: the skiplist node by node from its head, then the objects.
    [](store::Heap& heap, Object* o, std::size_t budget, bool* done) -> std::size_t {
      auto* z = static_cast<ZSet*>(o);
      std::size_t spent = 0;
      if (z->enc == kZSkiplist) {
        spent = sl_of(z)->release_some(heap, budget);
        if (zset_size(z) != 0) {
          *done = false;
          return spent;
        }
      }
      zset_destroy(heap, z);
      *done = true;
      return spent + 1;
    },
    // compact_blob: the listpack, folded into the record while small.
    [](const Object* o) -> std::string_view {
      const auto* z = static_cast<const ZSet*>(o);
      if (z->enc != kZListpack) return {};
      const auto sp = lp_of(z).span();
      return {reinterpret_cast<const char*>(sp.data()), sp.size()};
    },
};

}  // namespace ruvio::types
