// Redis Cluster key → hash slot, and the split of the 16384 slots over the workers.
//
// A worker owns one contiguous slot range, so cluster-aware clients that ask CLUSTER SLOTS
// on a direct port reach the owner in one hop. The hash must match Redis bit for bit
// (CRC16-CCITT/XMODEM of the key, or of its {hash tag}, modulo 16384), otherwise clients
// that compute slots themselves would send keys to the wrong worker.
#pragma once

#include <cstdint>
#include <string_view>

namespace ruvio {

inline constexpr int kSlotCount = 16384;

// CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0, no reflection), as Redis's crc16.c.
std::uint16_t crc16(std::string_view data);

// The hash slot of `key`. When the key holds a non-empty `{tag}` (the first '{' and the
// first '}' after it), only the tag is hashed, so `{user1}.a` and `{user1}.b` share a slot.
std::uint16_t key_slot(std::string_view key);

struct SlotRange {
  std::uint16_t first = 0;  // inclusive
  std::uint16_t last = 0;   // inclusive
};

// The slots of worker `worker` (0-based) out of `workers`, split into contiguous ranges the
// way `redis-cli --cluster create` splits them over masters (3 → 0-5460, 5461-10922,
// 10923-16383). `workers` must be 1..16384.
SlotRange slot_range(int worker, int workers);

}  // namespace ruvio
