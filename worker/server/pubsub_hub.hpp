// This worker's pub/sub registry: who is subscribed to what, and message delivery into the
// subscribers' reply streams (behind any reply they are still waiting for, so order holds).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "worker/engine/shard.hpp"

namespace ruvio::worker {

class Server;

class PubSubHub final : public PubSub {
 public:
  explicit PubSubHub(Server& server) : server_(server) {}

  void subscribe(ClientInfo& c, Kind kind, std::span<const std::string_view> names,
                 proto::ReplyWriter& out) override;
  void unsubscribe(ClientInfo& c, Kind kind, std::span<const std::string_view> names,
                   proto::ReplyWriter& out) override;
  std::int64_t publish(std::string_view channel, std::string_view message, bool shard) override;
  std::vector<std::string> channels(std::string_view pattern, bool shard) const override;
  std::int64_t subscribers(std::string_view channel, bool shard) const override;
  std::int64_t channel_count(bool shard) const override {
    return static_cast<std::int64_t>((shard ? shard_channels_ : channels_).size());
  }
  std::int64_t patterns() const override { return static_cast<std::int64_t>(patterns_.size()); }
  std::vector<std::string> pattern_list() const override {
    std::vector<std::string> out;
    for (const auto& [p, members] : patterns_) out.push_back(p);
    return out;
  }

  // A connection closed: drop every subscription it held.
  void forget(ClientInfo& c) override;

 private:
  using Members = std::unordered_set<std::uint64_t>;  // client ids
  // Looked up by string_view (heterogeneous lookup): a PUBLISH or a keyspace event builds no
  // std::string to find its channel.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Registry = std::unordered_map<std::string, Members, NameHash, std::equal_to<>>;
  Registry& registry(Kind kind);
  int& count(ClientInfo& c, Kind kind);
  std::unordered_set<std::string>& held(std::uint64_t client, Kind kind);
  void confirm(ClientInfo& c, Kind kind, bool sub, const std::string* name,
               proto::ReplyWriter& out);

  Server& server_;
  Registry channels_;
  Registry patterns_;
  Registry shard_channels_;
  struct Held {
    std::unordered_set<std::string> of[3];  // by Kind
  };
  std::unordered_map<std::uint64_t, Held> by_client_;
};

}  // namespace ruvio::worker
