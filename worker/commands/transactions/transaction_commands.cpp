// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH.
//
// Queueing and EXEC are connection-level and live in the router (worker/route/
// transaction.cpp), which decides where a transaction runs. What runs here is the part
// that belongs to a worker's own state: entering MULTI, and WATCH registrations on the
// worker that owns the watched keys. EXEC and DISCARD reach these handlers only outside
// MULTI, where Redis answers exactly these errors.
#include "worker/commands/transactions/transaction_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/context.hpp"

namespace ruvio::worker {
namespace {

void multi(Context& ctx) {
  if (ctx.client.in_multi) {
    ctx.out.error("ERR MULTI calls can not be nested");
    return;
  }
  ctx.client.in_multi = true;
  ctx.client.multi_failed = false;
  ctx.client.queued.clear();
  ctx.client.multi_bytes = 0;
  ctx.out.ok();
}

void exec(Context& ctx) {
  ctx.out.error("ERR EXEC without MULTI");
}
void discard(Context& ctx) {
  ctx.out.error("ERR DISCARD without MULTI");
}

void watch(Context& ctx) {
  if (ctx.client.in_multi) {
    ctx.out.error("ERR WATCH inside MULTI is not allowed");
    return;
  }
  std::uint64_t watcher = ctx.shard.watcher_of(ctx.client);
  for (std::size_t i = 1; i < ctx.argc(); ++i) ctx.shard.watch(ctx.client.db, ctx.args[i], watcher);
  ctx.out.ok();
}

void unwatch(Context& ctx) {
  ctx.shard.unwatch(ctx.shard.watcher_of(ctx.client));
  ctx.out.ok();
}

constexpr std::uint32_t kTx = kNoScript | kLoading | kStale | kFast | kAllowBusy;

const CommandDef kTransactionCommands[] = {
    {"multi", 1, kTx | kTxImmediate, &decl::multi, multi, "transactions",
     "Mark the start of a transaction block", "1.2.0", "O(1)", "fast transaction"},
    {"exec", 1, kNoScript | kLoading | kStale | kSkipSlowlog | kTxExec, &decl::exec, exec,
     "transactions", "Execute all commands issued after MULTI", "1.2.0",
     "Depends on commands in the transaction", "slow transaction"},
    {"discard", 1, kTx | kTxDiscard, &decl::discard, discard, "transactions",
     "Discard all commands issued after MULTI", "2.0.0",
     "O(N), when N is the number of queued commands", "fast transaction"},
    {"watch", -2, kTx | kTxImmediate | kTxWatch, &decl::watch, watch, "transactions",
     "Watch the given keys to determine execution of the MULTI/EXEC block", "2.2.0",
     "O(1) for every key.", "fast transaction"},
    {"unwatch", 1, kTx | kTxUnwatch, &decl::unwatch, unwatch, "transactions",
     "Forget about all watched keys", "2.2.0", "O(1)", "fast transaction"},
};

}  // namespace

std::span<const CommandDef> transaction_commands() {
  return kTransactionCommands;
}

}  // namespace ruvio::worker
