// maxmemory-clients (Redis 7.0's client eviction, networking.c evictClients): when the memory
// of all clients reaches this worker's share of the limit, clients are closed until they fit.
// Clients with CLIENT NO-EVICT on are never closed, though their memory counts toward the
// total, as in Redis.
//
// A client's memory is Redis's getClientMemoryUsage (client_memory_usage: buffers, the
// connection, MULTI queue, WATCHes, subscriptions), recorded by Connection::update_buffer_stats
// after each command (while a limit is set), each flush and each partial read, and summed in
// Shard::client_memory, so the checks are one compare. They run where Redis's do: before each
// command (processCommand) and at the end of each loop turn (beforeSleep), plus the cron.
//
// Which client goes is Redis's bucket rule: clients sit in buckets by log2 of their memory
// (2^15 and below .. 2^33 and above, CLIENT_MEM_USAGE_BUCKETS); the highest non-empty bucket
// is emptied first, in the order clients entered it (Redis appends a client to a bucket's
// list when it moves in and walks the list from its head). So a 40 KB client that entered
// the 32-64 KB bucket before a 60 KB one goes first, as in Redis; the walk over the clients
// happens only past the limit.
//
// Through the proxy port a client counts on the worker that holds its connection (its query
// buffer and the replies queued for it, forwarded ones included once they arrived); requests
// and replies in flight on the mesh are the workers' links, not client memory. Each worker
// enforces its share (the total split as maxmemory is).
#include <spdlog/spdlog.h>

#include <string>

#include "worker/engine/client_info.hpp"
#include "worker/server/connection.hpp"
#include "worker/server/server.hpp"

namespace ruvio::worker {

bool Server::evict_clients_before_command(const Connection* c) {
  evict_clients();
  return !c->closing();
}

void Server::evict_clients_over(std::size_t limit) {
  // Bounded: each round closes one client or stops.
  for (std::size_t round = 0; round <= clients_.size() && shard_.client_memory >= limit; ++round) {
    Connection* pick = nullptr;
    for (auto& [id, c] : clients_) {
      if (c->closing() || c->info().no_evict) continue;
      if (pick == nullptr || c->bucket() > pick->bucket() ||
          (c->bucket() == pick->bucket() && c->bucket_stamp() < pick->bucket_stamp())) {
        pick = c;
      }
    }
    if (pick == nullptr) {
      // Redis logs this on every check; once a second is enough to be seen.
      if (shard_.now_ms() - over_logged_ms_ >= 1000) {
        over_logged_ms_ = shard_.now_ms();
        spdlog::warn("Over client maxmemory after evicting all evictable clients");
      }
      return;
    }
    std::string ci;
    pick->measure(false);
    client_info_line(pick->info(), shard_.now_ms(), ci);
    spdlog::info("Evicting client: {}", ci);
    pick->close();
    ++shard_.stats().evicted_clients;
  }
}

}  // namespace ruvio::worker
