// The worker's event loop: listeners, connections, the control channel to the supervisor,
// and the periodic housekeeping (active expiry, incremental rehash, stats sampling).
#pragma once

#include <poll.h>
#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "proto/resp_writer.hpp"
#include "shared/control.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/shard.hpp"
#include "worker/route/router.hpp"
#include "worker/server/persistence.hpp"
#include "worker/server/pubsub_hub.hpp"

namespace ruvio::worker {

class Connection;
struct Context;

class Server final : public RouteHost, public BusyService, public ShardHost {
 public:
  Server(const control::WorkerInit& init, int control_fd);
  ~Server();

  // Starts listening on the inherited sockets (-1 = none) and runs until shutdown.
  // Returns the process exit code.
  int run(int listen_fd, int direct_fd);

  Shard& shard() override { return shard_; }
  uv_loop_t* loop() override { return &loop_; }
  Executor& executor() { return executor_; }

  // Connection bookkeeping.
  void on_connection_closed(Connection* c);
  void mark_dirty(Connection* c);
  // c's ready replies wait for the ones other workers owe it, for kHoldMs at most.
  void hold(Connection* c);
  void refresh_clock() override;

  // Routes one command of a client connection (the proxy layer). False: CLIENT PAUSE holds
  // it; the connection is parked (park()) and runs it again when resumed.
  bool dispatch(Connection& c, std::span<const std::string_view> args);
  // A connection whose next command waits for CLIENT PAUSE to end.
  void park(Connection* c);
  // ShardHost: the engine's questions about this worker's clients and its peers.
  void for_each_client(const std::function<void(const ClientInfo&)>& fn) override;
  void measure_clients(std::uint64_t running, bool all) override;
  void kill_client(std::uint64_t id) override;
  void close_clients(const std::function<bool(const ClientInfo&)>& match,
                     const ClientInfo* except) override;
  std::optional<std::string> raise_maxclients(std::uint64_t n) override;
  void apply_hz() override;
  void acl_changed() override;
  void publish_peers(std::string_view channel, std::string_view message) override;

  // BusyService: one non-blocking pass over the other connections while a script is busy.
  void serve_while_busy(const ClientInfo* running) override;
  // serve_while_busy's first step: the turn's replies so far leave, journal first.
  void flush_dirty_while_busy(const ClientInfo* running);
  // An answer from a peer for a client's reserved reply slot.
  void deliver(const MeshWaiter& waiter, std::string_view reply) override;
  void mark_mesh_dirty() override { mesh_dirty_ = true; }
  // Readiness waits for the mesh: "ready" means every worker can reach every key.
  // A peer that (re)connects learns again that this worker's clients monitor, the BCAST
  // prefixes they hold, and a CLIENT PAUSE in force (it went to every worker).
  void on_mesh_link_up(int peer) override;
  // Its monitors are gone, and so are the keys it remembered for this worker's tracking
  // clients: those are told to drop their caches.
  void on_mesh_link_down(int peer) override;
  void on_mesh_peer_gone(int peer) override;
  // The writer for an unsolicited message (tracking, MONITOR) to client `id`, or null if it
  // is gone.
  proto::ReplyWriter* push_writer(std::uint64_t id);
  // A pub/sub push to client `id` (RoutedClient::push_writer: CLIENT REPLY OFF does not stop
  // it), or null if it is gone.
  proto::ReplyWriter* pubsub_writer(std::uint64_t id);

  // Output above this is backpressure: the connection stops reading until it drains.
  static constexpr std::size_t kOutputHighWater = 64ull * 1024 * 1024;

  // maxmemory-clients before a command runs (Redis's processCommand -> evictClients): false
  // when `c` itself was closed, so its command must not run. One test while off.
  bool evict_clients_before_command(const Connection* c);
  // Redis's client memory buckets (CLIENT_MEM_USAGE_BUCKETS): a client in a bucket of
  // 2^15..2^33 bytes by its memory's log2; eviction takes the highest bucket first, and in a
  // bucket the client that entered it first. The order stamp a client gets on entering one.
  std::uint64_t next_bucket_stamp() { return ++bucket_stamps_; }

 private:
  static void on_accept(uv_stream_t* server, int status);
  void accept(uv_stream_t* listener, bool cluster_mode);
  Connection* new_connection();
  void adopt(Connection* c, bool cluster_mode);
  void accept_while_busy(uv_tcp_t& listener, bool cluster_mode);
  static void on_check(uv_check_t* h);
  static void on_timer(uv_timer_t* h);
  static void on_pause_timer(uv_timer_t* h);
  // Lazy free: one slice of the queue's work per firing, while the queue is not empty.
  static void on_lazyfree_timer(uv_timer_t* h);
  void lazyfree_slice();
  // CLIENT PAUSE changed or may have ended: re-arm the end timer or resume parked clients.
  void check_pause();
  void resume_parked();
  // Blocked clients (worker/engine/blocking.hpp): serves the waiters of keys that were
  // written, in FIFO order while the key can serve them, and resumes the waiters whose
  // deadline passed; polls deadlines while someone waits.
  static void on_block_timer(uv_timer_t* h);
  static void on_hold_timer(uv_timer_t* h);
  void check_blocking();
  void serve_ready_keys();
  // Runs the parked command of waiter `token` again (a connection of this worker or a
  // request parked by the mesh); false when no such client is parked here.
  bool resume_waiter(std::uint64_t token);
  static void on_control_alloc(uv_handle_t* h, std::size_t suggested, uv_buf_t* buf);
  static void on_control_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_signal(uv_signal_t* h, int signum);

  bool listen_on(uv_tcp_t& handle, int fd);
  void send_control(const control::Message& msg);
  void begin_shutdown();
  void maybe_ready();
  bool listening_ = false;
  bool ready_sent_ = false;
  void housekeeping();
  // maxmemory-clients (client_eviction.cpp, Redis's evictClients): while the clients' memory
  // is at or past this worker's share, closes the largest evictable client. One compare
  // while under it or off; called at the end of every loop turn and by the clients' cron.
  void evict_clients() {
    const std::size_t limit = shard_.client_eviction_limit();
    if (limit != 0 && shard_.client_memory >= limit) [[unlikely]]
      evict_clients_over(limit);
  }
  void evict_clients_over(std::size_t limit);
  std::int64_t over_logged_ms_ = 0;
  std::uint64_t bucket_stamps_ = 0;
  // maxclients: this worker's share of the process-wide count, and the descriptors it keeps
  // for itself beyond its clients.
  std::uint64_t client_share(std::uint64_t maxclients) const;
  std::uint64_t reserved_fds() const;
  std::uint64_t max_local_clients_ = 0;
  std::int64_t clients_cron_ms_ = 0;
  std::vector<Connection*> cron_scratch_;

  control::WorkerInit init_;
  Shard shard_;
  Executor executor_{shard_};
  uv_loop_t loop_{};
  uv_tcp_t proxy_listener_{};
  uv_tcp_t direct_listener_{};
  bool has_direct_ = false;
  uv_pipe_t control_{};
  std::string control_in_;
  char control_buf_[4096];
  uv_check_t check_{};
  uv_timer_t timer_{};  // housekeeping, every housekeeping_ms_
  std::uint64_t housekeeping_ms_ = 100;
  uv_timer_t pause_timer_{};
  uv_timer_t block_timer_{};
  bool block_timer_on_ = false;
  uv_timer_t lazyfree_timer_{};
  uv_timer_t hold_timer_{};
  std::vector<Connection*> held_;  // hold()'s connections since the hold timer started
  std::vector<Connection*> releasing_;
  std::uint64_t pause_version_ = 0;  // ClientPause::version() last acted on
  std::vector<Connection*> parked_;  // in the order they were parked
  // check_blocking's reused buffers (no allocation per served push).
  std::vector<Blocking::ReadyKey> ready_keys_;
  std::vector<std::uint64_t> wake_;
  uv_signal_t sigterm_{};
  uv_signal_t sigint_{};
  std::unordered_map<std::uint64_t, Connection*> clients_;
  std::vector<::pollfd> busy_fds_;  // serve_while_busy's scratch
  std::vector<Connection*> busy_conns_;
  std::uint64_t next_client_id_ = 1;
  Connection* dirty_head_ = nullptr;
  bool shutting_down_ = false;
  bool mesh_dirty_ = false;
  Router router_;
  PubSubHub pubsub_;
  std::unique_ptr<persist::Persistence> persistence_;  // null under --durability memory
  // INFO's instantaneous_* sampling: the counters at the last sample
  std::uint64_t ops_sample_commands_ = 0;
  std::uint64_t ops_sample_input_ = 0;
  std::uint64_t ops_sample_output_ = 0;
  std::int64_t ops_sample_ms_ = 0;
};

}  // namespace ruvio::worker
