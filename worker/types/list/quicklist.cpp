#include "worker/types/list/quicklist.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>

namespace ruvio::types {
namespace {

// quicklist.c's optimization_level: the blob limit of fill -1..-5.
constexpr std::array<std::size_t, 5> kSizeLimits = {4096, 8192, 16384, 32768, 65536};
// quicklist.c's SIZE_SAFETY_LIMIT: a count-limited node still stays under this many bytes.
constexpr std::size_t kSafetyLimit = 8192;
// SIZE_ESTIMATE_OVERHEAD: an entry's encoding and backlen bytes, over-estimated.
constexpr std::size_t kEntryOverhead = 8;

}  // namespace

ListObject* Quicklist::create(store::Heap& heap) {
  auto* o = static_cast<ListObject*>(heap.alloc(sizeof(ListObject)));
  std::memset(o, 0, sizeof(ListObject));
  o->type_id = kTypeList;
  o->enc = ListObject::kSmall;
  return o;
}

void Quicklist::destroy(store::Heap& heap, ListObject* o) {
  ListNode* nodes = node_array(o);
  for (std::uint32_t i = 0; i < o->nnodes; ++i) heap.release(nodes[i].lp);
  if (o->enc == ListObject::kChain) heap.release(o->chain.nodes);
  heap.release(o);
}

std::size_t Quicklist::release_some(store::Heap& heap, ListObject* o, std::size_t budget,
                                    bool* done) {
  ListNode* nodes = node_array(o);
  std::size_t spent = 0;
  while (o->nnodes > 0 && spent < budget) {
    ListNode& n = nodes[--o->nnodes];
    o->count -= n.count;
    heap.release(n.lp);
    n = ListNode{};
    ++spent;
  }
  *done = o->nnodes == 0;
  if (*done) {
    destroy(heap, o);
    ++spent;
  }
  return spent;
}

ListObject* Quicklist::clone(store::Heap& heap, const ListObject* src) {
  auto* o = static_cast<ListObject*>(heap.alloc(sizeof(ListObject)));
  std::memcpy(o, src, sizeof(ListObject));
  const ListNode* from = node_array(src);
  if (src->enc == ListObject::kChain) {
    o->chain.cap = std::max<std::uint32_t>(src->nnodes, 1);
    o->chain.nodes = static_cast<ListNode*>(heap.alloc(sizeof(ListNode) * o->chain.cap));
  }
  ListNode* to = node_array(o);
  for (std::uint32_t i = 0; i < src->nnodes; ++i) {
    to[i] = from[i];
    to[i].lp = Listpack(from[i].lp).clone(heap).blob();
  }
  return o;
}

std::size_t Quicklist::memory_usage(const ListObject* o) {
  std::size_t n = mi_usable_size(o);
  if (o->enc == ListObject::kChain) n += mi_usable_size(o->chain.nodes);
  const ListNode* nodes = node_array(o);
  for (std::uint32_t i = 0; i < o->nnodes; ++i) n += mi_usable_size(nodes[i].lp);
  return n;
}

bool Quicklist::exceeds(std::size_t bytes, std::size_t count) const {
  if (fill_ < 0) {
    const std::size_t level = std::min<std::size_t>(static_cast<std::size_t>(-fill_), 5);
    return bytes > kSizeLimits[level - 1];
  }
  return count > static_cast<std::size_t>(std::max(fill_, 1)) || bytes > kSafetyLimit;
}

bool Quicklist::allow_insert(const ListNode& n, std::size_t len) const {
  if (n.count == 0) return true;
  const std::size_t bytes = Listpack(n.lp).bytes() + len + kEntryOverhead;
  return !exceeds(bytes, n.count + 1);
}

ListNode& Quicklist::insert_node(std::uint32_t at) {
  assert(at <= o_->nnodes);
  const Listpack fresh = Listpack::create(*heap_);
  if (o_->enc == ListObject::kSmall && o_->nnodes == 0) {
    o_->one = {fresh.blob(), 0, 0};
    o_->nnodes = 1;
    return o_->one;
  }
  if (o_->enc == ListObject::kSmall) {
    const ListNode only = o_->one;
    auto* arr = static_cast<ListNode*>(heap_->alloc(sizeof(ListNode) * 4));
    arr[0] = only;
    o_->enc = ListObject::kChain;
    o_->chain.nodes = arr;
    o_->chain.cap = static_cast<std::uint32_t>(mi_usable_size(arr) / sizeof(ListNode));
  } else if (o_->nnodes == o_->chain.cap) {
    const std::size_t cap = static_cast<std::size_t>(o_->chain.cap) * 2;
    auto* arr = static_cast<ListNode*>(heap_->alloc(sizeof(ListNode) * cap));
    std::memcpy(arr, o_->chain.nodes, sizeof(ListNode) * o_->nnodes);
    heap_->release(o_->chain.nodes);
    o_->chain.nodes = arr;
    o_->chain.cap = static_cast<std::uint32_t>(mi_usable_size(arr) / sizeof(ListNode));
  }
  ListNode* nodes = o_->chain.nodes;
  std::memmove(nodes + at + 1, nodes + at, sizeof(ListNode) * (o_->nnodes - at));
  nodes[at] = {fresh.blob(), 0, 0};
  ++o_->nnodes;
  return nodes[at];
}

void Quicklist::remove_node(std::uint32_t at) {
  ListNode* nodes = node_array();
  heap_->release(nodes[at].lp);
  std::memmove(nodes + at, nodes + at + 1, sizeof(ListNode) * (o_->nnodes - at - 1));
  --o_->nnodes;
  if (o_->enc == ListObject::kChain && o_->nnodes <= 1) {
    // Back to the inline form: the node array's block is freed.
    ListNode* arr = o_->chain.nodes;
    const ListNode only = o_->nnodes == 1 ? arr[0] : ListNode{nullptr, 0, 0};
    heap_->release(arr);
    o_->enc = ListObject::kSmall;
    o_->one = only;
  } else if (o_->enc == ListObject::kChain && o_->nnodes * 4 < o_->chain.cap && o_->chain.cap > 8) {
    const std::size_t cap = o_->chain.cap / 2;
    auto* arr = static_cast<ListNode*>(heap_->alloc(sizeof(ListNode) * cap));
    std::memcpy(arr, o_->chain.nodes, sizeof(ListNode) * o_->nnodes);
    heap_->release(o_->chain.nodes);
    o_->chain.nodes = arr;
    o_->chain.cap = static_cast<std::uint32_t>(mi_usable_size(arr) / sizeof(ListNode));
  }
}

void Quicklist::split_if_needed(std::uint32_t at) {
  ListNode& n = node_array()[at];
  Listpack l(n.lp);
  if (n.count < 2 || !exceeds(l.bytes(), n.count)) return;
  // The second half moves to a new node after this one.
  const std::uint32_t keep = n.count / 2;
  ListNode& right = insert_node(at + 1);
  ListNode& left = node_array()[at];  // the array may have moved
  Listpack src(left.lp);
  Listpack dst(right.lp);
  for (Listpack::Pos p = src.seek(keep); p != Listpack::kNone; p = src.next(p)) {
    const Listpack::Entry e = src.get(p);
    if (e.is_int) {
      dst.append(*heap_, e.i);
    } else {
      dst.append(*heap_, Listpack::Elem(e.str));
    }
  }
  right.lp = dst.blob();
  right.count = left.count - keep;
  src.erase_range(*heap_, keep, left.count - keep);
  left.lp = src.blob();
  left.count = keep;
  // A huge entry may still share a half with others: halve again until every node fits or
  // holds one entry (log2 of the node's count levels at most).
  split_if_needed(at + 1);
  split_if_needed(at);
}

ListPos Quicklist::first() const {
  if (o_->nnodes == 0) return {};
  return {0, lp(0).first()};
}

ListPos Quicklist::last() const {
  if (o_->nnodes == 0) return {};
  return {o_->nnodes - 1, lp(o_->nnodes - 1).last()};
}

ListPos Quicklist::next(ListPos p) const {
  const Listpack::Pos q = lp(p.node).next(p.pos);
  if (q != Listpack::kNone) return {p.node, q};
  if (p.node + 1 < o_->nnodes) return {p.node + 1, lp(p.node + 1).first()};
  return {};
}

ListPos Quicklist::prev(ListPos p) const {
  const Listpack::Pos q = lp(p.node).prev(p.pos);
  if (q != Listpack::kNone) return {p.node, q};
  if (p.node > 0) return {p.node - 1, lp(p.node - 1).last()};
  return {};
}

ListPos Quicklist::seek(std::int64_t index) const {
  const auto size = static_cast<std::int64_t>(o_->count);
  if (index < 0) index += size;
  if (index < 0 || index >= size) return {};
  const ListNode* nodes = node_array();
  if (index < size / 2) {
    std::uint32_t i = 0;
    while (index >= nodes[i].count) index -= nodes[i++].count;
    return {i, Listpack(nodes[i].lp).seek(index)};
  }
  std::int64_t from_end = size - 1 - index;
  std::uint32_t i = o_->nnodes - 1;
  while (from_end >= nodes[i].count) from_end -= nodes[i--].count;
  return {i, Listpack(nodes[i].lp).seek(-1 - from_end)};
}

void Quicklist::push_head(Listpack::Elem e, std::size_t len) {
  ListNode* n = o_->nnodes > 0 ? &node_array()[0] : nullptr;
  if (n == nullptr || !allow_insert(*n, len)) n = &insert_node(0);
  Listpack l(n->lp);
  l.prepend(*heap_, e);
  n->lp = l.blob();
  ++n->count;
  ++o_->count;
}

void Quicklist::push_tail(Listpack::Elem e, std::size_t len) {
  ListNode* n = o_->nnodes > 0 ? &node_array()[o_->nnodes - 1] : nullptr;
  if (n == nullptr || !allow_insert(*n, len)) n = &insert_node(o_->nnodes);
  Listpack l(n->lp);
  l.append(*heap_, e);
  n->lp = l.blob();
  ++n->count;
  ++o_->count;
}

void Quicklist::insert(ListPos at, Listpack::Where where, Listpack::Elem e, std::size_t len) {
  (void)len;
  ListNode& n = node_array()[at.node];
  Listpack l(n.lp);
  l.insert(*heap_, at.pos, where, e);
  n.lp = l.blob();
  ++n.count;
  ++o_->count;
  split_if_needed(at.node);
}

void Quicklist::replace(ListPos at, Listpack::Elem e, std::size_t len) {
  (void)len;
  ListNode& n = node_array()[at.node];
  Listpack l(n.lp);
  l.replace(*heap_, at.pos, e);
  n.lp = l.blob();
  split_if_needed(at.node);
}

ListPos Quicklist::erase(ListPos p) {
  ListNode& n = node_array()[p.node];
  Listpack l(n.lp);
  const Listpack::Pos q = l.erase(*heap_, p.pos);
  n.lp = l.blob();
  --n.count;
  --o_->count;
  std::uint32_t node = p.node;
  if (n.count == 0) {
    remove_node(node);
  } else if (q != Listpack::kNone) {
    return {node, q};
  } else {
    ++node;
  }
  if (node < o_->nnodes) return {node, lp(node).first()};
  return {};
}

void Quicklist::append_node(Listpack l, std::uint32_t count) {
  ListNode& n = insert_node(o_->nnodes);
  heap_->release(n.lp);
  n.lp = l.blob();
  n.count = count;
  o_->count += count;
}

void Quicklist::erase_range(std::uint64_t start, std::uint64_t n) {
  assert(start + n <= o_->count);
  std::uint32_t i = 0;
  while (n > 0) {
    ListNode& node = node_array()[i];
    if (start >= node.count) {
      start -= node.count;
      ++i;
      continue;
    }
    const std::uint64_t k = std::min<std::uint64_t>(n, node.count - start);
    o_->count -= k;
    n -= k;
    if (start == 0 && k == node.count) {
      remove_node(i);
      continue;
    }
    Listpack l(node.lp);
    l.erase_range(*heap_, static_cast<std::int64_t>(start), k);
    node.lp = l.blob();
    node.count -= static_cast<std::uint32_t>(k);
    start = 0;
    ++i;
  }
}

}  // namespace ruvio::types
