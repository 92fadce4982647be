// The executor: runs one parsed command against this worker's Shard for one client, and
// EXEC's batches. Everything a command does to the keyspace goes through here: client
// connections (through the router), forwarded commands from other workers (the mesh), WAL
// replay at start-up and, later, scripts.
//
// Per command: look up the declaration → NOAUTH → arity → subcommand → ACL → subscribed-mode
// and cluster-port checks → validate → log (Journal::before_write) → apply → log the effect
// (Journal::after_write). The journal is the persistence layer's, reached through the small
// interface below that the server's Persistence implements, so this layer never includes
// the loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "proto/resp_writer.hpp"
#include "shared/tick_clock.hpp"
#include "worker/engine/command_stats.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

// The write-ahead log as the executor sees it.
class Journal {
 public:
  virtual ~Journal() = default;
  // Before a write command: false (with an error reply written) when it cannot be logged.
  virtual bool before_write(std::span<const std::string_view> args, proto::ReplyWriter& out) = 0;
  // After it ran: logs its effect when it changed the keyspace.
  virtual void after_write(int db, std::span<const std::string_view> args) = 0;
  // EXEC: what is logged between these two calls is one all-or-nothing record.
  virtual void begin_batch() = 0;
  virtual void end_batch() = 0;
};

// What the executor keeps of the script layer above it (worker/script/): that layer's Lua
// engine, created by script::engine(executor) on the first script and destroyed with the
// executor. The engine layer never looks inside it.
class ScriptState {
 public:
  virtual ~ScriptState() = default;
};

class Executor {
 public:
  explicit Executor(Shard& shard);
  ~Executor();

  Shard& shard() { return shard_; }
  // Null: no journal (--durability memory, or while the WAL itself is being replayed).
  void set_journal(Journal* journal) { journal_ = journal; }
  Journal* journal() const { return journal_; }
  // A script's writes: what the commands run between these two calls log is one
  // all-or-nothing record (the journal's EXEC batch).
  void begin_batch() {
    if (journal_ != nullptr) journal_->begin_batch();
  }
  void end_batch() {
    if (journal_ != nullptr) journal_->end_batch();
  }
  // This worker's Lua engine (worker/script/lua_engine.hpp's script::engine()), null until
  // the first script.
  std::unique_ptr<ScriptState>& script_state() { return scripts_; }
  const ScriptState* script_state() const { return scripts_.get(); }

  // Inside EXEC's commands (Redis's CLIENT_DENY_BLOCKING: MONITOR is refused there).
  bool in_exec() const { return in_exec_; }
  // The running command was called by another one (EXEC's commands, a script's calls),
  // not sent by the client: it runs on this worker only, never as a part of a fan-out.
  bool nested() const { return depth_ > 1; }
  // INFO commandstats / errorstats, SLOWLOG and LATENCY read and reset these.
  CommandStats& command_stats() { return stats_; }
  SlowLog& slowlog() { return slowlog_; }
  LatencyMonitor& latency() { return latency_; }

  // Runs one command (args[0] = its name as sent), appending its reply to `out`.
  void execute(ClientInfo& client, std::span<const std::string_view> args, proto::ReplyWriter& out);
  // The same with args[0] already looked up (command_table().find(args[0]), null: unknown),
  // so a request costs one lookup of its name.
  void execute(ClientInfo& client, std::span<const std::string_view> args, proto::ReplyWriter& out,
               const CommandDef* named);
  // A command that arrived over the mesh, `def` the row that runs (the frame's CommandDef::id):
  // the client's worker looked its name up and checked NOAUTH, arity, the subcommand and ACL,
  // so none of that is done again here; what follows those checks (busy, maxmemory, the
  // journal, the handler) runs as in execute(). The client's ACL user still governs what the
  // command runs in turn (a script's redis.call).
  void execute_resolved(ClientInfo& client, std::span<const std::string_view> args,
                        proto::ReplyWriter& out, const CommandDef& def);
  // CLIENT PAUSE: true when this command from this client must wait for the pause to end
  // (nothing is written; the caller parks the client and runs the command again later).
  // A command that fails before Redis's pause check (unknown, NOAUTH, arity, subscribed
  // mode, MOVED) never waits: its error answers at once. One compare while no pause is on.
  bool parks(const ClientInfo& client, std::span<const std::string_view> args) const {
    if (shard_.client_pause.mode(shard_.now_ms()) == ClientPause::Mode::kNone) return false;
    return parks_paused(client, args);
  }
  // Blocking commands (blocking.hpp): true when this command, to run here, finds nothing to
  // serve and must wait — the client is registered as a waiter (nothing is written; the
  // caller parks it and runs the command again when a key is ready or the timeout passed).
  // Never inside MULTI. One flag test for any other command.
  bool blocks(const ClientInfo& client, std::span<const std::string_view> args) const;
  bool blocks(const ClientInfo& client, std::span<const std::string_view> args,
              const CommandDef* named) const {
    if (named == nullptr || !(named->flags & kBlocking) || client.in_multi) return false;
    return blocks_here(client, args, *named);
  }
  // parks() and blocks() for a command that arrived over the mesh, its row `def` as in
  // execute_resolved (the checks before the pause and the wait were made at its client's
  // worker).
  bool parks_resolved(const CommandDef& def) const {
    const ClientPause::Mode mode = shard_.client_pause.mode(shard_.now_ms());
    return mode == ClientPause::Mode::kAll ||
           (mode == ClientPause::Mode::kWrite && may_replicate(def));
  }
  bool blocks_resolved(const ClientInfo& client, std::span<const std::string_view> args,
                       const CommandDef& def) const {
    if (!(def.flags & kBlocking) || client.in_multi) return false;
    return waits(client, args, def);
  }
  // The same for a transaction that arrived over the mesh (`resolved`: each command's row):
  // it waits under WRITE when one of its commands writes.
  bool parks(std::span<const CommandDef* const> resolved) const;
  // EXEC on this worker: runs `commands` back to back (nothing else runs in between), or
  // answers a null array when a key `client` WATCHed here has changed. `resolved`: the rows
  // a mesh transaction named, one per command (each still passes EXEC's ACL check, as Redis
  // checks again at EXEC); empty: the names are looked up here.
  void run_transaction(ClientInfo& client,
                       const std::vector<std::vector<std::string_view>>& commands,
                       proto::ReplyWriter& out, std::span<const CommandDef* const> resolved = {});
  // ACL for a command about to be routed elsewhere or queued in MULTI (`queued`): true when
  // refused (the -NOPERM reply written, the ACL LOG entry added). Callers test
  // client.user->restricted first. A command execute() would refuse for another reason
  // (unknown, arity) passes, so that execute() answers it.
  bool acl_refuses(ClientInfo& client, std::span<const std::string_view> args,
                   proto::ReplyWriter& out, bool queued);
  // The same for a command the caller resolved: `judged` is the row ACL judges (the
  // subcommand's for a container).
  bool acl_refuses(ClientInfo& client, const CommandDef& judged,
                   std::span<const std::string_view> args, proto::ReplyWriter& out, bool queued);

  // maxmemory (maxmemory.cpp), Redis's performEvictions: while this worker counts more than
  // its share, evicts keys by maxmemory-policy (each a WAL deletion, INFO evicted_keys, the
  // "evicted" key event), for at most about 500 µs (maxmemory-eviction-tenacity 10). False
  // when still over the share with nothing left to evict, or under noeviction (EVICT_FAIL).
  // True when under it, or when the time ran out (the server's timer goes on evicting).
  bool perform_evictions();
  // Whether the last top-level command found the worker out of memory (Redis's
  // pre_command_oom_state): scripts refuse their first denyoom call then.
  bool oom_at_start() const { return oom_at_start_; }
  // MULTI: true (the error written) when queueing must be refused for memory, as Redis
  // refuses every queued command but EXEC/DISCARD/QUIT/RESET while out of memory.
  bool refuses_queueing(const ClientInfo& client, proto::ReplyWriter& out);
  // While a script or function runs past busy-reply-threshold: true (the -BUSY error
  // written; EXEC's in its EXECABORT form, as Redis's rejectCommand) when `def` (judged by
  // its subcommand) is not one Redis allows then (CMD_ALLOW_BUSY). MULTI asks it before
  // queueing, so that a refused command fails the transaction.
  bool refuses_busy(const CommandDef& def, std::span<const std::string_view> args,
                    proto::ReplyWriter& out) const;
  // True while an eviction pass ran out of time and the timer should continue it.
  bool eviction_pending() const { return eviction_pending_; }
  // The clock of command durations; the loop's housekeeping calibrates it.
  TickClock& clock() { return clock_; }

 private:
  // Redis's EVICT_OK, EVICT_RUNNING (out of time: the timer evicts on), EVICT_FAIL.
  enum class EvictResult { kOk, kRunning, kFail };
  EvictResult evict();

  // parks() and blocks() past their one-test exits (inline above, on every request).
  bool parks_paused(const ClientInfo& client, std::span<const std::string_view> args) const;
  bool blocks_here(const ClientInfo& client, std::span<const std::string_view> args,
                   const CommandDef& named) const;
  // blocks_here past its checks, `def` the row that runs: whether the command waits.
  bool waits(const ClientInfo& client, std::span<const std::string_view> args,
             const CommandDef& def) const;
  // Redis's is_may_replicate_command: what CLIENT PAUSE WRITE holds back.
  static bool may_replicate(const CommandDef& def) {
    return (def.flags & (kWrite | kMayReplicate)) != 0;
  }
  // execute() past NOAUTH, arity, the subcommand and ACL, `def` the row that runs.
  void run(ClientInfo& client, std::span<const std::string_view> args, proto::ReplyWriter& out,
           const CommandDef& def);
  // The check without a reply or a log entry (CLIENT PAUSE and blocking decide before it).
  bool acl_denies(const ClientInfo& client, const CommandDef& def,
                  std::span<const std::string_view> args) const;
  // Before a top-level command while maxmemory is set: evicts; false (the error written)
  // when the command must be refused with -OOM.
  bool admit(const ClientInfo& client, const CommandDef& def, proto::ReplyWriter& out);
  int depth_ = 0;  // > 0 inside a command (EXEC's, a script's calls): no eviction there
  // The command of a client (not a script's call) running now: a script's read-only calls
  // are tracked with its keys, as Redis 7.0.15 (Tracking::after_script_read).
  const ClientInfo* caller_ = nullptr;
  const CommandDef* caller_def_ = nullptr;
  std::span<const std::string_view> caller_args_;
  bool oom_at_start_ = false;
  bool eviction_pending_ = false;

  Shard& shard_;
  Journal* journal_ = nullptr;
  std::unique_ptr<ScriptState> scripts_;
  bool in_exec_ = false;  // run_transaction: a refusal answers Redis's EXEC-time text
  CommandStats stats_;
  SlowLog slowlog_;
  LatencyMonitor latency_;
  TickClock clock_;
  // A refused command: counted as Redis's rejectCommand does.
  void rejected(const CommandDef& def);
  // After the handler ran: calls, time, failed_calls, the slow log and the latency monitor.
  void account(const CommandDef& def, ClientInfo& client, std::span<const std::string_view> args,
               std::int64_t usec);
  // account() past its thresholds: the slow log and the latency monitor.
  void note_eviction(const char* event, std::chrono::steady_clock::time_point start);
  bool evict_lazyfreed(std::span<store::Db* const> dbs, std::uint64_t limit,
                       std::chrono::steady_clock::time_point start,
                       std::chrono::microseconds time_limit);
  [[gnu::noinline]] void account_slow(const CommandDef& def, ClientInfo& client,
                                      std::span<const std::string_view> args, std::int64_t usec);
};

}  // namespace ruvio::worker
