// The heap of one Db: every block a Db owns (records, string buffers, tables, value objects)
// is allocated and freed through it, so used_memory() is the exact sum of mi_usable_size.
// Value types (worker/types/) allocate through the Heap they are given, never with new.
#pragma once

#include <mimalloc.h>

#include <cstddef>

#include "worker/memory/alloc_sampler.hpp"

namespace ruvio::store {

// Counts the allocator-usable bytes of everything a Db owns, so used_memory() is exact.
// alloc/zalloc_line live in record.cpp, beside their hottest caller (Record::create).
struct Heap {
  Heap() = default;
  Heap(const Heap&) = delete;
  Heap& operator=(const Heap&) = delete;
  ~Heap() { mi_free(spare_); }

  // Moves `bytes` of accounting to `to` (MOVE hands a record and its value to another Db).
  void transfer(Heap& to, std::size_t bytes) {
    used -= bytes;
    to.used += bytes;
  }

  std::size_t used = 0;

  void* alloc(std::size_t n);
  // Zeroed and 64-byte aligned without mimalloc's aligned-alloc padding (which costs +1 MiB on
  // an 8 MiB table): power-of-two blocks are already aligned; the aligned call is a fallback.
  void* zalloc_line(std::size_t n);
  void release(void* p) {
    if (p == nullptr) return;
    const std::size_t usable = mi_usable_size(p);
    used -= usable;
    alloc_sampler().on_free(p, usable);
    mi_free(p);
  }

  // Frees `p` as release() does for the accounting (used, the sampler), but keeps the block
  // for the next alloc() of its size class, which then gets it back instead of a block from
  // mimalloc. An evicted record is the case: its lines were just read (the pick compared its
  // key), while the block mimalloc would hand the SET's new record next is cold, and so is
  // the victim's page that mi_free would write. One block at most (a second one frees the
  // first), small blocks only; the Heap's destructor and drop_spare() give it back.
  void release_keep(void* p) {
    const std::size_t usable = mi_usable_size(p);
    used -= usable;
    alloc_sampler().on_free(p, usable);
    if (usable > kSpareMax) {
      mi_free(p);
      return;
    }
    mi_free(spare_);
    spare_ = p;
    spare_usable_ = usable;
  }
  void drop_spare() {
    mi_free(spare_);
    spare_ = nullptr;
  }

 private:
  static constexpr std::size_t kSpareMax = 1024;
  void* spare_ = nullptr;  // release_keep's block: not counted in `used`
  std::size_t spare_usable_ = 0;
  void* take_spare(std::size_t n);
};

}  // namespace ruvio::store
