// The tracking table's blocks (tracking_table.hpp draws them).
#include "worker/engine/tracking_table.hpp"

#include <algorithm>

#include "worker/containers/hashtable_impl.hpp"

namespace ruvio::store {
template class HashTable<worker::TrackedKeyTraits>;
}  // namespace ruvio::store

namespace ruvio::worker {
namespace {

TrackedKey* make_block(store::Heap& heap, std::string_view key, std::size_t cap) {
  auto* e = static_cast<TrackedKey*>(heap.alloc(TrackedKey::ids_offset(key.size()) + 8 * cap));
  e->klen = static_cast<std::uint32_t>(key.size());
  e->n = 0;
  std::memcpy(reinterpret_cast<char*>(e) + sizeof(TrackedKey), key.data(), key.size());
  return e;
}

}  // namespace

void TrackingTable::add(std::string_view key, std::uint64_t id) {
  const std::uint64_t h = table_.hash(key);
  auto ref = table_.find(key, h);
  if (!ref) {
    TrackedKey* e = make_block(heap_, key, 1);
    e->ids()[0] = id;
    e->n = 1;
    table_.insert(e, h);
    ++items_;
    return;
  }
  TrackedKey* e = ref.get();
  std::uint64_t* ids = e->ids();
  std::size_t at = static_cast<std::size_t>(std::lower_bound(ids, ids + e->n, id) - ids);
  if (at < e->n && ids[at] == id) return;  // a repeated read: nothing to do
  if (e->n == e->capacity()) {
    TrackedKey* grown = make_block(heap_, key, std::max<std::size_t>(2 * e->n, 2));
    std::memcpy(grown, e, TrackedKey::ids_offset(e->klen) + 8 * std::size_t{e->n});
    ref.set(grown);
    heap_.release(e);
    e = grown;
    ids = e->ids();
  }
  std::memmove(ids + at + 1, ids + at, 8 * (e->n - at));
  ids[at] = id;
  ++e->n;
  ++items_;
}

TrackedKey* TrackingTable::take(std::string_view key) {
  TrackedKey* e = table_.erase(key, table_.hash(key));
  if (e != nullptr) items_ -= e->n;
  return e;
}

TrackedKey* TrackingTable::take_any() {
  if (empty()) return nullptr;
  TrackedKey* found[store::HashTable<TrackedKeyTraits>::kSlotsPerBucket];
  // A random bucket until one holds a key: the table is never emptier than about 1/16 full,
  // so this ends after a few tries.
  std::size_t n = 0;
  while (n == 0) {
    rnd_ ^= rnd_ << 13;  // xorshift64
    rnd_ ^= rnd_ >> 7;
    rnd_ ^= rnd_ << 17;
    n = table_.sample_bucket(rnd_, found);
  }
  TrackedKey* e = found[(rnd_ >> 40) % n];
  return take(e->key());
}

void TrackingTable::clear() {
  table_.for_each([&](TrackedKey* e) { heap_.release(e); });
  table_.clear();
  items_ = 0;
}

}  // namespace ruvio::worker
