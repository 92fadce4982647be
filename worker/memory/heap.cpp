// Heap's allocating members (the inline ones and the accounting rules are in heap.hpp). A
// file of its own so the encodings' fuzz targets link the allocator without the record code.
#include "worker/memory/heap.hpp"

#include <cstdint>
#include <new>

namespace ruvio::store {
namespace {

[[noreturn]] void out_of_memory() {
  throw std::bad_alloc();
}

}  // namespace

void* Heap::take_spare(std::size_t n) {
  // The size class mimalloc would give n: the spare only stands in for the same block size,
  // so used_memory() moves exactly as with mi_free + mi_malloc.
  if (mi_good_size(n) != spare_usable_) return nullptr;
  void* p = spare_;
  spare_ = nullptr;
  used += spare_usable_;
  alloc_sampler().on_alloc(p, spare_usable_);
  return p;
}

void* Heap::alloc(std::size_t n) {
  if (spare_ != nullptr) [[unlikely]] {  // only after an eviction (release_keep)
    if (void* p = take_spare(n)) return p;
  }
  void* p = mi_malloc(n);
  if (p == nullptr) out_of_memory();
  const std::size_t usable = mi_usable_size(p);
  used += usable;
  alloc_sampler().on_alloc(p, usable);
  return p;
}

void* Heap::zalloc_line(std::size_t n) {
  void* p = mi_zalloc(n);
  if (p != nullptr && reinterpret_cast<std::uintptr_t>(p) % 64 != 0) {
    mi_free(p);
    p = mi_zalloc_aligned(n, 64);
  }
  if (p == nullptr) out_of_memory();
  const std::size_t usable = mi_usable_size(p);
  used += usable;
  alloc_sampler().on_alloc(p, usable);
  return p;
}

}  // namespace ruvio::store
