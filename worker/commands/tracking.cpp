// The tracking table and the invalidation messages (tracking.hpp).
#include "worker/commands/tracking.hpp"

#include "worker/commands/command.hpp"
#include "worker/commands/shard.hpp"

namespace ruvio::worker {

void Tracking::enable(std::uint64_t id, std::uint64_t redirect, std::uint32_t options,
                      std::span<const std::string_view> prefixes) {
  Client& c = clients_[id];
  // As enableTracking: the mode flags are replaced, CLIENT CACHING's flag stays.
  c.flags = (c.flags & kCaching) | kOn | (options & (kBcast | kOptin | kOptout | kNoloop));
  c.redirect = redirect;
  if (!(options & kBcast)) return;
  auto add = [&](std::string_view p) {
    if (prefixes_[std::string(p)].clients.insert(id).second) c.prefixes.emplace_back(p);
  };
  if (prefixes.empty()) add("");
  for (std::string_view p : prefixes) add(p);
}

void Tracking::disable(std::uint64_t id) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  for (const std::string& p : it->second.prefixes) {
    auto pi = prefixes_.find(p);
    if (pi == prefixes_.end()) continue;
    pi->second.clients.erase(id);
    if (pi->second.clients.empty()) prefixes_.erase(pi);
  }
  clients_.erase(it);
  // Keys it read stay in the table until they change (Redis frees them lazily too).
  if (clients_.empty()) table_.clear();
}

void Tracking::after_command(const ClientInfo& c, const CommandDef& def,
                             std::span<const std::string_view> args, std::size_t max_keys) {
  auto it = clients_.find(c.id);
  if (it == clients_.end() || c.origin >= 0) return;
  Client& t = it->second;
  if (!(t.flags & kBcast) && (def.flags & kReadonly) && !(def.flags & kPubsub)) {
    const bool caching = (t.flags & kCaching) != 0;
    const bool skip = ((t.flags & kOptin) && !caching) || ((t.flags & kOptout) && caching);
    if (!skip) {
      for_each_key(def, args, [&](std::size_t pos, const KeySpec&) {
        table_[std::string(args[pos])].insert(c.id);
      });
      evict_over(max_keys);
    }
  }
}

void Tracking::invalidate(std::string_view key) {
  for (auto& [prefix, p] : prefixes_) {
    if (!key.starts_with(prefix)) continue;
    p.keys.insert_or_assign(std::string(key), current_);
    broadcast_dirty_ = true;
  }
  if (table_.empty()) return;
  auto it = table_.find(std::string(key));
  if (it == table_.end()) return;
  const auto ids = std::move(it->second);
  table_.erase(it);  // before sending: a message may not change the table, but stay safe
  for (std::uint64_t id : ids) {
    const Client* t = find(id);
    if (t == nullptr || (t->flags & kBcast)) continue;
    if ((t->flags & kNoloop) && id == current_) continue;
    if (id == current_) {
      queue(id, key, false);
    } else {
      const std::string_view one[] = {key};
      send(id, one, false);
    }
  }
}

void Tracking::invalidate_all() {
  if (flushed_) return;  // FLUSHALL clears every database: one message, not one per database
  flushed_ = current_ != 0;
  for (auto& [id, c] : clients_) {
    if (id == current_) {
      queue(id, {}, true);
    } else {
      send(id, {}, true);
    }
  }
  table_.clear();
}

void Tracking::end_command() {
  current_ = 0;
  flushed_ = false;
  if (pending_.empty()) return;
  const std::uint64_t id = pending_id_;
  for (const Pending& p : pending_) {
    const std::string_view one[] = {p.key};
    send(id, p.null ? std::span<const std::string_view>() : one, p.null);
  }
  pending_.clear();
}

void Tracking::flush_broadcast() {
  broadcast_dirty_ = false;
  std::vector<std::string_view> keys;
  for (auto& [prefix, p] : prefixes_) {
    if (p.keys.empty()) continue;
    for (std::uint64_t id : p.clients) {
      const Client* t = find(id);
      if (t == nullptr) continue;
      keys.clear();
      for (const auto& [k, by] : p.keys) {
        if ((t->flags & kNoloop) && by == id) continue;
        keys.push_back(k);
      }
      if (!keys.empty()) send(id, keys, false);
    }
    p.keys.clear();
  }
}

void Tracking::queue(std::uint64_t id, std::string_view key, bool null) {
  pending_id_ = id;
  pending_.push_back({std::string(key), null});
}

// trackingLimitUsedSlots: past tracking-table-max-keys a key is forgotten, and the clients
// that read it are told, as if it changed.
void Tracking::evict_over(std::size_t max_keys) {
  while (max_keys != 0 && table_.size() > max_keys) {
    auto it = table_.begin();
    const std::string key = it->first;
    const auto ids = std::move(it->second);
    table_.erase(it);
    for (std::uint64_t id : ids) {
      const Client* t = find(id);
      if (t == nullptr || (t->flags & kBcast)) continue;
      if (id == current_) {
        queue(id, key, false);
      } else {
        const std::string_view one[] = {key};
        send(id, one, false);
      }
    }
  }
}

// sendTrackingMessage.
void Tracking::send(std::uint64_t id, std::span<const std::string_view> keys, bool null) {
  if (!writer) return;
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  Client& t = it->second;
  const ClientInfo* self = nullptr;
  proto::ReplyWriter* own = writer(id, &self);
  proto::ReplyWriter* out = own;
  const ClientInfo* target = self;
  const bool redirected = t.redirect != 0;
  if (redirected) {
    out = writer(t.redirect, &target);
    if (out == nullptr) {
      t.flags |= kBrokenRedir;
      if (own != nullptr && self->resp > 2) {
        own->push(2);
        own->bulk("tracking-redir-broken");
        own->integer(static_cast<std::int64_t>(t.redirect));
      }
      return;
    }
  }
  if (out == nullptr) return;
  if (target->resp > 2) {
    out->push(2);
    out->bulk("invalidate");
  } else if (redirected && target->subscribed()) {
    out->array(3);
    out->bulk("message");
    out->bulk("__redis__:invalidate");
  } else {
    return;  // RESP2 without a redirect: no way to push
  }
  if (null) {
    out->null();
    return;
  }
  out->array(keys.size());
  for (std::string_view k : keys) out->bulk(k);
}

}  // namespace ruvio::worker
