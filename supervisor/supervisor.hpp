// The supervisor: owns the listening sockets, starts one pinned ruvio-worker per configured
// CPU, restarts a worker that dies (with back-off, reusing its sockets so no port is ever
// closed), reports readiness to systemd and turns SIGTERM/SIGINT or a client's SHUTDOWN into
// an orderly stop of every worker. It never touches keys.
#pragma once

#include "shared/config.hpp"

namespace ruvio::supervisor {

// Runs until every worker has stopped after SIGTERM/SIGINT/SHUTDOWN. Returns the process
// exit code: 0 after an orderly stop, 1 when start-up failed (a port in use, no worker
// binary, data directory not creatable) — that failure is printed as one line on stderr.
int run(const Config& config);

}  // namespace ruvio::supervisor
