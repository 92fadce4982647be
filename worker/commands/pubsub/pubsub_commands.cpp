// Pub/sub family: (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PUBLISH, SPUBLISH, PUBSUB …
// Subscriptions are connection state and stay on the worker holding the connection; the
// proxy layer fans PUBLISH and PUBSUB out to every worker and merges the answers.
#include <algorithm>
#include <string>

#include "worker/commands/pubsub/pubsub_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/subcommand.hpp"

namespace ruvio::worker {
namespace {

using Kind = PubSub::Kind;

std::span<const std::string_view> names(Context& ctx) {
  return ctx.args.subspan(1);
}

void subscribe(Context& ctx) {
  ctx.shard.pubsub->subscribe(ctx.client, Kind::kChannel, names(ctx), ctx.out);
}
void psubscribe(Context& ctx) {
  ctx.shard.pubsub->subscribe(ctx.client, Kind::kPattern, names(ctx), ctx.out);
}
void ssubscribe(Context& ctx) {
  ctx.shard.pubsub->subscribe(ctx.client, Kind::kShard, names(ctx), ctx.out);
}
void unsubscribe(Context& ctx) {
  ctx.shard.pubsub->unsubscribe(ctx.client, Kind::kChannel, names(ctx), ctx.out);
}
void punsubscribe(Context& ctx) {
  ctx.shard.pubsub->unsubscribe(ctx.client, Kind::kPattern, names(ctx), ctx.out);
}
void sunsubscribe(Context& ctx) {
  ctx.shard.pubsub->unsubscribe(ctx.client, Kind::kShard, names(ctx), ctx.out);
}

void publish(Context& ctx) {
  const auto receivers = ctx.shard.pubsub->publish(ctx.args[1], ctx.args[2], false);
  // Inside EXEC or a script, PUBLISH runs on the one worker that runs the transaction, not
  // fanned out as a client's own PUBLISH is: the other workers' subscribers get the message
  // over the mesh. Known limit: their number is not known here, the reply counts this
  // worker's subscribers only.
  if (ctx.shard.executor->nested()) [[unlikely]]
    ctx.shard.host().publish_peers(ctx.args[1], ctx.args[2]);
  ctx.out.integer(receivers);
}
void spublish(Context& ctx) {
  ctx.out.integer(ctx.shard.pubsub->publish(ctx.args[1], ctx.args[2], true));
}

void list_channels(Context& ctx, bool shard) {
  if (ctx.argc() > 3) {
    std::string sub(ctx.args[1].substr(0, 128));
    ctx.out.error("ERR unknown subcommand or wrong number of arguments for '" + sub +
                  "'. Try PUBSUB HELP.");
    return;
  }
  std::string_view pattern = ctx.argc() == 3 ? ctx.args[2] : std::string_view{};
  std::vector<std::string> found = ctx.shard.pubsub->channels(pattern, shard);
  ctx.out.array(found.size());
  for (const std::string& c : found) ctx.out.bulk(c);
}

void count_subscribers(Context& ctx, bool shard) {
  ctx.out.array((ctx.argc() - 2) * 2);  // a flat array even in RESP3, as Redis 7.0
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    ctx.out.bulk(ctx.args[i]);
    ctx.out.integer(ctx.shard.pubsub->subscribers(ctx.args[i], shard));
  }
}

void pubsub_channels(Context& ctx) {
  list_channels(ctx, false);
}
void pubsub_shardchannels(Context& ctx) {
  list_channels(ctx, true);
}
void pubsub_numsub(Context& ctx) {
  count_subscribers(ctx, false);
}
void pubsub_shardnumsub(Context& ctx) {
  count_subscribers(ctx, true);
}
void pubsub_numpat(Context& ctx) {
  ctx.out.integer(ctx.shard.pubsub->patterns());
}
void pubsub_help(Context& ctx) {
  reply_help(ctx, "PUBSUB",
             {"CHANNELS [<pattern>]",
              "    Return the currently active channels matching a <pattern> (default: '*').",
              "NUMPAT", "    Return number of subscriptions to patterns.", "NUMSUB [<channel> ...]",
              "    Return the number of subscribers for the specified channels, excluding",
              "    pattern subscriptions(default: no channels).", "SHARDCHANNELS [<pattern>]",
              "    Return the currently active shard level channels matching a <pattern> "
              "(default: '*').",
              "SHARDNUMSUB [<shardchannel> ...]",
              "    Return the number of subscribers for the specified shard level channel(s)"});
}

constexpr std::uint32_t kSub = kPubsub | kNoScript | kLoading | kStale;
// May-replicate as in Redis: CLIENT PAUSE WRITE postpones a PUBLISH.
constexpr std::uint32_t kPub = kPubsub | kLoading | kStale | kFast | kMayReplicate;

const CommandDef kPubsubSubcommands[] = {
    {"pubsub|channels",
     -2,
     kPubsub | kLoading | kStale,
     &decl::pubsub_channels,
     pubsub_channels,
     "pubsub",
     "List active channels",
     "2.8.0",
     "O(N) where N is the number of active channels, and assuming constant time pattern matching "
     "(relatively short channels and patterns)",
     "pubsub slow",
     {},
     {Where::kAllWorkers, Merge::kUnion}},
    {"pubsub|numpat",
     2,
     kPubsub | kLoading | kStale,
     &decl::pubsub_numpat,
     pubsub_numpat,
     "pubsub",
     "Get the count of unique patterns pattern subscriptions",
     "2.8.0",
     "O(1)",
     "pubsub slow",
     {},
     {Where::kAllWorkers, Merge::kNumpat}},
    {"pubsub|numsub",
     -2,
     kPubsub | kLoading | kStale,
     &decl::pubsub_numsub,
     pubsub_numsub,
     "pubsub",
     "Get the count of subscribers for channels",
     "2.8.0",
     "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
     "pubsub slow",
     {},
     {Where::kAllWorkers, Merge::kNumsub}},
    {"pubsub|shardchannels",
     -2,
     kPubsub | kLoading | kStale,
     &decl::pubsub_shardchannels,
     pubsub_shardchannels,
     "pubsub",
     "List active shard channels",
     "7.0.0",
     "O(N) where N is the number of active shard channels, and assuming constant time pattern "
     "matching (relatively short shard channels).",
     "pubsub slow",
     {},
     {Where::kAllWorkers, Merge::kUnion}},
    {"pubsub|shardnumsub",
     -2,
     kPubsub | kLoading | kStale,
     &decl::pubsub_shardnumsub,
     pubsub_shardnumsub,
     "pubsub",
     "Get the count of subscribers for shard channels",
     "7.0.0",
     "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
     "pubsub slow",
     {},
     {Where::kAllWorkers, Merge::kNumsub}},
    {"pubsub|help", 2, kLoading | kStale, &decl::pubsub_help, pubsub_help, "pubsub",
     "Show helpful text about the different subcommands", "6.2.0", "O(1)", "slow"},
};

const CommandDef kPubsubCommands[] = {
    {"subscribe", -2, kSub | kSubscribedOk, &decl::subscribe, subscribe, "pubsub",
     "Listen for messages published to the given channels", "2.0.0",
     "O(N) where N is the number of channels to subscribe to.", "pubsub slow"},
    {"psubscribe", -2, kSub | kSubscribedOk, &decl::psubscribe, psubscribe, "pubsub",
     "Listen for messages published to channels matching the given patterns", "2.0.0",
     "O(N) where N is the number of patterns the client is already subscribed to.", "pubsub slow"},
    {"ssubscribe",
     -2,
     kSub | kSubscribedOk,
     &decl::ssubscribe,
     ssubscribe,
     "pubsub",
     "Listen for messages published to the given shard channels",
     "7.0.0",
     "O(N) where N is the number of shard channels to subscribe to.",
     "pubsub slow",
     {},
     {Where::kHere}},
    {"unsubscribe", -1, kSub | kSubscribedOk, &decl::unsubscribe, unsubscribe, "pubsub",
     "Stop listening for messages posted to the given channels", "2.0.0",
     "O(N) where N is the number of clients already subscribed to a channel.", "pubsub slow"},
    {"punsubscribe", -1, kSub | kSubscribedOk, &decl::punsubscribe, punsubscribe, "pubsub",
     "Stop listening for messages posted to channels matching the given patterns", "2.0.0",
     "O(N+M) where N is the number of patterns the client is already subscribed and M is the "
     "number of total patterns subscribed in the system (by any client).",
     "pubsub slow"},
    {"sunsubscribe",
     -1,
     kSub | kSubscribedOk,
     &decl::sunsubscribe,
     sunsubscribe,
     "pubsub",
     "Stop listening for messages posted to the given shard channels",
     "7.0.0",
     "O(N) where N is the number of clients already subscribed to a shard channel.",
     "pubsub slow",
     {},
     {Where::kHere}},
    {"publish",
     3,
     kPub,
     &decl::publish,
     publish,
     "pubsub",
     "Post a message to a channel",
     "2.0.0",
     "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the "
     "total number of subscribed patterns (by any client).",
     "pubsub fast",
     {},
     {Where::kAllWorkers, Merge::kSum}},
    {"spublish",
     3,
     kPub,
     &decl::spublish,
     spublish,
     "pubsub",
     "Post a message to a shard channel",
     "7.0.0",
     "O(N) where N is the number of clients subscribed to the receiving shard channel.",
     "pubsub fast",
     {},
     {Where::kAllWorkers, Merge::kSum}},
    {"pubsub", -2, 0, &decl::pubsub, nullptr, "pubsub", "A container for Pub/Sub commands", "2.8.0",
     "Depends on subcommand.", "slow", kPubsubSubcommands},
};

}  // namespace

std::span<const CommandDef> pubsub_commands() {
  return kPubsubCommands;
}

}  // namespace ruvio::worker
