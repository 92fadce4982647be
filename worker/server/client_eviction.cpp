// maxmemory-clients (Redis 7.0's client eviction, networking.c evictClients): when the memory
// of all clients reaches this worker's share of the limit, the largest evictable client is
// closed, then the next, until the clients fit. Clients with CLIENT NO-EVICT on are never
// closed, though their memory counts toward the total, as in Redis.
//
// A client's memory is its tot-mem (query buffer with its free space, pending output),
// recorded by Connection::update_buffer_stats and summed in Shard::client_memory, so the
// check at the end of each loop turn is one compare. Only past the limit are the clients
// walked. Redis files clients in power-of-two memory buckets and closes from the top bucket
// down; taking the largest client each time closes the same ones, biggest first.
#include <spdlog/spdlog.h>

#include <string>

#include "worker/commands/client_family.hpp"
#include "worker/server/connection.hpp"
#include "worker/server/server.hpp"

namespace ruvio::worker {

void Server::evict_clients_over(std::size_t limit) {
  // Bounded: each round closes one client or stops.
  for (std::size_t round = 0; round <= clients_.size() && shard_.client_memory >= limit; ++round) {
    Connection* largest = nullptr;
    for (auto& [id, c] : clients_) {
      if (c->closing() || c->info().no_evict) continue;
      if (largest == nullptr || c->memory() > largest->memory()) largest = c;
    }
    if (largest == nullptr) {
      // Redis logs this on every check; once a second is enough to be seen.
      if (shard_.now_ms() - over_logged_ms_ >= 1000) {
        over_logged_ms_ = shard_.now_ms();
        spdlog::warn("Over client maxmemory after evicting all evictable clients");
      }
      return;
    }
    std::string ci;
    client_info_line(largest->info(), shard_.now_ms(), ci);
    spdlog::info("Evicting client: {}", ci);
    largest->close();
    ++shard_.stats().evicted_clients;
  }
}

}  // namespace ruvio::worker
