#include "worker/persist/crc64.hpp"

#include <array>

namespace ruvio::persist {
namespace {

// The reflected form of 0xad93d23594c935a9 (bit order reversed), for the LSB-first loop.
constexpr std::uint64_t kPolyReflected = 0x95ac9329ac4bc9b5ull;

constexpr std::array<std::uint64_t, 256> make_table() {
  std::array<std::uint64_t, 256> t{};
  for (std::uint64_t i = 0; i < 256; ++i) {
    std::uint64_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? (c >> 1) ^ kPolyReflected : c >> 1;
    t[i] = c;
  }
  return t;
}

constexpr std::array<std::uint64_t, 256> kTable = make_table();

}  // namespace

std::uint64_t crc64(std::uint64_t crc, std::string_view data) {
  for (unsigned char b : data) crc = kTable[(crc ^ b) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace ruvio::persist
