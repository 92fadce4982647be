// CRC32C (Castagnoli), the checksum of every WAL and snapshot record: ISA-L's crc32_iscsi
// (libisal-dev), which picks its SSE4.2/PCLMUL kernel at run time. The standard CRC32C
// (iSCSI, RFC 3720): crc32c("123456789") = 0xE3069283, the value the hand-written
// SSE4.2/table pair it replaces gave, so every existing log and snapshot still checks.
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
