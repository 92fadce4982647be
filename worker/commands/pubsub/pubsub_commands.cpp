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

const CommandDef kPubsubSubcommands[] = {
    {.decl = &decl::pubsub_channels,
     .handler = pubsub_channels,
     .routing = {Where::kAllWorkers, Merge::kUnion}},
    {.decl = &decl::pubsub_numpat,
     .handler = pubsub_numpat,
     .routing = {Where::kAllWorkers, Merge::kNumpat}},
    {.decl = &decl::pubsub_numsub,
     .handler = pubsub_numsub,
     .routing = {Where::kAllWorkers, Merge::kNumsub}},
    {.decl = &decl::pubsub_shardchannels,
     .handler = pubsub_shardchannels,
     .routing = {Where::kAllWorkers, Merge::kUnion}},
    {.decl = &decl::pubsub_shardnumsub,
     .handler = pubsub_shardnumsub,
     .routing = {Where::kAllWorkers, Merge::kNumsub}},
    {&decl::pubsub_help, pubsub_help},
};

const CommandDef kPubsubCommands[] = {
    {.decl = &decl::subscribe,
     .handler = subscribe,
     .traits = kSubscribedOk,
     .acl_args = AclArgs::kAllChannels},
    {.decl = &decl::psubscribe,
     .handler = psubscribe,
     .traits = kSubscribedOk,
     .acl_args = AclArgs::kAllPatterns},
    {.decl = &decl::ssubscribe,
     .handler = ssubscribe,
     .traits = kSubscribedOk,
     .routing = {Where::kHere},
     .acl_args = AclArgs::kAllChannels},
    {.decl = &decl::unsubscribe, .handler = unsubscribe, .traits = kSubscribedOk},
    {.decl = &decl::punsubscribe, .handler = punsubscribe, .traits = kSubscribedOk},
    {.decl = &decl::sunsubscribe,
     .handler = sunsubscribe,
     .traits = kSubscribedOk,
     .routing = {Where::kHere}},
    {.decl = &decl::publish,
     .handler = publish,
     .routing = {Where::kAllWorkers, Merge::kSum},
     .acl_args = AclArgs::kFirstChannel},
    {.decl = &decl::spublish,
     .handler = spublish,
     .routing = {Where::kAllWorkers, Merge::kSum},
     .acl_args = AclArgs::kFirstChannel},
    {.decl = &decl::pubsub, .handler = nullptr, .subcommands = kPubsubSubcommands},
};

}  // namespace

std::span<const CommandDef> pubsub_commands() {
  return kPubsubCommands;
}

}  // namespace ruvio::worker
