// What a command sees of the worker: its databases, configuration, counters and clients.
// Owned by the server loop; commands get it through Context (worker/commands/context.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shared/config.hpp"
#include "worker/store/db.hpp"

namespace ruvio::worker {

struct Stats {
  std::uint64_t commands_processed = 0;
  std::uint64_t connections_received = 0;
  std::uint64_t rejected_connections = 0;
  std::uint64_t keyspace_hits = 0;
  std::uint64_t keyspace_misses = 0;
  std::uint64_t net_input_bytes = 0;
  std::uint64_t net_output_bytes = 0;
  std::uint64_t unexpected_error_replies = 0;
  std::uint64_t instantaneous_ops_per_sec = 0;  // sampled by the server once a second
};

// Per-connection state that commands read and change (CLIENT, SELECT, HELLO, AUTH...).
struct ClientInfo {
  std::uint64_t id = 0;
  std::string name;
  std::string addr;   // "127.0.0.1:51234"
  std::string laddr;  // "127.0.0.1:6379"
  int fd = -1;
  int db = 0;
  int resp = 2;
  bool authenticated = true;
  bool close_after_reply = false;  // QUIT
  std::int64_t created_ms = 0;
  std::int64_t last_interaction_ms = 0;
  std::string last_command = "NULL";  // "client|list" style, for CLIENT LIST cmd=
  std::size_t query_buffer_bytes = 0;   // qbuf
  std::size_t query_buffer_free = 0;    // qbuf-free
  std::size_t output_buffer_bytes = 0;  // omem
  std::size_t output_list_length = 0;   // oll
};

class Shard {
 public:
  Shard(const Config& config, int worker_id);

  store::Db& db(int index) { return *dbs_[static_cast<std::size_t>(index)]; }
  int databases() const { return static_cast<int>(dbs_.size()); }
  void swap_db(int a, int b) { std::swap(dbs_[static_cast<std::size_t>(a)], dbs_[static_cast<std::size_t>(b)]); }

  Config& config() { return config_; }
  int worker_id() const { return worker_id_; }
  Stats& stats() { return stats_; }

  // Cached clock: refreshed by the loop once per turn (and before each command batch).
  std::int64_t now_ms() const { return now_ms_; }
  void set_now_ms(std::int64_t t) { now_ms_ = t; }
  std::int64_t start_ms() const { return start_ms_; }
  int tcp_port() const { return config_.port; }

  // Connected clients, for CLIENT LIST / INFO clients. Set by the server.
  std::function<void(const std::function<void(const ClientInfo&)>&)> for_each_client;
  std::size_t connected_clients = 0;

  // Allocator-usable bytes of every database (INFO used_memory, MEMORY STATS).
  std::size_t used_memory() const;
  // Returns freed pages to the OS (after FLUSHALL / FLUSHDB).
  void release_memory();

  // SHUTDOWN: the server stops after this command's reply is flushed.
  bool shutdown_requested = false;

 private:
  Config config_;
  int worker_id_;
  Stats stats_;
  std::int64_t now_ms_ = 0;
  std::int64_t start_ms_ = 0;
  std::vector<std::unique_ptr<store::Db>> dbs_;
};

}  // namespace ruvio::worker
