#include "worker/persist/lzf_fast.hpp"

#include <cstdint>
#include <cstring>

namespace ruvio::persist {

namespace {

// A back-reference copied in 16-byte chunks through a register, each advancing by the
// distance when that is less than 16: a chunk's first `step` bytes come from bytes already
// final (the rest of it is rewritten by the next chunk or token), so an overlapping reference
// (a run: distance 1) repeats its pattern correctly. Writes up to 15 bytes past `stop`.
inline std::uint8_t* copy_reference(std::uint8_t* op, const std::uint8_t* ref, std::size_t dist,
                                    std::uint8_t* stop) {
  const std::size_t step = dist < 16 ? dist : 16;
  do {
    std::uint8_t t[16];
    std::memcpy(t, ref, 16);
    std::memcpy(op, t, 16);
    op += step;
    ref += step;
  } while (op < stop);
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
    op = copy_reference(op, op - dist, dist, op + len + 2);
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
      op = copy_reference(op, ref, dist, stop);
    } else {
      while (op < stop) *op++ = *ref++;
    }
  }
  return static_cast<std::size_t>(op - out_start);
}

}  // namespace ruvio::persist
