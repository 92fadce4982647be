// The proxy layer: decides, for each command a client sends on the proxy port, whether it
// runs here, is forwarded to the one worker owning its keys, is split per owner and merged,
// or is fanned out to every worker (DESIGN.md §2).
//
// It reads only declarations: keys from the command's key specs (for_each_key), the route
// from its Redis tips (request_policy all_shards/all_nodes → every worker, multi_shard → split
// per owner; response_policy → the merge) unless the command declares a Ruvio routing
// (CommandDef::routing: SCAN's cursor, INFO, CLIENT LIST, PUBSUB, PUBLISH, …), and the
// transaction roles from its flags (kTxExec, kTxWatch, …). Owners come from the Redis Cluster
// slot of each key. With one worker every command runs inline and the router costs one branch.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shared/topology.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/route/host.hpp"
#include "worker/route/mesh.hpp"
#include "worker/route/routed_client.hpp"

namespace ruvio::worker {

class Executor;

// A request's command as dispatch resolved it, once: `top` the row args[0] names, `def` its
// subcommand's row when it has one (else top). The parts it sends carry runs()'s id.
struct Resolved {
  const CommandDef* top;
  const CommandDef* def;
  // The row the executor runs: a container without a handler of its own runs its subcommand.
  const CommandDef& runs() const { return top->handler != nullptr ? *top : *def; }
};

class Router {
 public:
  // Slot owners come from the topology: with --cluster-config some slots belong to another
  // service's nodes; a key of those answers MOVED on the proxy port too.
  Router(RouteHost& host, Executor& executor, int self, int workers, const std::string& mesh_name,
         const Topology& topology);

  int workers() const { return workers_; }
  int self() const { return self_; }
  int owner_of(std::string_view key) const;  // -1: owned by another service
  bool moved(RoutedClient& c, std::string_view key);

  // Starts listening for peers and connecting to them.
  bool start();
  // Every link to every other worker is connected.
  bool all_links_up() const;
  void flush();
  void close();

  // Runs or routes one command of a client of this worker. Returns false, having done
  // nothing, when the command must wait for CLIENT PAUSE to end: the caller parks the client
  // (its later commands wait too) and calls again with the same command after resume.
  bool dispatch(RoutedClient& c, std::span<const std::string_view> args);

  // Fan-out and forwarding primitives, also used by pub/sub and transactions.
  // Sends `m` to worker `w` (or serves it here) as part `part` of slot `seq` of `c`; a
  // command or transaction goes with the ACL user of a restricted client.
  // `keep`: a blocking command's timeout, so that the link may send it again (mesh.hpp).
  void send_part(RoutedClient& c, int w, std::uint64_t seq, std::uint32_t part,
                 const MeshMessage& m, const BlockedResend* keep = nullptr);

  // Runs a request that arrived over the mesh (MeshListener hands it here directly) or a
  // local part of a split/fan-out.
  // With `may_park`, returns false and writes nothing when it must wait (CLIENT PAUSE).
  bool serve(const MeshMessage& m, ClientInfo& client, proto::ReplyWriter& out, bool may_park);
  // CLIENT PAUSE ended here: requests parked by the mesh run again.
  void resume_parked() { listener_.resume_parked(); }
  // A blocked client of another worker, parked here by the mesh, can be served.
  bool resume_mesh_client(int origin, std::uint64_t client_id) {
    return listener_.resume_client(origin, client_id);
  }
  // The server's BusyService: the peers' requests are read and answered too.
  void serve_while_busy(const ClientInfo* running) { listener_.serve_while_busy(running); }
  std::size_t parked_mesh_clients() const { return listener_.parked_clients(); }

  // A keyspace notification of this worker for every other worker's subscribers: a PUBLISH
  // sent to each peer whose link is up, its reply dropped (no client waits for it). Events of
  // one key all leave from its owner over the same links, so each key's order holds.
  void publish_peers(std::string_view channel, std::string_view message);

  // A one-way request to worker `w` (its reply is dropped): tracking messages, a restarted
  // peer's catch-up. False when the link is down (the peer is restarting: its clients are
  // gone).
  bool tell_peer(int w, const MeshMessage& m);
  // The same for a command of this worker's own (CONFIG SET, SCRIPT LOAD for a peer that
  // restarted); false too when `args` names no command.
  bool tell_peer_command(int w, std::span<const std::string_view> args);
  // The answer to a question asked for `client` (redirect_known's).
  static void answered(ClientInfo& client, std::string_view reply);
  // MONITOR across workers (monitor.hpp): tells every peer whose link is up that this
  // worker's clients monitor (or no longer do); hands one line to worker `w`'s monitors.
  void monitor_announce(bool on);
  void monitor_line(int w, std::string_view line);

  // A connection closed: its WATCHes on other workers are dropped.
  void forget(RoutedClient& c);

 private:
  // Transactions (transaction.cpp).
  void in_transaction(RoutedClient& c, std::span<const std::string_view> args);
  void exec(RoutedClient& c);
  void discard(RoutedClient& c);
  void watch(RoutedClient& c, const Resolved& r, std::span<const std::string_view> args);
  void unwatch_remote(RoutedClient& c);
  // Drops the client's WATCHes on this worker.
  void unwatch_local(const ClientInfo& client);
  // A command whose (sub)command is blocking: the client shows flags=b here until the owner
  // answers, and the link keeps it should the owner die while it waits there.
  void forward(RoutedClient& c, int owner, const Resolved& r,
               std::span<const std::string_view> args);
  // CLIENT TRACKING with a REDIRECT to a client of another worker: false (the client parks)
  // while that worker has not said whether the client exists.
  bool redirect_known(RoutedClient& c, std::span<const std::string_view> args);
  // Whether the owner must remember the keys of this read of a tracking client.
  // `ages`: no local part runs it, so CLIENT CACHING's flag is aged here.
  bool tracked_read(ClientInfo& client, const CommandDef& def, bool ages);
  // The command message for `args`, run as r.runs().
  static MeshMessage command(const Resolved& r, std::span<const std::string_view> args,
                             bool tracked = false);
  // Keys from args[first] on, `step` arguments each; args[0..first) head every part.
  void split(RoutedClient& c, Merge how, std::size_t step, const Resolved& r,
             std::span<const std::string_view> args, std::size_t first = 1);
  void fan_out(RoutedClient& c, Merge how, const Resolved& r,
               std::span<const std::string_view> args);
  void scan(RoutedClient& c, const Resolved& r, std::span<const std::string_view> args);
  // DEBUG DIGEST: every worker's part (MeshKind::kDigest) combined as one server's digest.
  void digest(RoutedClient& c);

  RouteHost& host_;
  Executor& executor_;
  const CommandTable& table_ = command_table();  // no static-guard test per request
  // The commands the router itself sends (a keyspace event's PUBLISH, UNWATCH on peers).
  const CommandDef& publish_;
  const CommandDef& unwatch_;
  // What the router itself keeps of this worker's shard, named once (the executor runs the
  // commands): MONITOR's feed, client tracking, the ACL users a mesh request runs as.
  Monitors& monitors_;
  Tracking& tracking_;
  acl::Users& users_;
  int self_;
  int workers_;
  std::string mesh_name_;
  const Topology& topology_;
  std::vector<std::int16_t> slot_owner_;          // 16384 entries; -1: a node of another service
  std::vector<std::unique_ptr<MeshLink>> links_;  // null for self
  MeshListener listener_;
};

}  // namespace ruvio::worker
