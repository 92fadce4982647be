// The record: one mimalloc allocation per key holding its header, key bytes and value.
//
//   byte 0      hdr    bits 0..2 type (Type), bits 3..6 encoding (Enc), bit 7 has_ttl
//   byte 1      clock  LRU mode: access time in seconds mod 256; LFU mode: Redis LFU counter
//   [8 bytes]   expire absolute Unix ms, little-endian, present only when has_ttl
//   varint      key length (LEB128: 1 byte up to 127, 2 up to 16383, ...)
//   key bytes
//   payload, by encoding:
//     kEmbStr   varint length + bytes                     (values up to kEmbedMax bytes, an
//               HLL up to kEmbedHllMax: see embeds())
//     kEmbRaw   the same bytes as kEmbStr, a string edited in place (SETBIT, BITFIELD, PFADD,
//               BITOP's result): OBJECT ENCODING says "raw" for it, as Redis's
//               dbUnshareStringValue makes such a string raw; SET makes it kEmbStr again
//     kExtStr   8-byte pointer to an ExtBuf                (longer values, APPEND/SETRANGE)
//     kObject   8-byte pointer to a value object           (types::Object, worker/types/)
//     kInline   a folded value object, no length stored:   (small compact collections)
//               [u8 type id][u8 enc][u8 1 = kFoldedMark][listpack or intset blob ...]
//               its size is the blob's own (listpack total bytes, intset header x width) + 3,
//               at most types::kInlineMax (256); value.hpp draws the folded form
//     kInt1..8  1..8 little-endian two's-complement bytes  (canonical int64 strings, no text)
//
//   ExtBuf (separate allocation): [u64 length][bytes ...]; capacity = mi_usable_size - 8,
//   so no capacity field is stored. Grown like sds: double below 1 MB, else +1 MB.
//
// No field is aligned: the record is read with memcpy, so the header costs 2 bytes, not 8.
// What a key costs is the mimalloc bin its record lands in. mimalloc 2.0.9 as built by Debian
// (mi_good_size, pinned in test_record.cpp):
//   8 16 32 48 64 80 96 112 128 160 192 224 256 320 384 448 512 640 768 896 1024 1280 ...
// (16-byte steps from 16 to 128: this build has no 24/40/56/72-byte bins.)
//   "k:123456" + 64-byte value      2+1+8+1+64 = 76 -> 80 B
//   "c:123456" holding int 123456   2+1+8+3    = 14 -> 16 B
//   16-byte key + 16-byte value     2+1+16+1+16 = 36 -> 48 B   (32 would need 4 bytes less:
//                                   ASCII 8-in-7 packing of key and value is the next step)
//   a TTL adds 8 bytes, often absorbed by bin slack.
//
// kInline: a hash of 3 short fields costs one 80 B record instead of a 32 B record + a 16 B
// object + a 64 B blob (112 B); 4 small integers with a 10-byte key fit a 32 B record
//   2 hdr + 1 + "iset:12345" 10 + 3 + intset 8 + 4 x 2 = 32 -> 32 B   (was 32 + 16 + 16)
// Reads see the folded object in place (Entry::object() points into the record); writes go
// through the write handle, which edits a heap copy and folds it back on release (db.cpp).
//
// kEmbedHllMax (3072): a value beginning with an HLL's magic "HYLL" (worker/types/hll/hll.hpp)
// stays embedded up to 3 KiB, which holds a sparse HLL up to hll-sparse-max-bytes' default
// 3000 bytes. PFCOUNT of a cached HLL reads only its 16-byte header (magic, encoding, cached
// cardinality): embedded, that header sits in the record's first cache line, which the
// lookup's key compare has just read; in an ExtBuf it was one more line missed per request.
// The record is smaller too (no pointer, no ExtBuf length, no sds-style doubling). What it
// costs: a rebuild of such a record (EXPIRE, RENAME, a PFADD crossing a bin) copies up to
// 3 KiB; within the bin PFADD grows it in place (resize_embedded). Dense HLLs (12304 bytes)
// and every other string keep the 1 KiB rule, so ordinary strings are laid out as before.
//
// kEmbedMax (1024): with an 8-byte key, embedding saves 16-32 B at every value length from 45
// to 4000 B (the 32 B pointer record + the buffer's own rounding), so the limit is not a
// memory trade-off; it bounds the copy when a record is rebuilt (EXPIRE on a key without
// TTL, PERSIST, RENAME) to about 1 KiB.
#pragma once

#include <mimalloc.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "worker/containers/canonical_int.hpp"
#include "worker/memory/heap.hpp"
#include "worker/store/db.hpp"

namespace ruvio::types {
struct Object;
}

namespace ruvio::store {

enum class Enc : std::uint8_t {
  kEmbStr = 0,
  kExtStr = 1,
  kObject = 2,
  kInline = 3,  // a folded value object in the record (types::is_folded)
  kEmbRaw = 4,  // kEmbStr's layout, reported "raw" (edited in place)
  kInt1 = 8,    // kInt1 + (n - 1) holds an n-byte integer, n = 1..8
};

inline constexpr std::size_t kHeaderBytes = 2;     // hdr + clock
inline constexpr std::size_t kExpireBytes = 8;     // only with has_ttl
inline constexpr std::size_t kEmbedMax = 1024;     // longer string values go to an ExtBuf
inline constexpr std::size_t kEmbedHllMax = 3072;  // ... unless they begin "HYLL" (above)
inline constexpr std::size_t kEmbstrMax = 44;      // Redis's OBJECT ENCODING embstr limit
inline constexpr std::uint8_t kLfuInitVal = 5;     // Redis LFU_INIT_VAL

using containers::int_text_len;
using containers::parse_canonical_int;

// A value to store, borrowed from the caller.
struct Payload {
  Enc enc = Enc::kEmbStr;  // kEmbStr, kExtStr (ext points to a buffer the record will own),
  std::string_view bytes;  // kInt1 (the width is chosen when building), kObject
  std::int64_t i = 0;
  void* ptr = nullptr;  // ExtBuf or collection object; kInline: an object to fold, `bytes`
                        // its foldable_blob() (or null: `bytes` are the folded bytes of
                        // another record)

  // An int when canonical (unless `detect_int` is false), else emb/ext.
  static Payload of_string(std::string_view v, bool detect_int = true);
  static Payload of_int(std::int64_t v) {
    Payload p;
    p.enc = Enc::kInt1;
    p.i = v;
    return p;
  }
};

// LEB128, as the record stores its key and value lengths. Inline: every lookup's key compare
// and every string read decodes one.
inline const std::uint8_t* get_varint(const std::uint8_t* p, std::size_t* v) {
  std::size_t r = 0;
  unsigned shift = 0;
  while (*p & 0x80) {
    r |= static_cast<std::size_t>(*p++ & 0x7f) << shift;
    shift += 7;
  }
  r |= static_cast<std::size_t>(*p++) << shift;
  *v = r;
  return p;
}

// Whether a string value of `n` bytes beginning with `head` (its first bytes, or all of them)
// is embedded in the record: the one rule, for SET and for the string write handle.
inline bool embeds(std::size_t n, std::string_view head) {
  if (n <= kEmbedMax) return true;
  return n <= kEmbedHllMax && head.size() >= 4 && std::memcmp(head.data(), "HYLL", 4) == 0;
}

// The external string buffer.
namespace ext {
void* make(Heap& heap, std::string_view bytes, std::size_t min_cap);
inline std::size_t len(const void* b) {
  std::uint64_t n;
  std::memcpy(&n, b, 8);
  return static_cast<std::size_t>(n);
}
inline void set_len(void* b, std::size_t n) {
  std::uint64_t v = n;
  std::memcpy(b, &v, 8);
}
inline char* data(void* b) {
  return static_cast<char*>(b) + 8;
}
inline const char* data(const void* b) {
  return static_cast<const char*>(b) + 8;
}
inline std::size_t cap(const void* b) {
  return mi_usable_size(b) - 8;
}
// Returns a buffer with capacity >= need (the same one when it fits), keeping its bytes.
void* reserve(Heap& heap, void* b, std::size_t need);
}  // namespace ext

class Record {
 public:
  Record() = delete;

  // Builds a record. A kExtStr payload's buffer is owned by the record from now on.
  static Record* create(Heap& heap, Type type, std::string_view key, std::int64_t expire_at,
                        std::uint8_t clock, const Payload& p);
  // Rewrites `r` in place (same key, same has_ttl, size_for() fits mi_usable_size(r)): the
  // SET/INCR overwrite path that needs no allocation. The old payload must own nothing.
  static void rewrite(Record* r, std::int64_t expire_at, std::uint8_t clock, const Payload& p);
  // Frees the record and what it owns (external buffer, value object through its ops).
  static void destroy(Heap& heap, Record* r);
  // destroy(), but the record's block stays with the heap for its next allocation of that
  // size (Heap::release_keep): an evicted key, whose SET's new record follows.
  static void destroy_keep(Heap& heap, Record* r);
  // Frees only the record block (its external buffer was handed to another record).
  static void destroy_shallow(Heap& heap, Record* r) { heap.release(r); }
  // Bytes create() would allocate.
  static std::size_t size_for(std::string_view key, bool has_ttl, const Payload& p);

 private:
  static void write(std::uint8_t* out, Type type, std::string_view key, std::int64_t expire_at,
                    std::uint8_t clock, const Payload& p);
  static void release_owned(Heap& heap, Record* r);  // the external buffer / value object

 public:
  Type type() const { return static_cast<Type>(b()[0] & 7u); }
  Enc enc() const { return static_cast<Enc>((b()[0] >> 3) & 15u); }
  bool has_ttl() const { return (b()[0] & 0x80u) != 0; }
  std::int64_t expire_at() const {
    if (!has_ttl()) return kNoExpire;
    std::int64_t v;
    std::memcpy(&v, b() + kHeaderBytes, 8);
    return v;
  }
  void set_expire_in_place(std::int64_t at) { std::memcpy(wb() + kHeaderBytes, &at, 8); }
  std::uint8_t clock() const { return b()[1]; }
  void set_clock(std::uint8_t c) { wb()[1] = c; }

  std::string_view key() const;
  bool is_int() const { return enc() >= Enc::kInt1; }
  std::int64_t int_value() const;
  std::string_view str() const;  // kEmbStr / kEmbRaw / kExtStr
  std::size_t str_len() const;   // string form length in any string encoding
  void* ext_buf() const;         // kExtStr buffer
  bool has_object() const { return enc() == Enc::kObject || enc() == Enc::kInline; }
  types::Object* object() const;      // kObject value, or kInline's folded object in place
  void set_object(types::Object* o);  // kObject: another object (an encoding conversion)
  void set_ext_buf(void* buf);        // kExtStr: after ext::reserve moved it
  // kEmbStr -> kEmbRaw in place (the bytes do not move).
  void mark_raw() {
    if (enc() == Enc::kEmbStr) wb()[0] |= static_cast<std::uint8_t>(Enc::kEmbRaw) << 3;
  }
  // kEmbStr / kEmbRaw: makes the value `n` bytes where it lies (kept bytes stay, new ones are
  // zero) when `n` bytes beginning as these still embed (embeds()), the record's block is
  // still the bin size_for() would pick and the length's varint keeps its width; false
  // (nothing changed) otherwise. A PFADD that grows a sparse HLL by an opcode byte moves
  // nothing.
  bool resize_embedded(std::size_t n);
  Payload payload() const;  // a view of the value (borrows this record's bytes)
  std::size_t memory_usage() const;

 private:
  const std::uint8_t* b() const { return reinterpret_cast<const std::uint8_t*>(this); }
  std::uint8_t* wb() { return reinterpret_cast<std::uint8_t*>(this); }
  const std::uint8_t* value_ptr() const;
};

// Inline (the lookup's key compare, PFCOUNT's and GET's string reads run through these).
inline std::string_view Record::key() const {
  const std::uint8_t* p = b() + kHeaderBytes + (has_ttl() ? kExpireBytes : 0);
  std::size_t n;
  p = get_varint(p, &n);
  return {reinterpret_cast<const char*>(p), n};
}

inline const std::uint8_t* Record::value_ptr() const {
  std::string_view k = key();
  return reinterpret_cast<const std::uint8_t*>(k.data()) + k.size();
}

inline void* Record::ext_buf() const {
  void* buf;
  std::memcpy(&buf, value_ptr(), 8);
  return buf;
}

inline std::string_view Record::str() const {
  if (enc() == Enc::kExtStr) {
    const void* buf = ext_buf();
    return {ext::data(buf), ext::len(buf)};
  }
  std::size_t n;
  const std::uint8_t* p = get_varint(value_ptr(), &n);
  return {reinterpret_cast<const char*>(p), n};
}

}  // namespace ruvio::store
