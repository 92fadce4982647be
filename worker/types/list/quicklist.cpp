#include "worker/types/list/quicklist.hpp"

#include <lzf.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>
#include <vector>

namespace ruvio::types {
namespace {

// quicklist.c's optimization_level: the blob limit of fill -1..-5.
constexpr std::array<std::size_t, 5> kSizeLimits = {4096, 8192, 16384, 32768, 65536};
// quicklist.c's SIZE_SAFETY_LIMIT: a count-limited node still stays under this many bytes.
constexpr std::size_t kSafetyLimit = 8192;
// SIZE_ESTIMATE_OVERHEAD: an entry's encoding and backlen bytes, over-estimated.
constexpr std::size_t kEntryOverhead = 8;
// quicklist.c: nodes under MIN_COMPRESS_BYTES are not compressed, and a compression that
// saves less than MIN_COMPRESS_IMPROVE bytes is dropped.
constexpr std::size_t kMinCompressBytes = 48;
constexpr std::size_t kMinCompressImprove = 8;
// quicklistLZF's header: the u32 compressed size before the LZF data.
constexpr std::size_t kLzfHeader = 4;

// Per-thread buffers: `plain` holds the last compressed node read (`key` is its LZF block, so
// a lookup is one compare); `packed` receives a compression before it is sized into the heap.
// They grow to the largest node once and are reused, so reads and writes do not allocate.
struct Scratch {
  std::vector<std::uint8_t> plain;
  const std::uint8_t* key = nullptr;
  std::vector<std::uint8_t> packed;
};
thread_local Scratch scratch;

std::uint32_t lzf_bytes(const std::uint8_t* block) {
  std::uint32_t n;
  std::memcpy(&n, block, 4);
  return n;
}

// Decompresses the LZF block of `n` into `out` (n.raw bytes).
void inflate(const ListNode& n, std::uint8_t* out) {
  const unsigned got = lzf_decompress(n.lp + kLzfHeader, lzf_bytes(n.lp), out, n.raw);
  assert(got == n.raw);
  (void)got;
}

// Frees a node's block; a compressed one leaves the read scratch if it was there (a later
// block at the same address must not hit the stale copy).
void release_blob(store::Heap& heap, const ListNode& n) {
  if (n.raw != 0 && scratch.key == n.lp) scratch.key = nullptr;
  heap.release(n.lp);
}

// __quicklistCompressNode: replaces a plain node's listpack by its LZF form when it is big
// enough and LZF gains enough; otherwise leaves it plain.
void compress_node(store::Heap& heap, ListNode& n) {
  if (n.raw != 0) return;
  const std::size_t sz = Listpack(n.lp).bytes();
  if (sz < kMinCompressBytes) return;
  if (scratch.packed.size() < sz) scratch.packed.resize(sz);
  // Redis gives LZF an output as large as the input: no room, no compression.
  const unsigned got = lzf_compress(n.lp, static_cast<unsigned>(sz), scratch.packed.data(),
                                    static_cast<unsigned>(sz));
  if (got == 0 || got + kMinCompressImprove >= sz) return;
  auto* block = static_cast<std::uint8_t*>(heap.alloc(kLzfHeader + got));
  const auto len = static_cast<std::uint32_t>(got);
  std::memcpy(block, &len, 4);
  std::memcpy(block + kLzfHeader, scratch.packed.data(), got);
  heap.release(n.lp);
  n.lp = block;
  n.raw = static_cast<std::uint32_t>(sz);
}

void decompress_node(store::Heap& heap, ListNode& n) {
  if (n.raw == 0) return;
  auto* plain = static_cast<std::uint8_t*>(heap.alloc(n.raw));
  inflate(n, plain);
  release_blob(heap, n);
  n.lp = plain;
  n.raw = 0;
}

}  // namespace

ListObject* Quicklist::create(store::Heap& heap, int depth) {
  auto* o = static_cast<ListObject*>(heap.alloc(sizeof(ListObject)));
  std::memset(o, 0, sizeof(ListObject));
  o->type_id = kTypeList;
  o->enc = ListObject::kSmall;
  o->depth = static_cast<std::uint8_t>(std::clamp(depth, 0, kMaxDepth));
  return o;
}

Listpack Quicklist::scratch_view(const ListNode& n) {
  if (scratch.key != n.lp) {
    if (scratch.plain.size() < n.raw) scratch.plain.resize(n.raw);
    inflate(n, scratch.plain.data());
    scratch.key = n.lp;
  }
  return Listpack(scratch.plain.data());
}

void Quicklist::destroy(store::Heap& heap, ListObject* o) {
  ListNode* nodes = node_array(o);
  for (std::uint32_t i = 0; i < o->nnodes; ++i) release_blob(heap, nodes[i]);
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
    release_blob(heap, n);
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
    if (from[i].raw == 0) {
      to[i].lp = Listpack(from[i].lp).clone(heap).blob();
    } else {
      // A compressed node is copied compressed (quicklistDup copies the LZF block).
      const std::size_t len = kLzfHeader + lzf_bytes(from[i].lp);
      to[i].lp = static_cast<std::uint8_t*>(heap.alloc(len));
      std::memcpy(to[i].lp, from[i].lp, len);
    }
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
  const std::size_t raw = n.raw != 0 ? n.raw : Listpack(n.lp).bytes();
  const std::size_t bytes = raw + len + kEntryOverhead;
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
  release_blob(*heap_, nodes[at]);
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

std::uint32_t Quicklist::split_if_needed(std::uint32_t at) {
  ListNode& n = node_array()[at];
  Listpack l(n.lp);
  if (n.count < 2 || !exceeds(l.bytes(), n.count)) return 0;
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
  std::uint32_t added = 1 + split_if_needed(at + 1);
  added += split_if_needed(at);
  return added;
}

ListNode& Quicklist::writable(std::uint32_t at) {
  ListNode& n = node_array()[at];
  decompress_node(*heap_, n);
  return n;
}

void Quicklist::settle(std::uint32_t lo, std::uint32_t hi) {
  const std::uint32_t d = o_->depth;
  const std::uint32_t n = o_->nnodes;
  if (d == 0 || n == 0) return;
  ListNode* nodes = node_array();
  // The ends stay plain (a removal may have brought a compressed node within depth).
  const std::uint32_t ends = std::min(d, n);
  for (std::uint32_t i = 0; i < ends; ++i) {
    decompress_node(*heap_, nodes[i]);
    decompress_node(*heap_, nodes[n - 1 - i]);
  }
  // Redis stops when the two ends' depths meet: nothing is inner.
  if (n <= 2 * d) return;
  for (std::uint32_t i = std::max(lo, d); i < hi && i < n - d; ++i) compress_node(*heap_, nodes[i]);
  compress_node(*heap_, nodes[d]);
  compress_node(*heap_, nodes[n - 1 - d]);
}

void Quicklist::compress_inner() {
  settle(0, o_->nnodes);
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
    return {i, lp(i).seek(index)};
  }
  std::int64_t from_end = size - 1 - index;
  std::uint32_t i = o_->nnodes - 1;
  while (from_end >= nodes[i].count) from_end -= nodes[i--].count;
  return {i, lp(i).seek(-1 - from_end)};
}

// A push into the end node changes no compression (the end is within depth); a new end node
// moves the old one inward, which is then compressed if it passed the depth
// (__quicklistInsertNode's quicklistCompress of the old node).
void Quicklist::push_head(Listpack::Elem e, std::size_t len) {
  ListNode* n = o_->nnodes > 0 ? &writable(0) : nullptr;
  const bool fresh = n == nullptr || !allow_insert(*n, len);
  if (fresh) n = &insert_node(0);
  Listpack l(n->lp);
  l.prepend(*heap_, e);
  n->lp = l.blob();
  ++n->count;
  ++o_->count;
  if (fresh && o_->nnodes > 1) settle(1, 2);
}

void Quicklist::push_tail(Listpack::Elem e, std::size_t len) {
  ListNode* n = o_->nnodes > 0 ? &writable(o_->nnodes - 1) : nullptr;
  const bool fresh = n == nullptr || !allow_insert(*n, len);
  if (fresh) n = &insert_node(o_->nnodes);
  Listpack l(n->lp);
  l.append(*heap_, e);
  n->lp = l.blob();
  ++n->count;
  ++o_->count;
  if (fresh && o_->nnodes > 1) settle(o_->nnodes - 2, o_->nnodes - 1);
}

void Quicklist::insert(ListPos at, Listpack::Where where, Listpack::Elem e, std::size_t len) {
  (void)len;
  ListNode& n = writable(at.node);
  Listpack l(n.lp);
  l.insert(*heap_, at.pos, where, e);
  n.lp = l.blob();
  ++n.count;
  ++o_->count;
  const std::uint32_t added = split_if_needed(at.node);
  settle(at.node, at.node + 1 + added);
}

void Quicklist::replace(ListPos at, Listpack::Elem e, std::size_t len) {
  (void)len;
  ListNode& n = writable(at.node);
  Listpack l(n.lp);
  l.replace(*heap_, at.pos, e);
  n.lp = l.blob();
  const std::uint32_t added = split_if_needed(at.node);
  settle(at.node, at.node + 1 + added);
}

ListPos Quicklist::erase(ListPos p) {
  ListNode& n = writable(p.node);
  Listpack l(n.lp);
  const Listpack::Pos q = l.erase(*heap_, p.pos);
  n.lp = l.blob();
  --n.count;
  --o_->count;
  std::uint32_t node = p.node;
  if (n.count == 0) {
    remove_node(node);
    settle(node, node);
  } else {
    settle(node, node + 1);
    if (q != Listpack::kNone) return {node, q};
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
  // At most two nodes are cut partly (the first and the last of the range).
  std::uint32_t cut[2] = {UINT32_MAX, UINT32_MAX};
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
    writable(i);
    Listpack l(node.lp);
    l.erase_range(*heap_, static_cast<std::int64_t>(start), k);
    node.lp = l.blob();
    node.count -= static_cast<std::uint32_t>(k);
    cut[cut[0] == UINT32_MAX ? 0 : 1] = i;
    start = 0;
    ++i;
  }
  settle(0, 0);
  for (const std::uint32_t c : cut) {
    if (c != UINT32_MAX) settle(c, c + 1);
  }
}

}  // namespace ruvio::types
