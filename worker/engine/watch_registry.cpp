#include "worker/engine/watch_registry.hpp"

#include <algorithm>

namespace ruvio::worker {

std::string WatchRegistry::slot_key(int db, std::string_view key) {
  std::string k = std::to_string(db);
  k += ':';
  k.append(key);
  return k;
}

void WatchRegistry::watch(int db, std::string_view key, std::uint64_t watcher) {
  std::string k = slot_key(db, key);
  Watcher& w = watchers_[watcher];
  if (std::find(w.keys.begin(), w.keys.end(), k) != w.keys.end()) return;
  keys_[k].push_back(watcher);
  w.keys.push_back(std::move(k));
}

bool WatchRegistry::dirty(std::uint64_t watcher) const {
  auto it = watchers_.find(watcher);
  return it != watchers_.end() && it->second.dirty;
}

std::size_t WatchRegistry::count(std::uint64_t watcher) const {
  auto it = watchers_.find(watcher);
  return it != watchers_.end() ? it->second.keys.size() : 0;
}

void WatchRegistry::unwatch(std::uint64_t watcher) {
  auto it = watchers_.find(watcher);
  if (it == watchers_.end()) return;
  for (const std::string& k : it->second.keys) {
    auto kit = keys_.find(k);
    if (kit == keys_.end()) continue;
    std::erase(kit->second, watcher);
    if (kit->second.empty()) keys_.erase(kit);
  }
  watchers_.erase(it);
}

void WatchRegistry::touched(int db, std::string_view key) {
  auto it = keys_.find(slot_key(db, key));
  if (it == keys_.end()) return;
  for (std::uint64_t w : it->second) watchers_[w].dirty = true;
}

}  // namespace ruvio::worker
