// The persistence family: SAVE, BGSAVE, BGREWRITEAOF, LASTSAVE. The work is the worker's
// Persistence (worker/persist/); under --durability memory there is nothing to save to.
#include "worker/commands/server/persist_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/persist/service.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kNoFiles =
    "ERR snapshots are off: this server runs with --durability memory";

void reply(Context& ctx, const std::string& text) {
  if (text.starts_with("ERR")) {
    ctx.out.error(text);
  } else {
    ctx.out.simple(text);
  }
}

void cmd_save(Context& ctx) {
  persist::Service* p = ctx.shard.persistence;
  if (p == nullptr) {
    ctx.out.error(kNoFiles);
    return;
  }
  if (auto err = p->save()) {
    ctx.out.error(*err);
    return;
  }
  ctx.out.ok();
}

void cmd_bgsave(Context& ctx) {
  bool schedule = false;
  if (ctx.argc() > 1) {
    if (ctx.argc() != 2 || !iequals(ctx.args[1], "schedule")) {
      ctx.out.error(err::kSyntax);
      return;
    }
    schedule = true;
  }
  persist::Service* p = ctx.shard.persistence;
  if (p == nullptr) {
    ctx.out.error(kNoFiles);
    return;
  }
  reply(ctx, p->bgsave(schedule, false));
}

// A snapshot plus dropping the WAL it covers is exactly what rewriting Redis's AOF achieves.
void cmd_bgrewriteaof(Context& ctx) {
  persist::Service* p = ctx.shard.persistence;
  if (p == nullptr) {
    ctx.out.error(kNoFiles);
    return;
  }
  reply(ctx, p->bgsave(false, true));
}

void cmd_lastsave(Context& ctx) {
  persist::Service* p = ctx.shard.persistence;
  ctx.out.integer(p != nullptr ? p->last_save_unix() : ctx.shard.start_ms() / 1000);
}

const CommandDef kPersistCommands[] = {
    {&decl::save, cmd_save},
    {&decl::bgsave, cmd_bgsave},
    {&decl::bgrewriteaof, cmd_bgrewriteaof},
    {&decl::lastsave, cmd_lastsave},
};

}  // namespace

std::span<const CommandDef> persist_commands() {
  return kPersistCommands;
}

}  // namespace ruvio::worker
