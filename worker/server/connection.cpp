#include "worker/server/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>

#include "shared/sds_text.hpp"
#include "worker/engine/client_info.hpp"
#include "worker/server/client_limits.hpp"
#include "worker/server/server.hpp"

namespace ruvio::worker {
namespace {

// The smallest read we ask the kernel for; a big bulk reserves what the parser says it needs.
constexpr std::size_t kReadChunk = 16 * 1024;
// Forwarded commands one connection may have in flight before it stops reading.
constexpr std::size_t kMaxOutstanding = 1024;
// An idle input buffer larger than this is given back (after a large value went through).
constexpr std::size_t kIdleInputKeep = 64 * 1024;
// Output that makes process_input check the client's output limit between two commands.
constexpr std::size_t kOutputCheckBytes = 256 * 1024;
// Ready replies held back while others are owed by another worker (flush()), at most.
constexpr std::size_t kHoldBytes = 64 * 1024;

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
  info_.struct_bytes = sizeof(Connection);
  uv_tcp_init(server.loop(), &tcp_);
  tcp_.data = this;
}

namespace {

// Redis's connIsLocal: 127.0.0.0/8, ::1, and IPv4 mapped into IPv6 (::ffff:127.x.x.x).
bool is_loopback(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
  }
  if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (IN6_IS_ADDR_LOOPBACK(&a->sin6_addr)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) && a->sin6_addr.s6_addr[12] == 127;
  }
  return true;  // a Unix socket is local
}

constexpr std::string_view kProtectedModeDenied =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Setup a an authentication password for the default user. NOTE: You only need "
    "to do one of the above things in order for the server to start accepting connections from "
    "the outside.\r\n";

}  // namespace

bool Connection::start() {
  sockaddr_storage ss{};
  int len = sizeof ss;
  bool loopback = true;
  if (uv_tcp_getpeername(&tcp_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
    info_.addr = format_addr(ss);
    loopback = is_loopback(ss);
  }
  len = sizeof ss;
  if (uv_tcp_getsockname(&tcp_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) {
    info_.laddr = format_addr(ss);
  }
  uv_os_fd_t fd;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&tcp_), &fd) == 0) info_.fd = fd;
  uv_tcp_nodelay(&tcp_, 1);
  const Config& config = server_.shard().config();
  set_tcp_keepalive(info_.fd, config.tcp_keepalive);
  parser_.set_max_bulk_len(config.proto_max_bulk_len);
  info_.created_ms = info_.last_interaction_ms = server_.shard().now_ms();
  info_.user = server_.shard().acl().default_user();
  info_.authenticated = server_.shard().acl().default_open();
  parser_.set_authenticated(info_.authenticated);
  Shard& shard = server_.shard();
  // protected-mode: nothing protects the server (the default user needs no password), so
  // only loopback clients are served; the others get Redis's text and are closed.
  if (!loopback && shard.config().protected_mode &&
      (shard.acl().default_user()->flags & acl::kNoPass)) {
    out_.buffer().append(kProtectedModeDenied);
    shard.stats().rejected_connections++;
    close_after_flush_ = true;
    mark_dirty();
    return true;
  }
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
  Shard& shard = c->server_.shard();
  shard.stats().net_input_bytes += static_cast<std::uint64_t>(nread);
  shard.stats().reads_processed++;
  if (c->in_.size() > shard.config().client_query_buffer_limit) [[unlikely]] {
    std::string ci;
    c->measure(false);
    client_info_line(c->info_, shard.now_ms(), ci);
    spdlog::warn("Closing client that reached max query buffer length: {} (qbuf initial bytes: {})",
                 ci, repr(c->in_.pending(), 64));
    c->close();
    return;
  }
  c->process_input();
  // A command still arriving (its argument's room reserved) is measured now, for CLIENT
  // LIST's qbuf/tot-mem and the turn's maxmemory-clients check; replies are measured when
  // flushed. One test when the read ended on a whole command.
  if (c->in_.size() > 0 && !c->closing_) [[unlikely]]
    c->update_buffer_stats();
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
  batch_begin_ = in_.offset();
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
      spdlog::debug(
          "Protocol error ({}) from client: addr={}. Query buffer during protocol "
          "error: {}",
          r.error.substr(r.error.find(": ") + 2), info_.addr, repr(in_.pending(), 128));
      local_writer().error(r.error);
      close_after_flush_ = true;
      break;
    }
    info_.last_interaction_ms = server_.shard().now_ms();
    // maxmemory-clients: Redis evicts clients before each command and measures the client
    // after it (processCommandAndResetClient); one test of the setting while it is off.
    const bool client_limit = server_.shard().config().maxmemory_clients != 0;
    if (client_limit && !server_.evict_clients_before_command(this)) [[unlikely]]
      return;
    const bool ran = info_.reply_mode == ClientInfo::kReplyOn ? server_.dispatch(*this, args_)
                                                              : dispatch_quiet();
    if (!ran) {
      // Kept in the buffer as it is: parsed again, and run, on resume().
      parked_ = true;
      info_.blocked = true;
      server_.park(this);
      break;
    }
    in_.consume(r.consumed);
    if (client_limit) [[unlikely]]
      update_buffer_stats();
    // A pipeline whose replies pile up is measured against its output limit as it runs (as
    // Redis checks on every reply), not only once the whole pipeline has answered.
    if (out_.buffer().size() >= kOutputCheckBytes && close_if_over_output_limit()) return;
    if (info_.close_after_reply) close_after_flush_ = true;
    if (server_.shard().shutdown_requested) break;
    // Too many answers still owed by other workers: stop until they drain (flush()
    // resumes), so a client that never reads cannot make the mesh buffer without bound.
    if (outstanding_over(kMaxOutstanding)) break;
  }
  in_.shrink_if_idle(kIdleInputKeep);
  if (!out_.buffer().empty() || close_after_flush_) mark_dirty();
  // Backpressure: a client that does not read its replies stops being read from.
  if (reading_ && (out_.queued() > Server::kOutputHighWater || outstanding_over(kMaxOutstanding))) {
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&tcp_));
    reading_ = false;
  }
}

bool Connection::dispatch_quiet() {
  const ClientInfo::ReplyMode before = info_.reply_mode;
  // The command after CLIENT REPLY SKIP is the one skipped.
  if (before == ClientInfo::kReplySkipNext) info_.reply_mode = ClientInfo::kReplySkip;
  begin_discard();
  const bool ran = server_.dispatch(*this, args_);
  if (!ran) {
    end_discard(false);
    info_.reply_mode = before;  // it runs again on resume
    return false;
  }
  // CLIENT REPLY ON ran: its +OK is the first reply the client gets again.
  end_discard(info_.reply_mode == ClientInfo::kReplyOn);
  if (info_.reply_mode == ClientInfo::kReplySkip) info_.reply_mode = ClientInfo::kReplyOn;
  return true;
}

void Connection::mark_dirty() {
  server_.mark_dirty(this);
}

void Connection::flush(bool may_hold) {
  if (closing_) return;
  // A pipeline that mixes this worker's keys with another's: the replies ready in order wait
  // (Server::hold, a millisecond at most) for those the peer owes, which usually come back
  // well within it, so the pipeline's answer leaves in one write instead of two or three
  // (each a system call here and a wake-up of the client). The bytes and their order are the
  // same. Never held: a blocked client's (its owed reply may take long), a large backlog, a
  // closing client's.
  if (may_hold && !hold_expired_ && outstanding() > 0 && !out_.buffer().empty() && !info_.blocked &&
      !close_after_flush_ && out_.buffer().size() < kHoldBytes && !out_.write_pending())
      [[unlikely]] {
    if (!held_) {
      held_ = true;
      server_.hold(this);
    }
    return;
  }
  hold_expired_ = false;
  long n = out_.flush();
  if (n < 0) {
    close();
    return;
  }
  server_.shard().stats().net_output_bytes += static_cast<std::uint64_t>(n);
  if (n > 0) server_.shard().stats().writes_processed++;
  if (close_if_over_output_limit()) return;
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
  info_.query_buffer_bytes = in_.size();
  info_.query_buffer_free = in_.free_space();
  info_.output_buffer_bytes = out_.queued();
  info_.output_buffer_room = out_.capacity();
  info_.output_peak = out_.peak();
  // INFO mem_clients_normal / used_memory / maxmemory (Shard::counted_memory): what client
  // buffers hold now.
  const std::size_t now = info_.output_buffer_bytes + info_.query_buffer_bytes;
  Shard& shard = server_.shard();
  shard.client_buffer_bytes += now;
  shard.client_buffer_bytes -= counted_buffer_bytes_;
  counted_buffer_bytes_ = now;
  info_.watched_keys = shard.watched_keys(info_);
  const std::size_t mem = client_memory_usage(info_);  // tot-mem
  shard.client_memory += mem;
  shard.client_memory -= counted_memory_;
  counted_memory_ = mem;
  // Redis's bucket of the client (getMemUsageBucket): log2 of its memory, 2^15..2^33.
  const int bucket = std::clamp(static_cast<int>(std::bit_width(mem)), 15, 33) - 15;
  if (bucket != bucket_) {
    bucket_ = bucket;
    bucket_stamp_ = server_.next_bucket_stamp();
  }
  if (info_.output_buffer_bytes > shard.client_recent_max_output) {
    shard.client_recent_max_output = info_.output_buffer_bytes;
  }
}

void Connection::measure(bool running) {
  update_buffer_stats();
  if (running) {
    // Redis trims its query buffer once the batch read with this command is done: until then
    // it holds the commands before this one too.
    const std::size_t before = in_.offset() >= batch_begin_ ? in_.offset() - batch_begin_ : 0;
    info_.query_buffer_bytes = before + in_.size();
    info_.partial_argv_bytes = info_.partial_argc = 0;
  } else {
    // A command still arriving: Redis has moved the arguments it parsed into argv and
    // trimmed its query buffer to the rest (processMultibulkBuffer).
    const proto::RequestParser::Progress p = parser_.progress();
    info_.query_buffer_bytes = in_.size() - std::min(p.parsed, in_.size());
    info_.partial_argv_bytes = p.arg_bytes;
    info_.partial_argc = p.args;
  }
  info_.output_buffer_bytes = out_.unsent();
  info_.output_stuck = out_.write_pending();
}

bool Connection::close_if_over_output_limit(bool from_cron) {
  const std::size_t pending = out_.unsent();
  if (pending == 0 && obuf_soft_since_ms_ == 0) return false;
  Shard& shard = server_.shard();
  const ClientBufferLimit& limit =
      shard.config().obuf_limits[static_cast<std::size_t>(client_class(info_))];
  // Redis measures its reply list only (getClientOutputBufferMemoryUsage), not the 16 KB buf.
  const std::size_t used = reply_list_of(pending, out_.write_pending()).memory;
  if (!output_over_limit(limit, used, shard.now_ms(), obuf_soft_since_ms_)) return false;
  measure(false);
  std::string ci;
  client_info_line(info_, shard.now_ms(), ci);
  // Redis 7.0's two wordings: found while replies are added (closed asynchronously) or by
  // clientsCron (closed there and then).
  if (from_cron) {
    spdlog::warn("Client {} closed for overcoming of output buffer limits.", ci);
  } else {
    spdlog::warn("Client {} scheduled to be closed ASAP for overcoming of output buffer limits.",
                 ci);
  }
  close();
  return true;
}

bool Connection::cron(std::int64_t now_ms) {
  if (closing_) return false;
  if (close_if_over_output_limit(true)) return true;
  // clientsCronResizeOutputBuffer: the peak restarts every 5 s from what is pending now.
  if (now_ms - peak_reset_ms_ >= kPeakResetMs) {
    out_.reset_peak();
    info_.output_peak = out_.peak();
    peak_reset_ms_ = now_ms;
  }
  const int timeout = server_.shard().config().timeout;
  // clientsCronHandleTimeout: subscribers and blocked (or paused) clients never time out.
  if (timeout > 0 && !info_.subscribed() && !info_.blocked && outstanding() == 0 &&
      now_ms - info_.last_interaction_ms > static_cast<std::int64_t>(timeout) * 1000) {
    spdlog::debug("Closing idle client");
    close();
    return true;
  }
  return false;
}

void Connection::close() {
  if (closing_) return;
  closing_ = true;
  server_.shard().client_buffer_bytes -= counted_buffer_bytes_;
  counted_buffer_bytes_ = 0;
  server_.shard().client_memory -= counted_memory_;
  counted_memory_ = 0;
  server_.on_connection_closed(this);
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_close);
}

void Connection::on_close(uv_handle_t* h) {
  delete static_cast<Connection*>(h->data);
}

}  // namespace ruvio::worker
