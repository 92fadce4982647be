// WATCH on this worker: which watchers (a client of this worker or, over the mesh, of
// another) watch which keys, and which of them saw a watched key change since. The store
// reports every change through store::g_touch_hook while any key is watched, so a worker
// with no WATCH pays nothing.
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
  void unwatch(std::uint64_t watcher);
  // A key of database `db` changed; an empty key means every key of it.
  void touched(int db, std::string_view key);
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
