#include "worker/server/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include "worker/server/server.hpp"

namespace ruvio::worker {
namespace {

// The smallest read we ask the kernel for; a big bulk reserves what the parser says it needs.
constexpr std::size_t kReadChunk = 16 * 1024;
// Forwarded commands one connection may have in flight before it stops reading.
constexpr std::size_t kMaxOutstanding = 1024;
// An idle input buffer larger than this is given back (after a large value went through).
constexpr std::size_t kIdleInputKeep = 64 * 1024;

std::string format_addr(const sockaddr_storage& ss) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    uv_ip4_name(a, host, sizeof host);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    uv_ip6_name(a, host, sizeof host);
    port = ntohs(a->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

Connection::Connection(Server& server, std::uint64_t id)
    : RoutedClient(id),
      server_(server),
      out_(reinterpret_cast<uv_stream_t*>(&tcp_), this, on_written) {
  set_output(&out_.buffer());
  uv_tcp_init(server.loop(), &tcp_);
  tcp_.data = this;
}

bool Connection::start() {
  sockaddr_storage ss{};
  int len = sizeof ss;
  if (uv_tcp_getpeername(&tcp_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
    info_.addr = format_addr(ss);
  }
  len = sizeof ss;
  if (uv_tcp_getsockname(&tcp_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
    info_.laddr = format_addr(ss);
  }
  uv_os_fd_t fd;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&tcp_), &fd) == 0) info_.fd = fd;
  uv_tcp_nodelay(&tcp_, 1);
  info_.created_ms = info_.last_interaction_ms = server_.shard().now_ms();
  info_.authenticated = server_.shard().config().requirepass.empty();
  parser_.set_authenticated(info_.authenticated);
  reading_ = uv_read_start(reinterpret_cast<uv_stream_t*>(&tcp_), on_alloc, on_read) == 0;
  return reading_;
}

void Connection::on_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf) {
  auto* c = static_cast<Connection*>(h->data);
  char* p = c->in_.reserve(kReadChunk);
  *buf = uv_buf_init(p, static_cast<unsigned>(c->in_.free_space()));
}

void Connection::on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t*) {
  auto* c = static_cast<Connection*>(s->data);
  if (nread < 0) {
    c->close();
    return;
  }
  if (nread == 0) return;
  c->in_.commit(static_cast<std::size_t>(nread));
  c->server_.shard().stats().net_input_bytes += static_cast<std::uint64_t>(nread);
  c->process_input();
}

int Connection::socket_fd() {
  uv_os_fd_t fd = -1;
  if (closing_ || uv_fileno(reinterpret_cast<uv_handle_t*>(&tcp_), &fd) != 0) return -1;
  return fd;
}

bool Connection::read_while_busy() {
  const int fd = socket_fd();
  if (fd < 0 || !reading_ || parked_) return false;
  uv_buf_t buf;
  on_alloc(reinterpret_cast<uv_handle_t*>(&tcp_), kReadChunk, &buf);
  const ssize_t n = ::recv(fd, buf.base, buf.len, MSG_DONTWAIT);
  // Nothing, or end of stream / an error: libuv's own read sees that after the script.
  if (n <= 0) return false;
  on_read(reinterpret_cast<uv_stream_t*>(&tcp_), n, &buf);
  return true;
}

void Connection::resume() {
  parked_ = false;
  info_.blocked = false;
  process_input();
}

void Connection::process_input() {
  if (parked_) return;  // input waits behind the parked command
  server_.refresh_clock();
  while (!close_after_flush_ && in_.size() > 0) {
    parser_.set_authenticated(info_.authenticated);
    proto::ParseResult r = parser_.parse(in_.pending(), args_);
    if (r.status == proto::ParseStatus::kNeedMore) {
      in_.consume(r.consumed);
      // Make room for the whole command at once so a large bulk is read in few calls.
      if (r.need > 0) in_.reserve(r.need > in_.size() ? r.need - in_.size() : 0);
      break;
    }
    if (r.status == proto::ParseStatus::kError) {
      local_writer().error(r.error);
      close_after_flush_ = true;
      break;
    }
    info_.last_interaction_ms = server_.shard().now_ms();
    if (!server_.dispatch(*this, args_)) {
      // Kept in the buffer as it is: parsed again, and run, on resume().
      parked_ = true;
      info_.blocked = true;
      server_.park(this);
      break;
    }
    in_.consume(r.consumed);
    if (info_.close_after_reply) close_after_flush_ = true;
    if (server_.shard().shutdown_requested) break;
    // Too many answers still owed by other workers: stop until they drain (flush()
    // resumes), so a client that never reads cannot make the mesh buffer without bound.
    if (outstanding() > kMaxOutstanding) break;
  }
  in_.shrink_if_idle(kIdleInputKeep);
  if (!out_.buffer().empty() || close_after_flush_) mark_dirty();
  // Backpressure: a client that does not read its replies stops being read from.
  if (reading_ && (out_.queued() > Server::kOutputHighWater || outstanding() > kMaxOutstanding)) {
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&tcp_));
    reading_ = false;
  }
}

void Connection::mark_dirty() {
  server_.mark_dirty(this);
}

void Connection::flush() {
  if (closing_) return;
  long n = out_.flush();
  if (n < 0) {
    close();
    return;
  }
  server_.shard().stats().net_output_bytes += static_cast<std::uint64_t>(n);
  if (out_.idle() && outstanding() == 0) {
    if (close_after_flush_) {
      close();
      return;
    }
    if (!reading_) {
      reading_ = uv_read_start(reinterpret_cast<uv_stream_t*>(&tcp_), on_alloc, on_read) == 0;
      // Commands may be waiting in the buffer since reading stopped.
      if (in_.size() > 0) process_input();
    }
  }
  update_buffer_stats();
}

void Connection::on_written(void* self, int status) {
  auto* c = static_cast<Connection*>(self);
  if (status < 0) {
    c->close();
    return;
  }
  c->server_.shard().stats().net_output_bytes += c->out_.last_async_bytes();
  if (!c->closing_) c->update_buffer_stats();
  c->mark_dirty();
}

void Connection::update_buffer_stats() {
  // maxmemory counts client buffers (Shard::counted_memory): the shard's sum follows this one.
  std::size_t& total = server_.shard().client_memory;
  total -= info_.query_buffer_bytes + info_.query_buffer_free + info_.output_buffer_bytes;
  info_.query_buffer_bytes = in_.size();
  info_.query_buffer_free = in_.free_space();
  info_.output_buffer_bytes = out_.queued();
  total += info_.query_buffer_bytes + info_.query_buffer_free + info_.output_buffer_bytes;
  info_.output_list_length = outstanding() + (out_.write_pending() ? 1 : 0);
}

void Connection::close() {
  if (closing_) return;
  closing_ = true;
  server_.shard().client_memory -=
      info_.query_buffer_bytes + info_.query_buffer_free + info_.output_buffer_bytes;
  info_.query_buffer_bytes = info_.query_buffer_free = info_.output_buffer_bytes = 0;
  server_.on_connection_closed(this);
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_close);
}

void Connection::on_close(uv_handle_t* h) {
  delete static_cast<Connection*>(h->data);
}

}  // namespace ruvio::worker
