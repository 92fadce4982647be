#include "worker/server/server.hpp"

#include <mimalloc.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <span>

#include "worker/commands/hash/hash_family.hpp"
#include "worker/engine/cluster_check.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/subcommand.hpp"
#include "worker/server/client_limits.hpp"
#include "worker/server/connection.hpp"
#include "worker/server/stats_reporter.hpp"

namespace ruvio::worker {
namespace {

// Active expiry: samples per database per housekeeping tick (Redis: 20 keys × up to 16 loops,
// bounded by time; ours is bounded by count, which is the same kind of limit).
constexpr std::size_t kExpireBudget = 200;
// Keys per database the hash-field expiry sweep walks per tick (only once a field TTL exists).
constexpr std::size_t kHashFieldSweepKeys = 1000;
constexpr std::size_t kMassExpiry = 1000;  // keys expired in one tick
constexpr std::size_t kLfuDecayKeysPerTick = 20000;
// Idle-time resize work, on top of what each write does, so a table that stops being written
// still finishes growing or shrinking.
constexpr std::size_t kRehashBucketsPerTick = 1024;
// Lazy free: Redis frees in a background thread; a worker is one thread, so the queue is
// drained by a timer of its own while it is not empty, in slices of this much time made of
// steps of this much free effort (about one block each, ~0.2 ms), the loop answering between
// slices. A FLUSHALL ASYNC of millions of keys or an UNLINK of a 1M-element value never stalls
// the loop for more than about a slice, and is done in about the time its frees take.
constexpr std::size_t kLazyFreeStep = 4096;
constexpr std::uint64_t kLazyFreeSliceNs = 2'000'000;
constexpr std::uint64_t kLazyFreeIntervalMs = 1;
// How long held replies (Server::hold) may wait when no event ends the turn sooner.
constexpr std::uint64_t kHoldMs = 1;

std::int64_t wall_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

Server::Server(const control::WorkerInit& init, int control_fd)
    : init_(init),
      shard_(init.config, init.id),
      router_(*this, executor_, init.id, init.worker_count, init.mesh_name, init_.topology),
      pubsub_(*this) {
  shard_.pubsub = &pubsub_;
  shard_.tracking.writer = [this](std::uint64_t id, const ClientInfo** info) {
    auto it = clients_.find(id);
    if (it == clients_.end() || it->second->closing()) return (proto::ReplyWriter*)nullptr;
    *info = &it->second->info();
    return push_writer(id);
  };
  shard_.monitors.writer = [this](std::uint64_t id) { return push_writer(id); };
  if (init.worker_count > 1) {
    shard_.monitors.send_line = [this](int w, std::string_view line) {
      router_.monitor_line(w, line);
    };
    shard_.monitors.announce = [this](bool on) { router_.monitor_announce(on); };
  }
  if (init.worker_count > 1) {
    shard_.tracking.set_workers(init.id, init.worker_count);
    shard_.tracking.peer = [this](int w, std::span<const std::string_view> args) {
      return router_.tell_peer(w, {MeshKind::kTracking, proto::MeshTracking{args}});
    };
  }
  shard_.busy_service = this;
  start_alloc_sampler(init.config);
  uv_loop_init(&loop_);
  loop_.data = this;
  refresh_clock();
  uv_pipe_init(&loop_, &control_, 0);
  control_.data = this;
  uv_pipe_open(&control_, control_fd);
  uv_check_init(&loop_, &check_);
  check_.data = this;
  uv_timer_init(&loop_, &timer_);
  timer_.data = this;
  uv_timer_init(&loop_, &pause_timer_);
  pause_timer_.data = this;
  uv_timer_init(&loop_, &block_timer_);
  block_timer_.data = this;
  uv_timer_init(&loop_, &lazyfree_timer_);
  lazyfree_timer_.data = this;
  uv_timer_init(&loop_, &hold_timer_);
  hold_timer_.data = this;
  uv_signal_init(&loop_, &sigterm_);
  sigterm_.data = this;
  uv_signal_init(&loop_, &sigint_);
  sigint_.data = this;

  shard_.topology = &init_.topology;
  shard_.self_node = init_.self;
  shard_.set_host(*this);
  if (!init_.acl_state.empty()) shard_.restore_acl(init_.acl_state);
  // maxclients is per process: each worker holds its share, within its descriptor limit.
  const std::uint64_t share = client_share(static_cast<std::uint64_t>(shard_.config().maxclients));
  max_local_clients_ = fit_open_files(share, reserved_fds());
  if (max_local_clients_ < share) {
    shard_.config().maxclients =
        static_cast<int>(max_local_clients_ * static_cast<std::uint64_t>(init_.worker_count));
  }
}

void Server::for_each_client(const std::function<void(const ClientInfo&)>& fn) {
  for (auto& [id, c] : clients_) fn(c->info());
}

void Server::measure_clients(std::uint64_t running, bool all) {
  if (!all) {
    if (auto it = clients_.find(running); it != clients_.end()) it->second->measure(true);
    return;
  }
  for (auto& [id, c] : clients_) c->measure(id == running);
}

void Server::kill_client(std::uint64_t id) {
  if (auto it = clients_.find(id); it != clients_.end()) it->second->close();
}

void Server::close_clients(const std::function<bool(const ClientInfo&)>& match,
                           const ClientInfo* except) {
  std::vector<Connection*> doomed;
  for (auto& [id, c] : clients_) {
    if (&c->info() != except && match(c->info())) doomed.push_back(c);
  }
  for (Connection* c : doomed) c->close();
}

std::optional<std::string> Server::raise_maxclients(std::uint64_t n) {
  const std::uint64_t share = client_share(n);
  if (share <= max_local_clients_) {
    max_local_clients_ = share;
    return std::nullopt;
  }
  const std::uint64_t fit = fit_open_files(share, reserved_fds());
  if (fit < share) {
    // Redis's wording, with the process-wide count that would fit.
    return "The operating system is not able to handle the specified number of clients, try "
           "with " +
           std::to_string(fit * static_cast<std::uint64_t>(init_.worker_count));
  }
  max_local_clients_ = share;
  return std::nullopt;
}

void Server::acl_changed() {
  send_control(control::AclState{shard_.acl().save_text()});
}

void Server::publish_peers(std::string_view channel, std::string_view message) {
  if (init_.worker_count > 1) router_.publish_peers(channel, message);
}

std::uint64_t Server::client_share(std::uint64_t maxclients) const {
  const auto n = static_cast<std::uint64_t>(init_.worker_count);
  return (maxclients + n - 1) / n;
}

// Redis's CONFIG_MIN_RESERVED_FDS (32), plus this worker's mesh links (none at 1 worker, so
// the counts there are Redis's own).
std::uint64_t Server::reserved_fds() const {
  return 32 + 2 * static_cast<std::uint64_t>(init_.worker_count - 1);
}

Server::~Server() = default;

bool Server::dispatch(Connection& c, std::span<const std::string_view> args) {
  return router_.dispatch(c, args);
}

void Server::park(Connection* c) {
  parked_.push_back(c);
  shard_.blocked_clients = parked_.size() + router_.parked_mesh_clients();
}

void Server::on_pause_timer(uv_timer_t* h) {
  auto* self = static_cast<Server*>(h->data);
  self->refresh_clock();
  self->check_pause();
}

// Called once per loop turn (and by the end timer): one compare while nothing changed.
void Server::check_pause() {
  ClientPause& pause = shard_.client_pause;
  const std::int64_t now = shard_.now_ms();
  pause.expire(now);
  if (pause.version() == pause_version_) {
    shard_.blocked_clients = parked_.size() + router_.parked_mesh_clients();
    return;
  }
  pause_version_ = pause.version();
  if (pause.paused(now)) {
    // Fire just after the end: the pause holds while now <= end.
    auto wait = static_cast<std::uint64_t>(pause.end_ms() - now + 1);
    uv_timer_start(&pause_timer_, on_pause_timer, wait, 0);
  } else {
    uv_timer_stop(&pause_timer_);
    resume_parked();
  }
  shard_.blocked_clients = parked_.size() + router_.parked_mesh_clients();
}

void Server::on_block_timer(uv_timer_t* h) {
  auto* self = static_cast<Server*>(h->data);
  self->refresh_clock();
  // The whole end-of-turn pass, now: the replies of timed-out clients (journal first) must
  // not wait for the poll phase, which may sleep until the next housekeeping tick.
  on_check(&self->check_);
}

// Deadlines are polled every 10 ms while a client waits (well within the 100 ms promised);
// a write to a waited-on key serves its waiters in the same loop turn. A served command may
// write keys others wait on (BLMOVE into a list): those keys queue as ready and the next
// round serves them, a few rounds at once.
void Server::check_blocking() {
  Blocking& b = shard_.blocking();
  for (int round = 0; round < 64 && !b.empty(); ++round) {
    const bool due = b.next_deadline() <= shard_.now_ms();
    if (!b.has_ready() && !due) break;
    if (due) {
      // The timed-out (or CLIENT UNBLOCKed) waiters only: each answers its timeout reply.
      b.due(shard_.now_ms(), wake_);
      for (std::uint64_t t : wake_) {
        if (!resume_waiter(t)) shard_.unblock(t);
      }
    }
    serve_ready_keys();
  }
  b.drop_stale(shard_.now_ms() - 1000);
  if (b.empty() && block_timer_on_) {
    uv_timer_stop(&block_timer_);
    block_timer_on_ = false;
  } else if (!b.empty() && !block_timer_on_) {
    uv_timer_start(&block_timer_, on_block_timer, 10, 10);
    block_timer_on_ = true;
  }
  shard_.blocked_clients = parked_.size() + router_.parked_mesh_clients();
}

// handleClientsBlockedOnKeys: per ready key, its waiters in blocking order while the key holds
// a value of the type the waiter waits for. The first waiter the key cannot serve ends the
// key's turn (an empty key ends it before anyone is resumed), so a push wakes the clients it
// feeds and no others.
void Server::serve_ready_keys() {
  Blocking& b = shard_.blocking();
  b.take_ready(ready_keys_);
  for (const Blocking::ReadyKey& rk : ready_keys_) {
    const std::vector<std::uint64_t>* q = b.waiting_on(rk.db, rk.key);
    if (q == nullptr) continue;
    wake_.assign(q->begin(), q->end());  // the queue changes as waiters are served
    for (std::uint64_t t : wake_) {
      const Blocking::Waiter* w = b.find(t);
      if (w == nullptr) continue;  // served or gone meanwhile
      // Stream readers (XREAD, XREADGROUP) do not consume what they read and each waits for
      // entries past its own ID, and a deleted stream or group answers them an error: as
      // Redis's serveClientsBlockedOnStreamKey, every one of them is run again; one that finds
      // nothing for it parks again and the next is tried.
      const bool stream = w->type == types::Type::kStream;
      const store::Entry e = shard_.db(rk.db).find(rk.key, shard_.now_ms());
      if (!e && !stream) break;  // empty again: nobody else is served
      // Waits for another type: passed over, but XREADGROUP's wait ends (-UNBLOCKED).
      if (e && e.type() != w->type && !w->ends_when_not_type) continue;
      const std::uint64_t seq = w->seq;
      if (!resume_waiter(t)) {
        shard_.unblock(t);  // its client is gone
        continue;
      }
      const Blocking::Waiter* after = b.find(t);
      if (after != nullptr && after->seq == seq && !stream) break;  // parked again: stop here
    }
  }
}

bool Server::resume_waiter(std::uint64_t token) {
  constexpr std::uint64_t kIdMask = (std::uint64_t{1} << 48) - 1;
  auto it = clients_.find(token & kIdMask);
  if (it != clients_.end() && shard_.watcher_of(it->second->info()) == token) {
    Connection* c = it->second;
    auto at = std::find(parked_.begin(), parked_.end(), c);
    if (at == parked_.end() || c->closing()) return false;
    parked_.erase(at);
    c->resume();
    return true;
  }
  return router_.resume_mesh_client(static_cast<int>(token >> 48), token & kIdMask);
}

// In parking order, as Redis unblocks postponed clients; a client whose command must wait
// again (a new pause began meanwhile) parks again behind the others.
void Server::resume_parked() {
  std::vector<Connection*> list;
  list.swap(parked_);
  for (Connection* c : list) {
    if (!c->closing()) c->resume();
  }
  router_.resume_parked();
}

void Server::refresh_clock() {
  shard_.set_now_ms(wall_ms());
}

bool Server::listen_on(uv_tcp_t& handle, int fd) {
  uv_tcp_init(&loop_, &handle);
  handle.data = this;
  if (int rc = uv_tcp_open(&handle, fd); rc != 0) {
    spdlog::error("cannot use inherited listening socket {}: {}", fd, uv_strerror(rc));
    return false;
  }
  if (int rc = uv_listen(reinterpret_cast<uv_stream_t*>(&handle), 511, on_accept); rc != 0) {
    spdlog::error("listen on inherited socket {} failed: {}", fd, uv_strerror(rc));
    return false;
  }
  return true;
}

int Server::run(int listen_fd, int direct_fd) {
  // Redis refuses to start when its users cannot be loaded; so does this worker, with Redis's
  // words, and the supervisor stops the service (kExitAclError).
  if (!shard_.acl_error().empty()) {
    std::string_view text = shard_.acl_error();
    while (!text.empty()) {
      const std::size_t eol = std::min(text.find('\n'), text.size());
      spdlog::critical("{}", text.substr(0, eol));
      text.remove_prefix(std::min(eol + 1, text.size()));
    }
    return control::kExitAclError;
  }
  // Durability: the data comes back (snapshot + WAL replay) before anything is served.
  if (init_.config.durability != Durability::kMemory) {
    persistence_ = std::make_unique<persist::Persistence>(
        &loop_, shard_, init_,
        [this](ClientInfo& c, std::span<const std::string_view> a, proto::ReplyWriter& o) {
          executor_.execute(c, a, o);
        });
    if (auto err = persistence_->recover()) {
      spdlog::critical("{}", *err);
      return 3;
    }
    shard_.persistence = persistence_.get();
    executor_.set_journal(persistence_.get());
  }
  if (listen_fd < 0 || !listen_on(proxy_listener_, listen_fd)) return 1;
  if (direct_fd >= 0) {
    if (!listen_on(direct_listener_, direct_fd)) return 1;
    has_direct_ = true;
  }
  if (!router_.start()) return 1;
  uv_read_start(reinterpret_cast<uv_stream_t*>(&control_), on_control_alloc, on_control_read);
  uv_check_start(&check_, on_check);
  apply_hz();
  // The supervisor stops workers through the control channel; a stray SIGTERM/SIGINT (a
  // terminal's Ctrl-C reaching the whole group) must still end this worker cleanly.
  uv_signal_start(&sigterm_, on_signal, SIGTERM);
  uv_signal_start(&sigint_, on_signal, SIGINT);
  ops_sample_ms_ = shard_.now_ms();
  listening_ = true;
  shard_.note_acl_change();  // the supervisor knows the users from the start
  maybe_ready();
  spdlog::info("listening, slots {}-{}", init_.slot_first, init_.slot_last);
  uv_run(&loop_, UV_RUN_DEFAULT);
  // Let every close callback run, then drop the loop.
  uv_walk(
      &loop_,
      [](uv_handle_t* h, void*) {
        if (!uv_is_closing(h)) uv_close(h, nullptr);
      },
      nullptr);
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
  spdlog::info("stopped");
  return 0;
}

void Server::on_accept(uv_stream_t* listener, int status) {
  auto* self = static_cast<Server*>(listener->data);
  if (status < 0 || self->shutting_down_) return;
  bool direct = listener == reinterpret_cast<uv_stream_t*>(&self->direct_listener_);
  self->accept(listener, direct);
}

Connection* Server::new_connection() {
  // Ids are unique across the workers (id mod N = worker) and, as in Redis, grow with
  // connection order: they come from the shared monotonic clock (µs), so a client that
  // connects later gets a larger id whichever worker accepts it.
  const auto n = static_cast<std::uint64_t>(init_.worker_count);
  std::uint64_t id = (uv_hrtime() / 1000) * n + static_cast<std::uint64_t>(init_.id);
  if (id < next_client_id_) id = next_client_id_;
  next_client_id_ = id + n;
  return new Connection(*this, id);
}

void Server::accept(uv_stream_t* listener, bool cluster_mode) {
  auto* c = new_connection();
  if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(c->handle())) != 0) {
    c->close();
    return;
  }
  adopt(c, cluster_mode);
}

// While a script is busy libuv's loop does not run: new clients are accepted here, with
// accept(2), so they too get their -BUSY (or their SCRIPT KILL) instead of hanging.
void Server::accept_while_busy(uv_tcp_t& listener, bool cluster_mode) {
  uv_os_fd_t lfd = -1;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&listener), &lfd) != 0) return;
  for (int i = 0; i < 16; ++i) {
    const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    auto* c = new_connection();
    if (uv_tcp_open(c->handle(), fd) != 0) {
      ::close(fd);
      c->close();
      continue;
    }
    adopt(c, cluster_mode);
  }
}

void Server::adopt(Connection* c, bool cluster_mode) {
  if (clients_.size() >= max_local_clients_) {
    // acceptCommonHandler: the error is written straight to the socket (best effort) and the
    // connection closed before it is ever read.
    constexpr std::string_view kFull = "-ERR max number of clients reached\r\n";
    uv_os_fd_t fd = -1;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(c->handle()), &fd) == 0) {
      [[maybe_unused]] auto n = ::send(fd, kFull.data(), kFull.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    shard_.stats().rejected_connections++;
    c->close_unadopted();
    return;
  }
  c->info().cluster_mode = cluster_mode;
  clients_.emplace(c->info().id, c);
  shard_.connected_clients = clients_.size();
  shard_.stats().connections_received++;
  if (!c->start()) c->close();
}

void Server::maybe_ready() {
  if (ready_sent_ || !listening_ || !router_.all_links_up()) return;
  ready_sent_ = true;
  send_control(control::WorkerReady{init_.id});
}

void Server::deliver(const MeshWaiter& waiter, std::string_view reply) {
  auto it = clients_.find(waiter.client_id);
  if (it == clients_.end()) return;
  Connection* c = it->second;
  if (waiter.seq == 0 && waiter.part == kQuestionPart) [[unlikely]] {
    // The router's question for this client (it waits parked): answered, it runs on.
    Router::answered(c->info(), reply);
    auto at = std::find(parked_.begin(), parked_.end(), c);
    if (at != parked_.end() && !c->closing()) {
      parked_.erase(at);
      c->resume();
    }
    return;
  }
  c->deliver(waiter.seq, waiter.part, reply);
}

proto::ReplyWriter* Server::push_writer(std::uint64_t id) {
  auto it = clients_.find(id);
  if (it == clients_.end() || it->second->closing()) return nullptr;
  mark_dirty(it->second);
  return &it->second->local_writer();
}

proto::ReplyWriter* Server::pubsub_writer(std::uint64_t id) {
  auto it = clients_.find(id);
  if (it == clients_.end() || it->second->closing()) return nullptr;
  mark_dirty(it->second);
  return &it->second->push_writer();
}

void Server::on_connection_closed(Connection* c) {
  std::erase(parked_, c);
  std::erase(held_, c);
  shard_.unblock(shard_.watcher_of(c->info()));
  pubsub_.forget(c->info());
  shard_.monitors.remove(c->info());
  router_.forget(*c);
  if (shard_.tracking.find(c->info().id) != nullptr) {
    shard_.tracking.disable(c->info().id);
    shard_.update_listener();
  }
  clients_.erase(c->info().id);
  shard_.connected_clients = clients_.size();
}

void Server::mark_dirty(Connection* c) {
  if (c->dirty) return;
  c->dirty = true;
  c->next_dirty = dirty_head_;
  dirty_head_ = c;
}

void Server::hold(Connection* c) {
  if (held_.empty() && !uv_is_active(reinterpret_cast<uv_handle_t*>(&hold_timer_))) {
    uv_timer_start(&hold_timer_, on_hold_timer, kHoldMs, 0);
  }
  held_.push_back(c);
}

// kHoldMs after the first hold: what is held leaves now, complete or not, in the whole
// end-of-turn pass (journal first), as the block timer runs it.
void Server::on_hold_timer(uv_timer_t* h) {
  auto* self = static_cast<Server*>(h->data);
  self->releasing_.swap(self->held_);
  for (Connection* c : self->releasing_) {
    c->release_hold();
    self->mark_dirty(c);
  }
  self->releasing_.clear();
  self->refresh_clock();
  on_check(&self->check_);
}

// Once per loop turn, after I/O callbacks: hand every reply produced this turn to the kernel.
void Server::serve_while_busy(const ClientInfo* running) {
  busy_fds_.clear();
  busy_conns_.clear();
  for (auto& [id, c] : clients_) {
    if (&c->info() == running) continue;  // as Redis protects the script's own client
    const int fd = c->socket_fd();
    if (fd < 0) continue;
    busy_fds_.push_back(pollfd{fd, POLLIN, 0});
    busy_conns_.push_back(c);
  }
  // The supervisor gone (its end of the control socket closed): the script stops and the
  // worker with it, instead of spinning on as an orphan. Its messages wait for the loop.
  uv_os_fd_t cfd = -1;
  char peek = 0;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&control_), &cfd) == 0 &&
      ::recv(cfd, &peek, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
    shard_.shutdown_requested = true;
    return;
  }
  flush_dirty_while_busy(running);
  // Requests forwarded by the other workers (a SCRIPT KILL sent to a client of theirs).
  router_.serve_while_busy(running);
  if (listening_) {
    accept_while_busy(proxy_listener_, false);
    if (has_direct_) accept_while_busy(direct_listener_, true);
  }
  if (busy_fds_.empty() || ::poll(busy_fds_.data(), busy_fds_.size(), 0) <= 0) return;
  refresh_clock();
  for (std::size_t i = 0; i < busy_fds_.size(); ++i) {
    if (!(busy_fds_[i].revents & POLLIN)) continue;
    Connection* c = busy_conns_[i];
    // A connection with output already waiting for this turn's WAL keeps it: its -BUSY
    // leaves with the rest at the end of the turn. The others are answered now.
    const bool had_output = c->output_pending();
    if (c->read_while_busy() && !had_output) c->flush();
  }
}

// Replies this turn made before the script started (another client's command read in the
// same turn) leave now, as Redis writes pending replies while a script runs: that client may
// be the one to send SCRIPT KILL, and it waited for the end of the turn, that is for ever.
// The turn's records reach the journal first; the script's own batch is not in it yet.
void Server::flush_dirty_while_busy(const ClientInfo* running) {
  if (dirty_head_ == nullptr) return;
  if (persistence_) persistence_->on_turn();
  Connection* list = dirty_head_;
  dirty_head_ = nullptr;
  Connection* caller = nullptr;
  while (list != nullptr) {
    Connection* c = list;
    list = c->next_dirty;
    c->next_dirty = nullptr;
    c->dirty = false;
    if (&c->info() == running) {
      caller = c;  // its replies wait for the script's, in order
      continue;
    }
    c->flush();
  }
  if (caller != nullptr) mark_dirty(caller);
}

void Server::on_check(uv_check_t* h) {
  auto* self = static_cast<Server*>(h->data);
  // This turn's WAL records reach the file (under `always`, the disk) before any reply.
  // A command of this turn may have paused or unpaused clients; what resumed clients write
  // is journaled below with the rest of the turn, before any reply leaves.
  self->check_pause();
  self->check_blocking();
  // BCAST invalidations, once per loop turn as Redis's beforeSleep sends them.
  if (self->shard_.tracking.has_broadcast()) self->shard_.tracking.flush_broadcast();
  if (self->persistence_) self->persistence_->on_turn();
  while (self->dirty_head_ != nullptr || self->mesh_dirty_) {
    if (self->mesh_dirty_) {
      self->mesh_dirty_ = false;
      self->router_.flush();
    }
    Connection* list = self->dirty_head_;
    self->dirty_head_ = nullptr;
    while (list != nullptr) {
      Connection* c = list;
      list = c->next_dirty;
      c->next_dirty = nullptr;
      c->dirty = false;
      c->flush(true);
    }
  }
  if (self->held_.empty()) uv_timer_stop(&self->hold_timer_);
  self->evict_clients();
  if (self->shard_.shutdown_requested && !self->shutting_down_) {
    self->send_control(control::ShutdownRequest{});
    self->begin_shutdown();
  }
}

// The housekeeping tick, hz times a second (Redis's serverCron at server.hz).
void Server::apply_hz() {
  int& hz = shard_.config().hz;
  hz = std::clamp(hz, 1, 500);  // Redis's CONFIG_MIN_HZ..CONFIG_MAX_HZ
  housekeeping_ms_ = 1000 / static_cast<std::uint64_t>(hz);
  uv_timer_start(&timer_, on_timer, housekeeping_ms_, housekeeping_ms_);
}

void Server::on_timer(uv_timer_t* h) {
  static_cast<Server*>(h->data)->housekeeping();
}

void Server::on_lazyfree_timer(uv_timer_t* h) {
  static_cast<Server*>(h->data)->lazyfree_slice();
}

void Server::lazyfree_slice() {
  const std::uint64_t deadline = uv_hrtime() + kLazyFreeSliceNs;
  bool left = false;
  for (int i = 0; i < shard_.databases(); ++i) {
    store::Db& db = shard_.db(i);
    if (db.lazyfree_pending() == 0) continue;
    while (db.lazyfree_step(kLazyFreeStep) && uv_hrtime() < deadline) {
    }
    left = left || db.lazyfree_pending() > 0;
  }
  if (!left) {
    uv_timer_stop(&lazyfree_timer_);
    shard_.release_memory();  // the queue is empty: as a SYNC flush, the pages go back now
  }
}

void Server::housekeeping() {
  refresh_clock();
  executor_.clock().calibrate();
  std::int64_t now = shard_.now_ms();
  std::size_t expired = 0;
  // CLIENT PAUSE freezes the keyspace: no key expires while it holds (Redis 7.0).
  const bool frozen = shard_.client_pause.paused(now) || !shard_.active_expire_enabled;
  // Like Redis's active expire cycle: keep sampling a database while more than a tenth of
  // what was sampled had expired, within a time limit per tick (a quarter of the tick).
  const std::uint64_t expire_start = uv_hrtime();
  const std::uint64_t deadline = expire_start + housekeeping_ms_ * 250'000;
  std::size_t sampled = 0;
  std::uint64_t cycle_ns = 0;
  bool time_cap = false;
  for (int i = 0; i < shard_.databases(); ++i) {
    store::Db& db = shard_.db(i);
    if (!frozen && db.expires_size() > 0) {
      const std::uint64_t db_start = uv_hrtime();
      for (;;) {
        std::size_t looked = 0;
        std::size_t n = db.expire_cycle(now, kExpireBudget, &looked);
        expired += n;
        sampled += looked;
        if (n < kExpireBudget / 10 || db.expires_size() == 0) break;
        if (uv_hrtime() > deadline) {
          time_cap = true;
          break;
        }
      }
      cycle_ns += uv_hrtime() - db_start;
    }
    // Redis's "expire-cycle" latency event: the pass over the databases, in ms.
    if (const std::int64_t threshold = shard_.config().latency_monitor_threshold;
        threshold > 0 && i + 1 == shard_.databases()) [[unlikely]] {
      executor_.latency().add_if_needed(
          threshold, "expire-cycle",
          static_cast<std::int64_t>((uv_hrtime() - expire_start) / 1000000));
    }
    db.rehash_step(kRehashBucketsPerTick);
    // LFU decay (lfu-decay-time, minutes): a bounded slice of the pass each tick.
    db.lfu_decay_step(now, std::int64_t{shard_.config().lfu_decay_time} * 60 * 1000,
                      kLfuDecayKeysPerTick);
  }
  // INFO stats, as Redis's activeExpireCycle keeps them; and the memory peak, as its cron
  // samples it (MEMORY DOCTOR judges by it).
  Stats& st = shard_.stats();
  st.peak_memory = std::max<std::uint64_t>(st.peak_memory, shard_.counted_memory());
  st.expire_cycle_cpu_us += cycle_ns / 1000;
  if (time_cap) ++st.expired_time_cap_reached_count;
  if (sampled > 0) {
    const double stale = static_cast<double>(expired) / static_cast<double>(sampled);
    st.expired_stale_perc = stale * 0.05 + st.expired_stale_perc * 0.95;
  }
  shard_.lru_pass_step();
  // maxmemory: go on with an eviction that ran out of time, or catch up after CONFIG SET
  // lowered the limit, without waiting for the next command (Redis's eviction time proc).
  if (shard_.config().maxmemory != 0 && !frozen) executor_.perform_evictions();
  if (!frozen) hash_field_expire_step(shard_, now, kHashFieldSweepKeys, executor_.journal());
  if (shard_.lazyfree_pending() > 0 &&
      !uv_is_active(reinterpret_cast<uv_handle_t*>(&lazyfree_timer_))) {
    uv_timer_start(&lazyfree_timer_, on_lazyfree_timer, 0, kLazyFreeIntervalMs);
  }
  // Mass expiry gives its pages back like FLUSHALL does; a trickle only tidies up.
  if (expired >= kMassExpiry) {
    shard_.release_memory();
  } else if (expired > 0) {
    mi_collect(false);
  }
  // clientsCron's limits, once a second: the idle timeout and soft output limits of clients
  // that nothing new was written to.
  if (now - clients_cron_ms_ >= 1000) {
    clients_cron_ms_ = now;
    cron_scratch_.clear();
    for (auto& [id, c] : clients_) cron_scratch_.push_back(c);
    // client_recent_max_output_buffer: the largest output buffer of the last second or so.
    shard_.client_recent_max_output = 0;
    for (Connection* c : cron_scratch_) {
      if (c->cron(now)) continue;
      shard_.client_recent_max_output =
          std::max(shard_.client_recent_max_output, c->info().output_buffer_bytes);
    }
    evict_clients();
  }
  if (now - ops_sample_ms_ >= 1000) {
    // INFO's instantaneous figures: the rates over the last second or so.
    const auto elapsed = static_cast<std::uint64_t>(now - ops_sample_ms_);
    const double kib_per_s = 1000.0 / 1024.0 / static_cast<double>(elapsed);
    // A counter below its sample was reset (CONFIG RESETSTAT) meanwhile: all of it is new.
    auto since = [](std::uint64_t now_v, std::uint64_t then) {
      return now_v >= then ? now_v - then : now_v;
    };
    st.instantaneous_ops_per_sec =
        since(st.commands_processed, ops_sample_commands_) * 1000 / elapsed;
    st.instantaneous_input_kbps =
        static_cast<double>(since(st.net_input_bytes, ops_sample_input_)) * kib_per_s;
    st.instantaneous_output_kbps =
        static_cast<double>(since(st.net_output_bytes, ops_sample_output_)) * kib_per_s;
    ops_sample_commands_ = st.commands_processed;
    ops_sample_input_ = st.net_input_bytes;
    ops_sample_output_ = st.net_output_bytes;
    ops_sample_ms_ = now;
  }
}

void Server::send_control(const control::Message& msg) {
  auto* req = new uv_write_t;
  auto* payload = new std::string;
  control::encode(msg, *payload);
  req->data = payload;
  uv_buf_t buf = uv_buf_init(payload->data(), static_cast<unsigned>(payload->size()));
  int rc =
      uv_write(req, reinterpret_cast<uv_stream_t*>(&control_), &buf, 1, [](uv_write_t* r, int) {
        delete static_cast<std::string*>(r->data);
        delete r;
      });
  if (rc != 0) {
    delete payload;
    delete req;
  }
}

void Server::on_control_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf) {
  auto* self = static_cast<Server*>(h->data);
  *buf = uv_buf_init(self->control_buf_, sizeof self->control_buf_);
}

void Server::on_control_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<Server*>(s->data);
  if (nread < 0) {
    // The supervisor is gone: a worker never outlives it.
    spdlog::warn("control channel closed, stopping");
    self->begin_shutdown();
    return;
  }
  self->control_in_.append(buf->base, static_cast<std::size_t>(nread));
  for (;;) {
    std::size_t used = 0;
    bool bad = false;
    auto msg = control::decode(self->control_in_, used, bad);
    if (bad) {
      spdlog::error("malformed control frame, stopping");
      self->begin_shutdown();
      return;
    }
    if (!msg) break;
    self->control_in_.erase(0, used);
    if (std::holds_alternative<control::Shutdown>(*msg)) {
      self->begin_shutdown();
    } else if (auto reply = handle_ops_message(self->shard_, *msg)) {
      self->send_control(*reply);
    }
  }
}

void Server::on_signal(uv_signal_t* h, int) {
  static_cast<Server*>(h->data)->begin_shutdown();
}

void Server::begin_shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  spdlog::info("shutting down");
  if (persistence_) persistence_->shutdown();  // every logged write fsynced before exit
  // Flush what is queued, then close every client and stop the loop.
  for (auto& [id, c] : std::unordered_map<std::uint64_t, Connection*>(clients_)) {
    c->flush();
    c->close();
  }
  router_.close();
  uv_stop(&loop_);
}

}  // namespace ruvio::worker
