// WATCH on this worker: which watchers (a client of this worker or, over the mesh, of
// another) watch which keys, and which of them saw a watched key change since. The store
// reports every change to the Shard (its store::KeyspaceListener) while any key is watched,
// so a worker with no WATCH pays nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ruvio::worker {

class WatchRegistry {
 public:
  // A watcher: (worker of the client, client id), packed.
  static std::uint64_t watcher(int worker, std::uint64_t client_id) {
    return (static_cast<std::uint64_t>(worker) << 48) | client_id;
  }

  void watch(int db, std::string_view key, std::uint64_t watcher);
  bool dirty(std::uint64_t watcher) const;
  // Keys `watcher` watches here (its CLIENT LIST tot-mem counts them).
  std::size_t count(std::uint64_t watcher) const;
  void unwatch(std::uint64_t watcher);
  // A key of database `db` changed.
  void touched(int db, std::string_view key);
  // The whole database changed (FLUSHDB, FLUSHALL, SWAPDB): as Redis, only watchers of
  // keys for which `existed(key)` holds are invalidated.
  template <class Existed>
  void touched_all(int db, Existed existed) {
    std::string prefix = std::to_string(db) + ":";
    for (auto& [k, list] : keys_) {
      if (k.compare(0, prefix.size(), prefix) != 0) continue;
      if (!existed(std::string_view(k).substr(prefix.size()))) continue;
      for (std::uint64_t w : list) watchers_[w].dirty = true;
    }
  }
  bool empty() const { return watchers_.empty(); }

 private:
  static std::string slot_key(int db, std::string_view key);
  struct Watcher {
    std::vector<std::string> keys;
    bool dirty = false;
  };
  std::unordered_map<std::string, std::vector<std::uint64_t>> keys_;
  std::unordered_map<std::uint64_t, Watcher> watchers_;
};

}  // namespace ruvio::worker
