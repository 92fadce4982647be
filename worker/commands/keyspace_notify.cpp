// Keyspace notifications (Redis's notify.c): how an event becomes two pub/sub messages, and
// which event a write command publishes by default.
//
// Where events come from: the write handles (store::WriteHandle / StringHandle) publish the
// running command's event when they release a change, and "del" when they delete an emptied
// collection; the store itself publishes "new" (a key added) and "expired" (lazy and active
// expiry); a command whose change does not go through a handle (SET, DEL, EXPIRE, RENAME ...)
// or whose event is not its own name (LPUSHX: "lpush") states it in its handler
// (Context::notify, WriteHandle::notify_as). With notify-keyspace-events empty no notifier is
// installed: each of those places costs one null test.
#include "worker/commands/keyspace_notify.hpp"

#include <charconv>

#include "worker/commands/command.hpp"
#include "worker/commands/shard.hpp"

namespace ruvio::worker {

void Shard::notify(store::Db& db, std::uint32_t cls, std::string_view event, std::string_view key) {
  const std::uint32_t flags = config_.notify_keyspace_events;
  if ((flags & cls) == 0) return;
  char num[16];
  const auto n = std::to_chars(num, num + sizeof num, index_of(db)).ptr - num;
  auto publish = [&](std::string_view kind, std::string_view tail, std::string_view message) {
    notify_channel_.assign(kind);
    notify_channel_.append(num, static_cast<std::size_t>(n));
    notify_channel_.append("__:");
    notify_channel_.append(tail);
    if (pubsub != nullptr) pubsub->publish(notify_channel_, message, false);
    if (publish_peers) publish_peers(notify_channel_, message);
  };
  if (flags & kNotifyKeyspace) publish("__keyspace@", key, event);
  if (flags & kNotifyKeyevent) publish("__keyevent@", event, key);
}

store::KeyspaceEvent declared_event(const CommandDef& def) {
  if (!(def.flags & kWrite)) return {};
  std::uint32_t cls = 0;
  const std::string_view g = def.group;
  if (g == "string" || g == "bitmap" || g == "hyperloglog") {
    cls = kNotifyString;
  } else if (g == "list") {
    cls = kNotifyList;
  } else if (g == "set") {
    cls = kNotifySet;
  } else if (g == "sorted-set" || g == "geo") {
    cls = kNotifyZset;
  } else if (g == "hash") {
    cls = kNotifyHash;
  } else if (g == "stream") {
    cls = kNotifyStream;
  } else {
    cls = kNotifyGeneric;
  }
  // Subcommands publish their container's name joined by '-' ("xgroup-create").
  static constexpr std::pair<std::string_view, std::string_view> kJoined[] = {
      {"xgroup|create", "xgroup-create"},
      {"xgroup|setid", "xgroup-setid"},
      {"xgroup|destroy", "xgroup-destroy"},
      {"xgroup|createconsumer", "xgroup-createconsumer"},
      {"xgroup|delconsumer", "xgroup-delconsumer"},
  };
  if (def.name.find('|') != std::string_view::npos) {
    for (const auto& [name, event] : kJoined) {
      if (name == def.name) return {cls, event};
    }
    return {};
  }
  return {cls, def.name};
}

}  // namespace ruvio::worker
