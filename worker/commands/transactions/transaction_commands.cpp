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

const CommandDef kTransactionCommands[] = {
    {.decl = &decl::multi, .handler = multi, .traits = kTxImmediate},
    {.decl = &decl::exec, .handler = exec, .traits = kTxExec},
    {.decl = &decl::discard, .handler = discard, .traits = kTxDiscard},
    {.decl = &decl::watch, .handler = watch, .traits = kTxImmediate | kTxWatch},
    {.decl = &decl::unwatch, .handler = unwatch, .traits = kTxUnwatch},
};

}  // namespace

std::span<const CommandDef> transaction_commands() {
  return kTransactionCommands;
}

}  // namespace ruvio::worker
