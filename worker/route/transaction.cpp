// MULTI/EXEC across workers (part of the Router).
//
// Commands are queued on the connection. At EXEC the owners of every queued key and of
// every WATCHed key are collected: one owner (or none) → the whole transaction runs there
// as one unit — inline when it is this worker, else as a single kExec mesh request, so
// nothing else runs on that worker in between. Keys of several owners → CROSSSLOT (an
// atomic cross-worker transaction would need a commit protocol; it is future work).
#include <algorithm>
#include <string>

#include "shared/slots.hpp"
#include "worker/engine/cluster_check.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/executor.hpp"
#include "worker/route/router.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kCrossSlot = "CROSSSLOT Keys in request don't hash to the same slot";

bool arity_ok(const CommandDef& def, std::size_t argc) {
  auto n = static_cast<int>(argc);
  return def.arity >= 0 ? n == def.arity : n >= -def.arity;
}

// Merges owner `o` into `target`; false when they differ (the transaction spans workers).
bool same_owner(int& target, int o) {
  if (o < 0) return false;  // another service's slot: never part of a local transaction
  if (target < 0) target = o;
  return target == o;
}

}  // namespace

void Router::in_transaction(RoutedClient& c, std::span<const std::string_view> args) {
  ClientInfo& client = c.info();
  const CommandDef* def = command_table().find(args[0]);
  // A command refused at queue time fails the whole transaction (EXECABORT at EXEC). Redis
  // checks this first, for EXEC, DISCARD and MULTI too; a malformed EXEC ends the transaction.
  if (def != nullptr && (def->flags & kTxExec) && !arity_ok(*def, args.size())) {
    discard(c);
    c.local_writer().error(
        "EXECABORT Transaction discarded because of: wrong number of arguments for '" +
        std::string(def->name) + "' command");
    return;
  }
  if (def == nullptr || !arity_ok(*def, args.size()) ||
      (!client.authenticated && !(def->flags & kNoAuth))) {
    executor_.execute(client, args, c.local_writer());
    client.multi_failed = true;
    return;
  }
  // Refused at queue time: the transaction fails (EXECABORT), as Redis's flagTransaction.
  if (client.user != nullptr && client.user->restricted && !(def->flags & kNoMulti) &&
      executor_.acl_refuses(client, args, c.local_writer(), true)) {
    if (def->flags & kTxExec) {
      discard(c);  // a refused EXEC aborts the transaction (its EXECABORT reply is written)
    } else {
      client.multi_failed = true;
    }
    return;
  }
  // A script past busy-reply-threshold: -BUSY instead of QUEUED fails the transaction, and
  // EXEC (not allowed while busy) aborts it, as Redis's processCommand.
  if (executor_.refuses_busy(*def, args, c.local_writer())) {
    if (def->flags & kTxExec) {
      discard(c);
    } else {
      client.multi_failed = true;
    }
    return;
  }
  // MONITOR shows EXEC after its commands and DISCARD, as Redis feeds them after they ran.
  if (def->flags & kTxExec) {
    exec(c);
    if (monitors_.on()) [[unlikely]]
      monitors_.feed(client, client.db, args, *def);
    return;
  }
  if (def->flags & kTxDiscard) {
    discard(c);
    c.local_writer().ok();
    if (monitors_.on()) [[unlikely]]
      monitors_.feed(client, client.db, args, *def);
    return;
  }
  // MULTI and WATCH answer their "inside MULTI" errors; QUIT and RESET run at once, as in
  // Redis (RESET dropping the WATCHes on other workers first).
  if (def->flags & kTxImmediate) {
    if (def->flags & kTxUnwatch) unwatch_remote(c);
    executor_.execute(client, args, c.local_writer());
    return;
  }
  // The subcommand's declaration (its keys, its flags), when it has one.
  if (!def->subcommands.empty()) {
    if (const CommandDef* sub = CommandTable::find_sub(*def, args[1])) {
      if (!arity_ok(*sub, args.size())) {
        executor_.execute(client, args, c.local_writer());
        client.multi_failed = true;
        return;
      }
      def = sub;
    }
  }
  if (client.cluster_mode) {
    const Shard& shard = executor_.shard();
    if (auto e = cluster_check(*shard.topology, shard.self_node, *def, args)) {
      c.local_writer().error(*e);
      client.multi_failed = true;
      return;
    }
  }
  if (def->flags & kNoMulti) {  // SAVE, SHUTDOWN, ...: as redis-server 7.0
    c.local_writer().error("ERR Command not allowed inside a transaction");
    client.multi_failed = true;
    return;
  }
  // Over maxmemory with nothing to evict, queueing is refused as Redis does (-OOM, and EXEC
  // then answers EXECABORT).
  if (executor_.refuses_queueing(client, c.local_writer())) {
    client.multi_failed = true;
    return;
  }
  client.queued.emplace_back(args.begin(), args.end());
  for (std::string_view a : args) client.multi_bytes += a.size() + sizeof(void*);
  c.local_writer().simple("QUEUED");
}

// Leaves MULTI: the queue and every WATCH (here and on other workers) are dropped.
void Router::discard(RoutedClient& c) {
  ClientInfo& client = c.info();
  unwatch_remote(c);
  unwatch_local(client);
  client.in_multi = false;
  client.multi_failed = false;
  client.queued.clear();
  client.multi_bytes = 0;
}

void Router::exec(RoutedClient& c) {
  ClientInfo& client = c.info();
  std::vector<std::vector<std::string>> queued;
  queued.swap(client.queued);
  client.multi_bytes = 0;
  const bool failed = client.multi_failed;
  client.in_multi = false;
  client.multi_failed = false;
  if (failed) {
    unwatch_remote(c);
    unwatch_local(client);
    c.local_writer().error("EXECABORT Transaction discarded because of previous errors.");
    return;
  }
  int target = -1;
  bool spans = false;
  bool watch_lost = false;  // a worker holding our WATCHes restarted: they are gone
  for (std::size_t i = 0; i < client.watch_workers.size(); ++i) {
    int w = client.watch_workers[i];
    spans |= !same_owner(target, w);
    if (w != self_ &&
        (!links_[static_cast<std::size_t>(w)]->up() ||
         links_[static_cast<std::size_t>(w)]->generation() != client.watch_links[i])) {
      watch_lost = true;
    }
  }
  // The queued commands' arguments, and what runs each (as a mesh transaction names it).
  std::vector<std::vector<std::string_view>> views;
  views.reserve(queued.size());
  for (const auto& cmd : queued) views.emplace_back(cmd.begin(), cmd.end());
  std::vector<proto::MeshQueued> parts;
  if (workers_ > 1 && !client.cluster_mode) {
    parts.reserve(queued.size());
    for (const auto& args : views) {
      // Queueing refused unknown commands and wrong arities: each one has its row.
      Resolved r{command_table().find(args[0]), nullptr};
      r.def = r.top;
      if (!r.top->subcommands.empty() && args.size() > 1) {
        if (const CommandDef* sub = CommandTable::find_sub(*r.top, args[1])) r.def = sub;
      }
      for_each_key(*r.def, args, [&](std::size_t pos, const KeySpec&) {
        spans |= !same_owner(target, owner_of(args[pos]));
      });
      parts.push_back({r.runs().id, args});
    }
  }
  if (spans) {
    unwatch_remote(c);
    unwatch_local(client);
    c.local_writer().error(kCrossSlot);
    return;
  }
  if (watch_lost) {
    // Redis would have seen any change to those keys; we cannot tell, so the safe
    // answer is the one for "changed".
    unwatch_remote(c);
    unwatch_local(client);
    c.local_writer().null_array();
    return;
  }
  client.watch_workers.clear();
  client.watch_links.clear();
  client.remote_watches.clear();  // EXEC's owner drops them as it runs
  if (target < 0 || target == self_) {
    executor_.run_transaction(client, views, c.local_writer());
    return;
  }
  // The owner runs them for a mesh client, which it never feeds: they are fed here.
  if (monitors_.on()) [[unlikely]] {
    for (const auto& cmd : queued) {
      const std::vector<std::string_view> views(cmd.begin(), cmd.end());
      if (const CommandDef* def = command_table().find(views[0])) {
        monitors_.feed_forwarded(client, client.db, views, *def);
      }
    }
  }
  // One mesh request carries the whole transaction.
  std::uint64_t seq = c.reserve(1, nullptr);
  send_part(c, target, seq, 0, {MeshKind::kExec, proto::MeshExec{{}, parts}});
}

void Router::watch(RoutedClient& c, const Resolved& r, std::span<const std::string_view> args) {
  ClientInfo& client = c.info();
  int target = -1;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (!same_owner(target, owner_of(args[i]))) {
      c.local_writer().error(kCrossSlot);
      return;
    }
  }
  if (target >= 0 && std::find(client.watch_workers.begin(), client.watch_workers.end(), target) ==
                         client.watch_workers.end()) {
    client.watch_workers.push_back(target);
    client.watch_links.push_back(
        target == self_ ? 0 : links_[static_cast<std::size_t>(target)]->generation());
  }
  if (target < 0 || target == self_) {
    executor_.execute(client, args, c.local_writer());
  } else {
    // Counted here too (CLIENT LIST tot-mem), once per db and key as the owner keeps them.
    const std::string db(reinterpret_cast<const char*>(&client.db), sizeof client.db);
    for (std::size_t i = 1; i < args.size(); ++i) {
      client.remote_watches.insert(db + std::string(args[i]));
    }
    forward(c, target, r, args);
  }
}

void Router::unwatch_local(const ClientInfo& client) {
  executor_.shard().unwatch(executor_.shard().watcher_of(client));
}

// Drops this client's WATCHes on other workers; nobody waits for those answers (slot 0 is
// never reserved, so the replies are dropped on arrival).
void Router::unwatch_remote(RoutedClient& c) {
  ClientInfo& client = c.info();
  static constexpr std::string_view kUnwatch[] = {"UNWATCH"};
  const MeshMessage m = command({&unwatch_, &unwatch_}, kUnwatch);
  for (int w : client.watch_workers) {
    if (w == self_ || static_cast<std::size_t>(w) >= links_.size() ||
        !links_[static_cast<std::size_t>(w)] || !links_[static_cast<std::size_t>(w)]->up()) {
      continue;
    }
    links_[static_cast<std::size_t>(w)]->send(m, self_, client.db, client.resp,
                                              MeshWaiter{client.id, 0, 0});
  }
  client.watch_workers.clear();
  client.watch_links.clear();
  client.remote_watches.clear();
}

void Router::forget(RoutedClient& c) {
  unwatch_remote(c);
  for (auto& link : links_) {
    if (link) link->forget(self_, c.info().id);
  }
  unwatch_local(c.info());
}

}  // namespace ruvio::worker
