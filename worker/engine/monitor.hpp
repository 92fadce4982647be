// MONITOR: the clients that watch every command, and the line Redis 7.0 shows them
// (replicationFeedMonitors):
//
//   +1700000000.123456 [0 127.0.0.1:54321] "SET" "k" "v"\r\n
//    seconds.micro      db client address   each argument quoted with sdscatrepr's escapes
//
// A script's commands show "[<db> lua]" for the address. Through the proxy port a command is
// fed once, by the worker its client is connected to (the router feeds what it forwards or
// fans out; a command that arrives over the mesh is never fed again where it runs), and every
// line goes to the monitors of every worker: a worker whose clients monitor tells its peers
// ("on"/"off"), and a worker sends its lines only to the peers that asked. With no monitor
// anywhere the command path pays one test of on().
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proto/resp_writer.hpp"

namespace ruvio::worker {

struct ClientInfo;
struct CommandDef;

// The line without its leading '+' and trailing CRLF (the writer's simple string adds them);
// the arguments at `redacted` show as "(redacted)".
void format_monitor_line(std::string& out, std::int64_t sec, std::int64_t usec, int db,
                         std::string_view who, std::span<const std::string_view> args,
                         std::span<const std::size_t> redacted = {});

class Monitors {
 public:
  // The server's side: a monitor's reply stream by client id (null: it left), and the mesh
  // (a message to one peer / to every peer). Unset with one worker: no peers.
  std::function<proto::ReplyWriter*(std::uint64_t id)> writer;
  std::function<void(int worker, std::string_view line)> send_line;
  std::function<void(bool on)> announce;

  // Some monitor on this worker or on a peer: commands must be fed.
  bool on() const { return on_; }
  bool has_local() const { return !local_.empty(); }

  // MONITOR / RESET or disconnect of a monitor of this worker.
  void add(ClientInfo& c);
  void remove(ClientInfo& c);
  // A peer's monitors came or went (its "on"/"off" over the mesh).
  void set_peer(int worker, bool on);

  // Feeds one command run here for `c` (its db is `db`), as Redis after the command ran:
  // not for admin commands nor those declared skip_monitor (scripts feed themselves before
  // they run, see feed_now).
  void feed(const ClientInfo& c, int db, std::span<const std::string_view> args,
            const CommandDef& def) {
    if (!skipped(c, def, args)) feed_now(c, db, args, &def);
  }
  // A command this worker sends to its keys' owner, which never feeds a mesh request: a
  // script command (skip_monitor) is shown here too, as its own handler would have.
  void feed_forwarded(const ClientInfo& c, int db, std::span<const std::string_view> args,
                      const CommandDef& def);
  // Feeds without looking at the declaration's flags (EVAL before its script runs, EXEC through
  // the proxy); `def` (if any) says which arguments to redact.
  void feed_now(const ClientInfo& c, int db, std::span<const std::string_view> args,
                const CommandDef* def = nullptr);
  // EVAL, EVALSHA, FCALL (declared skip_monitor): fed as their handler starts, before their
  // script's commands, as Redis's eval does (a NOSCRIPT or a compile error is shown too).
  void feed_script(const ClientInfo& c, std::span<const std::string_view> args);
  // A line from a peer for this worker's monitors.
  void deliver(std::string_view line);

  // While the router feeds a command it runs or routes itself (a fan-out's local part, an
  // EXEC sent elsewhere), the executor does not feed it again.
  struct Routed {
    explicit Routed(Monitors& m) : m_(m) { ++m_.routed_; }
    ~Routed() { --m_.routed_; }
    Routed(const Routed&) = delete;
    Routed& operator=(const Routed&) = delete;
    Monitors& m_;
  };

 private:
  bool skipped(const ClientInfo& c, const CommandDef& def,
               std::span<const std::string_view> args) const;
  void update();

  std::vector<std::uint64_t> local_;  // client ids, in MONITOR order
  std::vector<int> peers_;            // workers whose clients monitor
  std::string line_;                  // reused: no allocation per fed command once grown
  std::vector<std::size_t> redacted_;
  int routed_ = 0;
  bool on_ = false;
};

}  // namespace ruvio::worker
