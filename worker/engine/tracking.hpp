// Client-side caching (Redis 7.0's tracking.c): which client may cache which key, and the
// invalidation messages sent when a key changes.
//
// One table per worker, keyed by key name only (not by database: Redis's table is global
// too). Normal mode remembers the keys of each read command a tracking client runs; a change
// of such a key (the keyspace's on_change, the same signal WATCH uses: writes, expiry,
// eviction) sends "invalidate [key]" to every client that read it and forgets it. BCAST mode
// remembers nothing: changed keys matching a client's prefixes are collected and sent once
// per loop turn (flush_broadcast). FLUSHDB / FLUSHALL send a null invalidation.
//
// Messages: a RESP3 client gets the push `>2 invalidate <keys>`; with REDIRECT the target gets
// it instead, as a push (RESP3) or, in RESP2, as a message of the `__redis__:invalidate`
// channel when it is subscribed there; a redirect to a client that left is answered with
// `>2 tracking-redir-broken <id>` to the tracking client (RESP3). A message for the client
// whose command caused it waits until that command's reply is written (flush_pending), so
// replies and pushes never interleave.
//
// Across workers (the proxy port; client ids are unique, id mod workers = its worker): a read
// that worker A forwards for a tracking client arrives at the key's owner B as a kTracked
// request, and B keeps that client's id in its table like a local reader's. When the key
// changes B sends A a one-way "key" message (mesh kind kTracking) naming the reader and the
// writer; A applies the reader's flags (NOLOOP: the writer is the client itself, through
// whichever worker) and sends the invalidation as above. A REDIRECT target on another worker
// gets a "redir" message (naming the tracking client, which a "broken" message answers when
// the target left). BCAST: each worker tells the others the prefixes its clients hold
// ("prefixes"); a worker that changes a matching key sends the key and its writer ("bcast")
// to that worker once per loop turn, which adds it to its own per-prefix lists. FLUSHDB /
// FLUSHALL fan out to every worker, so each sends its own clients the null invalidation.
//
// With no tracking client nothing here runs: the executor tests enabled() once per command.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "proto/resp_writer.hpp"
#include "worker/engine/tracking_table.hpp"

namespace ruvio::worker {

struct ClientInfo;
struct CommandDef;

class Tracking {
 public:
  enum Flag : std::uint32_t {
    kOn = 1u << 0,
    kBcast = 1u << 1,
    kOptin = 1u << 2,
    kOptout = 1u << 3,
    kCaching = 1u << 4,  // CLIENT CACHING yes (OPTIN) / no (OPTOUT), for the next command
    kNoloop = 1u << 5,
    kBrokenRedir = 1u << 6,
  };
  struct Client {
    std::uint32_t flags = 0;
    std::uint64_t redirect = 0;
    std::vector<std::string> prefixes;  // BCAST
    bool caching_fresh = false;         // set by the command running now
  };

  // The server's side: a client's push stream and state by id (null: it left).
  std::function<proto::ReplyWriter*(std::uint64_t id, const ClientInfo** info)> writer;
  // The mesh: a one-way kTracking message to worker `w` (null with one worker); false when
  // w is unreachable (restarting: its clients are gone).
  std::function<bool(int w, std::span<const std::string_view> args)> peer;
  void set_workers(int self, int workers) {
    self_ = self;
    workers_ = workers;
    remote_prefixes_.assign(static_cast<std::size_t>(workers), {});
    remote_keys_.assign(static_cast<std::size_t>(workers), {});
  }

  bool enabled() const { return on_; }
  // Keys or prefixes remembered: the keyspace must tell us about changes.
  bool listening() const { return on_; }
  const Client* find(std::uint64_t id) const {
    auto it = clients_.find(id);
    return it == clients_.end() ? nullptr : &it->second;
  }

  // CLIENT TRACKING ON/OFF (the handler checked the options as Redis does).
  void enable(std::uint64_t id, std::uint64_t redirect, std::uint32_t options,
              std::span<const std::string_view> prefixes);
  void disable(std::uint64_t id);
  void set_caching(std::uint64_t id) {
    clients_[id].flags |= kCaching;
    clients_[id].caching_fresh = true;
  }
  // Before any command of a tracking client, refused ones too (Redis's resetClient): the
  // CACHING flag covers exactly the command after CLIENT CACHING.
  void before_command(std::uint64_t id) {
    auto it = clients_.find(id);
    if (it == clients_.end() || !(it->second.flags & kCaching)) return;
    if (it->second.caching_fresh) {
      it->second.caching_fresh = false;
    } else {
      it->second.flags &= ~kCaching;
    }
  }

  // After a command of a tracking client: remembers its keys (a read-only command, normal
  // mode, OPTIN/OPTOUT as CLIENT CACHING says) and clears the CACHING flag.
  void after_command(const ClientInfo& c, const CommandDef& def,
                     std::span<const std::string_view> args, std::size_t max_keys);
  // A read-only command of a script ran: as Redis 7.0.15 (trackingRememberKeys of the
  // calling client), the keys remembered are those of the caller's own command `def`/`args`
  // (EVAL's or FCALL's KEYS), for `caller` of this worker.
  void after_script_read(const ClientInfo& caller, const CommandDef& def,
                         std::span<const std::string_view> args, std::size_t max_keys);
  // The client whose command runs: current_ a client of this worker (its messages wait for
  // its reply), writer_ of any worker (NOLOOP); 0 outside commands.
  template <class C>
  void set_current(const C& client) {
    current_ = client.origin < 0 ? client.id : 0;
    writer_ = client.id;
  }

  // A forwarded read of client `id` of this worker (the router asks before sending it):
  // true when the owner must remember its keys (normal mode, OPTIN/OPTOUT with CACHING).
  bool wants_read(std::uint64_t id, const CommandDef& def) const;
  // The owner's side: the command about to run is a kTracked read (its keys are remembered
  // for the mesh client running it).
  void begin_remote_read() {
    remote_read_ = true;
    on_ = true;
  }
  void end_remote_read() {
    remote_read_ = false;
    refresh();
  }
  // A kTracking message from worker `from`.
  void on_peer_message(int from, std::span<const std::string_view> args);
  // The link to worker `w` broke (tracking_restart.cpp): it forgot what this worker's
  // clients read there (`readers`: those whose tracked reads went to w) and their BCAST
  // prefixes, so those clients and every BCAST client get a null invalidation, as on
  // FLUSHALL.
  void peer_lost(int w, std::span<const std::uint64_t> readers);
  // The link `w` opened to this worker closed: its clients' BCAST prefixes are dropped.
  void peer_gone(int w);
  // Worker `w` is reachable again: it learns this worker's BCAST prefixes.
  void peer_up(int w);

  // A key changed (any database).
  void invalidate(std::string_view key);
  // Every key is gone (FLUSHDB, FLUSHALL): one null invalidation per tracking client.
  void invalidate_all();
  // The running command is done (its reply written): sends what waited for it.
  void end_command();
  // Sends the BCAST invalidations collected this loop turn.
  void flush_broadcast();
  bool has_broadcast() const { return broadcast_dirty_; }

  std::size_t keys() const { return table_.size(); }
  // INFO: tracking_clients, tracking_total_items, tracking_total_prefixes.
  std::size_t clients() const { return clients_.size(); }
  std::size_t items() const { return table_.items(); }
  std::size_t prefixes() const { return prefixes_.size(); }

  // Client `id` is one of another worker's (ids are unique: id mod workers = its worker).
  bool remote(std::uint64_t id) const {
    return workers_ > 1 && static_cast<int>(id % static_cast<std::uint64_t>(workers_)) != self_;
  }

 private:
  int worker_of(std::uint64_t id) const {
    return static_cast<int>(id % static_cast<std::uint64_t>(workers_));
  }
  void refresh() { on_ = !clients_.empty() || !table_.empty() || remote_read_ || remote_bcast_; }
  // A key a reader must forget: sent here, or to the reader's worker.
  void tell(std::uint64_t id, std::string_view key);
  void send(std::uint64_t id, std::span<const std::string_view> keys, bool null);
  // Writes the message itself to the client that receives it (the tracking client or its
  // redirect target on this worker).
  static void write_message(proto::ReplyWriter& out, const ClientInfo& target, bool redirected,
                            std::span<const std::string_view> keys, bool null);
  void queue(std::uint64_t id, std::string_view key, bool null);
  void evict_over(std::size_t max_keys);
  // Remembers the keys of `def`/`args` for tracking client `id` of this worker (normal mode,
  // OPTIN/OPTOUT as CLIENT CACHING says).
  void remember(std::uint64_t id, const CommandDef& def, std::span<const std::string_view> args,
                std::size_t max_keys);
  // To every peer, or to worker `only`.
  void announce_prefixes(int only = -1);
  // The REDIRECT target of tracking client `t` is gone: flagged, and told (RESP3) with
  // Redis's tracking-redir-broken push.
  void broken_redirect(std::uint64_t id, Client& t);

  std::unordered_map<std::uint64_t, Client> clients_;
  TrackingTable table_;  // normal mode: key -> reader ids (tracking_table.hpp)
  struct Prefix {
    std::unordered_set<std::uint64_t> clients;
    // Changed keys, each once, in byte order (Redis's rax), with the client that changed it.
    std::map<std::string, std::uint64_t> keys;
  };
  std::map<std::string, Prefix> prefixes_;  // in byte order, as Redis walks its rax
  bool broadcast_dirty_ = false;
  std::uint64_t current_ = 0;
  std::uint64_t writer_ = 0;  // the running command's client, of any worker (NOLOOP)
  bool on_ = false;
  bool remote_read_ = false;
  bool remote_bcast_ = false;  // some worker's clients hold BCAST prefixes
  int self_ = 0;
  int workers_ = 1;
  // Per worker: its clients' BCAST prefixes, and the changed keys (with their writer) that
  // match them, sent once per loop turn.
  std::vector<std::vector<std::string>> remote_prefixes_;
  std::vector<std::vector<std::pair<std::string, std::uint64_t>>> remote_keys_;
  bool flushed_ = false;  // this command already sent its null invalidations
  std::uint64_t pending_id_ = 0;
  struct Pending {
    std::string key;
    bool null = false;
  };
  std::vector<Pending> pending_;  // for current_
};

}  // namespace ruvio::worker
