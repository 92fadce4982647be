// The systemd readiness protocol (sd_notify(3)): libsystemd's sd_notify sends the
// "KEY=VALUE\n..." datagram to the socket $NOTIFY_SOCKET names (a path, or '@' for the
// abstract namespace). Only the supervisor speaks it: it is the unit's main process
// (NotifyAccess=main) and reports readiness once every worker is up.
#pragma once

#include <systemd/sd-daemon.h>

#include <string>

namespace ruvio::supervisor {

// Sends `state` (e.g. "READY=1", "STOPPING=1", "READY=1\nSTATUS=serving"). True when the
// datagram was sent; false when $NOTIFY_SOCKET is unset (not running under systemd: a no-op)
// or the send failed.
inline bool sd_notify_send(const std::string& state) {
  return sd_notify(0, state.c_str()) > 0;
}

}  // namespace ruvio::supervisor
