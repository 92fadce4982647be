// The skiplist with spans and its member index (the byte picture is in skiplist.hpp). The
// algorithms follow Redis's zsl* functions (Pugh's skiplist with a rank per forward link).
#include "worker/containers/skiplist.hpp"

#include <mimalloc.h>

#include <cstring>
#include <new>

#include "worker/containers/hashtable_impl.hpp"

namespace ruvio::store {
template class HashTable<types::ZNodeTraits>;
}

namespace ruvio::types {

int member_cmp(std::string_view a, std::string_view b) {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

namespace {

// sdscmplex: "-" is below everything, "+" above everything.
int lex_cmp(const LexBound& a, const LexBound& b) {
  if (a.kind == b.kind && a.kind != LexBound::kValue) return 0;
  if (a.kind == LexBound::kMinusInf || b.kind == LexBound::kPlusInf) return -1;
  if (a.kind == LexBound::kPlusInf || b.kind == LexBound::kMinusInf) return 1;
  return member_cmp(a.value, b.value);
}

// Orders (score, member) as the list does: <0 when (s1, m1) comes first.
int node_cmp(double s1, std::string_view m1, double s2, std::string_view m2) {
  if (s1 < s2) return -1;
  if (s1 > s2) return 1;
  return member_cmp(m1, m2);
}

}  // namespace

bool LexRange::empty() const {
  const int c = lex_cmp(min, max);
  return c > 0 || (c == 0 && (min.ex || max.ex));
}
bool LexRange::gte_min(std::string_view v) const {
  const int c = lex_cmp(LexBound{LexBound::kValue, v, false}, min);
  return min.ex ? c > 0 : c >= 0;
}
bool LexRange::lte_max(std::string_view v) const {
  const int c = lex_cmp(LexBound{LexBound::kValue, v, false}, max);
  return max.ex ? c < 0 : c <= 0;
}

Skiplist::Skiplist(store::Heap* heap) : index_(heap) {
  header_ = make_node(*heap, kMaxLevel, 0, {});
  for (int i = 0; i < kMaxLevel; ++i) header_->lv()[i] = {nullptr, 0};
  header_->backward = nullptr;
}

ZNode* Skiplist::make_node(store::Heap& heap, int level, double score, std::string_view member) {
  const std::size_t bytes = sizeof(ZNode) + level * sizeof(ZNode::Level) + member.size();
  auto* n = static_cast<ZNode*>(heap.alloc(bytes));
  n->score = score;
  n->backward = nullptr;
  n->mlen = static_cast<std::uint32_t>(member.size());
  n->level = static_cast<std::uint8_t>(level);
  if (!member.empty()) {
    std::memcpy(reinterpret_cast<char*>(n->lv() + level), member.data(), member.size());
  }
  return n;
}

void Skiplist::destroy(store::Heap& heap) {
  index_.set_heap(&heap);
  ZNode* n = header_->lv()[0].forward;
  while (n != nullptr) {
    ZNode* next = n->next();
    heap.release(n);
    n = next;
  }
  heap.release(header_);
  header_ = nullptr;
  index_.clear();
}

std::size_t Skiplist::release_some(store::Heap& heap, std::size_t budget) {
  if (index_.bucket_count() != 0) {
    index_.set_heap(&heap);
    index_.clear();  // two blocks, whatever the size
    for (int i = 1; i < level_; ++i) header_->lv()[i] = {nullptr, 0};
    level_ = 1;
  }
  std::size_t freed = 0;
  ZNode* n = header_->lv()[0].forward;
  while (n != nullptr && freed < budget) {
    ZNode* next = n->next();
    heap.release(n);
    n = next;
    ++freed;
  }
  header_->lv()[0] = {n, n != nullptr ? 1u : 0u};
  if (n != nullptr) n->backward = nullptr;
  if (n == nullptr) tail_ = nullptr;
  length_ -= freed;
  return freed;
}

int Skiplist::random_level() {
  // xorshift64*: the level only has to be geometric, not unpredictable.
  static std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  int level = 1;
  for (;;) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    const std::uint64_t r = state * 0x2545F4914F6CDD1DULL;
    // 16 draws of 2 bits per step: a level gains 1 when its 2 bits are 0 (p = 1/4).
    for (int i = 0; i < 32; i += 2) {
      if (((r >> i) & 3) != 0 || level >= kMaxLevel) return level;
      ++level;
    }
  }
}

ZNode* Skiplist::find(std::string_view member) const {
  auto ref = index_.find(member, index_.hash(member));
  return ref ? ref.get() : nullptr;
}

void Skiplist::locate(double score, std::string_view member, ZNode** update,
                      std::size_t* rank) const {
  ZNode* x = header_;
  for (int i = level_ - 1; i >= 0; --i) {
    rank[i] = i == level_ - 1 ? 0 : rank[i + 1];
    while (x->lv()[i].forward != nullptr &&
           node_cmp(x->lv()[i].forward->score, x->lv()[i].forward->member(), score, member) < 0) {
      rank[i] += x->lv()[i].span;
      x = x->lv()[i].forward;
    }
    update[i] = x;
  }
}

void Skiplist::link(ZNode* n, ZNode** update, std::size_t* rank) {
  const int level = n->level;
  if (level > level_) {
    for (int i = level_; i < level; ++i) {
      rank[i] = 0;
      update[i] = header_;
      update[i]->lv()[i].span = length_;
    }
    level_ = level;
  }
  for (int i = 0; i < level; ++i) {
    n->lv()[i].forward = update[i]->lv()[i].forward;
    update[i]->lv()[i].forward = n;
    n->lv()[i].span = update[i]->lv()[i].span - (rank[0] - rank[i]);
    update[i]->lv()[i].span = (rank[0] - rank[i]) + 1;
  }
  for (int i = level; i < level_; ++i) ++update[i]->lv()[i].span;
  n->backward = update[0] == header_ ? nullptr : update[0];
  if (n->lv()[0].forward != nullptr) {
    n->lv()[0].forward->backward = n;
  } else {
    tail_ = n;
  }
  ++length_;
}

ZNode* Skiplist::insert(store::Heap& heap, double score, std::string_view member) {
  index_.set_heap(&heap);
  ZNode* update[kMaxLevel];
  std::size_t rank[kMaxLevel];
  locate(score, member, update, rank);
  ZNode* n = make_node(heap, random_level(), score, member);
  link(n, update, rank);
  index_.insert(n, index_.hash(n->member()));
  return n;
}

ZNode* Skiplist::insert_unique(store::Heap& heap, double score, std::string_view member) {
  index_.set_heap(&heap);
  const std::uint64_t h = index_.hash(member);
  if (index_.find(member, h)) return nullptr;
  ZNode* update[kMaxLevel];
  std::size_t rank[kMaxLevel];
  locate(score, member, update, rank);
  ZNode* n = make_node(heap, random_level(), score, member);
  link(n, update, rank);
  index_.insert(n, h);
  return n;
}

void Skiplist::unlink(ZNode* x, ZNode** update) {
  for (int i = 0; i < level_; ++i) {
    if (update[i]->lv()[i].forward == x) {
      update[i]->lv()[i].span += x->lv()[i].span - 1;
      update[i]->lv()[i].forward = x->lv()[i].forward;
    } else {
      update[i]->lv()[i].span -= 1;
    }
  }
  if (x->lv()[0].forward != nullptr) {
    x->lv()[0].forward->backward = x->backward;
  } else {
    tail_ = x->backward;
  }
  while (level_ > 1 && header_->lv()[level_ - 1].forward == nullptr) --level_;
  --length_;
}

void Skiplist::update_score(ZNode* n, double score) {
  // In place when the node stays between its neighbours (Redis's zslUpdateScore shortcut).
  const ZNode* prev = n->backward;
  const ZNode* next = n->next();
  if ((prev == nullptr || node_cmp(prev->score, prev->member(), score, n->member()) < 0) &&
      (next == nullptr || node_cmp(next->score, next->member(), score, n->member()) > 0)) {
    n->score = score;
    return;
  }
  ZNode* update[kMaxLevel];
  std::size_t rank[kMaxLevel];
  locate(n->score, n->member(), update, rank);
  unlink(n, update);
  n->score = score;
  locate(score, n->member(), update, rank);
  link(n, update, rank);
}

void Skiplist::erase_node(store::Heap& heap, ZNode* n) {
  index_.set_heap(&heap);
  ZNode* update[kMaxLevel];
  std::size_t rank[kMaxLevel];
  locate(n->score, n->member(), update, rank);
  unlink(n, update);
  index_.erase(n->member(), index_.hash(n->member()));
  heap.release(n);
}

bool Skiplist::erase(store::Heap& heap, std::string_view member) {
  ZNode* n = find(member);
  if (n == nullptr) return false;
  erase_node(heap, n);
  return true;
}

std::size_t Skiplist::rank_of(const ZNode* n) const {
  // ZRANK's walk: the node itself is known, so reaching it is a pointer test (no member
  // compare of the node with itself); members are compared only between equal scores.
  std::size_t rank = 0;
  const ZNode* x = header_;
  const double score = n->score;
  for (int i = level_ - 1; i >= 0; --i) {
    for (;;) {
      const ZNode* f = x->lv()[i].forward;
      if (f == nullptr) break;
      if (f == n) return rank + x->lv()[i].span;
      if (f->score > score || (f->score == score && member_cmp(f->member(), n->member()) > 0))
        break;
      rank += x->lv()[i].span;
      x = f;
    }
  }
  return 0;
}

ZNode* Skiplist::at_rank(std::size_t rank) const {
  if (rank == 0 || rank > length_) return nullptr;
  std::size_t traversed = 0;
  ZNode* x = header_;
  for (int i = level_ - 1; i >= 0; --i) {
    while (x->lv()[i].forward != nullptr && traversed + x->lv()[i].span <= rank) {
      traversed += x->lv()[i].span;
      x = x->lv()[i].forward;
    }
    if (traversed == rank) return x;
  }
  return nullptr;
}

ZNode* Skiplist::first_in(const ScoreRange& r) const {
  if (r.empty() || tail_ == nullptr || !r.contains_min_side(tail_->score)) return nullptr;
  ZNode* x = header_;
  for (int i = level_ - 1; i >= 0; --i) {
    while (x->lv()[i].forward != nullptr && !r.contains_min_side(x->lv()[i].forward->score)) {
      x = x->lv()[i].forward;
    }
  }
  x = x->next();
  return x != nullptr && r.contains_max_side(x->score) ? x : nullptr;
}

ZNode* Skiplist::last_in(const ScoreRange& r) const {
  ZNode* f = first();
  if (r.empty() || f == nullptr || !r.contains_max_side(f->score)) return nullptr;
  ZNode* x = header_;
  for (int i = level_ - 1; i >= 0; --i) {
    while (x->lv()[i].forward != nullptr && r.contains_max_side(x->lv()[i].forward->score)) {
      x = x->lv()[i].forward;
    }
  }
  return x != header_ && r.contains_min_side(x->score) ? x : nullptr;
}

ZNode* Skiplist::first_in(const LexRange& r) const {
  if (r.empty() || tail_ == nullptr || !r.gte_min(tail_->member())) return nullptr;
  ZNode* x = header_;
  for (int i = level_ - 1; i >= 0; --i) {
    while (x->lv()[i].forward != nullptr && !r.gte_min(x->lv()[i].forward->member())) {
      x = x->lv()[i].forward;
    }
  }
  x = x->next();
  return x != nullptr && r.lte_max(x->member()) ? x : nullptr;
}

ZNode* Skiplist::last_in(const LexRange& r) const {
  ZNode* f = first();
  if (r.empty() || f == nullptr || !r.lte_max(f->member())) return nullptr;
  ZNode* x = header_;
  for (int i = level_ - 1; i >= 0; --i) {
    while (x->lv()[i].forward != nullptr && r.lte_max(x->lv()[i].forward->member())) {
      x = x->lv()[i].forward;
    }
  }
  return x != header_ && r.gte_min(x->member()) ? x : nullptr;
}

std::size_t Skiplist::memory_usage() const {
  std::size_t n = mi_usable_size(header_) + index_.alloc_bytes();
  for (const ZNode* x = first(); x != nullptr; x = x->next()) n += mi_usable_size(x);
  return n;
}

}  // namespace ruvio::types
