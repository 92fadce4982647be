// CRC-64 as Redis computes it for RDB files and DUMP payloads (src/crc64.c): the "Jones"
// polynomial 0xad93d23594c935a9, reflected input and output, initial value 0, no final xor.
// Check value: crc64(0, "123456789") == 0xe9c6d914c4b8d9ca. ISA-L's crc64_jones_refl
// (libisal-dev, PCLMUL-folded at run time) is this polynomial; it inverts the seed on entry
// and the result on return, which the wrapper undoes (crc64_jones_norm is the unreflected
// variant and gives other values).
#pragma once

#include <cstdint>
#include <string_view>

namespace ruvio::persist {

// Continues `crc` over `data` (start with 0).
std::uint64_t crc64(std::uint64_t crc, std::string_view data);

}  // namespace ruvio::persist
