// MIGRATE's connection to the target server: a blocking TCP socket whose every step (connect,
// each write, each reply line) is bounded by the command's timeout, as Redis's syncWrite /
// syncReadLine are. The worker waits at most that long per step; Redis blocks its one thread
// the same way during MIGRATE. No connection cache (Redis keeps one for 10 s): each MIGRATE
// connects, so SELECT is always sent, as Redis sends it on a fresh socket.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace ruvio::worker {

class MigrateLink {
 public:
  MigrateLink() = default;
  MigrateLink(const MigrateLink&) = delete;
  MigrateLink& operator=(const MigrateLink&) = delete;
  ~MigrateLink();

  // False when the name does not resolve or the connect times out. A refused connect counts
  // as connected, as Redis's connBlockingConnect sees the socket writable: the first write
  // then fails, so MIGRATE answers the "writing" IOERR as Redis does.
  bool connect(const std::string& host, const std::string& port, int timeout_ms);
  // Writes everything or fails (error or timeout).
  bool write_all(std::string_view data, int timeout_ms);
  // One reply line without its CRLF into `line`; false on error, timeout or EOF.
  bool read_line(std::string& line, int timeout_ms);

 private:
  bool wait(short events, int timeout_ms);
  int fd_ = -1;
  std::string in_;
};

}  // namespace ruvio::worker
