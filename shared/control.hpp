// Control channel between the supervisor and one worker: a SOCK_STREAM socketpair carrying
// frames of [u32 little-endian length][cereal portable-binary ControlMessage].
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "shared/config.hpp"

namespace ruvio::control {

// Supervisor → worker, first frame after exec.
struct WorkerInit {
  int id = 0;
  int worker_count = 1;
  std::uint16_t slot_first = 0;  // inclusive range of Redis Cluster hash slots owned
  std::uint16_t slot_last = 16383;
  Config config;
  template <class A>
  void serialize(A& ar) { ar(id, worker_count, slot_first, slot_last, config); }
};

// Worker → supervisor once its listeners accept connections.
struct WorkerReady {
  int id = 0;
  template <class A>
  void serialize(A& ar) { ar(id); }
};

// Supervisor → worker: stop cleanly (flush, close) and exit 0.
struct Shutdown {
  template <class A>
  void serialize(A&) {}
};

// Worker → supervisor: SHUTDOWN was received from a client; stop the whole service.
struct ShutdownRequest {
  template <class A>
  void serialize(A&) {}
};

using Message = std::variant<WorkerInit, WorkerReady, Shutdown, ShutdownRequest>;

// Appends one frame (length + payload) for `msg` to `out`.
void encode(const Message& msg, std::string& out);

// Decodes the first complete frame of `in`. Returns the message and sets `consumed`, or
// nullopt with consumed = 0 when `in` holds no complete frame yet. A malformed frame sets
// `error` to true.
std::optional<Message> decode(std::string_view in, std::size_t& consumed, bool& error);

}  // namespace ruvio::control
