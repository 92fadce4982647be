// The list value: a chain of listpack nodes (Redis's quicklist), with a one-node list kept
// inline in the object (the small, "listpack" form). This file is the encoding: nodes, their
// fill limit, positions, splitting and joining, and the LZF compression of inner nodes. The
// list semantics (push, pop, ranges, LREM, LTRIM...) are in list.hpp; no RESP, no libuv here.
//
//   List object (32 bytes, one mimalloc 32 B block):
//     byte 0     type id     kTypeList
//     byte 1     encoding    kSmall (0): one node, inline in `one`
//                            kChain (1): `nodes` points at a Node array of `cap` slots
//     byte 2     0 (a folded object's mark byte, value.hpp: a heap object keeps it 0)
//     byte 3     u8 compress depth (list-compress-depth when the list was created: Redis
//                keeps it per list, so CONFIG SET changes the lists created after it;
//                clamped to 255 where Redis allows 65535: a list keeping more than 255
//                plain nodes at each end compresses inner nodes Redis would leave plain,
//                which only MEMORY USAGE can see)
//     bytes 4-7  u32 node count (1 for kSmall; a chain may shrink to 1 node and stay a chain
//                until it is rebuilt, which nothing observable depends on)
//     bytes 8-15 u64 entries in the whole list (LLEN in O(1))
//     bytes 16-31 union { Node one;  struct { Node* nodes; u32 cap; } }
//
//   Node (16 bytes): [u8* blob][u32 entries of that blob][u32 raw]
//     raw == 0: the blob is a Redis listpack (worker/containers/listpack.hpp), byte for
//               byte.
//     raw  > 0: the node is LZF-compressed and raw is its listpack's byte size; the blob is
//               Redis's quicklistLZF: [u32 LE compressed bytes][LZF data], one heap block of
//               exactly 4 + compressed bytes (so MEMORY USAGE counts what Redis counts).
//
// Redis 7.0.15 always answers OBJECT ENCODING "quicklist" for a list (the listpack encoding
// of lists arrived in 7.2), so both forms report "quicklist"; the inline form only saves the
// node array's block (16 B) and one pointer chase for the small lists that dominate.
//
// Fill (list-max-listpack-size): negative -1..-5 limits a node's blob to 4/8/16/32/64 KiB;
// positive n limits a node to n entries (and to 8 KiB, Redis's SIZE_SAFETY_LIMIT). A node
// always takes at least one entry, so a huge member sits alone in its node.
//
// Compression (list-compress-depth d, quicklist.c's __quicklistCompress): the d nodes at
// each end stay plain; after a write that adds or removes a node or changes an inner one, the
// touched inner nodes and the nodes at index d and n-1-d are compressed, when the listpack is
// at least 48 bytes (MIN_COMPRESS_BYTES) and LZF saves at least 8 (MIN_COMPRESS_IMPROVE).
// Reads of a compressed node decompress it into one per-thread scratch buffer (the last
// compressed node read stays there, so a walk decompresses each node once) and leave the node
// compressed, which is the state Redis's decompress-for-use + recompress leaves. Writes
// decompress the node in place, change it, and recompress it. Entries and positions are the
// listpack's, so a position stays valid across (de)compression; an Entry read from a
// compressed node borrows the scratch buffer until the next read of another compressed node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "worker/containers/listpack.hpp"
#include "worker/memory/heap.hpp"
#include "worker/types/value.hpp"

namespace ruvio::types {

struct ListNode {
  std::uint8_t* lp;
  std::uint32_t count;
  std::uint32_t raw;  // 0: lp is a listpack; else lp is LZF and this the listpack's bytes
};

struct ListObject : Object {
  static constexpr std::uint8_t kSmall = 0;
  static constexpr std::uint8_t kChain = 1;
  std::uint8_t fold_mark;  // always 0 here (value.hpp's kFoldedMark slot)
  std::uint8_t depth;
  std::uint32_t nnodes;
  std::uint64_t count;
  union {
    ListNode one;
    struct {
      ListNode* nodes;
      std::uint32_t cap;
    } chain;
  };
};
static_assert(sizeof(ListNode) == 16);
static_assert(sizeof(ListObject) == 32);

// A position in a list: node index and the entry's offset in that node's blob.
struct ListPos {
  std::uint32_t node = 0;
  Listpack::Pos pos = Listpack::kNone;
  explicit operator bool() const { return pos != Listpack::kNone; }
};

// Operations on one list object; a handle, not an owner (as Listpack).
class Quicklist {
 public:
  Quicklist(store::Heap& heap, ListObject* o, int fill) : heap_(&heap), o_(o), fill_(fill) {}

  // quicklist.c's COMPRESS_MAX is 65535; one byte here (see the picture).
  static constexpr int kMaxDepth = 255;
  // A new empty list; `depth` is list-compress-depth (clamped to 0..kMaxDepth).
  static ListObject* create(store::Heap& heap, int depth = 0);
  static void destroy(store::Heap& heap, ListObject* o);
  // Lazy free in steps: frees up to `budget` nodes from the tail (the node count, the free
  // effort, and the entry count follow), then, once none is left, the array and the object
  // (*done). Returns the units spent. The list is only good for this and destroy() after.
  static std::size_t release_some(store::Heap& heap, ListObject* o, std::size_t budget, bool* done);
  static ListObject* clone(store::Heap& heap, const ListObject* o);
  static std::size_t memory_usage(const ListObject* o);

  ListObject* object() const { return o_; }
  std::uint64_t size() const { return o_->count; }
  std::uint32_t nodes() const { return o_->nnodes; }
  ListNode* node_array() const { return node_array(o_); }
  static ListNode* node_array(ListObject* o) {
    return o->enc == ListObject::kSmall ? &o->one : o->chain.nodes;
  }
  static const ListNode* node_array(const ListObject* o) {
    return o->enc == ListObject::kSmall ? &o->one : o->chain.nodes;
  }
  // The node's listpack, for reading: a compressed node is decompressed into the scratch
  // buffer (valid until another compressed node is read).
  Listpack lp(std::uint32_t node) const { return lp(o_, node); }
  static Listpack lp(const ListObject* o, std::uint32_t node) {
    const ListNode& n = node_array(o)[node];
    return n.raw == 0 ? Listpack(n.lp) : scratch_view(n);
  }
  bool compressed(std::uint32_t node) const { return node_array()[node].raw != 0; }

  // Positions.
  ListPos first() const;
  ListPos last() const;
  ListPos next(ListPos p) const;
  ListPos prev(ListPos p) const;
  // The entry at `index` (negative from the end); an empty position when out of range.
  ListPos seek(std::int64_t index) const;
  Listpack::Entry get(ListPos p) const { return lp(p.node).get(p.pos); }

  // Writes. Positions are invalid after any write except where a function returns one.
  void push_head(Listpack::Elem e, std::size_t len);
  void push_tail(Listpack::Elem e, std::size_t len);
  void insert(ListPos at, Listpack::Where where, Listpack::Elem e, std::size_t len);
  void replace(ListPos at, Listpack::Elem e, std::size_t len);
  // Erases the entry at `p`; returns the position of the entry that followed (empty at the
  // end of the list).
  ListPos erase(ListPos p);
  // Erases `n` entries from index `start` (0 <= start, start + n <= size()).
  void erase_range(std::uint64_t start, std::uint64_t n);
  // Adopts a non-empty blob allocated from the heap as the new last node (snapshot load).
  void append_node(Listpack lp, std::uint32_t count);
  // Compresses every inner node the depth allows (after a snapshot load's append_node calls).
  void compress_inner();

 private:
  // Whether a node holding `bytes` of blob and `count` entries is past the fill limit.
  bool exceeds(std::size_t bytes, std::size_t count) const;
  bool allow_insert(const ListNode& n, std::size_t len) const;
  // Makes room for a new node at index `at` (an empty blob) and returns it.
  ListNode& insert_node(std::uint32_t at);
  void remove_node(std::uint32_t at);
  // Splits a node that went past the fill limit in halves until each part fits.
  // Returns the number of nodes it added after `at`.
  std::uint32_t split_if_needed(std::uint32_t at);
  // The node, decompressed in place if it was compressed (for a write).
  ListNode& writable(std::uint32_t at);
  // __quicklistCompress after a write that touched nodes [lo, hi) (indexes after the write;
  // lo == hi: none, e.g. a node was removed): the end nodes within depth are made plain, the
  // touched inner nodes and the two nodes just past depth are compressed.
  void settle(std::uint32_t lo, std::uint32_t hi);
  static Listpack scratch_view(const ListNode& n);

  store::Heap* heap_;
  ListObject* o_;
  int fill_;
};

}  // namespace ruvio::types
