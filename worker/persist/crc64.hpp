// CRC-64 as Redis computes it for RDB files and DUMP payloads (src/crc64.c): the "Jones"
// polynomial 0xad93d23594c935a9, reflected input and output, initial value 0, no final xor.
// Check value: crc64(0, "123456789") == 0xe9c6d914c4b8d9ca. No Debian library ships this
// variant (libiberty's and zlib's are other polynomials), so it is a small table-driven
// implementation: slice-by-8 (eight 256-entry tables, 8 bytes per step), as Redis's crcspeed.
#pragma once

#include <cstdint>
#include <string_view>

namespace ruvio::persist {

// Continues `crc` over `data` (start with 0).
std::uint64_t crc64(std::uint64_t crc, std::string_view data);

}  // namespace ruvio::persist
