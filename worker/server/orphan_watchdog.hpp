#pragma once

namespace ruvio::worker {

// A worker whose supervisor died gets SIGTERM (PR_SET_PDEATHSIG) and its control socket
// closes; both are noticed by the libuv loop. A worker stuck in a loop that never returns
// to libuv would then spin on, orphaned, forever. This thread, outside the loop, sees the
// re-parenting and ends the process after a grace period long enough for an orderly stop
// (the loop's own shutdown flushes the WAL; a stuck loop has nothing left to flush).
void start_orphan_watchdog(int grace_seconds);

}  // namespace ruvio::worker
