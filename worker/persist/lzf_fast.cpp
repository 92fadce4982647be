#include "worker/persist/lzf_fast.hpp"

#include <cstdint>
#include <cstring>

namespace ruvio::persist {

namespace {

// A back-reference copied in 16-byte chunks through a register. While the distance is below
// 16 the chunk's source overlaps what it writes, so the pattern first doubles: copying `dist`
// bytes from `dist` back leaves a period of 2 x dist behind op (1, 2, 4, 8, 16 for a run), and
// from then on every chunk's 16 source bytes are final. A chunk's bytes past the pattern's
// reach are rewritten by the next chunk or token. Writes up to 15 bytes past `stop`.
inline std::uint8_t* copy_reference(std::uint8_t* op, std::size_t dist, std::uint8_t* stop) {
  std::uint8_t t[16];
  for (; dist < 16 && op < stop; dist *= 2) {
    std::memcpy(t, op - dist, 16);
    std::memcpy(op, t, 16);
    op += dist;
  }
  while (op < stop) {
    std::memcpy(t, op - dist, 16);
    std::memcpy(op, t, 16);
    op += 16;
  }
  return stop;
}

}  // namespace

std::size_t lzf_decompress_fast(const void* in, std::size_t in_len, void* out,
                                std::size_t out_len) {
  const auto* ip = static_cast<const std::uint8_t*>(in);
  const std::uint8_t* const in_end = ip + in_len;
  auto* op = static_cast<std::uint8_t*>(out);
  std::uint8_t* const out_start = op;
  std::uint8_t* const out_end = op + out_len;
  // Far from both ends, no token can run past either (a token reads at most 33 bytes and
  // writes at most 264, plus the 16-byte over-copy): only the reference's start is checked.
  const std::uint8_t* const ip_lim = in_len >= 34 ? in_end - 34 : ip;
  std::uint8_t* const op_lim = out_len >= 264 + 32 ? out_end - (264 + 32) : op;
  while (ip < ip_lim && op < op_lim) {
    const unsigned ctrl = *ip++;
    if (ctrl < 32) {
      std::memcpy(op, ip, 16);
      std::memcpy(op + 16, ip + 16, 16);
      op += ctrl + 1;
      ip += ctrl + 1;
      continue;
    }
    std::size_t len = ctrl >> 5;
    if (len == 7) len += *ip++;
    const std::size_t dist = ((static_cast<std::size_t>(ctrl & 0x1f) << 8) | *ip++) + 1;
    if (dist > static_cast<std::size_t>(op - out_start)) return 0;
    op = copy_reference(op, dist, op + len + 2);
  }
  // The last tokens, every bound checked.
  while (ip < in_end) {
    const unsigned ctrl = *ip++;
    if (ctrl < 32) {  // literal run of ctrl + 1 bytes
      const std::size_t n = ctrl + 1;
      if (n > static_cast<std::size_t>(out_end - op)) return 0;
      if (n > static_cast<std::size_t>(in_end - ip)) return 0;
      if (out_end - op >= 32 && in_end - ip >= 32) {
        std::memcpy(op, ip, 16);  // over-copies up to 31 bytes the next tokens overwrite
        std::memcpy(op + 16, ip + 16, 16);
      } else {
        std::memcpy(op, ip, n);
      }
      op += n;
      ip += n;
      continue;
    }
    std::size_t len = ctrl >> 5;
    if (ip >= in_end) return 0;
    if (len == 7) {
      len += *ip++;
      if (ip >= in_end) return 0;
    }
    const std::size_t dist = ((static_cast<std::size_t>(ctrl & 0x1f) << 8) | *ip++) + 1;
    len += 2;
    if (len > static_cast<std::size_t>(out_end - op)) return 0;
    if (dist > static_cast<std::size_t>(op - out_start)) return 0;
    const std::uint8_t* ref = op - dist;
    std::uint8_t* const stop = op + len;
    if (out_end - op >= static_cast<std::ptrdiff_t>(len) + 16) {
      op = copy_reference(op, dist, stop);
    } else {
      while (op < stop) *op++ = *ref++;
    }
  }
  return static_cast<std::size_t>(op - out_start);
}

}  // namespace ruvio::persist
