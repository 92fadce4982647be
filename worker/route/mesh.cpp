#include "worker/route/mesh.hpp"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace ruvio::worker {
namespace {

constexpr std::uint64_t kRetryMs = 20;
constexpr std::size_t kHeader = 4;        // u32 length
constexpr std::size_t kRequestMeta = 12;  // kind, db, resp, origin, client id

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

void put_u32(std::string& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
}

std::uint32_t get_u32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void append_multibulk(std::string& out, std::span<const std::string_view> args) {
  out += '*';
  out += std::to_string(args.size());
  out += "\r\n";
  for (std::string_view a : args) {
    out += '$';
    out += std::to_string(a.size());
    out += "\r\n";
    out.append(a);
    out += "\r\n";
  }
}

}  // namespace

// ---------------------------------------------------------------- outgoing link

MeshLink::MeshLink(RouteHost& server, int peer, std::string address)
    : server_(server), peer_(peer), address_(std::move(address)) {
  uv_timer_init(server.loop(), &retry_);
  retry_.data = this;
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
  server_.on_mesh_link_up();
}

void MeshLink::on_retry(uv_timer_t* t) {
  static_cast<MeshLink*>(t->data)->connect();
}

void MeshLink::send(MeshKind kind, int origin, int db, int resp,
                    std::span<const std::string_view> args, MeshWaiter waiter) {
  std::string& out = out_->buffer();
  std::size_t at = out.size();
  out.append(kHeader, '\0');
  out += static_cast<char>(kind);
  out += static_cast<char>(db);
  out += static_cast<char>(resp);
  out += static_cast<char>(origin);
  for (int i = 0; i < 8; ++i) out += static_cast<char>(waiter.client_id >> (8 * i));
  append_multibulk(out, args);
  put_u32(out, at, static_cast<std::uint32_t>(out.size() - at - kHeader));
  waiting_.push_back(waiter);
  server_.mark_mesh_dirty();
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
  while (link->in_.size() - off >= kHeader) {
    std::uint32_t n = get_u32(link->in_.data() + off);
    if (link->in_.size() - off - kHeader < n) break;
    if (link->waiting_.empty()) {
      link->fail("unexpected reply");
      return;
    }
    MeshWaiter w = link->waiting_.front();
    link->waiting_.pop_front();
    link->server_.deliver(w, std::string_view(link->in_.data() + off + kHeader, n));
    off += kHeader + n;
  }
  link->in_.erase(0, off);
}

void MeshLink::fail(const char* why) {
  if (state_ != State::kUp) return;
  spdlog::warn("mesh link to worker {} down: {}", peer_, why);
  state_ = State::kDown;
  // Whatever was in flight may or may not have run: those clients get LOADING, as do all
  // requests for this peer's keys until it is back.
  std::deque<MeshWaiter> lost;
  lost.swap(waiting_);
  std::string err = "-" + std::string(kLoadingError) + "\r\n";
  for (const MeshWaiter& w : lost) server_.deliver(w, err);
  in_.clear();
  uv_read_stop(reinterpret_cast<uv_stream_t*>(pipe_));
  release_pipe();
  uv_timer_start(&retry_, on_retry, kRetryMs, 0);
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
  if (state_ == State::kUp) release_pipe();
  state_ = State::kClosing;
}

// ---------------------------------------------------------------- accepting side

struct MeshListener::Peer {
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
    RouteHost& server = owner.server_;
    server.refresh_clock();
    for (;;) {
      std::string_view pending = in.pending();
      if (pending.size() < kHeader + kRequestMeta) break;
      std::uint32_t n = get_u32(pending.data());
      if (pending.size() - kHeader < n) {
        in.reserve(kHeader + n - pending.size());
        break;
      }
      const char* meta = pending.data() + kHeader;
      auto kind = static_cast<MeshKind>(meta[0]);
      client.db = static_cast<unsigned char>(meta[1]);
      client.resp = static_cast<unsigned char>(meta[2]);
      client.origin = static_cast<unsigned char>(meta[3]);
      client.id = 0;
      for (int i = 7; i >= 0; --i)
        client.id = (client.id << 8) | static_cast<unsigned char>(meta[4 + i]);
      std::string_view body(meta + kRequestMeta, n - kRequestMeta);
      proto::ParseResult r = parser.parse(body, args);
      std::string& o = out.buffer();
      std::size_t at = o.size();
      o.append(kHeader, '\0');
      proto::ReplyWriter w(o, client.resp);
      if (r.status != proto::ParseStatus::kCommand || args.empty() ||
          client.db >= server.shard().databases()) {
        parser.reset();
        w.error("ERR malformed mesh request");
      } else {
        server.run_mesh_request(kind, client, args, w);
      }
      put_u32(o, at, static_cast<std::uint32_t>(o.size() - at - kHeader));
      in.consume(kHeader + n);
    }
    server.mark_mesh_dirty();
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

  MeshListener& owner;
  uv_pipe_t pipe{};
  StreamWriter out;
  InputBuffer in;
  proto::RequestParser parser;
  std::vector<std::string_view> args;
  ClientInfo client;
  bool closed = false;
};

MeshListener::MeshListener(RouteHost& server) : server_(server) {}

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
}

void MeshListener::on_peer_closed(Peer* p) {
  std::erase(peers_, p);
}

void MeshListener::flush_all() {
  for (std::size_t i = 0; i < peers_.size();) {
    Peer* p = peers_[i];
    p->flush();
    if (i < peers_.size() && peers_[i] == p) ++i;
  }
}

void MeshListener::close() {
  for (Peer* p : std::vector<Peer*>(peers_)) p->close();
  if (listening_) uv_close(reinterpret_cast<uv_handle_t*>(&pipe_), nullptr);
  listening_ = false;
}

}  // namespace ruvio::worker
