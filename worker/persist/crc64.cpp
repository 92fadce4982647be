#include "worker/persist/crc64.hpp"

#include <array>
#include <bit>
#include <cstring>

namespace ruvio::persist {
namespace {

// The reflected form of 0xad93d23594c935a9 (bit order reversed), for the LSB-first loop.
constexpr std::uint64_t kPolyReflected = 0x95ac9329ac4bc9b5ull;

using Tables = std::array<std::array<std::uint64_t, 256>, 8>;

// Slice-by-8 (as Redis's crcspeed.c): t[0] is the byte-at-a-time table; t[k][i] is the CRC of
// byte i followed by k zero bytes, so eight input bytes fold in with eight independent lookups
// instead of eight dependent ones.
constexpr Tables make_tables() {
  Tables t{};
  for (std::uint64_t i = 0; i < 256; ++i) {
    std::uint64_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? (c >> 1) ^ kPolyReflected : c >> 1;
    t[0][i] = c;
  }
  for (std::size_t i = 0; i < 256; ++i) {
    for (std::size_t k = 1; k < 8; ++k) t[k][i] = t[0][t[k - 1][i] & 0xff] ^ (t[k - 1][i] >> 8);
  }
  return t;
}

constexpr Tables kT = make_tables();

static_assert(std::endian::native == std::endian::little, "crc64 loads 8 bytes LE");

}  // namespace

std::uint64_t crc64(std::uint64_t crc, std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  while (n >= 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, 8);  // little-endian host (x86-64, aarch64): byte 0 is the low byte
    crc ^= w;
    crc = kT[7][crc & 0xff] ^ kT[6][(crc >> 8) & 0xff] ^ kT[5][(crc >> 16) & 0xff] ^
          kT[4][(crc >> 24) & 0xff] ^ kT[3][(crc >> 32) & 0xff] ^ kT[2][(crc >> 40) & 0xff] ^
          kT[1][(crc >> 48) & 0xff] ^ kT[0][crc >> 56];
    p += 8;
    n -= 8;
  }
  for (; n > 0; --n) crc = kT[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace ruvio::persist
