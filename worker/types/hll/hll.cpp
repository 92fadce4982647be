// HyperLogLog encodings and estimator; the byte pictures are in hll.hpp.
#include "worker/types/hll/hll.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace ruvio::types::hll {

namespace {

constexpr unsigned kQ = 50;                            // hash bits left after the register index
constexpr unsigned kValMax = 32;                       // largest value a sparse VAL opcode holds
constexpr unsigned kValMaxLen = 4;                     // longest VAL run
constexpr unsigned kZeroMaxLen = 64;                   // longest ZERO run
constexpr double kAlphaInf = 0.721347520444481703680;  // 0.5 / ln 2

std::uint8_t* u8(Buffer& s) {
  return reinterpret_cast<std::uint8_t*>(s.data());
}
const std::uint8_t* u8(std::string_view s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

// Opcodes.
bool is_zero(std::uint8_t b) {
  return (b & 0xc0) == 0;
}
bool is_xzero(std::uint8_t b) {
  return (b & 0xc0) == 0x40;
}
bool is_val(std::uint8_t b) {
  return (b & 0x80) != 0;
}
unsigned zero_len(std::uint8_t b) {
  return (b & 0x3fu) + 1;
}
unsigned xzero_len(std::uint8_t b0, std::uint8_t b1) {
  return (((b0 & 0x3fu) << 8) | b1) + 1;
}
unsigned val_value(std::uint8_t b) {
  return ((b >> 2) & 0x1fu) + 1;
}
unsigned val_len(std::uint8_t b) {
  return (b & 0x3u) + 1;
}
std::uint8_t val_op(unsigned value, unsigned len) {
  return static_cast<std::uint8_t>(((value - 1) << 2) | (len - 1) | 0x80);
}
std::uint8_t* put_zero_run(std::uint8_t* n, unsigned len) {
  if (len > kZeroMaxLen) {
    unsigned l = len - 1;
    *n++ = static_cast<std::uint8_t>((l >> 8) | 0x40);
    *n++ = static_cast<std::uint8_t>(l & 0xff);
  } else {
    *n++ = static_cast<std::uint8_t>(len - 1);
  }
  return n;
}

// The registers a one-byte opcode covers (ZERO 1..64, VAL 1..4); 0 for an XZERO's first byte.
constexpr std::array<std::uint8_t, 256> kOpSpan = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned b = 0; b < 256; ++b) {
    if ((b & 0xc0) == 0) t[b] = static_cast<std::uint8_t>((b & 0x3f) + 1);
    if ((b & 0x80) != 0) t[b] = static_cast<std::uint8_t>((b & 0x3) + 1);
  }
  return t;
}();

// Step 1 of set() eight opcodes at a time: from opcode position `p` (register `first`), skips
// whole 8-byte blocks of one-byte opcodes (ZERO and VAL, no XZERO) whose registers all lie
// before `index`. A sparse HLL of ~1000 elements is ~2000 such opcodes and PFADD walks half of
// them, so this is PFADD's cost: one load, an XZERO test and a SWAR sum of the eight runs
// (a ZERO's low 6 bits + 1, a VAL's low 2 bits + 1) instead of eight table loads and
// compares. The byte loop after it finds the opcode inside the block.
void skip_blocks(const std::uint8_t* b, std::size_t& p, std::size_t end, std::size_t& first,
                 std::size_t index) {
  constexpr std::uint64_t k01 = 0x0101010101010101ull, k80 = k01 * 0x80, k3f = k01 * 0x3f;
  constexpr std::uint64_t kEvenBytes = 0x00ff00ff00ff00ffull, kLanes = 0x0001000100010001ull;
  while (p + 8 <= end) {
    std::uint64_t w;
    std::memcpy(&w, b + p, 8);
    const std::uint64_t val = w & k80;                   // bit 7: a VAL opcode
    const std::uint64_t bit6 = (w << 1) & k80;           // bit 6, moved to bit 7 of its byte
    if ((bit6 & ~val) != 0) return;                      // 01xxxxxx: an XZERO starts here
    const std::uint64_t mask = k3f - (val >> 7) * 0x3c;  // 0x3f for ZERO, 0x03 for VAL
    const std::uint64_t run = (w & mask) + k01;          // 1..64 per byte, no carry
    const std::uint64_t pairs = (run & kEvenBytes) + ((run >> 8) & kEvenBytes);
    const std::uint64_t sum = (pairs * kLanes) >> 48;  // <= 512: no lane overflows
    if (first + sum > index) return;
    first += sum;
    p += 8;
  }
}

// The byte after an XZERO's first one; a truncated blob reads 0 there (Redis reads the sds
// terminator), so every decoder walks the same opcodes and stays inside the string.
std::uint8_t second(const std::uint8_t* p, const std::uint8_t* end) {
  return p + 1 < end ? p[1] : 0;
}

// Walks the sparse body: fn(first_register, run, value) for every opcode; false when the runs
// do not cover exactly 16384 registers (overflowing runs stop the walk).
template <class F>
bool walk_sparse(std::string_view s, F&& fn) {
  const std::uint8_t* p = u8(s) + kHeaderBytes;
  const std::uint8_t* end = u8(s) + s.size();
  std::size_t idx = 0;
  while (p < end) {
    unsigned run, value = 0;
    if (is_zero(*p)) {
      run = zero_len(*p);
      p += 1;
    } else if (is_xzero(*p)) {
      run = xzero_len(*p, second(p, end));
      p += 2;
    } else {
      run = val_len(*p);
      value = val_value(*p);
      p += 1;
    }
    if (idx + run > kRegisters) return false;
    fn(idx, run, value);
    idx += run;
  }
  return idx == kRegisters;
}

void dense_histogram(const std::uint8_t* r, int* h) {
  for (std::size_t j = 0; j < kRegisters / 4; ++j, r += 3) {
    ++h[r[0] & 63];
    ++h[((r[0] >> 6) | (r[1] << 2)) & 63];
    ++h[((r[1] >> 4) | (r[2] << 4)) & 63];
    ++h[(r[2] >> 2) & 63];
  }
}

// Ertl, "New cardinality estimation algorithms for HyperLogLog sketches" (arXiv:1702.01284).
double sigma(double x) {
  if (x == 1.) return INFINITY;
  double z_prev, y = 1, z = x;
  do {
    x *= x;
    z_prev = z;
    z += x * y;
    y += y;
  } while (z_prev != z);
  return z;
}

double tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double z_prev, y = 1.0, z = 1 - x;
  do {
    x = std::sqrt(x);
    z_prev = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (z_prev != z);
  return z / 3;
}

std::uint64_t estimate(const int* h) {
  const double m = kRegisters;
  double z = m * tau((m - h[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += h[j];
    z *= 0.5;
  }
  z += m * sigma(h[0] / m);
  return static_cast<std::uint64_t>(std::llround(kAlphaInf * m * m / z));
}

}  // namespace

std::uint64_t murmur64a(const void* key, std::size_t len, std::uint64_t seed) {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  std::uint64_t h = seed ^ (len * m);
  const auto* data = static_cast<const std::uint8_t*>(key);
  const std::uint8_t* end = data + (len - (len & 7));
  for (; data != end; data += 8) {
    std::uint64_t k = 0;
    for (int i = 7; i >= 0; --i) k = (k << 8) | data[i];  // little-endian on every host
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const unsigned tail = static_cast<unsigned>(len & 7);
  if (tail != 0) {
    for (unsigned i = tail; i-- > 0;) h ^= static_cast<std::uint64_t>(data[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

unsigned pattern(std::string_view ele, std::size_t* reg) {
  std::uint64_t hash = murmur64a(ele.data(), ele.size(), 0xadc83b19ULL);
  *reg = static_cast<std::size_t>(hash & (kRegisters - 1));
  hash >>= 14;
  hash |= std::uint64_t{1} << kQ;  // the run ends by bit 50 at the latest: values 1..51
  return static_cast<unsigned>(__builtin_ctzll(hash)) + 1;
}

void make_empty(std::string& out) {
  out.assign(kHeaderBytes + 2, '\0');
  std::memcpy(out.data(), "HYLL", 4);
  out[4] = static_cast<char>(kSparse);
  const unsigned l = kRegisters - 1;  // one XZERO covers all 16384 registers
  out[kHeaderBytes] = static_cast<char>((l >> 8) | 0x40);
  out[kHeaderBytes + 1] = static_cast<char>(l & 0xff);
}

void set_cache(char* s, std::uint64_t card) {
  for (int i = 0; i < 8; ++i) s[8 + i] = static_cast<char>((card >> (8 * i)) & 0xff);
}

void invalidate(char* s) {
  s[15] = static_cast<char>(static_cast<std::uint8_t>(s[15]) | 0x80);
}

unsigned dense_get(const char* s, std::size_t reg) {
  const auto* r = reinterpret_cast<const std::uint8_t*>(s) + kHeaderBytes;
  const std::size_t byte = reg * 6 / 8;
  const unsigned fb = static_cast<unsigned>(reg * 6) & 7;
  const unsigned b0 = r[byte];
  const unsigned b1 = fb > 2 ? r[byte + 1] : 0;  // a register with fb <= 2 fits its first byte
  return ((b0 >> fb) | (b1 << (8 - fb))) & 63;
}

bool dense_set(char* s, std::size_t reg, unsigned value) {
  if (value <= dense_get(s, reg)) return false;
  auto* r = reinterpret_cast<std::uint8_t*>(s) + kHeaderBytes;
  const std::size_t byte = reg * 6 / 8;
  const unsigned fb = static_cast<unsigned>(reg * 6) & 7;
  r[byte] = static_cast<std::uint8_t>((r[byte] & ~(63u << fb)) | (value << fb));
  if (fb > 2) {
    const unsigned fb8 = 8 - fb;
    r[byte + 1] = static_cast<std::uint8_t>((r[byte + 1] & ~(63u >> fb8)) | (value >> fb8));
  }
  return true;
}

bool to_dense(std::string& s) {
  if (static_cast<std::uint8_t>(s[4]) == kDense) return true;
  std::string dense(kDenseBytes, '\0');
  std::memcpy(dense.data(), s.data(), kHeaderBytes);  // magic and cached cardinality
  dense[4] = static_cast<char>(kDense);
  const bool ok = walk_sparse(s, [&](std::size_t first, unsigned run, unsigned value) {
    if (value == 0) return;
    for (unsigned k = 0; k < run; ++k) dense_set(dense.data(), first + k, value);
  });
  if (!ok) return false;
  s.swap(dense);
  return true;
}

bool to_dense(Buffer& s) {
  if (static_cast<std::uint8_t>(s.view()[4]) == kDense) return true;
  static thread_local std::string tmp;
  tmp.assign(s.view(), s.size());
  if (!to_dense(tmp)) return false;
  s.resize(tmp.size());
  std::memcpy(s.data(), tmp.data(), tmp.size());
  return true;
}

int sparse_get(std::string_view s, std::size_t reg) {
  const std::uint8_t* p = u8(s) + kHeaderBytes;
  const std::uint8_t* end = u8(s) + s.size();
  std::size_t first = 0;
  while (p < end) {
    std::size_t span;
    unsigned value = 0;
    if (is_zero(*p)) {
      span = zero_len(*p);
      p += 1;
    } else if (is_val(*p)) {
      span = val_len(*p);
      value = val_value(*p);
      p += 1;
    } else {
      span = xzero_len(*p, second(p, end));
      p += 2;
    }
    if (reg <= first + span - 1) return static_cast<int>(value);
    first += span;
  }
  return -1;
}

int set(Buffer& s, std::size_t index, unsigned count, std::size_t sparse_max) {
  if (static_cast<std::uint8_t>(s.view()[4]) == kDense) {
    if (count <= dense_get(s.view(), index)) return 0;  // read only: no write taken
    return dense_set(s.data(), index, count) ? 1 : 0;
  }
  if (count <= kValMax) {
    // Step 1: the opcode covering `index`, the one before it, and its run.
    // The hot loop of PFADD on a sparse HLL (thousands of opcodes): one table load tells a
    // one-byte opcode's run; only an XZERO (table 0) reads its second byte.
    std::size_t p = kHeaderBytes, end = s.size(), first = 0, span = 0;
    std::size_t prev = 0;
    const auto* b = reinterpret_cast<const std::uint8_t*>(s.view());  // read until we write
    skip_blocks(b, p, end, first, index);
    if (p != kHeaderBytes) prev = p - 1;  // a skipped block holds one-byte opcodes only
    while (p < end) {
      const std::uint8_t o = b[p];
      std::size_t oplen = 1;
      span = kOpSpan[o];
      if (span == 0) {
        span = xzero_len(o, second(b + p, b + end));
        oplen = 2;
      }
      if (index < first + span) break;
      prev = p;
      p += oplen;
      first += span;
      if (oplen == 2) {
        // An XZERO stopped the block skip: resume it after the XZERO.
        const std::size_t q = p;
        skip_blocks(b, p, end, first, index);
        if (p != q) prev = p - 1;
      }
    }
    const bool has_prev = p != kHeaderBytes;
    if (span == 0 || p >= end) return -1;
    const std::uint8_t op = b[p];
    const bool xz = is_xzero(op), zr = is_zero(op);
    const std::size_t next = p + (xz ? 2 : 1);
    const bool has_next = next < end;
    bool rewritten = false;
    // A) and B): a VAL already as high needs nothing; a VAL or ZERO of one register becomes
    // a VAL of one register.
    if (is_val(op)) {
      if (val_value(op) >= count) return 0;
      if (val_len(op) == 1) {
        u8(s)[p] = val_op(count, 1);
        rewritten = true;
      }
    }
    if (!rewritten && zr && span == 1) {
      u8(s)[p] = val_op(count, 1);
      rewritten = true;
    }
    if (!rewritten) {
      // D) Split the opcode in up to three: the run before, our VAL, the run after.
      std::uint8_t seq[5], *n = seq;
      const std::size_t last = first + span - 1;
      if (zr || xz) {
        if (index != first) n = put_zero_run(n, static_cast<unsigned>(index - first));
        *n++ = val_op(count, 1);
        if (index != last) n = put_zero_run(n, static_cast<unsigned>(last - index));
      } else {
        const unsigned cur = val_value(op);
        if (index != first) *n++ = val_op(cur, static_cast<unsigned>(index - first));
        *n++ = val_op(count, 1);
        if (index != last) *n++ = val_op(cur, static_cast<unsigned>(last - index));
      }
      const auto seqlen = static_cast<std::ptrdiff_t>(n - seq);
      const std::ptrdiff_t delta = seqlen - (xz ? 2 : 1);
      if (delta > 0 && s.size() + static_cast<std::size_t>(delta) > sparse_max) goto promote;
      if (delta > 0) s.resize(s.size() + static_cast<std::size_t>(delta));
      if (delta != 0 && has_next) {
        std::memmove(u8(s) + next + delta, u8(s) + next, end - next);
      }
      if (delta < 0) s.resize(s.size() - static_cast<std::size_t>(-delta));
      std::memcpy(u8(s) + p, seq, static_cast<std::size_t>(seqlen));
      end = s.size();
    }
    // Step 4: merge equal adjacent VALs around the change (up to 5 opcodes from the previous).
    std::size_t q = has_prev ? prev : kHeaderBytes;
    int scan = 5;
    while (q < end && scan-- > 0) {
      std::uint8_t* w = u8(s);
      if (is_xzero(w[q])) {
        q += 2;
        continue;
      }
      if (is_zero(w[q])) {
        q += 1;
        continue;
      }
      if (q + 1 < end && is_val(w[q + 1]) && val_value(w[q]) == val_value(w[q + 1])) {
        const unsigned len = val_len(w[q]) + val_len(w[q + 1]);
        if (len <= kValMaxLen) {
          w[q + 1] = val_op(val_value(w[q]), len);
          std::memmove(w + q, w + q + 1, end - q - 1);
          s.resize(--end);
          continue;  // the merged VAL may merge with the one after it too
        }
      }
      ++q;
    }
    invalidate(s.data());
    return 1;
  }
promote:
  if (!to_dense(s)) return -1;
  dense_set(s.data(), index, count);  // always raises it: a sparse HLL holds no value > 32
  return 1;
}

bool merge(std::uint8_t* max, std::string_view s) {
  if (is_dense(s)) {
    for (std::size_t i = 0; i < kRegisters; ++i) {
      const auto v = static_cast<std::uint8_t>(dense_get(s.data(), i));
      if (v > max[i]) max[i] = v;
    }
    return true;
  }
  return walk_sparse(s, [&](std::size_t first, unsigned run, unsigned value) {
    if (value == 0) return;  // zero runs (most of a sparse HLL) raise nothing
    for (unsigned k = 0; k < run; ++k) {
      if (value > max[first + k]) max[first + k] = static_cast<std::uint8_t>(value);
    }
  });
}

std::uint64_t count(std::string_view s, bool* invalid) {
  int h[64] = {};
  if (is_dense(s)) {
    dense_histogram(u8(s) + kHeaderBytes, h);
  } else {
    // Redis counts the runs as they come and reports corruption at the end; a run that
    // overflows 16384 is corrupt all the same.
    const bool ok = walk_sparse(
        s, [&](std::size_t, unsigned run, unsigned value) { h[value] += static_cast<int>(run); });
    if (!ok) {
      *invalid = true;
      return 0;
    }
  }
  return estimate(h);
}

std::uint64_t count_registers(const std::uint8_t* max) {
  int h[64] = {};
  // Eight registers at a time: an all-zero word (most of a union of small HLLs) is one add.
  for (std::size_t i = 0; i < kRegisters; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, max + i, 8);
    if (w == 0) {
      h[0] += 8;
      continue;
    }
    for (std::size_t k = 0; k < 8; ++k) ++h[max[i + k] & 63];
  }
  return estimate(h);
}

Union::Union() {
  std::memset(max_, 0, sizeof max_);
  std::memset(h_, 0, sizeof h_);
  h_[0] = static_cast<int>(kRegisters);
}

void Union::clear() {
  std::memset(max_, 0, sizeof max_);  // 16 KiB: one rep stosb, cheaper than tracking raises
  dense_seen_ = false;
  std::memset(h_, 0, sizeof h_);
  h_[0] = static_cast<int>(kRegisters);
}

bool Union::add(std::string_view s) {
  if (is_dense(s)) {
    // Four 6-bit registers from each 3 bytes, little-endian as dense_get reads them.
    const std::uint8_t* r = u8(s) + kHeaderBytes;
    std::uint8_t* m = max_;
    for (std::size_t j = 0; j < kRegisters / 4; ++j, r += 3, m += 4) {
      const std::uint32_t w =
          r[0] | (static_cast<std::uint32_t>(r[1]) << 8) | (static_cast<std::uint32_t>(r[2]) << 16);
      const auto v0 = static_cast<std::uint8_t>(w & 63);
      const auto v1 = static_cast<std::uint8_t>((w >> 6) & 63);
      const auto v2 = static_cast<std::uint8_t>((w >> 12) & 63);
      const auto v3 = static_cast<std::uint8_t>((w >> 18) & 63);
      m[0] = std::max(m[0], v0);
      m[1] = std::max(m[1], v1);
      m[2] = std::max(m[2], v2);
      m[3] = std::max(m[3], v3);
    }
    dense_seen_ = true;
    return true;
  }
  return walk_sparse(s, [&](std::size_t first, unsigned run, unsigned value) {
    if (value == 0) return;  // zero runs (most of a sparse HLL) raise nothing
    for (unsigned k = 0; k < run; ++k) raise(first + k, value);
  });
}

std::uint64_t Union::count() const {
  return dense_seen_ ? count_registers(max_) : estimate(h_);
}

}  // namespace ruvio::types::hll
