// HyperLogLog, byte for byte Redis's (hyperloglog.c): the value is a plain string, so GET,
// SET, DUMP/RESTORE and replication carry it as it is, and a blob made by redis-server works
// here and back. No RESP, no keyspace: the PF* family
// (worker/commands/hyperloglog/hll_commands.cpp) calls these on a string's bytes.
//
// Header, 16 bytes, both encodings:
//
//   0      4    5          8                         16
//   +------+----+----------+-------------------------+----------------
//   | HYLL | E  | 0  0  0  | cached cardinality u64  | registers ...
//   +------+----+----------+-------------------------+----------------
//   E = 0 dense, 1 sparse. The cardinality is little-endian; its top bit (bit 7 of byte 15)
//   set means "stale": a register changed since it was computed.
//
// Dense: 16384 registers of 6 bits, 12288 bytes (total 12304), packed from each byte's LSB up:
//
//   byte:   0        1        2        3
//         +--------+--------+--------+--------+
//         |11000000|22221111|33333322|55444444| ...      (digit = register number's bits)
//         +--------+--------+--------+--------+
//   register r: bits r*6 .. r*6+5, counting bit 0 as the LSB of byte 0.
//
// Sparse: run-length opcodes covering all 16384 registers, in order:
//
//   ZERO   00xxxxxx            xxxxxx+1 (1..64) registers at 0
//   XZERO  01xxxxxx yyyyyyyy   14-bit x:y + 1 (1..16384) registers at 0
//   VAL    1vvvvvxx            xx+1 (1..4) registers at value vvvvv+1 (1..32)
//
//   empty HLL: header + XZERO:16384 = 48 59 4c 4c 01 00 00 00 00.. 00 | 7f ff   (18 bytes)
//
// A register above 32, or a sparse form past hll-sparse-max-bytes (header included), converts
// the HLL to dense; nothing converts back. Which register an element touches and the value
// it offers come from MurmurHash64A (seed 0xadc83b19): the low 14 bits pick the register, the
// position of the first 1 bit in the other 50 (1..51) is the value. The cardinality is Otmar
// Ertl's improved estimator over the register histogram, as Redis 7 computes it, so PFCOUNT
// answers exactly what redis-server answers.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio::types::hll {

inline constexpr std::size_t kHeaderBytes = 16;
inline constexpr std::size_t kRegisters = 16384;
inline constexpr std::size_t kDenseBytes = kHeaderBytes + kRegisters * 6 / 8;  // 12304
inline constexpr std::uint8_t kDense = 0;
inline constexpr std::uint8_t kSparse = 1;
inline constexpr std::size_t kDefaultSparseMax = 3000;  // hll-sparse-max-bytes

std::uint64_t murmur64a(const void* key, std::size_t len, std::uint64_t seed);
// hllPatLen: the register `ele` hashes to, and the value (1..51) it offers it.
unsigned pattern(std::string_view ele, std::size_t* reg);

// isHLLObjectOrReply's checks: at least a header, "HYLL", a known encoding, a dense one of
// exactly kDenseBytes. (A sparse body is checked as it is read: corrupt answers false / -1.)
// Inline, as the cache reads below: PFCOUNT of a cached HLL is these and a lookup.
inline bool looks_valid(std::string_view s) {
  if (s.size() < kHeaderBytes) return false;
  std::uint32_t magic;
  std::memcpy(&magic, s.data(), 4);
  std::uint32_t want;
  std::memcpy(&want, "HYLL", 4);
  if (magic != want) return false;
  const auto enc = static_cast<std::uint8_t>(s[4]);
  if (enc > kSparse) return false;
  return enc != kDense || s.size() == kDenseBytes;
}
inline bool is_dense(std::string_view s) {
  return static_cast<std::uint8_t>(s[4]) == kDense;
}

// A new, empty sparse HLL (what PFADD creates).
void make_empty(std::string& out);

// Cached cardinality (bytes 8..15, little-endian; the top bit set: stale).
inline bool cache_valid(std::string_view s) {
  return (static_cast<std::uint8_t>(s[15]) & 0x80) == 0;
}
inline std::uint64_t cached(std::string_view s) {
  std::uint64_t v;
  std::memcpy(&v, s.data() + 8, 8);  // one load
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
void set_cache(char* s, std::uint64_t card);
void invalidate(char* s);

// A growable byte string an HLL is edited in: a std::string (PFMERGE's scratch, tests, the
// fuzz target) or a string value in the keyspace (the PF* family's adapter over
// store::StringHandle, so PFADD edits a sparse HLL where it lies).
class Buffer {
 public:
  virtual const char* view() const = 0;  // for reading: no write implied
  virtual char* data() = 0;              // for writing
  virtual std::size_t size() const = 0;
  virtual void resize(std::size_t n) = 0;  // kept bytes stay; data() may move

 protected:
  ~Buffer() = default;
};

class StringBuffer final : public Buffer {
 public:
  explicit StringBuffer(std::string& s) : s_(s) {}
  const char* view() const override { return s_.data(); }
  char* data() override { return s_.data(); }
  std::size_t size() const override { return s_.size(); }
  void resize(std::size_t n) override { s_.resize(n); }

 private:
  std::string& s_;
};

// Dense, in place (its size never changes): true when the register grew.
bool dense_set(char* s, std::size_t reg, unsigned value);
unsigned dense_get(const char* s, std::size_t reg);

// The register `reg` raised to `value` in an HLL held in a growable string (sparse or
// dense; a sparse one may be converted to dense). 1 when a register grew, 0 when not, -1 when
// the sparse form is corrupt. Does not touch the cache; hllSparseSet's exact opcode rewrite,
// so the bytes match Redis's after any sequence of adds.
int set(Buffer& s, std::size_t reg, unsigned value, std::size_t sparse_max);
inline int set(std::string& s, std::size_t reg, unsigned value, std::size_t sparse_max) {
  StringBuffer b(s);
  return set(b, reg, value, sparse_max);
}
// What register `reg` of a sparse HLL holds; -1 when the runs end before it (set() would
// answer -1 too). Reads only: PFADD uses it to learn whether an add writes at all.
int sparse_get(std::string_view s, std::size_t reg);
inline int add(Buffer& s, std::string_view ele, std::size_t sparse_max) {
  std::size_t reg;
  unsigned v = pattern(ele, &reg);
  return set(s, reg, v, sparse_max);
}
inline int add(std::string& s, std::string_view ele, std::size_t sparse_max) {
  StringBuffer b(s);
  return add(b, ele, sparse_max);
}
// Sparse -> dense; false when the sparse form is corrupt (s unchanged).
bool to_dense(std::string& s);
bool to_dense(Buffer& s);

// max[i] = MAX(max[i], register i) for all 16384; false when corrupt.
bool merge(std::uint8_t* max, std::string_view s);
// The estimate over a dense or sparse HLL; *invalid set when the sparse form is corrupt.
std::uint64_t count(std::string_view s, bool* invalid);
// The estimate over 16384 one-byte registers (PFCOUNT of several keys).
std::uint64_t count_registers(const std::uint8_t* max);

// PFCOUNT of several keys: the union's registers with their histogram kept as registers rise,
// so a union of sparse HLLs needs no counting pass over 16384 registers. A dense HLL is merged 4
// registers (3 bytes) at a time and the histogram then counted once at the end. Same answer as
// merge() + count_registers().
class Union {
 public:
  Union();
  // Starts an empty union.
  void clear();
  // Raises the registers to `s`'s; false when `s` is corrupt.
  bool add(std::string_view s);
  std::uint64_t count() const;

 private:
  void raise(std::size_t reg, unsigned value) {
    const unsigned old = max_[reg];
    if (value <= old) return;
    --h_[old];
    ++h_[value];
    max_[reg] = static_cast<std::uint8_t>(value);
  }
  std::uint8_t max_[kRegisters];
  int h_[64];
  bool dense_seen_ = false;  // h_ stale: a dense HLL was merged
};

}  // namespace ruvio::types::hll
