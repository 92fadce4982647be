// Redis's client limits as the loop applies them (networking.c, server.c clientsCron):
// output buffer classes with hard and soft limits, the query buffer limit, maxclients against
// the descriptor limit, idle timeout and TCP keepalive. Pure rules here; the connection and
// the server call them where Redis does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "shared/config.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

// getClientType for the limits: a subscribed client is pubsub, every other one normal (no
// replica links exist).
inline ClientClass client_class(const ClientInfo& c) {
  return c.subscribed() ? ClientClass::kPubsub : ClientClass::kNormal;
}

// checkClientOutputBufferLimits: true when `used` bytes of pending output pass the hard
// limit, or have stayed past the soft one for more than its seconds. `soft_since_ms` is the
// client's clock of the soft limit (0: under it), kept here.
inline bool output_over_limit(const ClientBufferLimit& limit, std::size_t used, std::int64_t now_ms,
                              std::int64_t& soft_since_ms) {
  const bool hard = limit.hard != 0 && used >= limit.hard;
  bool soft = limit.soft != 0 && used >= limit.soft;
  if (soft) {
    if (soft_since_ms == 0) {
      soft_since_ms = now_ms;  // first time past it: the clock starts
      soft = false;
    } else if (now_ms - soft_since_ms <= limit.soft_seconds * 1000) {
      soft = false;
    }
  } else {
    soft_since_ms = 0;
  }
  return hard || soft;
}

// anetKeepAlive: SO_KEEPALIVE with the first probe after `interval` seconds, then every
// interval/3, dropped after 3 unanswered probes. 0 = off.
void set_tcp_keepalive(int fd, int interval);

// adjustOpenFilesLimit for one worker: raises RLIMIT_NOFILE to `clients` plus the worker's
// own descriptors, or lowers `clients` to what the limit allows (logging as Redis does).
// Returns the clients this worker can hold.
std::uint64_t fit_open_files(std::uint64_t clients, std::uint64_t reserved);

}  // namespace ruvio::worker
