// The heap of one Db: every block a Db owns (records, string buffers, tables, value objects)
// is allocated and freed through it, so used_memory() is the exact sum of mi_usable_size.
// Value types (worker/types/) allocate through the Heap they are given, never with new.
#pragma once

#include <mimalloc.h>

#include <cstddef>

#include "worker/store/alloc_sampler.hpp"

namespace ruvio::store {

// Counts the allocator-usable bytes of everything a Db owns, so used_memory() is exact.
// alloc/zalloc_line live in record.cpp, beside their hottest caller (Record::create).
struct Heap {
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
};

}  // namespace ruvio::store
