#include "worker/route/router.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>

#include "proto/reply_scan.hpp"
#include "shared/slots.hpp"
#include "worker/engine/acl_check.hpp"
#include "worker/engine/blocking.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/debug_digest.hpp"
#include "worker/engine/executor.hpp"
#include "worker/route/reply_merge.hpp"

namespace ruvio::worker {

namespace {

constexpr std::string_view kCrossSlot = "CROSSSLOT Keys in request don't hash to the same slot";

std::string loading_reply() {
  return "-" + std::string(kLoadingError) + "\r\n";
}

bool arity_ok(const CommandDef& def, std::size_t argc) {
  const auto n = static_cast<int>(argc);
  return def.arity >= 0 ? n == def.arity : n >= -def.arity;
}

// A multi_shard command splits per key owner when its one key spec is a plain range from
// argument 1 to the end (DEL, MGET: step 1; MSET: step 2) and the arguments fill it exactly;
// 0 otherwise (the owner route then decides, or the handler answers the arity error).
std::size_t split_step(const CommandDef& def, std::size_t argc) {
  if (def.decl->keys.size() != 1) return 0;
  const KeySpec& k = def.decl->keys[0];
  if (k.begin.type != BeginSearch::kIndex || k.begin.pos != 1 || k.find.type != FindKeys::kRange ||
      k.find.a != -1 || k.find.b <= 0 || k.find.c != 0) {
    return 0;
  }
  const auto step = static_cast<std::size_t>(k.find.b);
  return argc >= 1 + step && (argc - 1) % step == 0 ? step : 0;
}

}  // namespace

Router::Router(RouteHost& host, Executor& executor, int self, int workers,
               const std::string& mesh_name, const Topology& topology)
    : host_(host),
      executor_(executor),
      publish_(*table_.find("PUBLISH")),
      unwatch_(*table_.find("UNWATCH")),
      monitors_(executor.shard().monitors),
      tracking_(executor.shard().tracking),
      users_(executor.shard().acl()),
      self_(self),
      workers_(workers),
      mesh_name_(mesh_name),
      topology_(topology),
      slot_owner_(kSlotCount, 0),
      listener_(host, *this) {
  for (int s = 0; s < kSlotCount; ++s) {
    slot_owner_[static_cast<std::size_t>(s)] =
        static_cast<std::int16_t>(topology.worker_of_slot(static_cast<std::uint16_t>(s)));
  }
}

int Router::owner_of(std::string_view key) const {
  return slot_owner_[key_slot(key)];
}

// A key of a slot that no local worker owns (another service of a --cluster-config).
bool Router::moved(RoutedClient& c, std::string_view key) {
  std::uint16_t slot = key_slot(key);
  if (slot_owner_[slot] >= 0) return false;
  int node = topology_.node_of_slot(slot);
  std::string where = "?";
  if (node >= 0) {
    const ClusterNode& n = topology_.nodes[static_cast<std::size_t>(node)];
    where = n.host + ":" + std::to_string(n.port);
  }
  c.local_writer().error("MOVED " + std::to_string(slot) + " " + where);
  return true;
}

// Called once the server's loop exists (the router is built before it).
bool Router::start() {
  if (workers_ == 1) return true;
  if (!listener_.listen(mesh_name_ + "." + std::to_string(self_))) return false;
  listener_.peer_connected = [this] {
    for (auto& link : links_) {
      if (link) link->connect_now();
    }
  };
  for (int w = 0; w < workers_; ++w) {
    links_.push_back(
        w == self_ ? nullptr
                   : std::make_unique<MeshLink>(host_, w, mesh_name_ + "." + std::to_string(w)));
    if (links_.back()) links_.back()->connect();
  }
  return true;
}

bool Router::all_links_up() const {
  for (const auto& link : links_) {
    if (link && !link->up()) return false;
  }
  return true;
}

void Router::flush() {
  for (auto& link : links_) {
    if (link) link->flush();
  }
  listener_.flush_all();
}

void Router::close() {
  for (auto& link : links_) {
    if (link) link->close();
  }
  listener_.close();
}

// A blocking command parked here: CLIENT LIST shows it as the client's command (cmd=blpop), as
// Redis does for a blocked client. Returns false (the command waits).
static bool parked_blocked(ClientInfo& client, const CommandDef& def) {
  client.last_command = def.name;
  return false;
}

bool Router::dispatch(RoutedClient& c, std::span<const std::string_view> args) {
  ClientInfo& client = c.info();
  // CLIENT PAUSE holds the whole command here, before any part of it is routed.
  if (executor_.parks(client, args)) return false;
  if (client.in_multi) {
    in_transaction(c, args);
    return true;
  }
  // Subscribed clients only run connection-local commands (the executor enforces which).
  // One lookup of the name per request: the executor's checks take it as found here.
  const CommandDef* def = table_.find(args[0]);
  const CommandDef* const named = def;
  Resolved r{def, def};
  if (workers_ == 1 || client.cluster_mode || client.subscribed()) {
    if (executor_.blocks(client, args, named)) return parked_blocked(client, *named);
    executor_.execute(client, args, c.local_writer(), named);
    return true;
  }
  // Unknown commands, anything before AUTH and wrong arities (the subcommand's too) get their
  // error from the local executor; nothing unauthenticated ever crosses the mesh.
  if (def == nullptr || (!client.authenticated && !(def->flags & kNoAuth)) ||
      !arity_ok(*def, args.size())) {
    executor_.execute(client, args, c.local_writer(), named);
    return true;
  }
  // OBJECT ENCODING key, CONFIG SET, CLIENT LIST: the declaration is the subcommand's.
  if (!def->subcommands.empty()) {
    const CommandDef* sub = CommandTable::find_sub(*def, args[1]);
    if (sub == nullptr || !arity_ok(*sub, args.size())) {
      executor_.execute(client, args, c.local_writer(), named);
      return true;
    }
    def = sub;
    r.def = sub;
  }
  // ACL, once, before the command leaves this worker: the owner trusts the mesh and runs it
  // without checking again (Executor::execute_resolved).
  if (client.user != nullptr && client.user->restricted &&
      executor_.acl_refuses(client, *def, args, c.local_writer(), false)) {
    return true;
  }
  if ((def->flags & kRouteDebug) && debug_allowed(executor_.shard(), client)) [[unlikely]] {
    // DIGEST combines every worker's part; RELOAD reloads every worker; DIGEST-VALUE asks
    // each key's owner and answers in argument order.
    if (args.size() == 2 && iequals(args[1], "digest")) {
      digest(c);
      return true;
    }
    if (iequals(args[1], "reload")) {
      fan_out(c, Merge::kFirstError, r, args);
      return true;
    }
    if (args.size() > 2 && iequals(args[1], "digest-value")) {
      split(c, Merge::kKeyOrder, 1, r, args, 2);
      return true;
    }
    // The subcommands about one key: its owner answers.
    if (args.size() >= 3 && (iequals(args[1], "object") || iequals(args[1], "listpack") ||
                             iequals(args[1], "quicklist"))) {
      if (moved(c, args[2])) return true;
      if (const int owner = owner_of(args[2]); owner != self_) {
        forward(c, owner, r, args);
        return true;
      }
    }
  }
  if (def->flags & kTxWatch) {
    if (monitors_.on()) [[unlikely]]
      monitors_.feed(client, client.db, args, *def);
    watch(c, r, args);
    return true;
  }
  if (def->flags & kTxUnwatch) {
    unwatch_remote(c);  // then the handler drops the local part
    executor_.execute(client, args, c.local_writer(), named);
    return true;
  }
  const Routing routing = routing_of(*def);
  // MONITOR: a command this worker routes is fed here, once, with the arguments as sent; its
  // local part (a fan-out's, a split's) is not fed again by the executor.
  std::optional<Monitors::Routed> routed;
  if (monitors_.on() && routing.where != Where::kHere && routing.where != Where::kTips &&
      routing.where != Where::kKeyOwner && routing.where != Where::kRedirect) [[unlikely]] {
    monitors_.feed(client, client.db, args, *def);
    routed.emplace(monitors_);
  }
  switch (routing.where) {
    case Where::kHere:
      executor_.execute(client, args, c.local_writer(), named);
      return true;
    case Where::kRedirect:
      if (!redirect_known(c, args)) return false;  // parked until the target's worker answers
      executor_.execute(client, args, c.local_writer(), named);
      return true;
    case Where::kCursor:
      scan(c, r, args);
      return true;
    case Where::kAllWorkers:
      fan_out(c, routing.merge, r, args);
      return true;
    case Where::kSplit:
      if (const std::size_t step = split_step(*def, args.size())) {
        split(c, routing.merge, step, r, args);
      } else {
        executor_.execute(client, args, c.local_writer(), named);
      }
      return true;
    case Where::kTips:
    case Where::kKeyOwner:
      break;
  }
  int owner = -1;
  bool cross = false;
  bool elsewhere = false;  // a key of another service's slot
  std::string_view moved_key;
  const KeysFound found = for_each_key(
      *def, args,
      [&](std::size_t pos, const KeySpec&) {
        const int o = owner_of(args[pos]);
        if (o < 0 && !elsewhere) {
          elsewhere = true;
          moved_key = args[pos];
        }
        if (owner < 0) owner = o;
        cross |= o != owner;
      },
      kKeysIncludeNotKeys);
  if (found == KeysFound::kInvalid) {
    // A later spec ran out of arguments (PFMERGE dest with no source): when the keys seen
    // before it have one other owner, that owner answers, as one redis-server would.
    if (!cross && !elsewhere && owner >= 0 && owner != self_) {
      forward(c, owner, r, args);
    } else {
      executor_.execute(client, args, c.local_writer(), named);
    }
    return true;
  }
  if (elsewhere && moved(c, moved_key)) return true;
  if (cross) {
    c.local_writer().error(kCrossSlot);
    return true;
  }
  if (owner < 0 || owner == self_) {
    if (executor_.blocks(client, args, named)) return parked_blocked(client, *named);
    executor_.execute(client, args, c.local_writer(), named);
  } else {
    client.last_command = def->name;  // CLIENT LIST cmd= on this worker, as if run here
    if (monitors_.on()) [[unlikely]]
      monitors_.feed_forwarded(client, client.db, args, *def);
    forward(c, owner, r, args);
  }
  return true;
}

void Router::publish_peers(std::string_view channel, std::string_view message) {
  const std::string_view args[] = {"PUBLISH", channel, message};
  const MeshMessage m = command({&publish_, &publish_}, args);
  for (auto& link : links_) {
    if (link && link->up()) link->send(m, self_, 0, 2, MeshWaiter{});
  }
}

void Router::digest(RoutedClient& c) {
  std::uint64_t seq = c.reserve(
      static_cast<std::uint32_t>(workers_), [](std::vector<std::string>& parts, std::string& out) {
        if (const std::string* e = first_error(parts)) {
          out = *e;
          return;
        }
        std::vector<std::optional<Digest>> dbs;
        std::vector<std::string_view> items;
        for (const std::string& p : parts) {
          items.clear();
          elements(p, items);
          if (dbs.size() < items.size()) dbs.resize(items.size());
          for (std::size_t j = 0; j < items.size(); ++j) {
            const std::optional<Digest> x = digest_from_hex(reply_string(items[j]).value_or(""));
            if (!x) continue;  // empty on that worker
            if (!dbs[j]) dbs[j].emplace();
            for (std::size_t i = 0; i < x->size(); ++i) (*dbs[j])[i] ^= (*x)[i];
          }
        }
        out = "+" + digest_hex(digest_combine(dbs)) + "\r\n";
      });
  for (int w = 0; w < workers_; ++w) {
    send_part(c, w, seq, static_cast<std::uint32_t>(w), {MeshKind::kDigest, {}});
  }
}

void Router::monitor_announce(bool on) {
  const MeshMessage m{MeshKind::kMonitor,
                      proto::MeshMonitor{on ? proto::MonitorOp::kOn : proto::MonitorOp::kOff, {}}};
  for (auto& link : links_) {
    if (link && link->up()) link->send(m, self_, 0, 2, MeshWaiter{});
  }
}

void Router::monitor_line(int w, std::string_view line) {
  if (w < 0 || w >= workers_ || w == self_) return;
  MeshLink* link = links_[static_cast<std::size_t>(w)].get();
  if (link != nullptr && link->up()) {
    link->send({MeshKind::kMonitor, proto::MeshMonitor{proto::MonitorOp::kLine, line}}, self_, 0, 2,
               MeshWaiter{});
  }
}

MeshMessage Router::command(const Resolved& r, std::span<const std::string_view> args,
                            bool tracked) {
  return {MeshKind::kCommand, proto::MeshCommand{r.runs().id, tracked, {}, args}};
}

void Router::send_part(RoutedClient& c, int w, std::uint64_t seq, std::uint32_t part,
                       const MeshMessage& m, const BlockedResend* keep) {
  ClientInfo& client = c.info();
  if (w == self_) {
    std::string reply;
    proto::ReplyWriter writer(reply, client.resp);
    serve(m, client, writer, false);  // dispatch checked the pause for all parts
    c.deliver(seq, part, reply);
    return;
  }
  MeshLink* link = links_[static_cast<std::size_t>(w)].get();
  if (!link->up()) {
    c.deliver(seq, part, loading_reply());
    return;
  }
  const MeshWaiter waiter{client.id, seq, part};
  const bool restricted = client.user != nullptr && client.user->restricted;
  if (auto* cmd = std::get_if<proto::MeshCommand>(&m.payload)) {
    // Worker w now remembers a key this client read: if it restarts, the client is told.
    if (cmd->tracked) client.tracking_peers |= tracking_peer_bit(w);
    if (restricted) {
      proto::MeshCommand as_user = *cmd;
      as_user.user = client.user->name;
      link->send({m.kind, as_user}, self_, client.db, client.resp, waiter, keep);
      return;
    }
  } else if (auto* exec = std::get_if<proto::MeshExec>(&m.payload); exec != nullptr && restricted) {
    proto::MeshExec as_user = *exec;
    as_user.user = client.user->name;
    link->send({m.kind, as_user}, self_, client.db, client.resp, waiter);
    return;
  }
  link->send(m, self_, client.db, client.resp, waiter, keep);
}

void Router::forward(RoutedClient& c, int owner, const Resolved& r,
                     std::span<const std::string_view> args) {
  std::uint64_t seq = c.reserve(1, nullptr);
  const bool tracked = tracked_read(c.info(), *r.def, true);
  // The owner parks it if nothing is there; this worker's CLIENT LIST and the client's own
  // view see it blocked (flags=b) until the answer comes, as Redis shows a blocked client.
  if (!(r.def->flags & kBlocking)) {
    send_part(c, owner, seq, 0, command(r, args, tracked));
    return;
  }
  c.wait_blocked(seq);
  // Its timeout, made absolute now (as the owner does when it parks it): should the owner die
  // while the command waits there, the link sends it again with what is left.
  BlockedResend keep;
  bool kept = false;
  if (const BlockingSpec* spec = r.def->blocking) {
    const std::size_t at = spec->timeout_at != nullptr ? spec->timeout_at(args)
                           : spec->timeout_arg > 0
                               ? static_cast<std::size_t>(spec->timeout_arg)
                               : args.size() - static_cast<std::size_t>(-spec->timeout_arg);
    if (at != 0 && at < args.size()) {
      const std::int64_t now = executor_.shard().now_ms();
      const Timeout t =
          spec->timeout_ms ? parse_timeout_ms(args[at], now) : parse_timeout(args[at], now);
      if (t.error.empty()) {
        keep = {t.deadline_ms, at, spec->timeout_ms};
        kept = true;
      }
    }
  }
  send_part(c, owner, seq, 0, command(r, args, tracked), kept ? &keep : nullptr);
}

bool Router::tracked_read(ClientInfo& client, const CommandDef& def, bool ages) {
  if (!tracking_.enabled() || !client.tracking) [[likely]]
    return false;
  const bool tracked = tracking_.wants_read(client.id, def);
  // The local executor never sees this command: CLIENT CACHING's flag ages here.
  if (ages) tracking_.before_command(client.id);
  return tracked;
}

bool Router::tell_peer(int w, const MeshMessage& m) {
  if (w < 0 || w >= workers_ || w == self_) return false;
  auto& link = links_[static_cast<std::size_t>(w)];
  if (!link || !link->up()) return false;
  link->send(m, self_, 0, 2, MeshWaiter{});
  return true;
}

bool Router::tell_peer_command(int w, std::span<const std::string_view> args) {
  Resolved r{table_.find(args[0]), nullptr};
  if (r.top == nullptr) return false;
  r.def = r.top;
  if (!r.top->subcommands.empty() && args.size() > 1) {
    if (const CommandDef* sub = CommandTable::find_sub(*r.top, args[1])) r.def = sub;
  }
  return tell_peer(w, command(r, args));
}

// CLIENT TRACKING ON ... REDIRECT id, id a client of another worker: Redis requires the
// target to exist now, so that worker is asked (a kClientExists request) while the
// client waits (its later commands too, as behind CLIENT PAUSE); the handler reads the
// answer from ClientInfo. A worker whose link is down has no clients: no such target.
bool Router::redirect_known(RoutedClient& c, std::span<const std::string_view> args) {
  ClientInfo& client = c.info();
  std::uint64_t id = 0;
  for (std::size_t j = 3; j + 1 < args.size(); ++j) {
    if (iequals(args[j], "prefix")) {
      ++j;  // its value, whatever it reads
    } else if (iequals(args[j], "redirect")) {
      const auto v = parse_int64(args[j + 1]);
      if (!v || *v <= 0) return true;  // the handler answers it
      id = static_cast<std::uint64_t>(*v);
      break;
    }
  }
  if (id == 0) return true;  // OFF checks its REDIRECT too, as Redis parses options first
  const int w = static_cast<int>(id % static_cast<std::uint64_t>(workers_));
  if (w == self_) return true;
  if (client.redirect_asked == id) return client.redirect_answer != ClientInfo::kAsking;
  client.redirect_asked = id;
  MeshLink* link = links_[static_cast<std::size_t>(w)].get();
  if (link == nullptr || !link->up()) {
    client.redirect_answer = ClientInfo::kNoSuchClient;
    return true;
  }
  client.redirect_answer = ClientInfo::kAsking;
  link->send({MeshKind::kClientExists, proto::MeshClientExists{id}}, self_, 0, 2,
             MeshWaiter{client.id, 0, kQuestionPart});
  return false;
}

void Router::answered(ClientInfo& client, std::string_view reply) {
  if (client.redirect_answer != ClientInfo::kAsking) return;
  client.redirect_answer =
      reply == ":1\r\n" ? ClientInfo::kClientExists : ClientInfo::kNoSuchClient;
}

void Router::split(RoutedClient& c, Merge how, std::size_t step, const Resolved& r,
                   std::span<const std::string_view> args, std::size_t first) {
  std::vector<int> group_of(static_cast<std::size_t>(workers_), -1);
  std::vector<std::vector<std::string_view>> groups;
  std::vector<int> owners;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order;  // key i → (group, index)
  for (std::size_t i = first; i + step - 1 < args.size(); i += step) {
    if (moved(c, args[i])) return;
  }
  for (std::size_t i = first; i + step - 1 < args.size(); i += step) {
    auto o = static_cast<std::size_t>(owner_of(args[i]));
    if (group_of[o] < 0) {
      group_of[o] = static_cast<int>(groups.size());
      groups.emplace_back(args.begin(), args.begin() + static_cast<long>(first));
      owners.push_back(static_cast<int>(o));
    }
    auto g = static_cast<std::size_t>(group_of[o]);
    order.emplace_back(static_cast<std::uint32_t>(g),
                       static_cast<std::uint32_t>((groups[g].size() - first) / step));
    groups[g].insert(groups[g].end(), args.begin() + static_cast<long>(i),
                     args.begin() + static_cast<long>(i + step));
  }
  if (groups.size() == 1) {
    if (owners[0] == self_) {
      executor_.execute(c.info(), args, c.local_writer(), r.top);
    } else {
      forward(c, owners[0], r, args);
    }
    return;
  }
  MergeFn merge;
  if (how != Merge::kKeyOrder) {
    merge = merge_of(how);
  } else {
    merge = [order = std::move(order)](std::vector<std::string>& parts, std::string& out) {
      if (const std::string* e = first_error(parts)) {
        out = *e;
        return;
      }
      std::vector<std::vector<std::string_view>> values(parts.size());
      for (std::size_t p = 0; p < parts.size(); ++p) elements(parts[p], values[p]);
      out = "*" + std::to_string(order.size()) + "\r\n";
      for (auto [g, i] : order) {
        if (i < values[g].size()) out.append(values[g][i]);
      }
    };
  }
  // A tracked read: the local part (if any) ages CLIENT CACHING's flag in the executor.
  const bool local = std::find(owners.begin(), owners.end(), self_) != owners.end();
  const bool tracked = tracked_read(c.info(), *r.def, !local);
  std::uint64_t seq = c.reserve(static_cast<std::uint32_t>(groups.size()), std::move(merge));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    send_part(c, owners[g], seq, static_cast<std::uint32_t>(g),
              command(r, groups[g], tracked && owners[g] != self_));
  }
}

}  // namespace ruvio::worker
