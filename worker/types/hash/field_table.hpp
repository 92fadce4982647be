// The large encoding of a hash ("hashtable"): the shared open-addressing HashTable over
// field records, one heap block per field, no per-entry node (the table's 8-byte slots point
// straight at the records).
//
//   field record (one block, sized to its mimalloc bin):
//     [varint (flen << 1 | has_ttl)][varint vlen][field bytes][value bytes]
//     [i64 expire_at][u32 slot]?
//     varint         LEB128: 7 bits a byte, low group first, bit 7 = more follows
//     has_ttl        the record ends with the field's absolute expiry in Unix ms and its
//                    index in the table's by_time heap (both unaligned, little-endian); a
//                    field without a TTL pays no byte for either (the flag rides in the
//                    length's low bit)
//   Example "f" -> "v1": 02 02 66 76 31 (5 bytes, an 8-byte bin); with a TTL 03 .. +12 bytes.
//   The slot is what makes a TTL change or a delete O(log n) in the heap: the record knows
//   where its heap entry is, so the heap entry can be a bare pointer (8 bytes a TTL field).
//
//   FieldTable (the object the Hash points at, one block):
//     [HashTable<FieldTraits> table][u64 entry_bytes][FieldRec** by_time][u32 ttl_fields]
//     [u32 by_time_cap]
//     entry_bytes    mi_usable_size summed over the records, kept as they come and go, so
//                    MEMORY USAGE and MOVE's accounting are O(1) and exact
//     by_time        binary min-heap of the records with a TTL, ordered by expire_at (read
//                    from the records): by_time[0] is the next field to expire, so lazy and
//                    active expiry take due fields from the top and never walk the table.
//                    Its own block from the Db's heap, null while no field has a TTL
//     ttl_fields     records with has_ttl set = the heap's size (0: lookups and active expiry
//                    skip the hash)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "worker/containers/hashtable.hpp"
#include "worker/memory/heap.hpp"

namespace ruvio::types::hash {

struct FieldRec;  // opaque bytes, drawn above

namespace field_detail {
inline std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline std::uint8_t* put_varint(std::uint8_t* p, std::uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<std::uint8_t>(v);
  return p;
}
inline const std::uint8_t* get_varint(const std::uint8_t* p, std::uint64_t* v) {
  std::uint64_t r = 0;
  unsigned shift = 0;
  while (*p & 0x80) {
    r |= std::uint64_t(*p++ & 0x7F) << shift;
    shift += 7;
  }
  r |= std::uint64_t(*p++) << shift;
  *v = r;
  return p;
}
}  // namespace field_detail

// A decoded view of a record.
struct FieldView {
  std::string_view field;
  std::string_view value;
  bool has_ttl = false;
  std::int64_t expire_at = -1;
};

inline FieldView view(const FieldRec* r) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(r);
  std::uint64_t a, vlen;
  p = field_detail::get_varint(p, &a);
  p = field_detail::get_varint(p, &vlen);
  FieldView v;
  const std::size_t flen = a >> 1;
  v.field = {reinterpret_cast<const char*>(p), flen};
  v.value = {reinterpret_cast<const char*>(p + flen), vlen};
  v.has_ttl = (a & 1) != 0;
  if (v.has_ttl) std::memcpy(&v.expire_at, p + flen + vlen, 8);
  return v;
}

inline FieldRec* make_field(store::Heap& heap, std::string_view field, std::string_view value,
                            std::int64_t expire_at) {
  const bool ttl = expire_at >= 0;
  const std::uint64_t a = (std::uint64_t(field.size()) << 1) | (ttl ? 1 : 0);
  const std::size_t n = field_detail::varint_size(a) + field_detail::varint_size(value.size()) +
                        field.size() + value.size() + (ttl ? 12 : 0);
  auto* p = static_cast<std::uint8_t*>(heap.alloc(n));
  std::uint8_t* q = field_detail::put_varint(p, a);
  q = field_detail::put_varint(q, value.size());
  if (!field.empty()) std::memcpy(q, field.data(), field.size());
  q += field.size();
  if (!value.empty()) std::memcpy(q, value.data(), value.size());
  q += value.size();
  if (ttl) {
    const std::uint32_t slot = 0;  // set when the record enters the heap
    std::memcpy(q, &expire_at, 8);
    std::memcpy(q + 8, &slot, 4);
  }
  return reinterpret_cast<FieldRec*>(p);
}

// A TTL record's expiry and heap slot (has_ttl records only).
inline std::uint8_t* ttl_tail(const FieldRec* r) {
  const FieldView v = view(r);
  return reinterpret_cast<std::uint8_t*>(const_cast<char*>(v.value.data() + v.value.size()));
}
inline std::uint32_t slot_of(const FieldRec* r) {
  std::uint32_t i;
  std::memcpy(&i, ttl_tail(r) + 8, 4);
  return i;
}
inline void set_slot(FieldRec* r, std::uint32_t i) {
  std::memcpy(ttl_tail(r) + 8, &i, 4);
}

struct FieldTraits {
  using Entry = FieldRec;
  static std::string_view key(const FieldRec* r) { return view(r).field; }
  static std::uint64_t hash(std::string_view key) { return store::hash_key(key); }
  static bool equal(std::string_view a, std::string_view b) { return a == b; }
};

using Table = store::HashTable<FieldTraits>;

}  // namespace ruvio::types::hash

namespace ruvio::store {
extern template class HashTable<types::hash::FieldTraits>;
}

namespace ruvio::types::hash {

struct FieldTable {
  explicit FieldTable(store::Heap* heap) : table(heap) {}
  Table table;
  std::size_t entry_bytes = 0;
  FieldRec** by_time = nullptr;
  std::uint32_t ttl_fields = 0;
  std::uint32_t by_time_cap = 0;
};

}  // namespace ruvio::types::hash
