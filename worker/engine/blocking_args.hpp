// The first checks of every blocking command's handler (BLPOP … BZMPOP): the timeout
// argument, a wait ended by CLIENT UNBLOCK … ERROR, and whether this run is the one after the
// deadline (the handler then answers its timeout reply instead of parking again).
#pragma once

#include <string_view>

#include "worker/engine/blocking.hpp"
#include "worker/engine/context.hpp"

namespace ruvio::worker {

// Redis's getTimeoutFromObjectOrReply: false (with its error reply) when `arg` is no timeout.
inline bool timeout_ok(Context& ctx, std::string_view arg) {
  const Timeout t = parse_timeout(arg, ctx.now_ms());
  if (!t.error.empty()) {
    ctx.out.error(t.error);
    return false;
  }
  return true;
}

// The wait ended by CLIENT UNBLOCK ... ERROR: answers -UNBLOCKED (true) instead of running.
inline bool unblocked_by_error(Context& ctx) {
  if (!ctx.shard.blocking().unblocked_by_error(ctx.shard.watcher_of(ctx.client))) return false;
  ctx.shard.blocking().take_timed_out(0);
  ctx.out.error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
  return true;
}

// True once, on the run after the client's deadline passed.
inline bool timed_out(Context& ctx) {
  return ctx.shard.blocking().take_timed_out(ctx.shard.watcher_of(ctx.client));
}

// The run after the deadline answers Redis's replyToBlockedClientTimedOut (a null array for
// every list, sorted-set and stream command) and nothing else: the executor has just found
// no key that serves it, and a key that became another type meanwhile is no WRONGTYPE.
inline bool answered_timeout(Context& ctx) {
  if (!timed_out(ctx)) return false;
  ctx.out.null_array();
  return true;
}

}  // namespace ruvio::worker
