// The tracking table and the invalidation messages (tracking.hpp).
#include "worker/engine/tracking.hpp"

#include <charconv>

#include "worker/engine/command.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

namespace {

// A client id as a mesh argument, in a caller's buffer (no allocation).
std::string_view id_text(char (&buf)[24], std::uint64_t id) {
  auto r = std::to_chars(buf, buf + sizeof buf, id);
  return {buf, static_cast<std::size_t>(r.ptr - buf)};
}

std::uint64_t id_of(std::string_view s) {
  std::uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

void Tracking::enable(std::uint64_t id, std::uint64_t redirect, std::uint32_t options,
                      std::span<const std::string_view> prefixes) {
  Client& c = clients_[id];
  // As enableTracking: the mode flags are replaced, CLIENT CACHING's flag stays.
  c.flags = (c.flags & kCaching) | kOn | (options & (kBcast | kOptin | kOptout | kNoloop));
  c.redirect = redirect;
  on_ = true;
  if (!(options & kBcast)) return;
  bool added = false;
  auto add = [&](std::string_view p) {
    if (prefixes_[std::string(p)].clients.insert(id).second) {
      c.prefixes.emplace_back(p);
      added = true;
    }
  };
  if (prefixes.empty()) add("");
  for (std::string_view p : prefixes) add(p);
  if (added) announce_prefixes();
}

void Tracking::disable(std::uint64_t id) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  bool removed = false;
  for (const std::string& p : it->second.prefixes) {
    auto pi = prefixes_.find(p);
    if (pi == prefixes_.end()) continue;
    pi->second.clients.erase(id);
    if (pi->second.clients.empty()) {
      prefixes_.erase(pi);
      removed = true;
    }
  }
  clients_.erase(it);
  if (removed) announce_prefixes();
  // Keys it read stay in the table until they change (Redis frees them lazily too); with no
  // client of this worker left, only the readers of other workers are kept.
  if (clients_.empty()) table_.drop_readers([&](std::uint64_t reader) { return !remote(reader); });
  refresh();
}

// The other workers learn the union of this worker's BCAST prefixes (it replaces what they
// knew): a key they change that matches one comes back as a "bcast" message.
void Tracking::announce_prefixes(int only) {
  if (!peer || workers_ < 2) return;
  std::vector<std::string_view> args;
  args.reserve(prefixes_.size() + 1);
  args.push_back("prefixes");
  for (const auto& [p, _] : prefixes_) args.push_back(p);
  for (int w = 0; w < workers_; ++w) {
    if (w != self_ && (only < 0 || w == only)) peer(w, args);
  }
}

bool Tracking::wants_read(std::uint64_t id, const CommandDef& def) const {
  auto it = clients_.find(id);
  if (it == clients_.end()) return false;
  const Client& t = it->second;
  if ((t.flags & kBcast) || !(def.flags & kReadonly) || (def.flags & kPubsub)) return false;
  // before_command has not run for this command yet: a fresh flag is the one that covers it.
  const bool caching = (t.flags & kCaching) && t.caching_fresh;
  return !(((t.flags & kOptin) && !caching) || ((t.flags & kOptout) && caching));
}

void Tracking::after_command(const ClientInfo& c, const CommandDef& def,
                             std::span<const std::string_view> args, std::size_t max_keys) {
  if (c.origin >= 0) {
    // A mesh client: its worker decided (wants_read) and sent a kTracked request.
    if (!remote_read_) return;
    for_each_key(def, args, [&](std::size_t pos, const KeySpec&) { table_.add(args[pos], c.id); });
    evict_over(max_keys);
    return;
  }
  // EVAL_RO, EVALSHA_RO, FCALL_RO (the read-only script commands): Redis tracks what their
  // script's commands read (after_script_read), not the command itself.
  if (!(def.flags & kReadonly) || (def.flags & (kPubsub | kNoScript))) return;
  remember(c.id, def, args, max_keys);
}

void Tracking::after_script_read(const ClientInfo& caller, const CommandDef& def,
                                 std::span<const std::string_view> args, std::size_t max_keys) {
  if (caller.origin < 0) remember(caller.id, def, args, max_keys);
}

void Tracking::remember(std::uint64_t id, const CommandDef& def,
                        std::span<const std::string_view> args, std::size_t max_keys) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  Client& t = it->second;
  if (t.flags & kBcast) return;
  const bool caching = (t.flags & kCaching) != 0;
  if (((t.flags & kOptin) && !caching) || ((t.flags & kOptout) && caching)) return;
  for_each_key(def, args, [&](std::size_t pos, const KeySpec&) { table_.add(args[pos], id); });
  evict_over(max_keys);
}

void Tracking::invalidate(std::string_view key) {
  for (auto& [prefix, p] : prefixes_) {
    if (!key.starts_with(prefix)) continue;
    p.keys.insert_or_assign(std::string(key), writer_);
    broadcast_dirty_ = true;
  }
  if (remote_bcast_) [[unlikely]] {
    for (std::size_t w = 0; w < remote_prefixes_.size(); ++w) {
      for (const std::string& prefix : remote_prefixes_[w]) {
        if (!key.starts_with(prefix)) continue;
        remote_keys_[w].emplace_back(key, writer_);
        broadcast_dirty_ = true;
        break;
      }
    }
  }
  if (table_.empty()) return;
  // Out of the table before sending: a message may not change the table, but stay safe.
  TrackedKey* e = table_.take(key);
  if (e == nullptr) return;
  for (std::uint64_t id : e->readers()) tell(id, key);
  table_.release(e);
  if (table_.empty()) refresh();
}

void Tracking::tell(std::uint64_t id, std::string_view key) {
  if (remote(id)) {
    // Its worker applies its flags (it may have left, turned BCAST on, or be the writer).
    if (!peer) return;
    char reader[24];
    char by[24];
    const std::string_view args[] = {"key", id_text(reader, id), id_text(by, writer_), key};
    peer(worker_of(id), args);
    return;
  }
  const Client* t = find(id);
  if (t == nullptr || (t->flags & kBcast)) return;
  if ((t->flags & kNoloop) && id == writer_) return;
  if (id == current_) {
    queue(id, key, false);
  } else {
    const std::string_view one[] = {key};
    send(id, one, false);
  }
}

void Tracking::on_peer_message(int from, std::span<const std::string_view> args) {
  if (args.empty()) return;
  const std::string_view op = args[0];
  if (op == "key" && args.size() >= 4) {
    // A key a client of this worker read on the sender changed there.
    const std::uint64_t id = id_of(args[1]);
    const Client* t = find(id);
    if (t == nullptr || (t->flags & kBcast)) return;
    if ((t->flags & kNoloop) && id == id_of(args[2])) return;
    send(id, args.subspan(3), false);
  } else if (op == "redir" && args.size() >= 4) {
    // This worker's client args[1] is the REDIRECT target of client args[2] of the sender.
    const ClientInfo* target = nullptr;
    proto::ReplyWriter* out = writer ? writer(id_of(args[1]), &target) : nullptr;
    if (out == nullptr) {
      // It left: the tracking client learns it, as from a local target that left.
      const std::string_view back[] = {"broken", args[2], args[1]};
      if (peer && from >= 0 && from < workers_) peer(from, back);
      return;
    }
    const bool null = args.size() == 4 && args[3] == "null";
    write_message(*out, *target, true, null ? std::span<const std::string_view>() : args.subspan(4),
                  null);
  } else if (op == "broken" && args.size() == 3) {
    // The REDIRECT target (on the sender) of this worker's client args[1] has left.
    auto it = clients_.find(id_of(args[1]));
    if (it != clients_.end() && it->second.redirect == id_of(args[2])) {
      broken_redirect(it->first, it->second);
    }
  } else if (op == "bcast") {
    // Keys changed on the sender that match this worker's prefixes: (writer, key) pairs.
    for (std::size_t i = 1; i + 1 < args.size(); i += 2) {
      const std::uint64_t by = id_of(args[i]);
      for (auto& [prefix, p] : prefixes_) {
        if (!args[i + 1].starts_with(prefix)) continue;
        p.keys.insert_or_assign(std::string(args[i + 1]), by);
        broadcast_dirty_ = true;
      }
    }
  } else if (op == "prefixes" && from >= 0 && from < workers_ && from != self_) {
    auto& mine = remote_prefixes_[static_cast<std::size_t>(from)];
    mine.assign(args.begin() + 1, args.end());
    remote_bcast_ = false;
    for (const auto& p : remote_prefixes_) remote_bcast_ = remote_bcast_ || !p.empty();
    refresh();
  }
}

void Tracking::invalidate_all() {
  if (flushed_) return;     // FLUSHALL clears every database: one message, not one per database
  flushed_ = writer_ != 0;  // a command of any worker's client (a fanned-out FLUSHALL too)
  for (auto& [id, c] : clients_) {
    if (id == current_) {
      queue(id, {}, true);
    } else {
      send(id, {}, true);
    }
  }
  // Readers of other workers are told by their own worker's part of the flush.
  table_.clear();
  refresh();
}

void Tracking::end_command() {
  current_ = 0;
  writer_ = 0;
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
  if (!remote_bcast_ || !peer) return;
  std::vector<std::string> ids;
  for (std::size_t w = 0; w < remote_keys_.size(); ++w) {
    auto& changed = remote_keys_[w];
    if (changed.empty()) continue;
    ids.clear();
    ids.reserve(changed.size());
    for (const auto& [k, by] : changed) ids.push_back(std::to_string(by));
    keys.clear();
    keys.push_back("bcast");
    for (std::size_t i = 0; i < changed.size(); ++i) {
      keys.push_back(ids[i]);
      keys.push_back(changed[i].first);
    }
    peer(static_cast<int>(w), keys);
    changed.clear();
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
    TrackedKey* e = table_.take_any();
    const std::uint64_t writer = writer_;
    writer_ = 0;  // nobody wrote it: NOLOOP does not hold back this message
    for (std::uint64_t id : e->readers()) tell(id, e->key());
    writer_ = writer;
    table_.release(e);
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
  const bool redirected = t.redirect != 0;
  if (redirected && remote(t.redirect)) {
    // The target is a client of another worker: it writes the message there.
    if (!peer) return;
    char target[24];
    char source[24];
    std::vector<std::string_view> args;
    args.reserve(keys.size() + 4);
    args.push_back("redir");
    args.push_back(id_text(target, t.redirect));
    args.push_back(id_text(source, id));
    if (null) {
      args.push_back("null");
    } else {
      args.push_back("keys");
      args.insert(args.end(), keys.begin(), keys.end());
    }
    // An unreachable worker is restarting: the clients it had are gone.
    if (!peer(worker_of(t.redirect), args)) broken_redirect(id, t);
    return;
  }
  proto::ReplyWriter* out = own;
  const ClientInfo* target = self;
  if (redirected) {
    out = writer(t.redirect, &target);
    if (out == nullptr) {
      broken_redirect(id, t);
      return;
    }
  }
  if (out == nullptr) return;
  write_message(*out, *target, redirected, keys, null);
}

void Tracking::broken_redirect(std::uint64_t id, Client& t) {
  t.flags |= kBrokenRedir;
  const ClientInfo* self = nullptr;
  proto::ReplyWriter* own = writer ? writer(id, &self) : nullptr;
  if (own != nullptr && self->resp > 2) {
    own->push(2);
    own->bulk("tracking-redir-broken");
    own->integer(static_cast<std::int64_t>(t.redirect));
  }
}

void Tracking::write_message(proto::ReplyWriter& out, const ClientInfo& target, bool redirected,
                             std::span<const std::string_view> keys, bool null) {
  if (target.resp > 2) {
    out.push(2);
    out.bulk("invalidate");
  } else if (redirected && target.subscribed()) {
    out.array(3);
    out.bulk("message");
    out.bulk("__redis__:invalidate");
  } else {
    return;  // RESP2 without a redirect: no way to push
  }
  if (null) {
    out.null();
    return;
  }
  out.array(keys.size());
  for (std::string_view k : keys) out.bulk(k);
}

}  // namespace ruvio::worker
