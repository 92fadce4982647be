#include "worker/route/router.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>

#include "proto/reply_scan.hpp"
#include "shared/slots.hpp"
#include "worker/commands/acl_family.hpp"
#include "worker/commands/blocking.hpp"
#include "worker/commands/command_table.hpp"
#include "worker/commands/common.hpp"
#include "worker/commands/debug_digest.hpp"
#include "worker/commands/executor.hpp"
#include "worker/route/acl_log_merge.hpp"
#include "worker/route/info_merge.hpp"
#include "worker/route/latency_merge.hpp"

namespace ruvio::worker {

namespace {

constexpr std::string_view kCrossSlot = "CROSSSLOT Keys in request don't hash to the same slot";

std::string loading_reply() {
  return "-" + std::string(kLoadingError) + "\r\n";
}

// The first error among the parts, if any.
const std::string* first_error(const std::vector<std::string>& parts) {
  for (const std::string& p : parts) {
    if (reply_is_error(p)) return &p;
  }
  return nullptr;
}

void merge_sum(std::vector<std::string>& parts, std::string& out) {
  if (const std::string* e = first_error(parts)) {
    out = *e;
    return;
  }
  std::int64_t total = 0;
  for (const std::string& p : parts) total += reply_integer(p).value_or(0);
  out = ":" + std::to_string(total) + "\r\n";
}

void merge_ok(std::vector<std::string>& parts, std::string& out) {
  const std::string* e = first_error(parts);
  out = e ? *e : parts[0];
}

// Splits an aggregate reply into its elements (views into `reply`).
bool elements(std::string_view reply, std::vector<std::string_view>& out) {
  auto h = reply_aggregate(reply);
  if (!h) return false;
  std::size_t pos = h->body;
  for (std::int64_t i = 0; i < h->count; ++i) {
    std::size_t len = reply_length(reply.substr(pos));
    if (len == 0) return false;
    out.push_back(reply.substr(pos, len));
    pos += len;
  }
  return true;
}

void merge_concat(std::vector<std::string>& parts, std::string& out) {
  if (const std::string* e = first_error(parts)) {
    out = *e;
    return;
  }
  std::int64_t total = 0;
  std::string body;
  for (const std::string& p : parts) {
    auto h = reply_aggregate(p);
    if (!h) continue;
    total += h->count;
    body.append(p, h->body, std::string::npos);
  }
  out = "*" + std::to_string(total) + "\r\n" + body;
}

// Channel lists: each channel once, whichever workers have subscribers to it.
void merge_union(std::vector<std::string>& parts, std::string& out) {
  if (const std::string* e = first_error(parts)) {
    out = *e;
    return;
  }
  std::vector<std::string_view> seen;
  for (const std::string& p : parts) {
    std::vector<std::string_view> items;
    elements(p, items);
    for (std::string_view item : items) {
      if (std::find(seen.begin(), seen.end(), item) == seen.end()) seen.push_back(item);
    }
  }
  out = "*" + std::to_string(seen.size()) + "\r\n";
  for (std::string_view item : seen) out.append(item);
}

// NUMSUB: [channel, count, …] from every worker, counts added position by position.
void merge_numsub(std::vector<std::string>& parts, std::string& out) {
  if (const std::string* e = first_error(parts)) {
    out = *e;
    return;
  }
  std::vector<std::string_view> first;
  elements(parts[0], first);
  std::vector<std::int64_t> counts(first.size() / 2, 0);
  for (const std::string& p : parts) {
    std::vector<std::string_view> items;
    elements(p, items);
    for (std::size_t i = 1; i < items.size() && i / 2 < counts.size(); i += 2) {
      counts[i / 2] += reply_integer(items[i]).value_or(0);
    }
  }
  out = "*" + std::to_string(first.size()) + "\r\n";
  for (std::size_t i = 0; i + 1 < first.size(); i += 2) {
    out.append(first[i]);
    out += ":" + std::to_string(counts[i / 2]) + "\r\n";
  }
}

// agg_min / agg_max / agg_logical_and / agg_logical_or over integer replies.
template <class F>
MergeFn merge_int(F combine) {
  return [combine](std::vector<std::string>& parts, std::string& out) {
    if (const std::string* e = first_error(parts)) {
      out = *e;
      return;
    }
    if (reply_aggregate(parts[0])) {
      // An array of integers (SCRIPT EXISTS) combines element by element, as a cluster
      // client applies the policy.
      std::vector<std::string_view> first;
      elements(parts[0], first);
      std::vector<std::int64_t> acc(first.size());
      for (std::size_t j = 0; j < first.size(); ++j) acc[j] = reply_integer(first[j]).value_or(0);
      for (std::size_t i = 1; i < parts.size(); ++i) {
        std::vector<std::string_view> items;
        elements(parts[i], items);
        for (std::size_t j = 0; j < acc.size() && j < items.size(); ++j) {
          acc[j] = combine(acc[j], reply_integer(items[j]).value_or(0));
        }
      }
      out = "*" + std::to_string(acc.size()) + "\r\n";
      for (std::int64_t v : acc) out += ":" + std::to_string(v) + "\r\n";
      return;
    }
    std::int64_t acc = reply_integer(parts[0]).value_or(0);
    for (std::size_t i = 1; i < parts.size(); ++i) {
      acc = combine(acc, reply_integer(parts[i]).value_or(0));
    }
    out = ":" + std::to_string(acc) + "\r\n";
  };
}

// one_succeeded: the first reply that is not an error, else the first error.
void merge_one_ok(std::vector<std::string>& parts, std::string& out) {
  for (const std::string& p : parts) {
    if (!reply_is_error(p)) {
      out = p;
      return;
    }
  }
  out = parts[0];
}

// CLIENT KILL: the old form answers +OK where the client was and "No such client" on the other
// workers; the filter form answers a count per worker.
void merge_kill(std::vector<std::string>& parts, std::string& out) {
  for (const std::string& p : parts) {
    if (p.starts_with('+')) {
      out = p;
      return;
    }
  }
  if (parts[0].starts_with(':')) {
    merge_sum(parts, out);
  } else {
    out = parts[0];
  }
}

// The merge of a response policy (or a Ruvio merge that needs no request context).
MergeFn merge_of(Merge how) {
  switch (how) {
    case Merge::kSum:
      return merge_sum;
    case Merge::kMin:
      return merge_int([](std::int64_t a, std::int64_t b) { return std::min(a, b); });
    case Merge::kMax:
      return merge_int([](std::int64_t a, std::int64_t b) { return std::max(a, b); });
    case Merge::kAnd:
      return merge_int([](std::int64_t a, std::int64_t b) -> std::int64_t { return a && b; });
    case Merge::kOr:
      return merge_int([](std::int64_t a, std::int64_t b) -> std::int64_t { return a || b; });
    case Merge::kOneOk:
      return merge_one_ok;
    case Merge::kConcat:
      return merge_concat;
    case Merge::kUnion:
      return merge_union;
    case Merge::kNumsub:
      return merge_numsub;
    case Merge::kKill:
      return merge_kill;
    default:  // all_succeeded, and every worker answering the same
      return merge_ok;
  }
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
      self_(self),
      workers_(workers),
      mesh_name_(mesh_name),
      topology_(topology),
      slot_owner_(kSlotCount, 0),
      listener_(host) {
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
static bool parked_blocked(ClientInfo& client, std::span<const std::string_view> args) {
  if (const CommandDef* def = command_table().find(args[0])) client.last_command = def->name;
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
  if (workers_ == 1 || client.cluster_mode || client.subscribed()) {
    if (executor_.blocks(client, args, named)) return parked_blocked(client, args);
    executor_.execute(client, args, c.local_writer(), named);
    return true;
  }
  // Unknown commands, anything before AUTH and wrong arities get their error from the local
  // executor; nothing unauthenticated ever crosses the mesh.
  if (def == nullptr || (!client.authenticated && !(def->flags & kNoAuth)) ||
      !arity_ok(*def, args.size())) {
    executor_.execute(client, args, c.local_writer(), named);
    return true;
  }
  // ACL before the command leaves this worker (the owner runs it for a mesh client, which has
  // every permission).
  if (client.user != nullptr && client.user->restricted &&
      executor_.acl_refuses(client, args, c.local_writer(), false)) {
    return true;
  }
  if (def->name == "debug" && debug_allowed(executor_.shard(), client)) [[unlikely]] {
    // DIGEST combines every worker's part; RELOAD reloads every worker; DIGEST-VALUE asks
    // each key's owner and answers in argument order.
    if (args.size() == 2 && iequals(args[1], "digest")) {
      digest(c);
      return true;
    }
    if (iequals(args[1], "reload")) {
      fan_out(c, Merge::kFirstError, args);
      return true;
    }
    if (args.size() > 2 && iequals(args[1], "digest-value")) {
      split(c, Merge::kKeyOrder, 1, args, 2);
      return true;
    }
    // The subcommands about one key: its owner answers.
    if (args.size() >= 3 && (iequals(args[1], "object") || iequals(args[1], "listpack") ||
                             iequals(args[1], "quicklist"))) {
      if (moved(c, args[2])) return true;
      if (const int owner = owner_of(args[2]); owner != self_) {
        forward(c, owner, args);
        return true;
      }
    }
  }
  if (def->flags & kTxWatch) {
    Monitors& monitors = executor_.shard().monitors;
    if (monitors.on()) [[unlikely]]
      monitors.feed(client, client.db, args, *def);
    watch(c, args);
    return true;
  }
  if (def->flags & kTxUnwatch) {
    unwatch_remote(c);  // then the handler drops the local part
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
  }
  const Routing routing = routing_of(*def);
  // MONITOR: a command this worker routes is fed here, once, with the arguments as sent; its
  // local part (a fan-out's, a split's) is not fed again by the executor.
  Monitors& monitors = executor_.shard().monitors;
  std::optional<Monitors::Routed> routed;
  if (monitors.on() && routing.where != Where::kHere && routing.where != Where::kTips &&
      routing.where != Where::kKeyOwner && routing.where != Where::kRedirect) [[unlikely]] {
    monitors.feed(client, client.db, args, *def);
    routed.emplace(monitors);
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
      scan(c, args);
      return true;
    case Where::kAllWorkers:
      fan_out(c, routing.merge, args);
      return true;
    case Where::kSplit:
      if (const std::size_t step = split_step(*def, args.size())) {
        split(c, routing.merge, step, args);
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
      forward(c, owner, args);
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
    if (executor_.blocks(client, args, named)) return parked_blocked(client, args);
    executor_.execute(client, args, c.local_writer(), named);
  } else {
    client.last_command = def->name;  // CLIENT LIST cmd= on this worker, as if run here
    if (monitors.on()) [[unlikely]]
      monitors.feed_forwarded(client, client.db, args, *def);
    forward(c, owner, args, (def->flags & kBlocking) != 0 ? def : nullptr);
  }
  return true;
}

void Router::publish_peers(std::string_view channel, std::string_view message) {
  const std::string_view args[] = {"PUBLISH", channel, message};
  for (auto& link : links_) {
    if (link && link->up()) link->send(MeshKind::kCommand, self_, 0, 2, args, MeshWaiter{});
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
  const std::string_view args[] = {"DIGEST"};
  for (int w = 0; w < workers_; ++w) {
    send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kDigest, args);
  }
}

void Router::monitor_announce(bool on) {
  const std::string_view args[] = {on ? "on" : "off"};
  for (auto& link : links_) {
    if (link && link->up()) link->send(MeshKind::kMonitor, self_, 0, 2, args, MeshWaiter{});
  }
}

void Router::monitor_line(int w, std::string_view line) {
  if (w < 0 || w >= workers_ || w == self_) return;
  MeshLink* link = links_[static_cast<std::size_t>(w)].get();
  const std::string_view args[] = {"line", line};
  if (link != nullptr && link->up())
    link->send(MeshKind::kMonitor, self_, 0, 2, args, MeshWaiter{});
}

void Router::send_part(RoutedClient& c, int w, std::uint64_t seq, std::uint32_t part, MeshKind kind,
                       std::span<const std::string_view> args, const BlockedResend* keep) {
  ClientInfo& client = c.info();
  if (w == self_) {
    std::string reply;
    proto::ReplyWriter writer(reply, client.resp);
    serve(kind, client, args, writer, false);  // dispatch checked the pause for all parts
    c.deliver(seq, part, reply);
  } else if (links_[static_cast<std::size_t>(w)]->up()) {
    // Worker w now remembers a key this client read: if it restarts, the client is told.
    if (kind == MeshKind::kTracked) client.tracking_peers |= tracking_peer_bit(w);
    if (client.user != nullptr && client.user->restricted &&
        (kind == MeshKind::kCommand || kind == MeshKind::kExec || kind == MeshKind::kTracked)) {
      std::vector<std::string_view> tagged;
      tagged.reserve(args.size() + 2);
      tagged.push_back(client.user->name);
      tagged.push_back(kind == MeshKind::kExec ? "2" : kind == MeshKind::kTracked ? "5" : "0");
      tagged.insert(tagged.end(), args.begin(), args.end());
      BlockedResend shifted;  // the user's name and the inner kind come first
      if (keep != nullptr) {
        shifted = *keep;
        shifted.timeout_index += 2;
      }
      links_[static_cast<std::size_t>(w)]->send(MeshKind::kAsUser, self_, client.db, client.resp,
                                                tagged, MeshWaiter{client.id, seq, part},
                                                keep != nullptr ? &shifted : nullptr);
      return;
    }
    links_[static_cast<std::size_t>(w)]->send(kind, self_, client.db, client.resp, args,
                                              MeshWaiter{client.id, seq, part}, keep);
  } else {
    c.deliver(seq, part, loading_reply());
  }
}

void Router::forward(RoutedClient& c, int owner, std::span<const std::string_view> args,
                     const CommandDef* blocking) {
  std::uint64_t seq = c.reserve(1, nullptr);
  // The owner parks it if nothing is there; this worker's CLIENT LIST and the client's own
  // view see it blocked (flags=b) until the answer comes, as Redis shows a blocked client.
  if (blocking == nullptr) {
    send_part(c, owner, seq, 0, read_kind(c.info(), args, true), args);
    return;
  }
  c.wait_blocked(seq);
  // Its timeout, made absolute now (as the owner does when it parks it): should the owner die
  // while the command waits there, the link sends it again with what is left.
  BlockedResend keep;
  bool kept = false;
  if (const BlockingSpec* spec = blocking_spec(*blocking)) {
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
  send_part(c, owner, seq, 0, read_kind(c.info(), args, true), args, kept ? &keep : nullptr);
}

MeshKind Router::read_kind(ClientInfo& client, std::span<const std::string_view> args, bool ages) {
  Tracking& t = executor_.shard().tracking;
  if (!t.enabled() || !client.tracking) [[likely]]
    return MeshKind::kCommand;
  const CommandDef* def = command_table().find(args[0]);
  if (def != nullptr && !def->subcommands.empty() && args.size() > 1) {
    def = CommandTable::find_sub(*def, args[1]);
  }
  const bool tracked = def != nullptr && t.wants_read(client.id, *def);
  // The local executor never sees this command: CLIENT CACHING's flag ages here.
  if (ages) t.before_command(client.id);
  return tracked ? MeshKind::kTracked : MeshKind::kCommand;
}

bool Router::tell_peer(int w, MeshKind kind, std::span<const std::string_view> args) {
  if (w < 0 || w >= workers_ || w == self_) return false;
  auto& link = links_[static_cast<std::size_t>(w)];
  if (!link || !link->up()) return false;
  link->send(kind, self_, 0, 2, args, MeshWaiter{});
  return true;
}

// CLIENT TRACKING ON ... REDIRECT id, id a client of another worker: Redis requires the
// target to exist now, so that worker is asked ("exists", a kTracking request) while the
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
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, id);
  const std::string_view q[] = {"exists",
                                std::string_view(buf, static_cast<std::size_t>(r.ptr - buf))};
  link->send(MeshKind::kTracking, self_, 0, 2, q, MeshWaiter{client.id, 0, kQuestionPart});
  return false;
}

void Router::answered(ClientInfo& client, std::string_view reply) {
  if (client.redirect_answer != ClientInfo::kAsking) return;
  client.redirect_answer =
      reply == ":1\r\n" ? ClientInfo::kClientExists : ClientInfo::kNoSuchClient;
}

void Router::split(RoutedClient& c, Merge how, std::size_t step,
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
      executor_.execute(c.info(), args, c.local_writer());
    } else {
      forward(c, owners[0], args);
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
  const MeshKind kind = read_kind(c.info(), args, !local);
  std::uint64_t seq = c.reserve(static_cast<std::uint32_t>(groups.size()), std::move(merge));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    send_part(c, owners[g], seq, static_cast<std::uint32_t>(g),
              owners[g] == self_ ? MeshKind::kCommand : kind, groups[g]);
  }
}

void Router::fan_out(RoutedClient& c, Merge how, std::span<const std::string_view> args) {
  MergeFn merge;
  switch (how) {
    case Merge::kRandom:
      merge = [start = static_cast<std::size_t>(std::rand())](std::vector<std::string>& parts,
                                                              std::string& out) {
        for (std::size_t i = 0; i < parts.size(); ++i) {
          const std::string& p = parts[(start + i) % parts.size()];
          if (reply_is_error(p) || p[0] == '$' || p[0] == '+') {
            if (p != "$-1\r\n") {
              out = p;
              return;
            }
          }
        }
        out = parts[0];  // every worker is empty: its null, in the client's protocol
      };
      break;
    case Merge::kInfo: {
      bool per_worker = args.size() == 1;
      for (std::size_t i = 1; i < args.size(); ++i) {
        per_worker |= iequals(args[i], "all") || iequals(args[i], "everything") ||
                      iequals(args[i], "default") || iequals(args[i], "workers");
      }
      // A worker that is down (its part is an error) shows as down; INFO still answers.
      // With latencystats asked, parts workers_.. are the workers' histograms: the
      // percentiles come from their sum, as one server holding every sample prints them.
      const bool latency = info_wants_latencystats(args);
      merge = [per_worker, self = self_, resp = c.info().resp, latency,
               percentiles = latency ? executor_.shard().config().latency_tracking_percentiles
                                     : std::vector<double>()](std::vector<std::string>& parts,
                                                              std::string& out) {
        std::map<std::string, std::string, std::less<>> lines;
        if (latency) {
          const auto half = static_cast<long>(parts.size() / 2);
          lines = merged_percentile_lines({parts.begin() + half, parts.end()}, percentiles);
          parts.resize(parts.size() / 2);
        }
        std::string text = merge_info(parts, static_cast<std::size_t>(self), per_worker,
                                      latency ? &lines : nullptr);
        std::string reply;
        proto::ReplyWriter w(reply, resp);
        w.verbatim(text);
        out = std::move(reply);
      };
      if (!latency) break;
      // The histograms go first: a worker answers them before its INFO runs, so INFO's own
      // call is not in them yet (Redis records a command after it ran).
      std::uint64_t seq = c.reserve(static_cast<std::uint32_t>(workers_ * 2), std::move(merge));
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(workers_ + w), MeshKind::kHistograms, args);
      }
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kCommand, args);
      }
      return;
    }
    case Merge::kSlowlog: {
      // Each worker answered its own newest entries (up to the count asked): the client gets
      // the newest of all of them, as one server's slow log would read.
      std::int64_t count = 10;
      if (args.size() == 3) count = parse_int64(args[2]).value_or(10);
      merge = [count](std::vector<std::string>& parts, std::string& out) {
        if (const std::string* e = first_error(parts)) {
          out = *e;
          return;
        }
        std::vector<std::pair<std::int64_t, std::string_view>> all;
        for (const std::string& p : parts) {
          std::vector<std::string_view> entries;
          elements(p, entries);
          for (std::string_view e : entries) {
            std::vector<std::string_view> fields;
            elements(e, fields);
            all.emplace_back(fields.size() > 1 ? reply_integer(fields[1]).value_or(0) : 0, e);
          }
        }
        std::stable_sort(all.begin(), all.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        if (count >= 0 && static_cast<std::size_t>(count) < all.size()) {
          all.resize(static_cast<std::size_t>(count));
        }
        out = "*" + std::to_string(all.size()) + "\r\n";
        for (const auto& [t, e] : all) out.append(e);
      };
      break;
    }
    case Merge::kAclLog: {
      // RESET clears every worker's log; a count reads every worker's entries as one log.
      // A wrong argument gets this worker's answer (the error one server would give).
      if (args.size() == 3 && iequals(args[2], "reset")) {
        merge = merge_of(Merge::kFirstError);
        break;
      }
      const std::optional<std::int64_t> n =
          args.size() == 3 ? parse_int64(args[2]) : std::optional<std::int64_t>(10);
      if (args.size() > 3 || !n) {
        executor_.execute(c.info(), args, c.local_writer());
        return;
      }
      const std::size_t count = *n < 0 ? 0 : static_cast<std::size_t>(*n);
      std::uint64_t seq =
          c.reserve(static_cast<std::uint32_t>(workers_),
                    [count, max_len = executor_.shard().acl().log_max_len, resp = c.info().resp](
                        std::vector<std::string>& parts, std::string& out) {
                      merge_acl_log(parts, count, max_len, resp, out);
                    });
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kAclLog, args);
      }
      return;
    }
    case Merge::kLatency: {
      const std::string sub(args.size() > 1 ? args[1] : "");
      if (iequals(sub, "doctor") || iequals(sub, "graph")) {
        // Rendered here from every worker's series, with this worker's settings.
        std::uint64_t seq =
            c.reserve(static_cast<std::uint32_t>(workers_),
                      [sub, event = std::string(args.size() > 2 ? args[2] : ""),
                       report = make_latency_report(executor_.shard().config()),
                       resp = c.info().resp](std::vector<std::string>& parts, std::string& out) {
                        merge_latency_report(sub, event, parts, report, resp, out);
                      });
        for (int w = 0; w < workers_; ++w) {
          send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kLatencyEvents, args);
        }
        return;
      }
      merge = [sub, resp = c.info().resp](std::vector<std::string>& parts, std::string& out) {
        merge_latency(sub, parts, resp, out);
      };
      break;
    }
    case Merge::kText:
      merge = [resp = c.info().resp](std::vector<std::string>& parts, std::string& out) {
        if (const std::string* e = first_error(parts)) {
          out = *e;
          return;
        }
        std::string text;
        for (const std::string& p : parts) text.append(reply_string(p).value_or(""));
        std::string reply;
        proto::ReplyWriter w(reply, resp);
        w.verbatim(text);
        out = std::move(reply);
      };
      break;
    case Merge::kNumpat: {
      // Redis counts distinct patterns: ask every worker for its list and unite them.
      std::uint64_t seq = c.reserve(
          static_cast<std::uint32_t>(workers_),
          [](std::vector<std::string>& parts, std::string& out) {
            std::string all;
            merge_union(parts, all);
            auto h = reply_aggregate(all);
            out = reply_is_error(all) ? all : ":" + std::to_string(h ? h->count : 0) + "\r\n";
          });
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kPatterns, args);
      }
      return;
    }
    default:
      merge = merge_of(how);
      break;
  }
  std::uint64_t seq = c.reserve(static_cast<std::uint32_t>(workers_), std::move(merge));
  for (int w = 0; w < workers_; ++w) {
    send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kCommand, args);
  }
}

// The proxy's SCAN cursor: low 8 bits name the worker, the rest is that worker's own
// cursor. A worker's scan that ends moves on to the next worker, so a full iteration visits
// every worker's table once and keeps Redis's guarantee for each.
void Router::scan(RoutedClient& c, std::span<const std::string_view> args) {
  auto cursor = parse_scan_cursor(args[1]);
  if (!cursor) {
    c.local_writer().error("ERR invalid cursor");
    return;
  }
  auto w = static_cast<int>(*cursor & 0xff);
  std::uint64_t inner = *cursor >> 8;
  if (w >= workers_) {
    proto::ReplyWriter& out = c.local_writer();
    out.array(2);
    out.bulk("0");
    out.array(0);
    return;
  }
  std::vector<std::string_view> a(args.begin(), args.end());
  std::string inner_text = std::to_string(inner);
  a[1] = inner_text;
  int workers = workers_;
  MergeFn fix = [w, workers](std::vector<std::string>& parts, std::string& out) {
    std::string& p = parts[0];
    auto h = reply_aggregate(p);
    if (reply_is_error(p) || !h || h->count != 2) {
      out = p;
      return;
    }
    std::size_t first = reply_length(std::string_view(p).substr(h->body));
    auto next_text = reply_string(std::string_view(p).substr(h->body, first));
    std::uint64_t next = 0;
    if (next_text) std::from_chars(next_text->data(), next_text->data() + next_text->size(), next);
    std::uint64_t cursor = next != 0 ? (next << 8) | static_cast<std::uint64_t>(w)
                                     : (w + 1 < workers ? static_cast<std::uint64_t>(w + 1) : 0);
    std::string c = std::to_string(cursor);
    out = "*2\r\n$" + std::to_string(c.size()) + "\r\n" + c + "\r\n";
    out.append(p, h->body + first, std::string::npos);
  };
  std::uint64_t seq = c.reserve(1, std::move(fix));
  send_part(c, w, seq, 0, MeshKind::kCommand, a);
}

bool Router::serve(MeshKind kind, ClientInfo& client, std::span<const std::string_view> args,
                   proto::ReplyWriter& out, bool may_park) {
  switch (kind) {
    case MeshKind::kCommand:
      if (may_park && (executor_.parks(client, args) || executor_.blocks(client, args))) {
        return false;
      }
      executor_.execute(client, args, out);
      return true;
    case MeshKind::kTracked: {
      if (may_park && (executor_.parks(client, args) || executor_.blocks(client, args))) {
        return false;
      }
      Shard& shard = executor_.shard();
      shard.tracking.begin_remote_read();
      executor_.execute(client, args, out);
      shard.tracking.end_remote_read();
      shard.update_listener();
      return true;
    }
    case MeshKind::kTracking: {
      Shard& shard = executor_.shard();
      if (args.size() == 2 && args[0] == "exists") {  // Router::redirect_known's question
        const auto id = parse_int64(args[1]);
        const ClientInfo* info = nullptr;
        const bool found = id && shard.tracking.writer &&
                           shard.tracking.writer(static_cast<std::uint64_t>(*id), &info) != nullptr;
        out.integer(found ? 1 : 0);
        return true;
      }
      shard.tracking.on_peer_message(client.origin, args);
      shard.update_listener();
      out.ok();
      return true;
    }
    case MeshKind::kAclLog:
      write_acl_log_raw(executor_.shard(), out);
      return true;
    case MeshKind::kHistograms:
      write_histograms(executor_.command_stats(), executor_.shard().config().latency_tracking, out);
      return true;
    case MeshKind::kLatencyEvents:
      write_latency_events(executor_.latency(), out);
      return true;
    case MeshKind::kPatterns: {
      std::vector<std::string> patterns = executor_.shard().pubsub->pattern_list();
      out.array(patterns.size());
      for (const std::string& p : patterns) out.bulk(p);
      return true;
    }
    case MeshKind::kExec: {
      // EXEC n1 args… n2 args… (see Router::exec)
      std::vector<std::vector<std::string_view>> commands;
      std::size_t i = 1;
      while (i < args.size()) {
        std::size_t n = 0;
        std::from_chars(args[i].data(), args[i].data() + args[i].size(), n);
        if (n == 0 || i + 1 + n > args.size()) {
          out.error("ERR malformed mesh transaction");
          return true;
        }
        commands.emplace_back(args.begin() + static_cast<long>(i + 1),
                              args.begin() + static_cast<long>(i + 1 + n));
        i += 1 + n;
      }
      if (may_park && executor_.parks(commands)) return false;
      executor_.run_transaction(client, commands, out);
      return true;
    }
    case MeshKind::kAsUser: {
      if (args.size() < 3 || (args[1] != "0" && args[1] != "2" && args[1] != "5")) {
        out.error("ERR malformed mesh request");
        return true;
      }
      std::shared_ptr<acl::User> user = executor_.shard().acl().find(args[0]);
      if (user == nullptr) {  // deleted meanwhile: its client is being closed at its worker
        out.error("NOPERM the user of this request no longer exists");
        return true;
      }
      std::shared_ptr<acl::User> mesh_user = std::move(client.user);
      client.user = std::move(user);
      const MeshKind inner = args[1] == "2"   ? MeshKind::kExec
                             : args[1] == "5" ? MeshKind::kTracked
                                              : MeshKind::kCommand;
      const bool done = serve(inner, client, args.subspan(2), out, may_park);
      client.user = std::move(mesh_user);
      return done;
    }
    case MeshKind::kDigest: {
      const std::vector<std::optional<Digest>> parts = digest_parts(executor_.shard());
      out.array(parts.size());
      for (const std::optional<Digest>& x : parts) out.bulk(x ? digest_hex(*x) : std::string());
      return true;
    }
    case MeshKind::kPause: {
      const auto end = args.size() == 2 ? parse_int64(args[1]) : std::nullopt;
      if (!end || (args[0] != "ALL" && args[0] != "WRITE")) {
        out.error("ERR malformed mesh request");
        return true;
      }
      // As CLIENT PAUSE: never weakens a pause in force here.
      ClientPause& pause = executor_.shard().client_pause;
      pause.expire(executor_.shard().now_ms());
      pause.pause(args[0] == "ALL" ? ClientPause::Mode::kAll : ClientPause::Mode::kWrite, *end);
      out.ok();
      return true;
    }
    case MeshKind::kMonitor: {
      Monitors& monitors = executor_.shard().monitors;
      if (args.size() == 2 && args[0] == "line") {
        monitors.deliver(args[1]);
      } else if (args.size() == 1 && (args[0] == "on" || args[0] == "off")) {
        monitors.set_peer(client.origin, args[0] == "on");
      } else {
        out.error("ERR malformed mesh request");
        return true;
      }
      out.ok();
      return true;
    }
    default:
      out.error("ERR unsupported mesh request");
      return true;
  }
}

}  // namespace ruvio::worker
