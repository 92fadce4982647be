// The bridge between the server loop and a command family: arguments in, reply out.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "proto/resp_writer.hpp"
#include "worker/engine/shard.hpp"
#include "worker/persist/effect.hpp"

namespace ruvio::worker {

struct CommandDef;

struct Context {
  std::span<const std::string_view> args;  // args[0] is the command name as sent
  proto::ReplyWriter& out;
  ClientInfo& client;
  Shard& shard;
  const CommandDef* command = nullptr;

  store::Db& db() { return shard.db(client.db); }
  std::int64_t now_ms() const { return shard.now_ms(); }
  std::size_t argc() const { return args.size(); }

  // A write command whose arguments would not replay to the same result (relative times,
  // randomness, a computed value) states its logical effect here; the journal records that
  // instead of the command. Views are copied.
  void log_as(std::initializer_list<std::string_view> effect) const {
    shard.effect().assign(effect);
  }
  // log_as for an effect of variable length (SPOP with a count: SREM of what was popped).
  void log_as(std::span<const std::string_view> effect) const { shard.effect().assign(effect); }
  // One more command of the effect (after log_as, log_begin or another log_also): the journal
  // writes them all as one all-or-nothing record.
  void log_also(std::initializer_list<std::string_view> effect) const {
    shard.effect().add(effect);
  }
  void log_also(std::span<const std::string_view> effect) const { shard.effect().add(effect); }
  // The effect is what log_also adds from here on, possibly nothing (a write the WAL need not
  // keep: a consumer's seen-time refreshed by a read that delivered nothing).
  void log_begin() const { shard.effect().begin(); }
  // A keyspace notification for `key` of the client's database (Redis's notifyKeyspaceEvent),
  // for a change that does not go through a write handle. One branch when notifications are off.
  void notify(std::uint32_t cls, std::string_view event, std::string_view key) {
    db().notify(cls, event, key);
  }
  // The command's own declared event (declared_event: "sinterstore", "zrangestore", ...).
  void notify_declared(std::string_view key) {
    const store::KeyspaceEvents& ev = shard.events();
    if (ev.notifier != nullptr && !ev.command.name.empty()) [[unlikely]]
      ev.notifier->notify(db(), ev.command.cls, ev.command.name, key);
  }
};

}  // namespace ruvio::worker
