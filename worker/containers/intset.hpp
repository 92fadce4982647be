// Intset: the encoding of small all-integer sets, byte for byte Redis's (RDB type 11 carries
// this blob as it is). The encoding only: no set commands, no conversion policy.
//
//   blob = [u32 encoding][u32 length][member 0][member 1] ... [member length-1]
//     encoding  2, 4 or 8: the width in bytes of every member (int16, int32, int64)
//     length    number of members
//     members   two's complement, little-endian, strictly ascending (so no duplicates)
//   All little-endian. Adding a member that does not fit the width rewrites every member at
//   the narrowest width that holds it ("upgrade"; such a member is below or above all others,
//   so it goes first or last). Removing never narrows the width, as Redis.
//   Example, {-5, 1, 70000}:
//     04 00 00 00 | 03 00 00 00 | fb ff ff ff | 01 00 00 00 | 70 11 01 00
//     encoding 4    length 3      -5            1             70000
//
// Memory: one block from the Db's store::Heap; capacity is mi_usable_size(blob). A blob moves
// to a block of exactly its new size when it outgrows its block or falls under half of it
// (mi_realloc's rule, as listpack.hpp explains).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <span>

#include "worker/memory/heap.hpp"

namespace ruvio::types {

class Intset {
 public:
  static constexpr std::size_t kHeaderBytes = 8;

  Intset() = default;
  // A handle on an existing blob (not owning; a write may move the blob).
  explicit Intset(std::uint8_t* blob) : is_(blob) {}

  static Intset create(store::Heap& heap);  // empty, width 2
  // A copy of untrusted bytes after validate(); nullopt when invalid.
  static std::optional<Intset> load(store::Heap& heap, std::span<const std::uint8_t> bytes);
  Intset clone(store::Heap& heap) const;
  void destroy(store::Heap& heap);

  // intsetValidateIntegrity's deep check: a known width, the size exactly header + length x
  // width, not empty (an empty set is no key, so no RDB holds one), members strictly ascending.
  // Never reads outside `bytes`.
  static bool validate(std::span<const std::uint8_t> bytes);

  // The narrowest width (2, 4 or 8) that holds v.
  static std::uint32_t width_for(std::int64_t v);

  explicit operator bool() const { return is_ != nullptr; }
  std::uint8_t* blob() const { return is_; }
  std::span<const std::uint8_t> span() const { return {is_, bytes()}; }
  std::size_t bytes() const { return kHeaderBytes + size() * width(); }
  std::size_t alloc_size() const { return mi_usable_size(is_); }
  std::uint32_t width() const { return load32(0); }
  std::size_t size() const { return load32(4); }
  bool empty() const { return size() == 0; }

  std::int64_t get(std::size_t i) const;  // i < size()
  std::int64_t min() const { return get(0); }
  std::int64_t max() const { return get(size() - 1); }
  bool contains(std::int64_t v) const {
    std::size_t pos;
    return find(v, &pos);
  }
  // Binary search: true with the position of v, or false with the position it would take.
  bool find(std::int64_t v, std::size_t* pos) const;
  // A uniformly chosen member of a non-empty set.
  template <class Rng>
  std::int64_t random(Rng& rng) const {
    std::uniform_int_distribution<std::size_t> pick(0, size() - 1);
    return get(pick(rng));
  }

  // False when v was already a member.
  bool add(store::Heap& heap, std::int64_t v);
  // False when v was not a member.
  bool remove(store::Heap& heap, std::int64_t v);

 private:
  std::uint32_t load32(std::size_t off) const {
    std::uint32_t v;
    std::memcpy(&v, is_ + off, 4);
    return v;
  }
  void store32(std::size_t off, std::uint32_t v) { std::memcpy(is_ + off, &v, 4); }
  void set(std::size_t i, std::int64_t v);
  // Gives the blob room for `new_bytes`, keeping its first `keep` bytes.
  void resize(store::Heap& heap, std::size_t keep, std::size_t new_bytes);
  void upgrade_and_add(store::Heap& heap, std::int64_t v);

  std::uint8_t* is_ = nullptr;
};

}  // namespace ruvio::types
