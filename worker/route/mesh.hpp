// The worker mesh: how a worker asks another worker to run commands on keys it owns.
//
// Every worker listens on an abstract Unix socket "<mesh_name>.<id>". Worker A opens one
// link to each other worker B and sends it requests; the frames are drawn in
// proto/mesh_frame.hpp. Each request carries an id that A picks and B echoes in the reply,
// so B may answer out of order: a request B must hold back (CLIENT PAUSE today, blocking
// commands later) is parked on B without delaying the replies behind it. B keeps each
// client's order, (origin worker, client id): a later request of a client whose request is
// parked waits behind it; other clients' requests are answered at once. A matches replies to
// waiters by id, and the client's connection still puts its replies in request order.
//
// Requests are appended to the link's buffer while a loop turn runs and written once per
// turn (flush_all from the server's check handle), so a pipeline of 16 forwarded commands
// costs one write, not 16. When a link breaks (the peer restarts), every outstanding
// request is answered with LOADING and the link reconnects every 100 ms; the peer only
// listens once it has loaded its data, so a successful connect means it serves again. A
// malformed frame breaks the link the same way.
//
// Except a blocking command the peer said it parked (the parked notice, mesh_frame.hpp): it
// had not run there, so its client keeps waiting as it would on one redis-server. The link
// holds it while the peer is down and sends it again, with the timeout that is left, once
// the link is back; a deadline that passes meanwhile is answered here with the timeout reply
// (null array). A request in flight never noticed as parked may have run: LOADING, as ever.
// The window left: the peer serves the parked command (pops, logs it to its WAL) and dies
// before its reply leaves; the popped element is in the peer's WAL as popped, the client
// keeps waiting and gets a later element or its timeout (see the blockrestart report).
#pragma once

#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "proto/io_buffer.hpp"
#include "proto/mesh_frame.hpp"
#include "worker/route/host.hpp"
#include "worker/route/stream_writer.hpp"

namespace ruvio::worker {

class Router;

inline constexpr std::string_view kLoadingError = "LOADING Ruvio is loading the dataset in memory";

// A blocking command's timeout, for sending it again (MeshLink::send's `keep`).
struct BlockedResend {
  std::int64_t deadline_ms = 0;   // absolute; 0: forever (sent again as it was)
  std::size_t timeout_index = 0;  // the argument that holds the timeout
  bool timeout_ms = false;        // an integer of milliseconds (XREAD BLOCK), not seconds
};

// This worker's outgoing channel to one peer.
class MeshLink {
 public:
  MeshLink(RouteHost& server, int peer, std::string address);
  MeshLink(const MeshLink&) = delete;
  MeshLink& operator=(const MeshLink&) = delete;

  int peer() const { return peer_; }
  bool up() const { return state_ == State::kUp; }
  // Counts connections made: a change means the peer may have restarted (and forgotten
  // state kept for us there, such as WATCH registrations).
  std::uint64_t generation() const { return generation_; }
  // Appends a request. The caller checked up(). `keep`: a blocking command (a kCommand),
  // kept (copied) until answered so that it can be sent again if the peer parks it and then
  // dies.
  void send(const MeshMessage& m, int origin, int db, int resp, MeshWaiter waiter,
            const BlockedResend* keep = nullptr);
  // Client `client_id` of worker `origin` left: if it has requests in flight here, the peer
  // drops those it still holds parked (they never run, as in Redis) and answers them.
  void forget(int origin, std::uint64_t client_id);
  void flush();
  void connect();
  // A peer connected to this worker (it may have just restarted): try now rather than at
  // the next retry, so it learns this worker's registrations as early as it can.
  void connect_now();
  void close();

 private:
  enum class State { kDown, kUp, kClosing };
  static void on_alloc(uv_handle_t* h, std::size_t, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf);
  static void on_written(void* self, int status);
  static void on_retry(uv_timer_t* t);
  // A blocking command in flight with `keep`, or held while the link is down.
  struct Kept {
    std::uint16_t command = 0;  // the MeshCommand, copied
    bool tracked = false;
    std::string user;
    std::vector<std::string> args;
    int origin = 0;
    int db = 0;
    int resp = 2;
    MeshWaiter waiter;
    BlockedResend resend;
    bool parked = false;  // the peer's parked notice came
  };
  static void on_held_deadline(uv_timer_t* t);
  void fail(const char* why);
  void release_pipe();
  // The link is back: the held commands go again, with what is left of their timeouts.
  void resend_held();
  // Answers the held commands whose deadline passed; re-arms the timer for the next one.
  void expire_held();

  RouteHost& server_;
  int peer_;
  std::string address_;  // abstract socket name without the leading NUL
  State state_ = State::kDown;
  std::uint64_t generation_ = 0;
  uv_pipe_t* pipe_ = nullptr;  // heap: freed in its close callback, may outlive a failed link
  std::unique_ptr<StreamWriter> out_;
  std::string in_;
  char read_buf_[64 * 1024];
  std::uint64_t next_request_id_ = 1;
  std::unordered_map<std::uint64_t, MeshWaiter> waiting_;  // by request id
  std::unordered_map<std::uint64_t, Kept> kept_;           // by request id, `keep` ones only
  std::vector<Kept> held_;                                 // parked ones, while the link is down
  uv_timer_t retry_{};
  uv_timer_t held_timer_{};  // the earliest deadline of held_
};

// The accepting side: hands the requests peers send to the router (Router::serve) and
// answers them.
class MeshListener {
 public:
  MeshListener(RouteHost& server, Router& router);
  // A peer opened a link to this worker (the router reconnects its own links then).
  std::function<void()> peer_connected;
  bool listen(const std::string& address);
  void flush_all();
  void close();
  // The host's pause ended: run the parked requests again, each client's in order.
  void resume_parked();
  // A key that client `client_id` of worker `origin` waits on can serve it: runs that
  // client's parked requests again, in order (the others stay parked). False when it has
  // none parked here.
  bool resume_client(int origin, std::uint64_t client_id);
  // Requests parked on this worker, counted by client (for INFO blocked_clients).
  std::size_t parked_clients() const;
  // A script here is past busy-reply-threshold (the server's BusyService): reads what the
  // peers sent, outside libuv's loop, runs it (-BUSY but for SCRIPT KILL and the like) and
  // flushes the answers. `running`: the mesh client whose request runs the script, whose
  // link is neither read nor flushed meanwhile.
  void serve_while_busy(const ClientInfo* running);

 private:
  struct Peer;
  static void on_connection(uv_stream_t* s, int status);
  void on_peer_closed(Peer* p);

  RouteHost& server_;
  Router& router_;
  uv_pipe_t pipe_{};
  bool listening_ = false;
  std::vector<Peer*> peers_;
  friend struct Peer;
};

}  // namespace ruvio::worker
