// The LRU clock behind the record's one clock byte (record.hpp): a byte that never wraps.
//
// A byte cannot hold a time, so it holds a *generation id*; the shard keeps one table saying
// when each generation began. Generations are opened one per second while fresh, and a
// bounded background pass merges old neighbours so ids never run out:
//
//   id (the byte)   0    1    2   ...  255         start_[id]: Unix s the generation began
//   start_[id]     s17  free  s3  ...  s250        (kFree: the id is unused)
//   remap_[id]     0    1    0    ...  255         identity, except ids being merged away
//   order_         [2, 0, ..., 255]                live ids, oldest start first
//
//   time  ─────────────────────────────────────────────────────────────────────────▶ now
//         │      2      │   0   │ 9 │ 4 │ ... │ 61│ 62│ 63│ 64│  ...  │254│255│ current │
//         └ coarse: width <= 1/8 of its age ┘   └──── 1 s each, exact (the last 64 s) ────┘
//
// A key accessed now gets the current id. Its idle time is now - start_[remap_[id]]: exact to
// the second for the last kExactSeconds, later the error is at most 1/kRatio of the idle time
// (a generation is merged into its older neighbour only while the merged width stays within
// 1/kRatio of the time since it ended). Order is always right: a merged key takes the start of
// an older generation, never a newer one, and keys of one generation tie.
//
// The merge pass (begin -> step ... -> end): when fewer than kLowWater ids are free, begin()
// decides the merges in one sweep over order_ (256 entries) and records them in remap_; then
// every Db rewrites its keys' bytes through remap_ in bounded steps from the server's timer
// (Db::lru_remap_step, a SCAN cursor, so every key present for the whole pass is visited even
// while the table resizes); end() frees the merged ids. Until then a merged-away id still
// reads through remap_ as its target, so keys already rewritten and keys not yet reached
// agree. Ids retired by a pass are not reused before it ends. With no id free (a pass that has
// not finished), the current generation simply stays open longer: coarser, never wrong.
//
// Sizing: the exact window takes 64 ids, the log-scale tail kRatio x ln(age / 64 s) (8 x 13
// for a year), so a pass frees ~100 ids and runs about once every 100 s; each walks every key
// once, a budget of keys per timer tick (see lru_pass_budget).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace ruvio::store {

class Db;

class LruClock {
 public:
  static constexpr std::int64_t kFree = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kExactSeconds = 64;  // idle times exact to the second below
  static constexpr std::int64_t kRatio = 8;          // beyond: error <= idle / kRatio
  static constexpr std::size_t kLowWater = 48;       // a pass begins below this many free ids

  LruClock();

  // Opens a generation when the (test-shifted) second moved on. Called with the cached clock
  // once per loop turn, so an access pays only current().
  void advance(std::int64_t now_ms) {
    if (seconds(now_ms) > start_[current_]) [[unlikely]]
      open(seconds(now_ms));
  }
  std::uint8_t current() const { return current_; }
  // The id a record keeps when it is rebuilt into another place (RENAME, MOVE): merged-away
  // ids are replaced by their target, so a key the pass already passed cannot keep one.
  std::uint8_t keep(std::uint8_t id) const { return remap_[id]; }
  // OBJECT IDLETIME of a record holding `id`. An id no generation holds (the byte was an LFU
  // counter before the policy changed) reads as the oldest generation.
  std::int64_t idle_seconds(std::uint8_t id, std::int64_t now_ms) const;
  // The id for an access `idle_s` seconds ago (RESTORE IDLETIME): a generation opened at
  // exactly that time while ids are plentiful, else the one holding that time.
  std::uint8_t back_by(std::int64_t idle_s, std::int64_t now_ms);

  // The merge pass.
  bool wants_pass() const { return !passing_ && free_ < kLowWater; }
  bool passing() const { return passing_; }
  std::uint32_t epoch() const { return epoch_; }  // bumped by begin(): which pass is running
  void begin(std::int64_t now_ms);
  void end();
  std::uint8_t remap(std::uint8_t id) const { return remap_[id]; }

  // DEBUG LRU-ADVANCE: moves this clock (only) `s` seconds ahead, so tests can age keys.
  void shift(std::int64_t s) { offset_s_ += s; }

  std::size_t free_ids() const { return free_; }
  std::size_t generations() const { return count_; }

 private:
  std::int64_t seconds(std::int64_t now_ms) const { return now_ms / 1000 + offset_s_; }
  void open(std::int64_t s);
  int take_free();  // -1 when none (or only ids a running pass retires)
  void insert_ordered(std::uint8_t id);

  std::array<std::int64_t, 256> start_;
  std::array<std::uint8_t, 256> remap_;
  std::array<std::uint8_t, 256> order_;  // [0, count_): live ids by start
  std::size_t count_ = 0;
  std::size_t free_ = 0;
  std::uint8_t current_ = 0;
  bool passing_ = false;
  std::uint32_t epoch_ = 0;
  std::int64_t offset_s_ = 0;
};

// Keys per timer tick for the pass over `keys` keys: the pass must end well before the
// kLowWater ids left run out (one per second), at 10 ticks a second.
inline std::size_t lru_pass_budget(std::size_t keys) {
  const std::size_t ticks = (LruClock::kLowWater / 2) * 10;
  const std::size_t b = keys / ticks + 1;
  return b < 1000 ? 1000 : b;
}

// One timer tick of the merge pass over a shard's databases (begins one when ids run low):
// at most `budget` keys are rewritten in all. True while a pass runs.
bool lru_pass_step(LruClock& clock, std::span<Db* const> dbs, std::int64_t now_ms,
                   std::size_t budget);

}  // namespace ruvio::store
