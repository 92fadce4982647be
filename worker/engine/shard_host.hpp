// What the engine asks of the server that owns the connections, the loop and the mesh
// (worker/server/): the Shard's one way up, implemented by the Server and set once at start,
// as Seastar's and Dragonfly's shards reach their hosts. A Shard no server hosts (unit tests)
// keeps this base class, whose answers are those of a worker with no clients and no peers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ruvio::worker {

struct ClientInfo;

class ShardHost {
 public:
  virtual ~ShardHost() = default;

  // Connected clients, for CLIENT LIST / INFO clients / CLIENT KILL / TRACKING REDIRECT.
  virtual void for_each_client(const std::function<void(const ClientInfo&)>& fn) { (void)fn; }
  // Brings the buffer figures of CLIENT LIST/INFO up to this moment: every client's (all) or
  // only `running`'s, the client whose command runs now. The connections record nothing for
  // it while nobody asks.
  virtual void measure_clients(std::uint64_t running, bool all) {
    (void)running;
    (void)all;
  }
  // CLIENT KILL: closes client `id` of this worker (the calling client closes after its reply
  // instead).
  virtual void kill_client(std::uint64_t id) { (void)id; }
  // Closes every client `match` selects except `except` (ACL DELUSER / LOAD).
  virtual void close_clients(const std::function<bool(const ClientInfo&)>& match,
                             const ClientInfo* except) {
    (void)match;
    (void)except;
  }
  // CONFIG SET maxclients: takes `n` clients when this worker's descriptor limit allows them;
  // the reason otherwise, as Redis words it.
  virtual std::optional<std::string> raise_maxclients(std::uint64_t n) {
    (void)n;
    return std::nullopt;
  }
  // CONFIG SET hz: run the housekeeping timer config().hz times a second from now on, that
  // value first held within Redis's 1..500.
  virtual void apply_hz() {}
  // After every change of the ACL users (SETUSER, DELUSER, LOAD, requirepass): the server
  // reports the new state to the supervisor, which hands it to a restarted worker.
  virtual void acl_changed() {}
  // A PUBLISH (a keyspace notification, a PUBLISH inside EXEC or a script) for every other
  // worker's subscribers, over the mesh. Nothing to do at one worker.
  virtual void publish_peers(std::string_view channel, std::string_view message) {
    (void)channel;
    (void)message;
  }
};

}  // namespace ruvio::worker
