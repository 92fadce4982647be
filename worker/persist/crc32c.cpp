#include "worker/persist/crc32c.hpp"

#include <isa-l/crc.h>

#include <climits>

namespace ruvio::persist {

std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t n) {
  // ISA-L neither inverts the initial value nor the result (crc32_iscsi(p, n, ~0) is the
  // standard CRC's complement); the inversions here make crc32c(crc32c(0, a), b) the CRC of
  // a then b. It takes an int length and a non-const pointer it only reads.
  auto* p = static_cast<unsigned char*>(const_cast<void*>(data));
  crc = ~crc;
  while (n > 0) {
    const std::size_t step = n < INT_MAX ? n : INT_MAX;
    crc = crc32_iscsi(p, static_cast<int>(step), crc);
    p += step;
    n -= step;
  }
  return ~crc;
}

}  // namespace ruvio::persist
