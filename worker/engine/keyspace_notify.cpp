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
#include "worker/engine/keyspace_notify.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "worker/engine/command.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

void Shard::notify(store::Db& db, std::uint32_t cls, std::string_view event, std::string_view key) {
  const std::uint32_t flags = config_.notify_keyspace_events;
  if ((flags & cls) == 0) return;
  const int index = index_of(db);
  if (index != notify_db_) {
    char num[16];
    const auto n = static_cast<std::size_t>(std::to_chars(num, num + sizeof num, index).ptr - num);
    notify_space_.assign("__keyspace@").append(num, n).append("__:");
    notify_event_.assign("__keyevent@").append(num, n).append("__:");
    notify_prefix_ = notify_space_.size();
    notify_db_ = index;
  }
  auto publish = [&](std::string& channel, std::string_view tail, std::string_view message) {
    channel.resize(notify_prefix_);
    channel.append(tail);
    if (pubsub != nullptr) pubsub->publish(channel, message, false);
    host_->publish_peers(channel, message);
  };
  if (flags & kNotifyKeyspace) publish(notify_space_, key, event);
  if (flags & kNotifyKeyevent) publish(notify_event_, event, key);
}

store::KeyspaceEvent declared_event(const CommandDef& def) {
  if (!(def.flags & kWrite)) return {};
  std::uint32_t cls = 0;
  const std::string_view g = def.decl->group;
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
  // A subcommand publishes its container's name joined by '-' ("xgroup-create", as Redis's
  // xgroupCommand): the declared "xgroup|create" with its '|' replaced, made once per id.
  if (def.name.find('|') != std::string_view::npos) {
    static const std::vector<std::string> joined = [] {
      const CommandTable& table = command_table();
      std::vector<std::string> names(table.ids());
      for (std::size_t id = 0; id < table.ids(); ++id) {
        names[id] = table.by_id(id)->name;
        std::replace(names[id].begin(), names[id].end(), '|', '-');
      }
      return names;
    }();
    return {cls, joined[def.id]};
  }
  return {cls, def.name};
}

}  // namespace ruvio::worker
