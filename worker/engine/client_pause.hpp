// CLIENT PAUSE state of one worker, with Redis 7.0's rules (networking.c pauseClients,
// server.c processCommand):
//
// * A pause has a mode (WRITE or ALL) and an end time. A new pause never weakens one in
//   force: the mode is the stricter of the two and the end the later (PAUSE 200 ALL then
//   PAUSE 20 WRITE stays ALL until 200 ms).
// * ALL postpones every command that gets past the unknown-command, NOAUTH, arity and
//   subscribed-mode checks (those errors still answer at once) — CLIENT UNPAUSE included, so
//   an ALL pause ends only by its timeout. WRITE postpones write and may-replicate commands
//   (PUBLISH, EVAL, …; EXPIRE and PERSIST are writes), a write queued inside MULTI, and an EXEC
//   whose queue holds one.
// * A postponed client runs nothing else until the pause ends (its later pipelined commands
//   wait behind it); other clients go on. While a pause is in force, no key expires: neither
//   the active cycle nor, lazily, a read.
//
// The executor decides (Executor::parks); the server's loop parks and resumes clients and
// arms a timer for the end (this layer has no loop).
#pragma once

#include <cstdint>

namespace ruvio::worker {

class ClientPause {
 public:
  enum class Mode : std::uint8_t { kNone = 0, kWrite = 1, kAll = 2 };

  // CLIENT PAUSE: `end_ms` absolute (Redis: now + timeout; 0 for a timeout of 0).
  void pause(Mode mode, std::int64_t end_ms) {
    if (mode > mode_) mode_ = mode;
    if (end_ms > end_ms_) end_ms_ = end_ms;
    ++version_;
  }
  void unpause() {
    mode_ = Mode::kNone;
    end_ms_ = 0;
    ++version_;
  }
  // The mode in force at `now_ms` (a pause whose end has passed is over).
  Mode mode(std::int64_t now_ms) const { return end_ms_ >= now_ms ? mode_ : Mode::kNone; }
  bool paused(std::int64_t now_ms) const { return mode(now_ms) != Mode::kNone; }
  // Forgets a pause whose end has passed (Redis: checkClientPauseTimeoutAndReturnIfPaused).
  void expire(std::int64_t now_ms) {
    if (mode_ != Mode::kNone && end_ms_ < now_ms) unpause();
  }
  std::int64_t end_ms() const { return end_ms_; }
  // Changes on every pause/unpause, so the loop knows to re-arm its timer or resume clients.
  std::uint64_t version() const { return version_; }

 private:
  Mode mode_ = Mode::kNone;
  std::int64_t end_ms_ = 0;
  std::uint64_t version_ = 0;
};

}  // namespace ruvio::worker
