// One client connection: input buffer → parser → router → reply slots → output buffer.
//
// Replies leave in request order: the slots that keep them so are the route layer's
// (RoutedClient, worker/route/routed_client.hpp); this class owns the socket, the buffers
// and the read/write callbacks.
#pragma once

#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/io_buffer.hpp"
#include "proto/resp_parser.hpp"
#include "proto/resp_writer.hpp"
#include "worker/engine/shard.hpp"
#include "worker/route/routed_client.hpp"
#include "worker/route/stream_writer.hpp"

namespace ruvio::worker {

class Server;

class Connection final : public RoutedClient {
 public:
  Connection(Server& server, std::uint64_t id);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  uv_tcp_t* handle() { return &tcp_; }

  // Called once the socket is accepted: fills addresses, starts reading.
  bool start();
  // Writes what is queued; called by the server once per loop turn for dirty connections
  // (may_hold: the end-of-turn pass, which may hold replies back a little, see flush()).
  void flush(bool may_hold = false);
  // Closes the socket; the object deletes itself when libuv is done with the handle.
  void close();
  bool closing() const { return closing_; }
  // The hold timer fired: the next flush writes what is ready.
  void release_hold() {
    held_ = false;
    hold_expired_ = true;
  }
  // Closes a connection the server never adopted (maxclients reached): no bookkeeping.
  void close_unadopted() {
    closing_ = true;
    uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_close);
  }
  // CLIENT PAUSE ended: runs the command that waited, then the rest of the input.
  void resume();
  // A script is past busy-reply-threshold (BusyService): reads what the socket holds now,
  // outside libuv's loop, and runs it — the commands answer -BUSY but for SCRIPT KILL and
  // SHUTDOWN. True when something was read.
  bool read_while_busy();
  // Replies queued and not yet written.
  bool output_pending() const { return out_.queued() > 0; }
  // The socket's descriptor, or -1 (closing).
  int socket_fd();

  // Linked list of connections with output to flush this turn.
  Connection* next_dirty = nullptr;
  bool dirty = false;

 private:
  static void on_alloc(uv_handle_t* h, std::size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_written(void* self, int status);
  static void on_close(uv_handle_t* h);

  void process_input();
  void mark_dirty();
  void output_ready() override { mark_dirty(); }
  void update_buffer_stats();
  // client-output-buffer-limit: closes the client (and logs it as Redis) once its pending
  // output passes its class's limit; true when it did.
  bool close_if_over_output_limit(bool from_cron = false);
  // Runs one parsed command under CLIENT REPLY OFF/SKIP (its answers dropped). False: parked.
  bool dispatch_quiet();

  Server& server_;
  uv_tcp_t tcp_{};
  StreamWriter out_;
  InputBuffer in_;
  proto::RequestParser parser_;
  std::vector<std::string_view> args_;
  bool closing_ = false;
  bool close_after_flush_ = false;
  bool reading_ = false;
  bool parked_ = false;                  // the first command in in_ waits for CLIENT PAUSE to end
  bool held_ = false;                    // in the server's held list (Server::hold)
  bool hold_expired_ = false;            // the hold timer released this client's output
  std::int64_t obuf_soft_since_ms_ = 0;  // past the soft output limit since (0: under it)
  static constexpr std::int64_t kPeakResetMs = 5000;  // Redis's PROTO_REPLY_BUFFER_PEAK_RESET_TIME
  std::int64_t peak_reset_ms_ = 0;                    // rbp's window began (cron)
  std::size_t batch_begin_ = 0;                       // in_.offset() when process_input began
  std::size_t counted_buffer_bytes_ = 0;  // this client's share of Shard::client_buffer_bytes
  std::size_t counted_memory_ = 0;        // its tot-mem in Shard::client_memory
  int bucket_ = -1;                       // its memory bucket (client_eviction.cpp), -1: none
  std::uint64_t bucket_stamp_ = 0;        // when it entered that bucket

 public:
  // Housekeeping (once a second): the soft output limit of a client no new output reaches,
  // and the idle timeout. True when the client was closed.
  bool cron(std::int64_t now_ms);
  // CLIENT LIST/INFO: records the buffers as Redis would show them now (the query buffer from
  // the parser's state, the replies the kernel has not taken). `running`: this client's own
  // command is the one running (Redis's query buffer still holds the batch it came in).
  void measure(bool running);
  // What CLIENT LIST's tot-mem shows (maxmemory-clients measures it), as last recorded.
  std::size_t memory() const { return counted_memory_; }
  // Redis's memory bucket of this client (0..18, for 2^15..2^33 bytes) and its order in it.
  int bucket() const { return bucket_; }
  std::uint64_t bucket_stamp() const { return bucket_stamp_; }
};

}  // namespace ruvio::worker
