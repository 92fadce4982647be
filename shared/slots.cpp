#include "shared/slots.hpp"

#include <array>
#include <cassert>
#include <cmath>

namespace ruvio {
namespace {

// Byte-at-a-time table for polynomial 0x1021, MSB first; built at compile time instead of
// pasting Redis's 256 literals.
constexpr std::array<std::uint16_t, 256> make_crc16_table() {
  std::array<std::uint16_t, 256> table{};
  for (unsigned byte = 0; byte < 256; ++byte) {
    auto crc = static_cast<std::uint16_t>(byte << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 0x8000) != 0 ? static_cast<std::uint16_t>((crc << 1) ^ 0x1021)
                                : static_cast<std::uint16_t>(crc << 1);
    }
    table[byte] = crc;
  }
  return table;
}

constexpr auto kCrc16Table = make_crc16_table();
static_assert(kCrc16Table[1] == 0x1021 && kCrc16Table[255] == 0x1ef0);

}  // namespace

std::uint16_t crc16(std::string_view data) {
  std::uint16_t crc = 0;
  for (unsigned char c : data) {
    crc = static_cast<std::uint16_t>((crc << 8) ^ kCrc16Table[((crc >> 8) ^ c) & 0xff]);
  }
  return crc;
}

std::uint16_t key_slot(std::string_view key) {
  const auto open = key.find('{');
  if (open != std::string_view::npos) {
    const auto close = key.find('}', open + 1);
    // "{}" (an empty tag) does not count: the whole key is hashed, as in Redis.
    if (close != std::string_view::npos && close != open + 1) {
      key = key.substr(open + 1, close - open - 1);
    }
  }
  return crc16(key) & (kSlotCount - 1);
}

SlotRange slot_range(int worker, int workers) {
  assert(workers >= 1 && workers <= kSlotCount && worker >= 0 && worker < workers);
  // Same arithmetic as redis-cli's clusterManagerCommandCreate: a fractional cursor,
  // lround() for each range end, and the last range takes whatever is left.
  // Single-precision on purpose: redis-cli uses float, and double rounds differently for
  // some worker counts.
  const float per_worker = static_cast<float>(kSlotCount) / static_cast<float>(workers);
  long first = 0;
  float cursor = 0.0F;
  for (int i = 0;; ++i) {
    long last = std::lround(cursor + per_worker - 1);
    if (last > kSlotCount || i == workers - 1) last = kSlotCount - 1;
    if (last < first) last = first;
    if (i == worker) {
      return {static_cast<std::uint16_t>(first), static_cast<std::uint16_t>(last)};
    }
    first = last + 1;
    cursor += per_worker;
  }
}

}  // namespace ruvio
