#include "worker/route/mesh.hpp"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "worker/route/router.hpp"

namespace ruvio::worker {
namespace {

constexpr std::uint64_t kRetryMs = 20;

// Redis's replyToBlockedClientTimedOut for lists, sorted sets and streams: a null array.
std::string_view timeout_reply(int resp) {
  return resp == 3 ? "_\r\n" : "*-1\r\n";
}

// An abstract-namespace Unix socket (no file to clean up, gone with the process).
int abstract_socket(const std::string& name, bool listening) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::size_t n = std::min(name.size(), sizeof(addr.sun_path) - 1);
  std::memcpy(addr.sun_path + 1, name.data(), n);
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  int rc = listening ? ::bind(fd, reinterpret_cast<sockaddr*>(&addr), len)
                     : ::connect(fd, reinterpret_cast<sockaddr*>(&addr), len);
  if (rc == 0 && listening) rc = ::listen(fd, 64);
  if (rc != 0) {
    int e = errno;
    ::close(fd);
    return -e;
  }
  return fd;
}

}  // namespace

// ---------------------------------------------------------------- outgoing link

MeshLink::MeshLink(RouteHost& server, int peer, std::string address)
    : server_(server), peer_(peer), address_(std::move(address)) {
  uv_timer_init(server.loop(), &retry_);
  retry_.data = this;
  uv_timer_init(server.loop(), &held_timer_);
  held_timer_.data = this;
}

void MeshLink::connect() {
  if (state_ != State::kDown) return;
  int fd = abstract_socket(address_, false);
  if (fd < 0) {
    uv_timer_start(&retry_, on_retry, kRetryMs, 0);
    return;
  }
  pipe_ = new uv_pipe_t;
  uv_pipe_init(server_.loop(), pipe_, 0);
  pipe_->data = this;
  if (uv_pipe_open(pipe_, fd) != 0) {
    ::close(fd);
    uv_close(reinterpret_cast<uv_handle_t*>(pipe_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_pipe_t*>(h); });
    pipe_ = nullptr;
    uv_timer_start(&retry_, on_retry, kRetryMs, 0);
    return;
  }
  out_ = std::make_unique<StreamWriter>(reinterpret_cast<uv_stream_t*>(pipe_), this, on_written);
  state_ = State::kUp;
  ++generation_;
  uv_read_start(reinterpret_cast<uv_stream_t*>(pipe_), on_alloc, on_read);
  spdlog::info("mesh link to worker {} up", peer_);
  server_.on_mesh_link_up(peer_);
  if (!held_.empty()) resend_held();
}

void MeshLink::on_retry(uv_timer_t* t) {
  static_cast<MeshLink*>(t->data)->connect();
}

void MeshLink::send(const MeshMessage& m, int origin, int db, int resp, MeshWaiter waiter,
                    const BlockedResend* keep) {
  proto::MeshRequestHeader h;
  h.db = static_cast<std::uint8_t>(db);
  h.resp = static_cast<std::uint8_t>(resp);
  h.origin = static_cast<std::uint8_t>(origin);
  h.client_id = waiter.client_id;
  h.request_id = next_request_id_++;
  std::string& out = out_->buffer();
  const std::size_t at = out.size();
  proto::encode_mesh_request(out, h, m);
  if (out.size() - at - proto::kMeshLengthBytes > proto::kMeshMaxFrame) {
    // The peer would refuse it (and drop the link): refuse it here instead.
    out.resize(at);
    server_.deliver(waiter, "-ERR command too large to forward to its worker\r\n");
    return;
  }
  waiting_.emplace(h.request_id, waiter);
  if (keep != nullptr) [[unlikely]] {
    const auto& c = std::get<proto::MeshCommand>(m.payload);
    Kept k{
        c.command, c.tracked, std::string(c.user), {c.args.begin(), c.args.end()}, origin, db, resp,
        waiter,    *keep};
    kept_.emplace(h.request_id, std::move(k));
  }
  server_.mark_mesh_dirty();
}

void MeshLink::forget(int origin, std::uint64_t client_id) {
  // A held command of a client that left is never sent again (it would wait there, or pop).
  if (!held_.empty()) {
    std::erase_if(held_, [&](const Kept& k) { return k.waiter.client_id == client_id; });
  }
  if (state_ != State::kUp) return;
  bool in_flight = false;
  for (const auto& [id, w] : waiting_) {
    if (w.client_id == client_id) {
      in_flight = true;
      break;
    }
  }
  if (!in_flight) return;
  // Its answer goes to a client that is gone: deliver() drops it.
  send({MeshKind::kForget, {}}, origin, 0, 2, MeshWaiter{client_id, 0, 0});
}

void MeshLink::flush() {
  if (state_ != State::kUp) return;
  if (out_->flush() < 0) fail("write failed");
}

void MeshLink::on_written(void* self, int status) {
  auto* link = static_cast<MeshLink*>(self);
  if (status < 0) {
    if (status != UV_ECANCELED) link->fail("write failed");
    return;
  }
  link->server_.mark_mesh_dirty();
}

void MeshLink::on_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf) {
  auto* link = static_cast<MeshLink*>(h->data);
  *buf = uv_buf_init(link->read_buf_, sizeof link->read_buf_);
}

void MeshLink::on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
  auto* link = static_cast<MeshLink*>(s->data);
  if (nread < 0) {
    link->fail(nread == UV_EOF ? "peer closed" : uv_strerror(static_cast<int>(nread)));
    return;
  }
  link->in_.append(buf->base, static_cast<std::size_t>(nread));
  std::size_t off = 0;
  for (;;) {
    proto::MeshReply reply;
    proto::FrameResult r = proto::decode_mesh_reply(std::string_view(link->in_).substr(off), reply);
    if (r.status == proto::FrameStatus::kNeedMore) break;
    if (r.status == proto::FrameStatus::kError) {
      link->fail(proto::frame_error_text(r.error).data());
      return;
    }
    if (reply.request_id == proto::kMeshNoticeId) [[unlikely]] {
      // The peer parked a blocking command: if it dies now, the command had not run there.
      const std::uint64_t id = proto::parked_notice_id(reply.reply);
      if (id == 0) {
        link->fail("malformed parked notice");
        return;
      }
      if (auto k = link->kept_.find(id); k != link->kept_.end()) k->second.parked = true;
      off += r.consumed;
      continue;
    }
    auto it = link->waiting_.find(reply.request_id);
    if (it == link->waiting_.end()) {
      link->fail("reply for no request in flight");
      return;
    }
    MeshWaiter w = it->second;
    link->waiting_.erase(it);
    if (!link->kept_.empty()) [[unlikely]]
      link->kept_.erase(reply.request_id);
    // deliver() only fills the client's reply slots: it never re-enters this link.
    link->server_.deliver(w, reply.reply);
    off += r.consumed;
  }
  link->in_.erase(0, off);
}

void MeshLink::fail(const char* why) {
  if (state_ != State::kUp) return;
  spdlog::warn("mesh link to worker {} down: {}", peer_, why);
  state_ = State::kDown;
  // Whatever was in flight may or may not have run: those clients get LOADING, as do all
  // requests for this peer's keys until it is back. But a blocking command the peer parked
  // had not run: it is held, and sent again once the link is back.
  std::unordered_map<std::uint64_t, MeshWaiter> lost;
  lost.swap(waiting_);
  std::unordered_map<std::uint64_t, Kept> kept;
  kept.swap(kept_);
  std::string err = "-" + std::string(kLoadingError) + "\r\n";
  for (const auto& [id, w] : lost) {
    if (!kept.empty()) {
      if (auto k = kept.find(id); k != kept.end() && k->second.parked) {
        held_.push_back(std::move(k->second));
        continue;
      }
    }
    server_.deliver(w, err);
  }
  if (!held_.empty()) expire_held();
  in_.clear();
  uv_read_stop(reinterpret_cast<uv_stream_t*>(pipe_));
  release_pipe();
  uv_timer_start(&retry_, on_retry, kRetryMs, 0);
  server_.on_mesh_link_down(peer_);
}

void MeshLink::on_held_deadline(uv_timer_t* t) {
  static_cast<MeshLink*>(t->data)->expire_held();
}

void MeshLink::expire_held() {
  uv_timer_stop(&held_timer_);
  server_.refresh_clock();
  const std::int64_t now = server_.shard().now_ms();
  std::int64_t next = INT64_MAX;
  std::vector<Kept> due;
  std::erase_if(held_, [&](Kept& k) {
    if (k.resend.deadline_ms == 0) return false;
    if (k.resend.deadline_ms > now) {
      next = std::min(next, k.resend.deadline_ms);
      return false;
    }
    due.push_back(std::move(k));
    return true;
  });
  // deliver() only fills the client's reply slots: it never re-enters this link.
  for (const Kept& k : due) server_.deliver(k.waiter, timeout_reply(k.resp));
  if (next != INT64_MAX) {
    uv_timer_start(&held_timer_, on_held_deadline, static_cast<std::uint64_t>(next - now), 0);
  }
}

void MeshLink::resend_held() {
  uv_timer_stop(&held_timer_);
  std::vector<Kept> held;
  held.swap(held_);
  server_.refresh_clock();
  const std::int64_t now = server_.shard().now_ms();
  std::vector<std::string_view> args;
  std::string left;
  for (const Kept& k : held) {
    const std::int64_t deadline = k.resend.deadline_ms;
    if (deadline != 0 && deadline <= now) {
      server_.deliver(k.waiter, timeout_reply(k.resp));
      continue;
    }
    args.assign(k.args.begin(), k.args.end());
    if (deadline != 0 && k.resend.timeout_index < args.size()) {
      // What is left of the original timeout, in the argument's own unit (at least 1 ms:
      // 0 would mean forever).
      const std::int64_t ms = deadline - now;
      if (k.resend.timeout_ms) {
        left = std::to_string(ms);
      } else {
        left = std::to_string(ms / 1000);
        left += '.';
        const std::string frac = std::to_string(ms % 1000);
        left.append(3 - frac.size(), '0');
        left += frac;
      }
      args[k.resend.timeout_index] = left;
    }
    // Kept again with the original deadline: the new peer parks it and notices it in turn.
    const MeshMessage m{MeshKind::kCommand, proto::MeshCommand{k.command, k.tracked, k.user, args}};
    send(m, k.origin, k.db, k.resp, k.waiter, &k.resend);
  }
}

void MeshLink::connect_now() {
  if (state_ != State::kDown) return;
  uv_timer_stop(&retry_);
  connect();
}

void MeshLink::release_pipe() {
  // The writer must outlive a uv_write still owned by the closing pipe.
  auto* writer = out_.release();
  pipe_->data = writer;
  uv_close(reinterpret_cast<uv_handle_t*>(pipe_), [](uv_handle_t* h) {
    delete static_cast<StreamWriter*>(h->data);
    delete reinterpret_cast<uv_pipe_t*>(h);
  });
  pipe_ = nullptr;
}

void MeshLink::close() {
  uv_timer_stop(&retry_);
  uv_timer_stop(&held_timer_);
  held_.clear();
  if (state_ == State::kUp) release_pipe();
  state_ = State::kClosing;
}

// ---------------------------------------------------------------- accepting side

struct MeshListener::Peer {
  struct Parked;
  Peer(MeshListener& l) : owner(l), out(reinterpret_cast<uv_stream_t*>(&pipe), this, on_written) {
    uv_pipe_init(l.server_.loop(), &pipe, 0);
    pipe.data = this;
    client.name = "mesh";
    client.authenticated = true;
  }

  static void on_written(void* self, int status) {
    auto* p = static_cast<Peer*>(self);
    if (status < 0) {
      if (status != UV_ECANCELED) p->close();
      return;
    }
    p->owner.server_.mark_mesh_dirty();
  }

  static void on_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf) {
    auto* p = static_cast<Peer*>(h->data);
    char* at = p->in.reserve(16384);
    *buf = uv_buf_init(at, static_cast<unsigned>(p->in.free_space()));
  }

  // MeshListener::serve_while_busy: one non-blocking read, through the same path.
  void read_while_busy() {
    uv_os_fd_t fd = -1;
    if (closed || uv_fileno(reinterpret_cast<uv_handle_t*>(&pipe), &fd) != 0) return;
    uv_buf_t buf;
    on_alloc(reinterpret_cast<uv_handle_t*>(&pipe), 0, &buf);
    const ssize_t n = ::recv(fd, buf.base, buf.len, MSG_DONTWAIT);
    if (n <= 0) return;  // nothing, or the end: libuv's own read sees that later
    on_read(reinterpret_cast<uv_stream_t*>(&pipe), n, &buf);
  }

  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t*) {
    auto* p = static_cast<Peer*>(s->data);
    if (nread < 0) {
      p->close();
      return;
    }
    p->in.commit(static_cast<std::size_t>(nread));
    p->process();
  }

  void process() {
    owner.server_.refresh_clock();
    for (;;) {
      proto::FrameResult r = decoder.decode(in.pending(), request);
      if (r.status == proto::FrameStatus::kNeedMore) {
        if (r.need > in.size()) in.reserve(r.need - in.size());
        break;
      }
      if (r.status == proto::FrameStatus::kError) {
        spdlog::warn("mesh: malformed frame from a peer ({}), closing the link",
                     proto::frame_error_text(r.error));
        flush();  // what was answered before the bad frame still goes out, if it can
        close();
        return;
      }
      const proto::MeshRequestHeader& h = request.header;
      origin = h.origin;
      auto queue = parked.find(h.client_id);
      if (request.message.kind == MeshKind::kForget) {
        forget(h);
      } else if (queue != parked.end()) {
        // This client has a request waiting: the new one waits behind it.
        queue->second.push_back({h, std::string(request.frame)});
      } else if (!run(h, request.message)) {
        std::deque<Parked>& q = parked[h.client_id];
        q.push_back({h, std::string(request.frame)});
        parked_order.push_back(h.client_id);
        notice_parked(q.back());
      }
      in.consume(r.consumed);
    }
    owner.server_.mark_mesh_dirty();
  }

  // Runs one request and queues its reply; false (nothing written) when it must wait.
  bool run(const proto::MeshRequestHeader& h, const MeshMessage& m) {
    RouteHost& server = owner.server_;
    client.db = h.db;
    client.resp = h.resp;
    client.origin = h.origin;
    client.id = h.client_id;
    std::string& o = out.buffer();
    const std::size_t at = proto::begin_mesh_reply(o, h.request_id);
    proto::ReplyWriter w(o, client.resp);
    if (client.db >= server.shard().databases()) {
      w.error("ERR malformed mesh request");
    } else if (!owner.router_.serve(m, client, w, true)) {
      o.resize(at);
      return false;
    }
    proto::end_mesh_frame(o, at);
    return true;
  }

  // The client left its worker: what it still has parked here never runs. Each dropped
  // request is answered (an error nobody reads) so the origin stops waiting for it.
  void forget(const proto::MeshRequestHeader& h) {
    std::string& o = out.buffer();
    owner.server_.shard().unblock(WatchRegistry::watcher(h.origin, h.client_id));
    if (auto it = parked.find(h.client_id); it != parked.end()) {
      for (const Parked& p : it->second) {
        const std::size_t at = proto::begin_mesh_reply(o, p.header.request_id);
        o += "-ERR client gone\r\n";
        proto::end_mesh_frame(o, at);
      }
      parked.erase(it);
      std::erase(parked_order, h.client_id);
    }
    const std::size_t at = proto::begin_mesh_reply(o, h.request_id);
    o += "+OK\r\n";
    proto::end_mesh_frame(o, at);
  }

  // The pause ended: each parked client's requests run in order until one must wait again.
  void resume() {
    std::deque<std::uint64_t> order;
    order.swap(parked_order);
    for (std::uint64_t id : order) {
      auto it = parked.find(id);
      if (it == parked.end()) continue;
      if (run_parked(it->second)) {
        parked.erase(it);
      } else {
        parked_order.push_back(id);
      }
    }
    owner.server_.mark_mesh_dirty();
  }

  // One blocked client's turn (a key it waits on can serve it): its parked requests run in
  // order; it keeps its place among the parked clients if it must wait again.
  bool resume_client(int origin, std::uint64_t id) {
    auto it = parked.find(id);
    if (it == parked.end() || it->second.front().header.origin != origin) return false;
    if (run_parked(it->second)) {
      parked.erase(it);
      std::erase(parked_order, id);
    }
    owner.server_.mark_mesh_dirty();
    return true;
  }

  // Runs a client's parked requests in order until one must wait again; true when none is
  // left.
  bool run_parked(std::deque<Parked>& q) {
    proto::MeshRequest again;
    while (!q.empty()) {
      owner.server_.refresh_clock();
      Parked& p = q.front();
      if (decoder.decode(p.frame, again).status != proto::FrameStatus::kFrame) {
        // It was a valid command when it arrived; answer rather than leave A waiting.
        std::string& o = out.buffer();
        const std::size_t at = proto::begin_mesh_reply(o, p.header.request_id);
        o += "-ERR malformed mesh request\r\n";
        proto::end_mesh_frame(o, at);
      } else if (!run(p.header, again.message)) {
        notice_parked(p);  // it waited for a pause and now waits on a key
        return false;
      }
      q.pop_front();
    }
    return true;
  }

  // A request that parked because its client now waits on a key here (not for CLIENT
  // PAUSE): the origin is told once, so that it may send it again should this worker die
  // before serving it (MeshLink::fail).
  void notice_parked(Parked& p) {
    if (p.noticed) return;
    const std::uint64_t token = WatchRegistry::watcher(p.header.origin, p.header.client_id);
    if (owner.server_.shard().blocking().find(token) == nullptr) return;
    p.noticed = true;
    proto::append_parked_notice(out.buffer(), p.header.request_id);
  }

  void flush() {
    if (closed) return;
    if (out.flush() < 0) close();
  }

  void close() {
    if (closed) return;
    closed = true;
    owner.on_peer_closed(this);
    uv_close(reinterpret_cast<uv_handle_t*>(&pipe),
             [](uv_handle_t* h) { delete static_cast<Peer*>(h->data); });
  }

  struct Parked {  // declared above
    proto::MeshRequestHeader header;
    std::string frame;     // the whole frame, copied: the input buffer moves on
    bool noticed = false;  // the parked notice went to the origin
  };

  MeshListener& owner;
  uv_pipe_t pipe{};
  StreamWriter out;
  InputBuffer in;
  proto::MeshRequestDecoder decoder;
  proto::MeshRequest request;
  ClientInfo client;
  // Requests that wait (CLIENT PAUSE), per client id of the origin worker, and the order in
  // which those clients started waiting. The origin is the same for a whole link.
  std::unordered_map<std::uint64_t, std::deque<Parked>> parked;
  std::deque<std::uint64_t> parked_order;
  int origin = -1;  // the worker at the other end, once a frame said so
  bool closed = false;
};

MeshListener::MeshListener(RouteHost& server, Router& router) : server_(server), router_(router) {}

bool MeshListener::listen(const std::string& address) {
  int fd = abstract_socket(address, true);
  if (fd < 0) {
    spdlog::error("mesh: cannot listen on @{}: {}", address, std::strerror(-fd));
    return false;
  }
  uv_pipe_init(server_.loop(), &pipe_, 0);
  pipe_.data = this;
  if (uv_pipe_open(&pipe_, fd) != 0 ||
      uv_listen(reinterpret_cast<uv_stream_t*>(&pipe_), 64, on_connection) != 0) {
    spdlog::error("mesh: cannot accept on @{}", address);
    return false;
  }
  listening_ = true;
  return true;
}

void MeshListener::on_connection(uv_stream_t* s, int status) {
  auto* self = static_cast<MeshListener*>(s->data);
  if (status < 0) return;
  auto* p = new Peer(*self);
  if (uv_accept(s, reinterpret_cast<uv_stream_t*>(&p->pipe)) != 0) {
    p->close();
    return;
  }
  self->peers_.push_back(p);
  uv_read_start(reinterpret_cast<uv_stream_t*>(&p->pipe), Peer::on_alloc, Peer::on_read);
  if (self->peer_connected) self->peer_connected();
}

void MeshListener::on_peer_closed(Peer* p) {
  std::erase(peers_, p);
  // What that worker registered here came over this link: it is gone with it.
  if (p->origin >= 0 && listening_) server_.on_mesh_peer_gone(p->origin);
}

void MeshListener::flush_all() {
  for (std::size_t i = 0; i < peers_.size();) {
    Peer* p = peers_[i];
    p->flush();
    if (i < peers_.size() && peers_[i] == p) ++i;
  }
}

void MeshListener::serve_while_busy(const ClientInfo* running) {
  for (Peer* p : std::vector<Peer*>(peers_)) {
    // The link whose request runs the script is mid-way through its input and has begun
    // that request's reply frame in its output: neither read nor flushed meanwhile.
    if (p->closed || &p->client == running) continue;
    p->read_while_busy();
    p->flush();
  }
}

void MeshListener::resume_parked() {
  for (Peer* p : std::vector<Peer*>(peers_)) {
    if (!p->closed && !p->parked.empty()) p->resume();
  }
}

bool MeshListener::resume_client(int origin, std::uint64_t client_id) {
  for (Peer* p : std::vector<Peer*>(peers_)) {
    if (!p->closed && p->resume_client(origin, client_id)) return true;
  }
  return false;
}

std::size_t MeshListener::parked_clients() const {
  std::size_t n = 0;
  for (const Peer* p : peers_) n += p->parked.size();
  return n;
}

void MeshListener::close() {
  const bool was_listening = listening_;
  listening_ = false;  // shutting down: the peers' closes are no news for the host
  for (Peer* p : std::vector<Peer*>(peers_)) p->close();
  if (was_listening) uv_close(reinterpret_cast<uv_handle_t*>(&pipe_), nullptr);
}

}  // namespace ruvio::worker
