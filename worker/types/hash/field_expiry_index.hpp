// The active expiry's index of hash-field TTLs for one database: the keys of hashes that hold
// fields with a TTL, ordered by the earliest expiry among their fields (Redis 7.4's global
// ebuckets of hashes, Valkey 9's per-db set of keys with volatile items). The sweep takes the
// keys that are due from the front, so expired fields leave memory without any key being
// scanned and the work of a tick is bounded by the keys it takes.
//
//   by_time_  ordered set of (earliest expiry ms, key): the sweep's queue
//   at_       key -> the time it is queued under (one entry per key)
//
// A queued time is a lower bound: a TTL made earlier requeues the key earlier (note), one
// made later or removed leaves it early, and the sweep, finding nothing due, requeues the
// key at the hash's exact next expiry. Keys deleted, renamed away or flushed leave stale
// entries that the sweep drops when it finds no such hash. Memory: one entry per hash with
// field TTLs (not per field), counted outside the keyspace heap as the other per-db indexes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ruvio::types::hash {

class FieldExpiryIndex {
 public:
  // A field of `key` expires at `at_ms`: the key is queued no later than that.
  void note(std::string_view key, std::int64_t at_ms) {
    auto it = at_.find(key);  // no allocation when the key is queued already
    if (it != at_.end()) {
      if (it->second <= at_ms) return;
      by_time_.erase({it->second, it->first});
      it->second = at_ms;
      by_time_.emplace(at_ms, it->first);
      return;
    }
    std::string k(key);
    by_time_.emplace(at_ms, k);
    at_.emplace(std::move(k), at_ms);
  }

  // Takes up to `max` keys queued at or before `now_ms`, earliest first, into `out`
  // (cleared first). A field expires once the clock passes its time, as Redis's `now > at`.
  void take_due(std::int64_t now_ms, std::size_t max, std::vector<std::string>& out) {
    out.clear();
    while (!by_time_.empty() && out.size() < max && by_time_.begin()->first < now_ms) {
      auto node = by_time_.extract(by_time_.begin());
      at_.erase(node.value().second);
      out.push_back(std::move(node.value().second));
    }
  }

  bool empty() const { return by_time_.empty(); }
  std::size_t size() const { return by_time_.size(); }
  // The earliest queued time; INT64_MAX when empty.
  std::int64_t next() const { return by_time_.empty() ? INT64_MAX : by_time_.begin()->first; }
  void clear() {
    by_time_.clear();
    at_.clear();
  }
  void swap(FieldExpiryIndex& other) {
    by_time_.swap(other.by_time_);
    at_.swap(other.at_);
  }

 private:
  // Lookups by string_view (C++20 heterogeneous lookup).
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::set<std::pair<std::int64_t, std::string>> by_time_;
  std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>> at_;
};

}  // namespace ruvio::types::hash
