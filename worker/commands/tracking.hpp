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

  bool enabled() const { return !clients_.empty(); }
  // Keys or prefixes remembered: the keyspace must tell us about changes.
  bool listening() const { return !clients_.empty(); }
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
  // The client whose command runs (NOLOOP); 0 outside commands.
  void set_current(std::uint64_t id) { current_ = id; }

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

 private:
  void send(std::uint64_t id, std::span<const std::string_view> keys, bool null);
  void queue(std::uint64_t id, std::string_view key, bool null);
  void evict_over(std::size_t max_keys);

  std::unordered_map<std::uint64_t, Client> clients_;
  std::unordered_map<std::string, std::unordered_set<std::uint64_t>> table_;
  struct Prefix {
    std::unordered_set<std::uint64_t> clients;
    // Changed keys, each once, in byte order (Redis's rax), with the client that changed it.
    std::map<std::string, std::uint64_t> keys;
  };
  std::map<std::string, Prefix> prefixes_;  // in byte order, as Redis walks its rax
  bool broadcast_dirty_ = false;
  std::uint64_t current_ = 0;
  bool flushed_ = false;  // this command already sent its null invalidations
  std::uint64_t pending_id_ = 0;
  struct Pending {
    std::string key;
    bool null = false;
  };
  std::vector<Pending> pending_;  // for current_
};

}  // namespace ruvio::worker
