// The worker's side of the operations messages on the control channel: answers the
// supervisor's once-a-second StatsRequest with the figures only the worker knows, keeps the
// per-worker memory figures the supervisor pushes (for INFO), and applies a reloaded
// configuration (SIGHUP) without a restart.
#pragma once

#include <optional>

#include "shared/control.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

// Starts the in-process allocation sampler as the configuration says (`--alloc-trace`).
void start_alloc_sampler(const Config& config);

// Handles StatsRequest, WorkerFigures and ConfigUpdate; returns the reply to send, if any.
// Other messages are not its business and return nullopt untouched.
std::optional<control::Message> handle_ops_message(Shard& shard, const control::Message& msg);

// The StatsReport for `shard` now.
control::StatsReport stats_report(Shard& shard, std::uint64_t seq);

}  // namespace ruvio::worker
