// What the proxy layer (router and mesh) needs of the worker loop around it. The server
// implements it; the route layer never includes worker/server/.
#pragma once

#include <uv.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "proto/mesh_frame.hpp"
#include "proto/resp_writer.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

// The request kinds and their payloads are the frame codec's (proto/mesh_frame.hpp).
using MeshKind = proto::MeshKind;
using MeshMessage = proto::MeshMessage;

// Whom an answer belongs to: a client connection's reserved reply slot and part.
struct MeshWaiter {
  std::uint64_t client_id = 0;
  std::uint64_t seq = 0;
  std::uint32_t part = 0;
};
// A waiter that is no reply slot (slots count from 1): the router's own question for a
// client, answered through Router::answered (CLIENT TRACKING REDIRECT's target check).
inline constexpr std::uint32_t kQuestionPart = 0xffffffffu;

class RouteHost {
 public:
  virtual uv_loop_t* loop() = 0;
  virtual Shard& shard() = 0;
  // Re-reads the cached clock (before running a batch of requests).
  virtual void refresh_clock() = 0;
  // Mesh output is waiting: flush the links in this turn's check phase.
  virtual void mark_mesh_dirty() = 0;
  // The link to worker `peer` came up (readiness waits for every link): a peer that
  // restarted learns again what this worker registered there (monitors, BCAST prefixes).
  virtual void on_mesh_link_up(int peer) = 0;
  // The link to worker `peer` broke: it restarted (or stopped) and forgot this worker's
  // registrations, and its clients are gone.
  virtual void on_mesh_link_down(int peer) = 0;
  // The link worker `peer` opened to this one closed: what it registered here over it (its
  // monitors, its clients' BCAST prefixes) is gone.
  virtual void on_mesh_peer_gone(int peer) = 0;
  // An answer from a peer for a client's reserved reply slot (dropped if the client left).
  virtual void deliver(const MeshWaiter& waiter, std::string_view reply) = 0;

 protected:
  ~RouteHost() = default;
};

}  // namespace ruvio::worker
