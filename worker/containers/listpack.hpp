// Listpack: the compact encoding of small lists, hashes, sets and sorted sets, byte for byte
// Redis 7's (so DUMP/RESTORE and the RDB codec pass the blob through as it is). This file is
// the encoding only: entries are strings or integers, with no idea of fields, scores or keys.
//
//   blob  = [u32 total bytes][u16 count][entry ...][0xFF]        header little-endian
//     total bytes  the whole blob, header and terminator included (so at most 2^32 - 1)
//     count        entries in the blob; 65535 means "unknown, walk to count" (count() writes
//                  the real figure back once a walk finds fewer than 65535, as lpLength does)
//   entry = [encoding byte(s) + data][backlen]
//     first byte    then                  holds
//     0xxxxxxx      -                     integer 0..127 (the low 7 bits)
//     10LLLLLL      L bytes               string, L < 64
//     110hhhhh      1 byte: low 8 bits    integer -4096..4095 (13-bit two's complement)
//     1110LLLL      1 byte: low 8 of L,   string, L < 4096 (high 4 bits of L in byte 0)
//                   then L bytes
//     11110000      u32 L (LE), L bytes   string, any L
//     11110001      i16 LE                integer -32768..32767
//     11110010      i24 LE                integer -2^23..2^23-1
//     11110011      i32 LE                integer -2^31..2^31-1
//     11110100      i64 LE                any int64
//     11110101 .. 11111110                unused: invalid
//     11111111                            the terminator, never an entry
//     backlen       the size of encoding + data (not of itself) in 1..5 bytes of 7 bits, most
//                   significant group first; every byte but the first has bit 7 set, so a
//                   reader on the entry's last byte steps left until a byte without it. Sizes
//                   (Redis's bounds, exclusive above 127, so 16383 takes 3 bytes — kept):
//                   <=127: 1, <16383: 2, <2097151: 3, <268435455: 4, else 5.
//   Writes always pick the narrowest form: a string that is a canonical int64 (string2ll's
//   rules: no "+1", "01", " 1", "-0") becomes an integer, and each integer or string takes
//   the smallest class that holds it. Readers accept any class (a RESTOREd blob may use a
//   wider one). Example, ["a", 300]:
//     0d 00 00 00 | 02 00 | 81 61 02 | c1 2c 02 | ff
//     total=13      count   "a" bl=2   13-bit 300  end
//
// Memory: the blob is one block from the Db's store::Heap, so used_memory stays exact. Its
// capacity is mi_usable_size(blob) (no capacity field). A write that outgrows the block moves
// the blob to a block of exactly the new size — mimalloc's usable sizes grow geometrically
// (16-byte steps to 128, then 4 classes per doubling; 200 KB asks get 256 KB), so appends copy
// rarely, as mi_realloc would — and a blob that falls under half its block moves to a smaller
// one (mi_realloc's rule, so push/pop at a class edge does not copy every time).
// What a small collection costs is its blob's bin: a hash of 3 fields "field:1".. with values
// "value:1".. is 7 + 6 x (1 + 7 + 1) = 61 bytes -> a 64 B block (pinned in test_listpack.cpp).
//
// Positions: a Pos is the byte offset of an entry in the blob (kNone = 0, the header). It
// survives the blob moving but not a write at or before it; every write returns the position
// of what it wrote (or, for a delete, of the entry that followed).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "worker/containers/canonical_int.hpp"
#include "worker/memory/heap.hpp"

namespace ruvio::types {

class Listpack {
 public:
  using Pos = std::uint32_t;
  static constexpr Pos kNone = 0;
  static constexpr std::size_t kHeaderBytes = 6;
  static constexpr std::size_t kEmptyBytes = kHeaderBytes + 1;
  static constexpr std::uint16_t kCountUnknown = 65535;
  static constexpr std::uint8_t kEnd = 0xFF;
  // Redis refuses to grow a listpack past 1 GiB (lpSafeToAdd); callers convert long before.
  static constexpr std::size_t kSafeBytes = std::size_t{1} << 30;

  // Room for any int64 in decimal ("-9223372036854775808").
  using IntBuf = std::array<char, 20>;

  // An entry as stored: an integer, or a string borrowed from the blob (valid until the next
  // write).
  struct Entry {
    bool is_int = false;
    std::int64_t i = 0;
    std::string_view str;
  };

  // A value to write. A string that is a canonical int64 is stored as that integer.
  class Elem {
   public:
    Elem(std::string_view s);
    Elem(const char* s) : Elem(std::string_view(s)) {}
    Elem(const std::string& s) : Elem(std::string_view(s)) {}
    template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) Elem(T v)
        : is_int_(true), i_(static_cast<std::int64_t>(v)) {}

    bool is_int() const { return is_int_; }
    std::int64_t int_value() const { return i_; }
    std::string_view str() const { return s_; }

   private:
    bool is_int_ = false;
    std::int64_t i_ = 0;
    std::string_view s_;
  };

  enum class Where { kBefore, kAfter };

  Listpack() = default;
  // A handle on an existing blob (as a value object stores it). Handles do not own: a write
  // through one handle may move the blob, leaving copies of the handle stale.
  explicit Listpack(std::uint8_t* blob) : lp_(blob) {}

  static Listpack create(store::Heap& heap);
  // A copy of untrusted bytes (a RESTORE payload) after validate(); nullopt when invalid.
  static std::optional<Listpack> load(store::Heap& heap, std::span<const std::uint8_t> bytes);
  Listpack clone(store::Heap& heap) const;
  void destroy(store::Heap& heap);

  // lpValidateIntegrity's deep check: header total equals the size, terminator last, every
  // entry's encoding known, its length and backlen inside the blob, the backlen exactly the
  // one a writer produces, and the count (unless 65535) equal to the entries walked. Never
  // reads outside `bytes`. `count` (optional) receives the number of entries.
  static bool validate(std::span<const std::uint8_t> bytes, std::size_t* count = nullptr);

  explicit operator bool() const { return lp_ != nullptr; }
  std::uint8_t* blob() const { return lp_; }
  std::span<const std::uint8_t> span() const { return {lp_, bytes()}; }
  std::size_t bytes() const;                                      // the blob's total bytes
  std::size_t alloc_size() const { return mi_usable_size(lp_); }  // what it costs
  bool empty() const { return lp_[kHeaderBytes] == kEnd; }
  // Entries; walks the blob when the header says 65535 (and refreshes the header when the walk
  // finds fewer).
  std::size_t count() const;
  // Whether `add` more bytes keep the blob under kSafeBytes.
  bool safe_to_add(std::size_t add) const { return bytes() + add <= kSafeBytes; }

  Pos first() const;
  Pos last() const;
  Pos next(Pos p) const;
  Pos prev(Pos p) const;
  // The entry at `index` (negative counts from the end: -1 is the last); kNone when out of
  // range. Walks from the nearer end when the count is known.
  Pos seek(std::int64_t index) const;

  Entry get(Pos p) const;
  // The entry as text: strings as stored, integers formatted into `buf`.
  std::string_view get_str(Pos p, IntBuf& buf) const;
  // The integer value when the entry is stored as an integer.
  std::optional<std::int64_t> get_int(Pos p) const;
  // Whether the entry equals `s` (an integer entry equals the canonical text of its value).
  bool equals(Pos p, std::string_view s) const;

  // The first entry equal to `s` among from, then every (skip + 1)-th entry after it (skip = 1
  // visits the fields of a field/value listpack); kNone when none is.
  Pos find(Pos from, std::string_view s, unsigned skip = 0) const;

  // Writes return the position of the new entry.
  Pos append(store::Heap& heap, Elem e);
  Pos prepend(store::Heap& heap, Elem e);
  Pos insert(store::Heap& heap, Pos at, Where where, Elem e);
  Pos replace(store::Heap& heap, Pos at, Elem e);
  // Deletes the entry at `at`; returns the position of the entry that followed it, or kNone
  // when it was the last.
  Pos erase(store::Heap& heap, Pos at);
  // Deletes up to `n` entries starting at `at`; returns what erase() returns. The count comes
  // down by the entries actually deleted.
  Pos erase(store::Heap& heap, Pos at, std::size_t n);
  // Deletes up to `n` entries starting at index `index` (negative from the end), as
  // lpDeleteRange; nothing when the index is out of range.
  void erase_range(store::Heap& heap, std::int64_t index, std::size_t n);

 private:
  std::uint16_t header_count() const;
  void set_header_count(std::uint16_t n) const;
  void add_count(std::int64_t delta);
  // Makes room: the `old_len` bytes at `off` become `new_len` uninitialised bytes.
  void splice(store::Heap& heap, std::size_t off, std::size_t old_len, std::size_t new_len);
  Pos write_at(store::Heap& heap, std::size_t off, std::size_t old_len, const Elem& e);

  std::uint8_t* lp_ = nullptr;
};

// The wire pieces, exposed for the tests and the RDB codec.
namespace listpack_detail {
// Bytes of the backlen for an entry whose encoding + data take `len` bytes (1..5).
std::size_t backlen_size(std::uint64_t len);
// Writes the backlen of `len` into out[0..backlen_size(len)).
void encode_backlen(std::uint8_t* out, std::uint64_t len);
// Reads the backlen whose last byte is *last (bytes before it must be readable while bit 7 is
// set, at most 4 of them); UINT64_MAX when more than 5 bytes would be needed.
std::uint64_t decode_backlen(const std::uint8_t* last);
// Writes the narrowest integer encoding of v into out (up to 9 bytes); returns its length.
std::size_t encode_int(std::uint8_t* out, std::int64_t v);
}  // namespace listpack_detail

}  // namespace ruvio::types
