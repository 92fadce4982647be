// A client as the proxy layer sees it: its state, and its replies in request order.
//
// While no forwarded command is outstanding, replies are written straight into the output
// buffer. A forwarded (or split, or fanned-out) command reserves a slot; replies of later
// local commands queue in slots behind it, and the whole queue drains into the output
// buffer as soon as its head is complete. The server's Connection is one; it tells this
// class where its output buffer is and is told (output_ready) when drained replies wait.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/resp_writer.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

// Combines the parts of a split or fanned-out command into the one reply the client sees.
using MergeFn = std::function<void(std::vector<std::string>& parts, std::string& out)>;

class RoutedClient {
 public:
  explicit RoutedClient(std::uint64_t id);
  RoutedClient(const RoutedClient&) = delete;
  RoutedClient& operator=(const RoutedClient&) = delete;

  ClientInfo& info() { return info_; }
  const ClientInfo& info() const { return info_; }

  // The writer for a reply produced here and now, placed behind any reserved slot.
  proto::ReplyWriter& local_writer();
  // The writer for a pub/sub push (a message, a (un)subscribe confirmation): as Redis 7's
  // CLIENT_PUSHING, it reaches the client under CLIENT REPLY OFF/SKIP too, in order behind
  // any reserved slot. A writer of its own, so the command's (discarding) one is untouched.
  proto::ReplyWriter& push_writer();
  // Reserves the reply of a command whose `parts` answers arrive later (deliver()).
  // `merge` is null for a single part passed through as is. Returns the slot's sequence.
  std::uint64_t reserve(std::uint32_t parts, MergeFn merge);
  // One part of reserved slot `seq` arrived (a complete RESP reply).
  void deliver(std::uint64_t seq, std::uint32_t part, std::string_view reply);
  // Slot `seq` is a blocking command another worker runs: the client counts as blocked
  // (ClientInfo::blocked, CLIENT LIST flags=b) until its reply is delivered.
  void wait_blocked(std::uint64_t seq) {
    blocked_seq_ = seq;
    info_.blocked = true;
  }

  // Reply slots not yet drained into the output buffer.
  std::size_t outstanding() const { return slots_.size(); }
  // outstanding() > n, without counting the deque when it is empty (every local request asks).
  bool outstanding_over(std::size_t n) const { return !slots_.empty() && slots_.size() > n; }

  // CLIENT REPLY OFF/SKIP: while discarding, what commands answer here is dropped, and so are
  // the answers of what they forward. end_discard(true) keeps what was answered locally
  // (CLIENT REPLY ON's +OK).
  void begin_discard() { discarding_ = true; }
  void end_discard(bool keep);

 protected:
  ~RoutedClient() = default;
  // Called once by the owner when its output buffer exists.
  void set_output(std::string* out);
  // Replies were appended to the output buffer by deliver().
  virtual void output_ready() = 0;

  ClientInfo info_;

 private:
  struct Slot {
    std::uint64_t seq = 0;
    std::uint32_t waiting = 0;  // parts still outstanding; 0 = complete
    std::string bytes;          // complete reply bytes (several replies for a local run)
    std::vector<std::string> parts;
    MergeFn merge;
    bool discard = false;  // reserved under CLIENT REPLY OFF/SKIP: never reaches the client
  };

  void drain_slots();
  // Points `w` at the end of what the client gets (the output, or the last slot).
  proto::ReplyWriter& aim(proto::ReplyWriter& w);

  std::string unset_;  // the writer's buffer until set_output()
  std::string* out_ = &unset_;
  proto::ReplyWriter writer_{unset_};
  proto::ReplyWriter pusher_{unset_};
  std::deque<Slot> slots_;
  std::uint64_t next_seq_ = 1;
  std::uint64_t blocked_seq_ = 0;  // wait_blocked's slot; 0: none
  bool discarding_ = false;
  std::string sink_;  // local replies while discarding
};

}  // namespace ruvio::worker
