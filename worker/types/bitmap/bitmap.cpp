// Bit operations on string bytes; the bit numbering is drawn in bitmap.hpp.
#include "worker/types/bitmap/bitmap.hpp"

#include <cstring>

namespace ruvio::types::bitmap {

namespace {

// The window of a 64-bit field at any bit offset spans up to 72 bits.
__extension__ typedef unsigned __int128 u128;

std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// The bytes covering `bits` bits from `offset`, as one big-endian number (at most 9 bytes).
struct Window {
  std::size_t first;  // first byte
  unsigned nbytes;    // 1..9
  unsigned shift;     // bits right of the field in the window
};
Window window(std::uint64_t offset, unsigned bits) {
  unsigned lead = static_cast<unsigned>(offset & 7);
  unsigned nbytes = (lead + bits + 7) / 8;
  return {static_cast<std::size_t>(offset >> 3), nbytes, nbytes * 8 - lead - bits};
}

u128 read_window(const std::uint8_t* p, const Window& w) {
  u128 acc = 0;
  for (unsigned i = 0; i < w.nbytes; ++i) acc = (acc << 8) | p[w.first + i];
  return acc;
}

std::uint64_t low_mask(unsigned bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

}  // namespace

// Dispatched at load time: POPCNT where the CPU has it (every x86-64 since 2008), the
// portable bit trick elsewhere. The four accumulators let the popcnts run in parallel.
__attribute__((target_clones("popcnt", "default"))) std::uint64_t popcount(const std::uint8_t* p,
                                                                           std::size_t n) {
  std::uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    c0 += static_cast<std::uint64_t>(__builtin_popcountll(load64(p + i)));
    c1 += static_cast<std::uint64_t>(__builtin_popcountll(load64(p + i + 8)));
    c2 += static_cast<std::uint64_t>(__builtin_popcountll(load64(p + i + 16)));
    c3 += static_cast<std::uint64_t>(__builtin_popcountll(load64(p + i + 24)));
  }
  for (; i + 8 <= n; i += 8) c0 += static_cast<std::uint64_t>(__builtin_popcountll(load64(p + i)));
  for (; i < n; ++i) c1 += static_cast<std::uint64_t>(__builtin_popcount(p[i]));
  return c0 + c1 + c2 + c3;
}

std::int64_t first_bit(const std::uint8_t* p, std::size_t n, int bit) {
  const std::uint64_t skip = bit ? 0 : ~std::uint64_t{0};
  std::size_t i = 0;
  while (i + 8 <= n && load64(p + i) == skip) i += 8;
  for (; i < n; ++i) {
    std::uint8_t b = bit ? p[i] : static_cast<std::uint8_t>(~p[i]);
    if (b != 0) return static_cast<std::int64_t>(i * 8) + __builtin_clz(b) - 24;
  }
  // No match: a 0 is found just past the end (zero padding), a 1 nowhere.
  return bit ? -1 : static_cast<std::int64_t>(n * 8);
}

void combine(Op op, std::span<const std::string_view> srcs, std::uint8_t* out) {
  if (srcs.empty()) return;
  std::size_t maxlen = 0, minlen = srcs[0].size();
  for (auto s : srcs) {
    if (s.size() > maxlen) maxlen = s.size();
    if (s.size() < minlen) minlen = s.size();
  }
  auto byte = [&](std::size_t k, std::size_t j) -> std::uint8_t {
    return j < srcs[k].size() ? static_cast<std::uint8_t>(srcs[k][j]) : 0;
  };
  // Where every source has bytes: plain loops the compiler vectorizes.
  const auto* first = reinterpret_cast<const std::uint8_t*>(srcs[0].data());
  if (minlen > 0) std::memcpy(out, first, minlen);
  if (op == Op::kNot) {
    for (std::size_t j = 0; j < minlen; ++j) out[j] = static_cast<std::uint8_t>(~out[j]);
  } else {
    for (std::size_t k = 1; k < srcs.size(); ++k) {
      const auto* s = reinterpret_cast<const std::uint8_t*>(srcs[k].data());
      switch (op) {
        case Op::kAnd:
          for (std::size_t j = 0; j < minlen; ++j) out[j] &= s[j];
          break;
        case Op::kOr:
          for (std::size_t j = 0; j < minlen; ++j) out[j] |= s[j];
          break;
        default:
          for (std::size_t j = 0; j < minlen; ++j) out[j] ^= s[j];
          break;
      }
    }
  }
  // The tail, where some sources have run out (they read as zero).
  for (std::size_t j = minlen; j < maxlen; ++j) {
    std::uint8_t o = byte(0, j);
    if (op == Op::kNot) o = static_cast<std::uint8_t>(~o);
    for (std::size_t k = 1; k < srcs.size(); ++k) {
      std::uint8_t b = byte(k, j);
      if (op == Op::kAnd) {
        o &= b;
      } else if (op == Op::kOr) {
        o |= b;
      } else {
        o ^= b;
      }
    }
    out[j] = o;
  }
}

std::uint64_t get_unsigned(const std::uint8_t* p, std::uint64_t offset, unsigned bits) {
  Window w = window(offset, bits);
  return static_cast<std::uint64_t>(read_window(p, w) >> w.shift) & low_mask(bits);
}

std::int64_t get_signed(const std::uint8_t* p, std::uint64_t offset, unsigned bits) {
  std::uint64_t u = get_unsigned(p, offset, bits);
  if (bits < 64 && (u >> (bits - 1)) & 1) u |= ~low_mask(bits);  // sign-extend
  return static_cast<std::int64_t>(u);
}

void set_bits(std::uint8_t* p, std::uint64_t offset, unsigned bits, std::uint64_t value) {
  Window w = window(offset, bits);
  u128 acc = read_window(p, w);
  const u128 mask = static_cast<u128>(low_mask(bits)) << w.shift;
  acc = (acc & ~mask) | ((static_cast<u128>(value & low_mask(bits)) << w.shift));
  for (unsigned i = w.nbytes; i-- > 0;) {
    p[w.first + i] = static_cast<std::uint8_t>(acc);
    acc >>= 8;
  }
}

int check_unsigned(std::uint64_t value, std::int64_t incr, unsigned bits, Overflow ow,
                   std::uint64_t* limit) {
  const std::uint64_t max = low_mask(bits);
  const auto maxincr = static_cast<std::int64_t>(max - value);
  const auto minincr = static_cast<std::int64_t>(std::uint64_t{0} - value);
  int dir = 0;
  if (value > max || (incr > 0 && incr > maxincr)) {
    dir = 1;
  } else if (incr < 0 && incr < minincr) {
    dir = -1;
  } else {
    return 0;
  }
  if (ow == Overflow::kWrap) {
    *limit = (value + static_cast<std::uint64_t>(incr)) & max;
    return 1;  // Redis reports any wrap as 1
  }
  if (ow == Overflow::kSat) *limit = dir > 0 ? max : 0;
  return dir;
}

int check_signed(std::int64_t value, std::int64_t incr, unsigned bits, Overflow ow,
                 std::int64_t* limit) {
  const std::int64_t max =
      bits == 64 ? INT64_MAX : static_cast<std::int64_t>((std::uint64_t{1} << (bits - 1)) - 1);
  const std::int64_t min = -max - 1;
  // As in Redis these may wrap; they are only looked at where they do not.
  const auto maxincr = static_cast<std::int64_t>(static_cast<std::uint64_t>(max) -
                                                 static_cast<std::uint64_t>(value));
  const auto minincr = static_cast<std::int64_t>(static_cast<std::uint64_t>(min) -
                                                 static_cast<std::uint64_t>(value));
  int dir = 0;
  if (value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr)) {
    dir = 1;
  } else if (value < min || (bits != 64 && incr < minincr) ||
             (value < 0 && incr < 0 && incr < minincr)) {
    dir = -1;
  } else {
    return 0;
  }
  if (ow == Overflow::kWrap) {
    std::uint64_t c = static_cast<std::uint64_t>(value) + static_cast<std::uint64_t>(incr);
    if (bits < 64) {
      const std::uint64_t high = ~low_mask(bits);
      c = (c >> (bits - 1)) & 1 ? c | high : c & ~high;
    }
    *limit = static_cast<std::int64_t>(c);
    return 1;
  }
  if (ow == Overflow::kSat) *limit = dir > 0 ? max : min;
  return dir;
}

}  // namespace ruvio::types::bitmap
