// The generation table of the LRU clock (lru_clock.hpp draws it) and its merge pass.
#include "worker/store/lru_clock.hpp"

#include <algorithm>

#include "worker/store/db.hpp"

namespace ruvio::store {

LruClock::LruClock() {
  start_.fill(kFree);
  for (std::size_t i = 0; i < 256; ++i) remap_[i] = static_cast<std::uint8_t>(i);
  free_ = 256;
}

int LruClock::take_free() {
  for (int k = 1; k <= 256; ++k) {
    const auto id = static_cast<std::uint8_t>(current_ + k);
    // A merged-away id is still in use until its pass ends (remap_ says so).
    if (start_[id] == kFree && remap_[id] == id) return id;
  }
  return -1;
}

void LruClock::insert_ordered(std::uint8_t id) {
  std::size_t k = count_;
  while (k > 0 && start_[order_[k - 1]] > start_[id]) {
    order_[k] = order_[k - 1];
    --k;
  }
  order_[k] = id;
  ++count_;
  --free_;
}

void LruClock::open(std::int64_t s) {
  const int id = take_free();
  if (id < 0) {
    // Out of ids until the pass ends: the current generation stays open (coarser, in order).
    return;
  }
  start_[static_cast<std::size_t>(id)] = s;
  insert_ordered(static_cast<std::uint8_t>(id));
  current_ = static_cast<std::uint8_t>(id);
}

std::int64_t LruClock::idle_seconds(std::uint8_t id, std::int64_t now_ms) const {
  if (count_ == 0) return 0;
  std::int64_t at = start_[remap_[id]];
  if (at == kFree) at = start_[order_[0]];
  const std::int64_t idle = seconds(now_ms) - at;
  return idle > 0 ? idle : 0;
}

std::uint8_t LruClock::back_by(std::int64_t idle_s, std::int64_t now_ms) {
  advance(now_ms);
  const std::int64_t when = seconds(now_ms) - (idle_s > 0 ? idle_s : 0);
  if (count_ == 0 || when >= start_[current_]) return current_;
  // The newest generation begun at or before `when`.
  std::size_t k = count_;
  while (k > 0 && start_[order_[k - 1]] > when) --k;
  if (k > 0 && start_[order_[k - 1]] == when) return remap_[order_[k - 1]];
  if (free_ > kLowWater) {
    const int id = take_free();
    if (id >= 0) {
      start_[static_cast<std::size_t>(id)] = when;
      insert_ordered(static_cast<std::uint8_t>(id));
      return static_cast<std::uint8_t>(id);
    }
  }
  if (k == 0) {
    // Older than every generation: the oldest one reaches back to it (its keys look older).
    start_[order_[0]] = when;
    return remap_[order_[0]];
  }
  return remap_[order_[k - 1]];
}

void LruClock::begin(std::int64_t now_ms) {
  const std::int64_t now = seconds(now_ms);
  passing_ = true;
  ++epoch_;
  if (count_ < 3) return;
  // Oldest first: a generation joins the group before it while the group's width, once it
  // ends where this generation ends, stays within 1/kRatio of the time since then. The
  // current generation never merges.
  std::uint8_t head = order_[0];
  for (std::size_t i = 1; i + 1 < count_; ++i) {
    const std::uint8_t id = order_[i];
    const std::int64_t end = start_[order_[i + 1]];
    const std::int64_t age = now - end;
    if (age >= kExactSeconds && (end - start_[head]) * kRatio <= age) {
      remap_[id] = head;
    } else {
      head = id;
    }
  }
}

void LruClock::end() {
  passing_ = false;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    const std::uint8_t id = order_[i];
    if (remap_[id] != id) {
      start_[id] = kFree;
      remap_[id] = id;
      ++free_;
    } else {
      order_[kept++] = id;
    }
  }
  count_ = kept;
}

bool lru_pass_step(LruClock& clock, std::span<Db* const> dbs, std::int64_t now_ms,
                   std::size_t budget) {
  if (!clock.passing()) {
    if (!clock.wants_pass()) return false;
    clock.begin(now_ms);
  }
  std::size_t left = budget;
  bool done = true;
  for (Db* db : dbs) {
    if (!db->lru_remap_step(clock, &left)) {
      done = false;
      break;  // out of budget
    }
  }
  if (done) clock.end();
  return !done;
}

}  // namespace ruvio::store
