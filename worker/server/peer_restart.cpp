// What a worker tells a peer whose mesh link comes up, and what it drops when the link
// breaks. A link breaks when the peer dies (the supervisor restarts it); the new peer starts
// from its start-up configuration with no clients, so it must learn again what the other
// workers registered with it: that their clients monitor, their clients' BCAST prefixes, a
// CLIENT PAUSE in force (it went to every worker) and the parameters CONFIG SET changed (it
// went to every worker too: notify-keyspace-events, for one, decides whether the new
// worker's keys notify the subscribers of every worker). And what was registered here for the
// peer's clients is gone with them: its monitors, and the keys its tracking clients read here
// (their readers on this worker get the null invalidation, tracking_restart.cpp).
#include <optional>
#include <string>
#include <vector>

#include "worker/commands/server/server_family.hpp"
#include "worker/script/functions.hpp"
#include "worker/script/lua_engine.hpp"
#include "worker/server/connection.hpp"
#include "worker/server/server.hpp"

namespace ruvio::worker {

void Server::on_mesh_link_up(int peer) {
  if (shard_.monitors.has_local()) router_.monitor_announce(true);
  shard_.tracking.peer_up(peer);
  const std::vector<std::string_view>& changed = shard_.config_changed;
  if (!changed.empty()) {
    // One CONFIG SET of every changed parameter's value now (all-or-nothing there, as here).
    std::vector<std::string> pairs;
    pairs.reserve(2 * changed.size());
    for (const std::string_view name : changed) {
      if (std::optional<std::string> v = srvfam::settable_value(shard_, name)) {
        pairs.emplace_back(name);
        pairs.push_back(std::move(*v));
      }
    }
    std::vector<std::string_view> args = {"CONFIG", "SET"};
    args.insert(args.end(), pairs.begin(), pairs.end());
    if (!pairs.empty()) router_.tell_peer_command(peer, args);
  }
  // SCRIPT LOAD and FUNCTION LOAD reached every worker; scripts are never persisted, and
  // functions only with a WAL.
  if (const script::Engine* e = script::started_engine(executor_)) {
    e->for_each_script([&](std::string_view body) {
      const std::string_view load[] = {"SCRIPT", "LOAD", body};
      router_.tell_peer_command(peer, load);
    });
    const script::Functions* f = e->functions_if_started();
    if (init_.config.durability == Durability::kMemory && f != nullptr && f->library_count() != 0) {
      const std::string payload = f->dump();
      const std::string_view restore[] = {"FUNCTION", "RESTORE", payload, "REPLACE"};
      router_.tell_peer_command(peer, restore);
    }
  }
  // Last: what was sent above must not wait behind the pause there.
  const std::int64_t now = shard_.now_ms();
  const ClientPause::Mode mode = shard_.client_pause.mode(now);
  if (mode != ClientPause::Mode::kNone && shard_.client_pause.end_ms() > now) {
    const proto::MeshPause pause{
        mode == ClientPause::Mode::kAll ? proto::PauseMode::kAll : proto::PauseMode::kWrite,
        shard_.client_pause.end_ms()};
    router_.tell_peer(peer, {MeshKind::kPause, pause});
  }
  maybe_ready();
}

void Server::on_mesh_peer_gone(int peer) {
  shard_.monitors.set_peer(peer, false);
  shard_.tracking.peer_gone(peer);
  shard_.update_listener();
}

void Server::on_mesh_link_down(int peer) {
  if (!shard_.tracking.enabled()) return;
  const std::uint64_t bit = tracking_peer_bit(peer);
  std::vector<std::uint64_t> readers;
  for (auto& [id, c] : clients_) {
    if (!(c->info().tracking_peers & bit)) continue;
    c->info().tracking_peers &= ~bit;
    readers.push_back(id);
  }
  shard_.tracking.peer_lost(peer, readers);
  shard_.update_listener();
}

}  // namespace ruvio::worker
