// The tracking table of client-side caching (tracking.hpp): key -> the ids of the clients that
// read it and must be told when it changes (Redis's TrackingTable, a rax of keys each holding
// a rax of client ids).
//
// It is the keyspace's open-addressing table (store::HashTable, 8-byte slots) over one heap
// block per key, holding the key bytes once and its readers inline:
//
//   TrackedKey (one block, sized to its mimalloc bin):
//     [u32 klen][u32 n][key bytes, klen][pad to 8][u64 id] x cap
//     n     readers held, ids ascending (the order Redis's rax of ids sends them in)
//     cap   how many ids fit: (mi_usable_size - ids offset) / 8, so the bin's slack is used
//   "key:000001" read by one client: 8 + 10 -> 24, + 8 = a 32-byte block, no other allocation.
//
// A repeated read of a tracked key by a client already in its list is one table lookup and
// a binary search: no allocation. A new reader past cap moves the key to a block twice as
// large (the slot is re-pointed; entries never move within the table).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "worker/containers/hashtable.hpp"
#include "worker/memory/heap.hpp"

namespace ruvio::worker {

struct TrackedKey {
  std::uint32_t klen;
  std::uint32_t n;

  static std::size_t ids_offset(std::size_t klen) { return (8 + klen + 7) & ~std::size_t{7}; }
  std::string_view key() const {
    return {reinterpret_cast<const char*>(this) + sizeof(TrackedKey), klen};
  }
  std::uint64_t* ids() {
    return reinterpret_cast<std::uint64_t*>(reinterpret_cast<char*>(this) + ids_offset(klen));
  }
  std::span<const std::uint64_t> readers() const {
    return {reinterpret_cast<const std::uint64_t*>(reinterpret_cast<const char*>(this) +
                                                   ids_offset(klen)),
            n};
  }
  std::size_t capacity() const { return (mi_usable_size(this) - ids_offset(klen)) / 8; }
};
static_assert(sizeof(TrackedKey) == 8, "the header is two u32");

struct TrackedKeyTraits {
  using Entry = TrackedKey;
  static std::string_view key(const TrackedKey* e) { return e->key(); }
  static std::uint64_t hash(std::string_view key) { return store::hash_key(key); }
  static bool equal(std::string_view a, std::string_view b) { return a == b; }
};

class TrackingTable {
 public:
  TrackingTable() : table_(&heap_) {}
  ~TrackingTable() { clear(); }
  TrackingTable(const TrackingTable&) = delete;
  TrackingTable& operator=(const TrackingTable&) = delete;

  std::size_t size() const { return table_.size(); }
  bool empty() const { return table_.size() == 0; }
  // Reader ids held over all keys (INFO's tracking_total_items).
  std::size_t items() const { return items_; }
  // Bytes of the blocks and the table arrays.
  std::size_t bytes() const { return heap_.used; }

  // Remembers that client `id` read `key`.
  void add(std::string_view key, std::uint64_t id);
  // Removes `key` and hands it to the caller (nullptr when it is not tracked), who sends its
  // readers' messages and then gives it back with release(): the block stays valid whatever
  // the table does meanwhile.
  TrackedKey* take(std::string_view key);
  // Removes some key (the one the cursor's random walk lands on, as Redis's raxRandomWalk
  // picks one when the table is over tracking-table-max-keys); nullptr when empty.
  TrackedKey* take_any();
  void release(TrackedKey* e) { heap_.release(e); }

  // Drops the readers for which drop(id) is true, and the keys left without one.
  template <class F>
  void drop_readers(F&& drop);
  // Forgets everything.
  void clear();

 private:
  store::Heap heap_;
  store::HashTable<TrackedKeyTraits> table_;
  std::size_t items_ = 0;
  std::uint64_t rnd_ = 0x9e3779b97f4a7c15ULL;
};

template <class F>
void TrackingTable::drop_readers(F&& drop) {
  // Emptied keys are erased after the walk: erasing while for_each walks the slots is unsafe.
  std::vector<TrackedKey*> emptied;
  table_.for_each([&](TrackedKey* e) {
    std::uint64_t* ids = e->ids();
    std::uint32_t kept = 0;
    for (std::uint32_t i = 0; i < e->n; ++i) {
      if (!drop(ids[i])) ids[kept++] = ids[i];
    }
    items_ -= e->n - kept;
    e->n = kept;
    if (kept == 0) emptied.push_back(e);
  });
  if (emptied.size() == size()) {
    clear();  // the last tracking client of one worker left: no per-key erase and shrink
    return;
  }
  for (TrackedKey* e : emptied) {
    table_.erase(e->key(), table_.hash(e->key()));
    release(e);
  }
}

}  // namespace ruvio::worker
