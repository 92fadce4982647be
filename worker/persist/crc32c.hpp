// CRC32C (Castagnoli), the checksum of every WAL and snapshot record.
//
// No Debian library ships a C/C++ CRC32C (only python3-crc32c), so this is the usual pair:
// the SSE4.2 `crc32` instruction, 8 bytes per step, when the CPU has it, else a slice-by-1
// table. Both give the standard CRC32C (iSCSI, RFC 3720): crc32c("123456789") = 0xE3069283.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ruvio::persist {

// `crc` is the value returned by a previous call (0 to start): the checksum can be extended
// over several pieces.
std::uint32_t crc32c(std::uint32_t crc, const void* data, std::size_t n);
inline std::uint32_t crc32c(std::string_view s) {
  return crc32c(0, s.data(), s.size());
}

}  // namespace ruvio::persist
