// The open-addressing table: bucketized open addressing over 8-byte entry references, with
// per-bucket overflow counters (F14-style), incremental resize and a Redis-compatible SCAN
// cursor. One template over an entry type (after Valkey's hashtableType): the traits say how
// to get an entry's key and how to hash and compare keys. The keyspace (table.hpp: entries are
// Records) and the collection types (set members, hash fields, the sorted-set member index)
// use the same code, so they all get the incremental rehash and the SCAN guarantee.
//
//   struct Traits {
//     using Entry = ...;                                     // what a slot points to
//     static std::string_view key(const Entry* e);           // the entry's key bytes
//     static std::uint64_t hash(std::string_view key);       // the default hash function
//     static bool equal(std::string_view a, std::string_view b);
//   };
//
//   bucket = 64 bytes = one cache line = 8 slots
//   slot (u64):  bits  0..47  Entry* (0 = empty slot)
//                bits 48..55  fingerprint: top 8 bits of the key's 64-bit hash
//                bits 56..63  probe index j (0..255): the slot lies in bucket home + j(j+1)/2
//   ovf[] (u8, one per bucket, a separate block next to the buckets): how many
//                entries' probe sequences passed through this bucket without landing in it.
//                Saturates at 255 and is then never decremented (stays conservative).
//
//   home = hash & (nbuckets - 1)   (power-of-two bucket count)
//   probe sequence of a home: home, +1, +2, +3 ... (triangular numbers, visits every bucket).
//   Why triangular and not linear: simulated at 0.97 load with 2^17 buckets, linear probing
//   has clusters with displacement > 1400 buckets and misses walk ~74 buckets; triangular
//   probing needs at most ~91 probes and a miss walks ~8.6 buckets (~5.7 at 1M keys).
//   The sequence depends only on the home, so SCAN can visit "all entries of home b".
//
//   insert: first bucket on the sequence with a free slot; ovf++ on every bucket passed.
//   lookup: walk the sequence comparing (probe index, fingerprint) then the key; stop after a
//           bucket whose ovf is 0 (nothing that started at or before it went further).
//   erase:  clear the slot; ovf-- along the path from home to it. Entries never move within
//           a table, which is what makes the SCAN guarantee hold.
//
//   size:   grow x2 when keys > 0.97 x slots (1M keys fit 2^17 buckets: ~8.5 B/key), shrink
//           when keys < slots/8 to the size that is about half full (not below 4 buckets).
//   resize: incremental, as Redis's dict. t_[0] is the old table, t_[1] the new one;
//           rehash_idx_ walks the OLD home buckets. A key whose old home < rehash_idx_ is in
//           the new table; otherwise it is in the old one, or in the new one if it was
//           inserted during the rehash (inserts always go to the new table). Every insert
//           and erase moves step_ old home buckets (step_ = max(1, old/new bucket ratio), so
//           the rehash ends before the new table can fill); the server's timer calls
//           rehash_step() too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "worker/memory/heap.hpp"

namespace ruvio::store {

using HashFn = std::uint64_t (*)(std::string_view);

// XXH3 (libxxhash) of the key bytes with a per-process random seed (table.cpp).
std::uint64_t hash_key(std::string_view key);

template <class Traits>
class HashTable {
 public:
  static constexpr std::size_t kSlotsPerBucket = 8;
  static constexpr std::size_t kBucketBytes = kSlotsPerBucket * sizeof(std::uint64_t);
  static constexpr std::size_t kMinBuckets = 4;
  static constexpr unsigned kMaxProbe = 255;
  static constexpr std::uint64_t kPtrMask = (std::uint64_t{1} << 48) - 1;

  static_assert(kBucketBytes == 64, "a bucket is one cache line");

  using Entry = typename Traits::Entry;

  explicit HashTable(Heap* heap, HashFn fn = &Traits::hash) : heap_(heap), hash_fn_(fn) {}
  ~HashTable() { clear(); }
  HashTable(const HashTable&) = delete;
  HashTable& operator=(const HashTable&) = delete;

  std::uint64_t hash(std::string_view key) const { return hash_fn_(key); }
  std::size_t size() const { return t_[0].count + t_[1].count; }
  std::size_t bucket_count() const { return t_[0].nb + t_[1].nb; }
  bool rehashing() const { return t_[1].nb != 0; }

  // A slot holding an entry; valid until the table is next mutated.
  class Ref {
   public:
    Ref() = default;
    explicit Ref(std::uint64_t* s) : slot_(s) {}
    explicit operator bool() const { return slot_ != nullptr; }
    Entry* get() const { return reinterpret_cast<Entry*>(*slot_ & kPtrMask); }
    void set(Entry* r) { *slot_ = (*slot_ & ~kPtrMask) | reinterpret_cast<std::uintptr_t>(r); }

   private:
    std::uint64_t* slot_ = nullptr;
  };

  Ref find(std::string_view key, std::uint64_t h) const;
  // The key of r must not be in the table.
  void insert(Entry* r, std::uint64_t h);
  // An empty table sized for n entries at once (RESTORE of a collection knows its size):
  // the inserts that follow do not rehash. Does nothing to a table holding entries.
  void reserve(std::size_t n);
  // Removes the key and returns its entry (nullptr when missing).
  Entry* erase(std::string_view key, std::uint64_t h);

  // Moves the entries of up to n old home buckets; returns true while a rehash remains.
  bool rehash_step(std::size_t n);

  // One SCAN step (Redis dictScan): calls f(Entry*) for every entry of the home bucket(s)
  // the cursor names and returns the next cursor (0 = done).
  template <class F>
  std::uint64_t scan(std::uint64_t v, F&& f) const;

  // Up to 8 entries of one random bucket chosen from rnd (empty buckets give 0).
  std::size_t sample_bucket(std::uint64_t rnd, Entry** out) const;

  // The entry in the slot rnd names among all slots of both arrays, or nullptr for an empty
  // slot. Every entry holds exactly one slot, so retrying until an entry comes back picks
  // each entry with the same probability (rejection sampling). sample_bucket() is not fair
  // for that: an entry in a bucket of one is 8 times as likely as one in a full bucket.
  Entry* sample_slot(std::uint64_t rnd) const;
  // A uniformly chosen entry (nullptr when empty): sample_slot() draws from next(), then,
  // after 256 empty slots (a table is at least 1/8 full: odds below 1e-14), the k-th entry
  // of a walk, which is uniform too.
  template <class Next>
  Entry* fair_random(Next&& next) const {
    if (size() == 0) return nullptr;
    for (int tries = 0; tries < 256; ++tries)
      if (Entry* e = sample_slot(next())) return e;
    std::size_t k = static_cast<std::size_t>(next() % size());
    Entry* got = nullptr;
    for_each([&](Entry* e) {
      if (k-- == 0) got = e;
    });
    return got;
  }

  // Starts loading the home bucket(s) of hash h into the cache (a find(key, h) soon after
  // then waits for one miss less). Reads nothing, changes nothing.
  void prefetch(std::uint64_t h) const {
    for (const Arr& a : t_)
      if (a.nb != 0) __builtin_prefetch(a.slots + (h & (a.nb - 1)) * kSlotsPerBucket);
  }

  template <class F>
  void for_each(F&& f) const {
    for (const Arr& a : t_)
      for (std::size_t i = 0; i < a.nb * kSlotsPerBucket; ++i)
        if (a.slots[i] & kPtrMask) f(reinterpret_cast<Entry*>(a.slots[i] & kPtrMask));
  }

  // Lazy free: calls f(Entry*) for up to `max` entries, in slot order from position `*pos`
  // (which it advances), while nothing changes the table. False once the end is reached.
  template <class F>
  bool walk(std::size_t* pos, std::size_t max, F&& f) const {
    const std::size_t n0 = t_[0].nb * kSlotsPerBucket;
    const std::size_t end = n0 + t_[1].nb * kSlotsPerBucket;
    std::size_t found = 0;
    for (std::size_t visits = 0; *pos < end && found < max && visits < max * 8; ++visits) {
      const std::uint64_t v = *pos < n0 ? t_[0].slots[*pos] : t_[1].slots[*pos - n0];
      ++*pos;
      if (v & kPtrMask) {
        f(reinterpret_cast<Entry*>(v & kPtrMask));
        ++found;
      }
    }
    return *pos < end;
  }

  // Lazy free of a collection's table in bounded steps: takes up to `max` entries out of the
  // table (slot order, visiting at most 8 x max slots) and passes each to f, which frees it;
  // size() counts what is left. False once the table is empty. The first call turns the table
  // into a teardown: from then on only drain(), size() and clear() may be called (slots go
  // without their overflow counts, the resize is abandoned, and rehash_idx_ becomes the walk
  // position, so the table stays its size; step_ == 0 marks the state).
  template <class F>
  bool drain(std::size_t max, F&& f) {
    if (step_ != 0) {
      step_ = 0;
      rehash_idx_ = 0;
    }
    const std::size_t n0 = t_[0].nb * kSlotsPerBucket;
    const std::size_t end = n0 + t_[1].nb * kSlotsPerBucket;
    std::size_t found = 0;
    for (std::size_t visits = 0; rehash_idx_ < end && found < max && visits < max * 8; ++visits) {
      Arr& a = rehash_idx_ < n0 ? t_[0] : t_[1];
      std::uint64_t& slot = a.slots[rehash_idx_ < n0 ? rehash_idx_ : rehash_idx_ - n0];
      ++rehash_idx_;
      if (slot & kPtrMask) {
        Entry* e = reinterpret_cast<Entry*>(slot & kPtrMask);
        slot = 0;
        --a.count;
        f(e);
        ++found;
      }
    }
    return size() != 0;
  }

  // Frees the arrays (not the records) and returns to the empty state.
  void clear();

  void swap(HashTable& o);
  // Where the arrays come from: a value object moved to another Db (MOVE, SWAPDB) follows its
  // new Db's heap.
  void set_heap(Heap* heap) { heap_ = heap; }
  // mi_usable_size of the arrays (not the entries): a collection's MEMORY USAGE counts them.
  std::size_t alloc_bytes() const {
    std::size_t n = 0;
    for (const Arr& a : t_)
      if (a.nb != 0) n += mi_usable_size(a.slots) + mi_usable_size(a.ovf);
    return n;
  }

  // Recomputes counts and overflow bytes from the slots (tests): true when consistent.
  bool check_invariants() const;

 private:
  struct Arr {
    std::uint64_t* slots = nullptr;  // nb * 8 slots
    std::uint8_t* ovf = nullptr;
    std::size_t nb = 0;
    std::size_t count = 0;
  };

  static std::uint64_t* find_in(const Arr& a, std::string_view key, std::uint64_t h);
  static bool place(Arr& a, Entry* r, std::uint64_t h);
  static void dec_path(Arr& a, std::size_t home, unsigned j);
  template <class F>
  static void visit_home(const Arr& a, std::size_t home, F&& f);

  void alloc_arr(Arr& a, std::size_t nb);
  void free_arr(Arr& a);
  void start_resize(std::size_t nb);
  void finish_rehash_now();
  // Grows when nearly full; shrinks (may_shrink: after an erase, as Redis shrinks on delete,
  // not on insert, so a reserve() survives the inserts that fill it) when mostly empty.
  void maybe_resize(bool may_shrink = true);
  void move_home(std::size_t home);

  Arr t_[2];
  std::size_t rehash_idx_ = 0;
  std::size_t step_ = 1;
  Heap* heap_;
  HashFn hash_fn_;
};

template <class Traits>
template <class F>
void HashTable<Traits>::visit_home(const Arr& a, std::size_t home, F&& f) {
  std::size_t mask = a.nb - 1;
  std::size_t p = home;
  for (unsigned j = 0; j <= kMaxProbe; ++j) {
    const std::uint64_t* b = a.slots + p * kSlotsPerBucket;
    for (std::size_t s = 0; s < kSlotsPerBucket; ++s)
      if ((b[s] & kPtrMask) && (b[s] >> 56) == j) f(reinterpret_cast<Entry*>(b[s] & kPtrMask));
    if (a.ovf[p] == 0) return;
    p = (p + j + 1) & mask;
  }
}

inline std::uint64_t rev_bits(std::uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  return __builtin_bswap64(v);
}

template <class Traits>
template <class F>
std::uint64_t HashTable<Traits>::scan(std::uint64_t v, F&& f) const {
  if (size() == 0 || t_[0].nb == 0) return 0;
  if (!rehashing()) {
    std::uint64_t m0 = t_[0].nb - 1;
    visit_home(t_[0], v & m0, f);
    v |= ~m0;
    v = rev_bits(v);
    ++v;
    return rev_bits(v);
  }
  const Arr* small = &t_[0];
  const Arr* large = &t_[1];
  if (small->nb > large->nb) std::swap(small, large);
  std::uint64_t m0 = small->nb - 1, m1 = large->nb - 1;
  visit_home(*small, v & m0, f);
  // Then every bucket of the larger table that expands the smaller one's bucket.
  do {
    visit_home(*large, v & m1, f);
    v |= ~m1;
    v = rev_bits(v);
    ++v;
    v = rev_bits(v);
  } while (v & (m0 ^ m1));
  return v;
}

}  // namespace ruvio::store
