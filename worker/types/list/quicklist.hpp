// The list value: a chain of listpack nodes (Redis's quicklist), with a one-node list kept
// inline in the object (the small, "listpack" form). This file is the encoding: nodes, their
// fill limit, positions, splitting and joining. The list semantics (push, pop, ranges, LREM,
// LTRIM...) are in list.hpp; no RESP, no libuv here.
//
//   List object (32 bytes, one mimalloc 32 B block):
//     byte 0     type id     kTypeList
//     byte 1     encoding    kSmall (0): one node, inline in `one`
//                            kChain (1): `nodes` points at a Node array of `cap` slots
//     bytes 2-3  (padding)
//     bytes 4-7  u32 node count (1 for kSmall; a chain may shrink to 1 node and stay a chain
//                until it is rebuilt, which nothing observable depends on)
//     bytes 8-15 u64 entries in the whole list (LLEN in O(1))
//     bytes 16-31 union { Node one;  struct { Node* nodes; u32 cap; } }
//
//   Node (16 bytes): [u8* listpack blob][u32 entries of that blob][u32 unused]
//     The blob is a Redis listpack (worker/types/listpack/listpack.hpp), byte for byte.
//
// Redis 7.0.15 always answers OBJECT ENCODING "quicklist" for a list (the listpack encoding
// of lists arrived in 7.2), so both forms report "quicklist"; the inline form only saves the
// node array's block (16 B) and one pointer chase for the small lists that dominate.
//
// Fill (list-max-listpack-size): negative -1..-5 limits a node's blob to 4/8/16/32/64 KiB;
// positive n limits a node to n entries (and to 8 KiB, Redis's SIZE_SAFETY_LIMIT). A node
// always takes at least one entry, so a huge member sits alone in its node. Inner-node LZF
// compression (list-compress-depth) is accepted as a setting and not applied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "worker/store/heap.hpp"
#include "worker/types/listpack/listpack.hpp"
#include "worker/types/value.hpp"

namespace ruvio::types {

struct ListNode {
  std::uint8_t* lp;
  std::uint32_t count;
  std::uint32_t unused;
};

struct ListObject : Object {
  static constexpr std::uint8_t kSmall = 0;
  static constexpr std::uint8_t kChain = 1;
  std::uint8_t pad[2];
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

  static ListObject* create(store::Heap& heap);
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
  Listpack lp(std::uint32_t node) const { return Listpack(node_array()[node].lp); }

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

 private:
  // Whether a node holding `bytes` of blob and `count` entries is past the fill limit.
  bool exceeds(std::size_t bytes, std::size_t count) const;
  bool allow_insert(const ListNode& n, std::size_t len) const;
  // Makes room for a new node at index `at` (an empty blob) and returns it.
  ListNode& insert_node(std::uint32_t at);
  void remove_node(std::uint32_t at);
  // Splits a node that went past the fill limit in halves until each part fits.
  void split_if_needed(std::uint32_t at);

  store::Heap* heap_;
  ListObject* o_;
  int fill_;
};

}  // namespace ruvio::types
