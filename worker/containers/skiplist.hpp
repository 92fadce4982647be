// The large sorted-set encoding ("skiplist" in OBJECT ENCODING): a skiplist with spans, for
// O(log n) rank, plus the member index on store::HashTable. The encoding only: no ZADD flags,
// no conversion policy (zset.hpp).
//
//   node (one heap block; the member bytes live inside it, no separate string):
//     off 0   f64 score
//     off 8   ZNode* backward          previous node on level 0 (null for the first)
//     off 16  u32 member length
//     off 20  u8  level                1..32, drawn with p = 1/4 as Redis
//     off 21  3 bytes padding
//     off 24  level x { ZNode* forward; u64 span }   span: nodes skipped on that level
//     then    member bytes (no terminator)
//   A member of 13 bytes on a level-1 node is 24 + 16 + 13 = 53 bytes -> a 56 B mimalloc bin
//   (Redis: a 48-64 B node + a separate sds + a 24 B dictEntry). The header node is a node
//   of level 32 with no member.
//
//   index: HashTable<ZNodeTraits>, 8-byte slots pointing at the nodes themselves, keyed by
//   the member bytes inside the node, so a member is stored once.
//
// Order: score ascending, then member bytes (memcmp, shorter first on a common prefix), as
// Redis's zslInsert. Nodes never move while they are in the list: a score update relinks the
// same node, so index slots stay valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "worker/containers/hashtable.hpp"
#include "worker/memory/heap.hpp"

namespace ruvio::types {

struct ZNode {
  double score;
  ZNode* backward;
  std::uint32_t mlen;
  std::uint8_t level;

  struct Level {
    ZNode* forward;
    std::uint64_t span;
  };
  Level* lv() { return reinterpret_cast<Level*>(reinterpret_cast<char*>(this) + 24); }
  const Level* lv() const {
    return reinterpret_cast<const Level*>(reinterpret_cast<const char*>(this) + 24);
  }
  ZNode* next() const { return lv()[0].forward; }
  std::string_view member() const { return {reinterpret_cast<const char*>(lv() + level), mlen}; }
};
static_assert(sizeof(ZNode) == 24, "the node header is 24 bytes; levels follow it");

struct ZNodeTraits {
  using Entry = ZNode;
  static std::string_view key(const ZNode* n) { return n->member(); }
  static std::uint64_t hash(std::string_view k) { return store::hash_key(k); }
  static bool equal(std::string_view a, std::string_view b) { return a == b; }
};

// Redis's zrangespec / zlexrangespec. A lex bound kind: kMin ("-"), kMax ("+") or a string.
struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool contains_min_side(double v) const { return minex ? v > min : v >= min; }
  bool contains_max_side(double v) const { return maxex ? v < max : v <= max; }
  bool empty() const { return min > max || (min == max && (minex || maxex)); }
};
struct LexBound {
  enum Kind : std::uint8_t { kMinusInf, kPlusInf, kValue } kind = kValue;
  std::string_view value;
  bool ex = false;
};
struct LexRange {
  LexBound min, max;
  bool empty() const;
  bool gte_min(std::string_view v) const;
  bool lte_max(std::string_view v) const;
};
// sdscmp: memcmp over the common length, then the shorter first.
int member_cmp(std::string_view a, std::string_view b);

class Skiplist {
 public:
  static constexpr int kMaxLevel = 32;

  explicit Skiplist(store::Heap* heap);
  ~Skiplist() = default;  // destroy() frees
  Skiplist(const Skiplist&) = delete;
  Skiplist& operator=(const Skiplist&) = delete;

  // Frees every node and the index arrays (not this object).
  void destroy(store::Heap& heap);
  // Lazy free in steps: the first call frees the index arrays and cuts the list down to
  // level 0; each call frees up to `budget` nodes from the head (size() counts what is left)
  // and returns how many it freed. From the first call on, only release_some, size() and
  // destroy() may be called.
  std::size_t release_some(store::Heap& heap, std::size_t budget);
  // The index keeps a heap pointer for its arrays: re-aim it before a write (after MOVE or
  // SWAPDB the value belongs to another Db's heap).
  void set_heap(store::Heap* heap) { index_.set_heap(heap); }

  std::size_t size() const { return length_; }
  ZNode* first() const { return header_->lv()[0].forward; }
  ZNode* last() const { return tail_; }
  ZNode* find(std::string_view member) const;

  // member must be absent.
  ZNode* insert(store::Heap& heap, double score, std::string_view member);
  // A bulk load's insert (RESTORE): nullptr when member is present already, else inserts it;
  // the member is hashed once for both.
  ZNode* insert_unique(store::Heap& heap, double score, std::string_view member);
  // Sizes the empty member index for n members (no rehash while they are inserted).
  void reserve(std::size_t n) { index_.reserve(n); }
  // Moves an existing node to its place for `score` (same node, no allocation).
  void update_score(ZNode* n, double score);
  // Unlinks and frees the node of `member`; false when absent.
  bool erase(store::Heap& heap, std::string_view member);
  void erase_node(store::Heap& heap, ZNode* n);

  // 1-based rank of a node in the list.
  std::size_t rank_of(const ZNode* n) const;
  // The node at a 1-based rank (null when out of range).
  ZNode* at_rank(std::size_t rank) const;

  ZNode* first_in(const ScoreRange& r) const;
  ZNode* last_in(const ScoreRange& r) const;
  ZNode* first_in(const LexRange& r) const;
  ZNode* last_in(const LexRange& r) const;

  // Bytes of the nodes and the index (mi_usable_size of every block).
  std::size_t memory_usage() const;
  const store::HashTable<ZNodeTraits>& index() const { return index_; }

 private:
  static ZNode* make_node(store::Heap& heap, int level, double score, std::string_view member);
  // update[i]: the last node before `score/member` on level i; rank[i]: its rank.
  void locate(double score, std::string_view member, ZNode** update, std::size_t* rank) const;
  void unlink(ZNode* n, ZNode** update);
  void link(ZNode* n, ZNode** update, std::size_t* rank);
  static int random_level();

  ZNode* header_;
  ZNode* tail_ = nullptr;
  std::size_t length_ = 0;
  int level_ = 1;
  store::HashTable<ZNodeTraits> index_;
};

}  // namespace ruvio::types
