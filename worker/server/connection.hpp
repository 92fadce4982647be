// One client connection: input buffer → parser → router → reply slots → output buffer.
//
// Replies leave in request order. While no forwarded command is outstanding, replies are
// written straight into the output buffer. A forwarded (or split, or fanned-out) command
// reserves a slot; replies of later local commands queue in slots behind it, and the whole
// queue drains into the output buffer as soon as its head is complete.
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
#include "worker/commands/shard.hpp"
#include "worker/route/stream_writer.hpp"

namespace ruvio::worker {

class Server;

// Combines the parts of a split or fanned-out command into the one reply the client sees.
using MergeFn = std::function<void(std::vector<std::string>& parts, std::string& out)>;

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

  // The writer for a reply produced here and now, placed behind any reserved slot.
  proto::ReplyWriter& local_writer();
  // Reserves the reply of a command whose `parts` answers arrive later (deliver()).
  // `merge` is null for a single part passed through as is. Returns the slot's sequence.
  std::uint64_t reserve(std::uint32_t parts, MergeFn merge);
  // One part of reserved slot `seq` arrived (a complete RESP reply).
  void deliver(std::uint64_t seq, std::uint32_t part, std::string_view reply);

  // Linked list of connections with output to flush this turn.
  Connection* next_dirty = nullptr;
  bool dirty = false;

 private:
  struct Slot {
    std::uint64_t seq = 0;
    std::uint32_t waiting = 0;  // parts still outstanding; 0 = complete
    std::string bytes;          // complete reply bytes (several replies for a local run)
    std::vector<std::string> parts;
    MergeFn merge;
  };

  static void on_alloc(uv_handle_t* h, std::size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_written(void* self, int status);
  static void on_close(uv_handle_t* h);

  void process_input();
  void mark_dirty();
  void drain_slots();
  void update_buffer_stats();

  Server& server_;
  uv_tcp_t tcp_{};
  StreamWriter out_;
  ClientInfo info_;
  InputBuffer in_;
  proto::RequestParser parser_;
  std::vector<std::string_view> args_;
  proto::ReplyWriter writer_;
  std::deque<Slot> slots_;
  std::uint64_t next_seq_ = 1;
  bool closing_ = false;
  bool close_after_flush_ = false;
  bool reading_ = false;
};

}  // namespace ruvio::worker
