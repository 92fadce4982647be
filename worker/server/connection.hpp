// One client connection: input buffer → parser → dispatcher → output buffer.
// Replies are appended to `out_` and flushed once per loop turn by the server's check
// handle (uv_try_write first, uv_write for what the socket did not take).
#pragma once

#include <uv.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proto/resp_parser.hpp"
#include "proto/resp_writer.hpp"
#include "worker/server/io_buffer.hpp"
#include "worker/server/shard.hpp"

namespace ruvio::worker {

class Server;

class Connection {
 public:
  Connection(Server& server, std::uint64_t id);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  uv_tcp_t* handle() { return &tcp_; }
  ClientInfo& info() { return info_; }
  const ClientInfo& info() const { return info_; }

  // Called once the socket is accepted: fills addresses, starts reading.
  bool start();
  // Writes what is queued; called by the server once per loop turn for dirty connections.
  void flush();
  // Closes the socket; the object deletes itself when libuv is done with the handle.
  void close();
  bool closing() const { return closing_; }

  // Linked list of connections with output to flush this turn.
  Connection* next_dirty = nullptr;
  bool dirty = false;

 private:
  static void on_alloc(uv_handle_t* h, std::size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_write(uv_write_t* req, int status);
  static void on_close(uv_handle_t* h);

  void process_input();
  void mark_dirty();
  void update_buffer_stats();

  Server& server_;
  uv_tcp_t tcp_{};
  uv_write_t write_req_{};
  ClientInfo info_;
  InputBuffer in_;
  proto::RequestParser parser_;
  std::vector<std::string_view> args_;
  std::string out_;       // replies not yet handed to the kernel
  std::string writing_;   // the block an outstanding uv_write owns
  proto::ReplyWriter writer_;
  bool write_pending_ = false;
  bool closing_ = false;
  bool close_after_flush_ = false;
  bool reading_ = false;
};

}  // namespace ruvio::worker
