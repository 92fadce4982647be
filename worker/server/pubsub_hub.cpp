#include "worker/server/pubsub_hub.hpp"

#include "shared/glob.hpp"
#include "worker/server/server.hpp"

namespace ruvio::worker {
namespace {

std::string_view verb(PubSub::Kind kind, bool sub) {
  switch (kind) {
    case PubSub::Kind::kChannel:
      return sub ? "subscribe" : "unsubscribe";
    case PubSub::Kind::kPattern:
      return sub ? "psubscribe" : "punsubscribe";
    case PubSub::Kind::kShard:
      return sub ? "ssubscribe" : "sunsubscribe";
  }
  return "";
}

// Redis's three-element messages: push in RESP3, a plain array in RESP2.
void header(proto::ReplyWriter& out, std::size_t n) {
  if (out.protocol() >= 3) {
    out.push(n);
  } else {
    out.array(n);
  }
}

}  // namespace

PubSubHub::Registry& PubSubHub::registry(Kind kind) {
  switch (kind) {
    case Kind::kChannel:
      return channels_;
    case Kind::kPattern:
      return patterns_;
    case Kind::kShard:
      break;
  }
  return shard_channels_;
}

int& PubSubHub::count(ClientInfo& c, Kind kind) {
  switch (kind) {
    case Kind::kChannel:
      return c.subscriptions;
    case Kind::kPattern:
      return c.pattern_subscriptions;
    case Kind::kShard:
      break;
  }
  return c.shard_subscriptions;
}

std::unordered_set<std::string>& PubSubHub::held(std::uint64_t client, Kind kind) {
  return by_client_[client].of[static_cast<int>(kind)];
}

void PubSubHub::confirm(ClientInfo& c, Kind kind, bool sub, const std::string* name,
                        proto::ReplyWriter& reply) {
  // Under CLIENT REPLY OFF/SKIP the command's replies are dropped, but a confirmation is a
  // push in Redis 7 (CLIENT_PUSHING): the client gets it.
  proto::ReplyWriter* push = nullptr;
  if (c.reply_mode != ClientInfo::kReplyOn) push = server_.pubsub_writer(c.id);
  proto::ReplyWriter& out = push != nullptr ? *push : reply;
  header(out, 3);
  out.bulk(verb(kind, sub));
  if (name != nullptr) {
    out.bulk(*name);
  } else {
    out.null();
  }
  // Redis counts channels and patterns together; shard channels on their own.
  out.integer(kind == Kind::kShard ? c.shard_subscriptions
                                   : c.subscriptions + c.pattern_subscriptions);
}

void PubSubHub::subscribe(ClientInfo& c, Kind kind, std::span<const std::string_view> names,
                          proto::ReplyWriter& out) {
  auto& mine = held(c.id, kind);
  for (std::string_view n : names) {
    std::string name(n);
    if (mine.insert(name).second) {
      registry(kind)[name].insert(c.id);
      ++count(c, kind);
    }
    confirm(c, kind, true, &name, out);
  }
}

void PubSubHub::unsubscribe(ClientInfo& c, Kind kind, std::span<const std::string_view> names,
                            proto::ReplyWriter& out) {
  auto& mine = held(c.id, kind);
  std::vector<std::string> targets;
  if (names.empty()) {
    targets.assign(mine.begin(), mine.end());
    if (targets.empty()) {
      confirm(c, kind, false, nullptr, out);
      return;
    }
  } else {
    targets.assign(names.begin(), names.end());
  }
  Registry& reg = registry(kind);
  for (const std::string& name : targets) {
    if (mine.erase(name) > 0) {
      --count(c, kind);
      auto it = reg.find(name);
      if (it != reg.end()) {
        it->second.erase(c.id);
        if (it->second.empty()) reg.erase(it);
      }
    }
    confirm(c, kind, false, &name, out);
  }
}

void PubSubHub::forget(ClientInfo& c) {
  auto it = by_client_.find(c.id);
  if (it == by_client_.end()) return;
  for (Kind kind : {Kind::kChannel, Kind::kPattern, Kind::kShard}) {
    Registry& reg = registry(kind);
    for (const std::string& name : it->second.of[static_cast<int>(kind)]) {
      auto r = reg.find(name);
      if (r == reg.end()) continue;
      r->second.erase(c.id);
      if (r->second.empty()) reg.erase(r);
    }
  }
  by_client_.erase(it);
  c.subscriptions = c.pattern_subscriptions = c.shard_subscriptions = 0;
}

std::int64_t PubSubHub::publish(std::string_view channel, std::string_view message, bool shard) {
  std::int64_t receivers = 0;
  const Registry& direct = shard ? shard_channels_ : channels_;
  if (auto it = direct.find(channel); it != direct.end()) {
    for (std::uint64_t id : it->second) {
      proto::ReplyWriter* out = server_.pubsub_writer(id);
      if (out == nullptr) continue;
      header(*out, 3);
      out->bulk(shard ? "smessage" : "message");
      out->bulk(channel);
      out->bulk(message);
      ++receivers;
    }
  }
  if (shard) return receivers;
  for (const auto& [pattern, members] : patterns_) {
    if (!glob_match(pattern, channel)) continue;
    for (std::uint64_t id : members) {
      proto::ReplyWriter* out = server_.pubsub_writer(id);
      if (out == nullptr) continue;
      header(*out, 4);
      out->bulk("pmessage");
      out->bulk(pattern);
      out->bulk(channel);
      out->bulk(message);
      ++receivers;
    }
  }
  return receivers;
}

std::vector<std::string> PubSubHub::channels(std::string_view pattern, bool shard) const {
  std::vector<std::string> out;
  for (const auto& [name, members] : shard ? shard_channels_ : channels_) {
    if (pattern.empty() || glob_match(pattern, name)) out.push_back(name);
  }
  return out;
}

std::int64_t PubSubHub::subscribers(std::string_view channel, bool shard) const {
  const Registry& reg = shard ? shard_channels_ : channels_;
  auto it = reg.find(channel);
  return it == reg.end() ? 0 : static_cast<std::int64_t>(it->second.size());
}

}  // namespace ruvio::worker
