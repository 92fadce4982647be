// Client-side caching when another worker restarts (tracking.hpp): Redis's promise is "you
// are told when your cached copy may be stale", and a restarted worker has forgotten the
// keys this worker's clients read there and the BCAST prefixes they announced. So, when the
// link to it breaks, those clients get the null invalidation FLUSHALL sends (drop the whole
// cache) and, once it is back, it learns the prefixes again. What it had registered here
// for its own clients (their BCAST prefixes, over the link it opened to this worker) is
// dropped when that link closes: those clients are gone. Reader ids
// of its clients left in the table go lazily, as a local client's do: a change of the key
// sends the peer a message for a client it no longer has.
#include <algorithm>

#include "worker/engine/tracking.hpp"

namespace ruvio::worker {

void Tracking::peer_gone(int w) {
  if (w < 0 || w >= workers_ || w == self_) return;
  remote_prefixes_[static_cast<std::size_t>(w)].clear();
  remote_keys_[static_cast<std::size_t>(w)].clear();
  remote_bcast_ = std::any_of(remote_prefixes_.begin(), remote_prefixes_.end(),
                              [](const auto& p) { return !p.empty(); });
  refresh();
}

void Tracking::peer_lost(int w, std::span<const std::uint64_t> readers) {
  if (w < 0 || w >= workers_ || w == self_) return;
  for (auto& [id, t] : clients_) {
    const bool read_there = std::find(readers.begin(), readers.end(), id) != readers.end();
    if (!(t.flags & kBcast) && !read_there) continue;
    if (id == current_) {
      queue(id, {}, true);
    } else {
      send(id, {}, true);
    }
  }
  refresh();
}

void Tracking::peer_up(int w) {
  if (!prefixes_.empty()) announce_prefixes(w);
}

}  // namespace ruvio::worker
