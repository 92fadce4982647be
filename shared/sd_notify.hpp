// The systemd readiness protocol (sd_notify(3)) spoken directly, without libsystemd: one
// datagram of "KEY=VALUE\n..." lines to the AF_UNIX socket named by $NOTIFY_SOCKET.
#pragma once

#include <string_view>

namespace ruvio {

// Sends `state` (e.g. "READY=1", "STOPPING=1", "READY=1\nSTATUS=serving") to
// $NOTIFY_SOCKET. A leading '@' in the socket name means the abstract namespace.
// Returns true when the datagram was sent; false when $NOTIFY_SOCKET is unset (a no-op:
// not running under systemd) or the send failed.
bool sd_notify_send(std::string_view state);

}  // namespace ruvio
