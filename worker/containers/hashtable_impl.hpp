// The member functions of HashTable<Traits> (hashtable.hpp, where the layout is drawn). A .cpp
// that instantiates the table for an entry type includes this file once, with
// `template class HashTable<ItsTraits>;` (table.cpp does it for the keyspace).
#pragma once

#include <cstdlib>
#include <cstring>
#include <vector>

#include "worker/containers/hashtable.hpp"

namespace ruvio::store {

namespace table_detail {
constexpr std::uint64_t make_slot(std::uintptr_t entry, std::uint64_t h, unsigned j) {
  return entry | ((h >> 56) << 48) | (static_cast<std::uint64_t>(j) << 56);
}
}  // namespace table_detail

template <class Traits>
void HashTable<Traits>::alloc_arr(Arr& a, std::size_t nb) {
  // Zeroed memory from mimalloc: large tables come straight from fresh OS pages.
  // Two blocks, not one: mimalloc rounds huge blocks up to whole MiB, so 8 MiB of buckets
  // plus 128 KiB of overflow bytes in one block would cost 9 MiB.
  a.slots = static_cast<std::uint64_t*>(heap_->zalloc_line(nb * kBucketBytes));
  a.ovf = static_cast<std::uint8_t*>(heap_->zalloc_line(nb));
  a.nb = nb;
  a.count = 0;
}

template <class Traits>
void HashTable<Traits>::free_arr(Arr& a) {
  heap_->release(a.slots);
  heap_->release(a.ovf);
  a = Arr{};
}

template <class Traits>
void HashTable<Traits>::clear() {
  free_arr(t_[0]);
  free_arr(t_[1]);
  rehash_idx_ = 0;
  step_ = 1;
}

template <class Traits>
void HashTable<Traits>::swap(HashTable& o) {
  std::swap(t_, o.t_);
  std::swap(rehash_idx_, o.rehash_idx_);
  std::swap(step_, o.step_);
  std::swap(heap_, o.heap_);
  std::swap(hash_fn_, o.hash_fn_);
}

template <class Traits>
std::uint64_t* HashTable<Traits>::find_in(const Arr& a, std::string_view key, std::uint64_t h) {
  if (a.count == 0) return nullptr;
  std::size_t mask = a.nb - 1;
  std::size_t p = h & mask;
  std::uint64_t tag = (h >> 56) << 48;
  for (unsigned j = 0; j <= kMaxProbe; ++j) {
    std::uint64_t* b = a.slots + p * kSlotsPerBucket;
    std::uint64_t want = tag | (static_cast<std::uint64_t>(j) << 56);
    for (std::size_t s = 0; s < kSlotsPerBucket; ++s) {
      std::uint64_t v = b[s];
      if ((v & ~kPtrMask) == want && (v & kPtrMask)) {
        if (Traits::equal(Traits::key(reinterpret_cast<const Entry*>(v & kPtrMask)), key))
          return &b[s];
      }
    }
    if (a.ovf[p] == 0) return nullptr;
    p = (p + j + 1) & mask;
  }
  return nullptr;
}

template <class Traits>
bool HashTable<Traits>::place(Arr& a, Entry* r, std::uint64_t h) {
  std::size_t mask = a.nb - 1;
  std::size_t home = h & mask;
  std::size_t p = home;
  for (unsigned j = 0; j <= kMaxProbe; ++j) {
    std::uint64_t* b = a.slots + p * kSlotsPerBucket;
    for (std::size_t s = 0; s < kSlotsPerBucket; ++s) {
      if (b[s] & kPtrMask) continue;
      b[s] = table_detail::make_slot(reinterpret_cast<std::uintptr_t>(r), h, j);
      std::size_t q = home;
      for (unsigned k = 0; k < j; ++k) {
        if (a.ovf[q] != 255) ++a.ovf[q];
        q = (q + k + 1) & mask;
      }
      ++a.count;
      return true;
    }
    p = (p + j + 1) & mask;
  }
  return false;
}

template <class Traits>
void HashTable<Traits>::dec_path(Arr& a, std::size_t home, unsigned j) {
  std::size_t mask = a.nb - 1;
  std::size_t q = home;
  for (unsigned k = 0; k < j; ++k) {
    if (a.ovf[q] != 255) --a.ovf[q];
    q = (q + k + 1) & mask;
  }
}

template <class Traits>
typename HashTable<Traits>::Ref HashTable<Traits>::find(std::string_view key,
                                                        std::uint64_t h) const {
  if (!rehashing()) return Ref(find_in(t_[0], key, h));
  if ((h & (t_[0].nb - 1)) >= rehash_idx_) {
    if (std::uint64_t* s = find_in(t_[0], key, h)) return Ref(s);
  }
  return Ref(find_in(t_[1], key, h));
}

template <class Traits>
void HashTable<Traits>::insert(Entry* r, std::uint64_t h) {
  if (rehashing()) rehash_step(step_);
  if (t_[0].nb == 0) alloc_arr(t_[0], kMinBuckets);
  maybe_resize(false);
  while (!place(rehashing() ? t_[1] : t_[0], r, h)) {
    // More than 255 probes: only a hash flood gets here. Grow synchronously until it fits.
    finish_rehash_now();
    if (t_[0].nb >= (std::size_t{1} << 36)) std::abort();  // identical hashes: cannot fit
    start_resize(t_[0].nb * 2);
    finish_rehash_now();
  }
}

template <class Traits>
typename HashTable<Traits>::Entry* HashTable<Traits>::erase(std::string_view key, std::uint64_t h) {
  if (rehashing()) rehash_step(step_);
  for (int t = 0; t < 2; ++t) {
    Arr& a = t_[t];
    if (a.nb == 0) continue;
    if (t == 0 && rehashing() && (h & (a.nb - 1)) < rehash_idx_) continue;
    std::uint64_t* s = find_in(a, key, h);
    if (s == nullptr) continue;
    auto* r = reinterpret_cast<Entry*>(*s & kPtrMask);
    unsigned j = static_cast<unsigned>(*s >> 56);
    *s = 0;
    dec_path(a, h & (a.nb - 1), j);
    --a.count;
    maybe_resize();
    return r;
  }
  return nullptr;
}

template <class Traits>
void HashTable<Traits>::reserve(std::size_t n) {
  if (size() != 0 || rehashing()) return;
  std::size_t nb = kMinBuckets;
  while ((n + 1) * 100 > nb * kSlotsPerBucket * 97) nb *= 2;
  if (nb <= t_[0].nb) return;
  free_arr(t_[0]);
  alloc_arr(t_[0], nb);
}

template <class Traits>
void HashTable<Traits>::maybe_resize(bool may_shrink) {
  if (rehashing() || t_[0].nb == 0) return;
  std::size_t nb = t_[0].nb;
  std::size_t slots = nb * kSlotsPerBucket;
  std::size_t n = t_[0].count;
  if ((n + 1) * 100 > slots * 97) {
    start_resize(nb * 2);
  } else if (may_shrink && nb > kMinBuckets && n * 8 < slots) {
    std::size_t target = kMinBuckets;
    while (target * kSlotsPerBucket / 2 < n) target *= 2;
    if (target < nb) start_resize(target);
  }
}

template <class Traits>
void HashTable<Traits>::start_resize(std::size_t nb) {
  alloc_arr(t_[1], nb);
  rehash_idx_ = 0;
  step_ = t_[0].nb > nb ? t_[0].nb / nb : 1;
}

template <class Traits>
void HashTable<Traits>::move_home(std::size_t home) {
  Arr& a = t_[0];
  std::size_t mask = a.nb - 1;
  std::size_t p = home;
  for (unsigned j = 0; j <= kMaxProbe; ++j) {
    std::uint64_t* b = a.slots + p * kSlotsPerBucket;
    for (std::size_t s = 0; s < kSlotsPerBucket; ++s) {
      std::uint64_t v = b[s];
      if (!(v & kPtrMask) || (v >> 56) != j) continue;
      auto* r = reinterpret_cast<Entry*>(v & kPtrMask);
      b[s] = 0;
      dec_path(a, home, j);
      --a.count;
      // The new table needs hash bits the slot does not keep: hash the key again.
      if (!place(t_[1], r, hash_fn_(Traits::key(r)))) std::abort();
    }
    if (a.ovf[p] == 0) break;
    p = (p + j + 1) & mask;
  }
}

template <class Traits>
bool HashTable<Traits>::rehash_step(std::size_t n) {
  if (!rehashing()) return false;
  while (n-- > 0 && rehash_idx_ < t_[0].nb) move_home(rehash_idx_++);
  if (rehash_idx_ >= t_[0].nb || t_[0].count == 0) {
    free_arr(t_[0]);
    t_[0] = t_[1];
    t_[1] = Arr{};
    rehash_idx_ = 0;
    step_ = 1;
    return false;
  }
  return true;
}

template <class Traits>
void HashTable<Traits>::finish_rehash_now() {
  while (rehash_step(1024)) {
  }
}

template <class Traits>
std::size_t HashTable<Traits>::sample_bucket(std::uint64_t rnd, Entry** out) const {
  std::size_t total = t_[0].nb + t_[1].nb;
  if (total == 0) return 0;
  std::size_t i = static_cast<std::size_t>(rnd % total);
  const Arr& a = i < t_[0].nb ? t_[0] : t_[1];
  if (i >= t_[0].nb) i -= t_[0].nb;
  std::size_t n = 0;
  const std::uint64_t* b = a.slots + i * kSlotsPerBucket;
  for (std::size_t s = 0; s < kSlotsPerBucket; ++s)
    if (b[s] & kPtrMask) out[n++] = reinterpret_cast<Entry*>(b[s] & kPtrMask);
  return n;
}

template <class Traits>
typename HashTable<Traits>::Entry* HashTable<Traits>::sample_slot(std::uint64_t rnd) const {
  const std::size_t total = (t_[0].nb + t_[1].nb) * kSlotsPerBucket;
  if (total == 0) return nullptr;
  std::size_t i = static_cast<std::size_t>(rnd % total);
  const Arr& a = i < t_[0].nb * kSlotsPerBucket ? t_[0] : t_[1];
  if (&a == &t_[1]) i -= t_[0].nb * kSlotsPerBucket;
  return reinterpret_cast<Entry*>(a.slots[i] & kPtrMask);
}

template <class Traits>
bool HashTable<Traits>::check_invariants() const {
  for (const Arr& a : t_) {
    if (a.nb == 0) continue;
    std::size_t mask = a.nb - 1;
    std::vector<std::size_t> want(a.nb, 0);
    std::size_t count = 0;
    for (std::size_t p = 0; p < a.nb; ++p) {
      for (std::size_t s = 0; s < kSlotsPerBucket; ++s) {
        std::uint64_t v = a.slots[p * kSlotsPerBucket + s];
        if (!(v & kPtrMask)) continue;
        ++count;
        unsigned j = static_cast<unsigned>(v >> 56);
        std::size_t home = (p - std::size_t{j} * (j + 1) / 2) & mask;
        auto* r = reinterpret_cast<const Entry*>(v & kPtrMask);
        std::uint64_t h = hash_fn_(Traits::key(r));
        if ((h & mask) != home || ((h >> 56) & 0xFF) != ((v >> 48) & 0xFF)) return false;
        std::size_t q = home;
        for (unsigned k = 0; k < j; ++k) {
          ++want[q];
          q = (q + k + 1) & mask;
        }
      }
    }
    if (count != a.count) return false;
    for (std::size_t p = 0; p < a.nb; ++p)
      if (a.ovf[p] != 255 && a.ovf[p] != want[p]) return false;
  }
  return true;
}

}  // namespace ruvio::store
