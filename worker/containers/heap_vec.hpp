// A growable array of trivially copyable values in one store::Heap block: the stream's node
// index and the consumer groups' sorted lists (PELs, consumers, groups). 16 bytes; the
// capacity is the block's usable size, so nothing is wasted past mimalloc's own bin.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "worker/memory/heap.hpp"

namespace ruvio::types {

template <class T>
struct HeapVec {
  static_assert(std::is_trivially_copyable_v<T>);
  T* data = nullptr;
  std::uint32_t len = 0;
  std::uint32_t cap = 0;

  std::size_t size() const { return len; }
  bool empty() const { return len == 0; }
  T& operator[](std::size_t i) { return data[i]; }
  const T& operator[](std::size_t i) const { return data[i]; }
  T* begin() { return data; }
  T* end() { return data + len; }
  const T* begin() const { return data; }
  const T* end() const { return data + len; }
  T& back() { return data[len - 1]; }
  const T& back() const { return data[len - 1]; }
  std::size_t alloc_bytes() const { return data != nullptr ? mi_usable_size(data) : 0; }

  void reserve(store::Heap& heap, std::size_t n) {
    if (n <= cap) return;
    std::size_t want = cap < 4 ? 4 : cap * 2;
    if (want < n) want = n;
    T* fresh = static_cast<T*>(heap.alloc(want * sizeof(T)));
    if (len != 0) std::memcpy(static_cast<void*>(fresh), data, len * sizeof(T));
    heap.release(data);
    data = fresh;
    cap = static_cast<std::uint32_t>(mi_usable_size(fresh) / sizeof(T));
  }
  void insert(store::Heap& heap, std::size_t at, const T& v) {
    reserve(heap, len + 1);
    std::memmove(static_cast<void*>(data + at + 1), data + at, (len - at) * sizeof(T));
    data[at] = v;
    ++len;
  }
  void push_back(store::Heap& heap, const T& v) { insert(heap, len, v); }
  void erase(std::size_t at, std::size_t n = 1) {
    std::memmove(static_cast<void*>(data + at), data + at + n, (len - at - n) * sizeof(T));
    len -= static_cast<std::uint32_t>(n);
  }
  // Gives back a block that fell under a quarter used (a trimmed or emptied list).
  void maybe_shrink(store::Heap& heap) {
    if (cap <= 8 || len * 4 > cap) return;
    if (len == 0) {
      release(heap);
      return;
    }
    T* fresh = static_cast<T*>(heap.alloc(len * 2 * sizeof(T)));
    std::memcpy(static_cast<void*>(fresh), data, len * sizeof(T));
    heap.release(data);
    data = fresh;
    cap = static_cast<std::uint32_t>(mi_usable_size(fresh) / sizeof(T));
  }
  void release(store::Heap& heap) {
    heap.release(data);
    data = nullptr;
    len = cap = 0;
  }
};

}  // namespace ruvio::types
