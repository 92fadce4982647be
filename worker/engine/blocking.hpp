// Blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP; BZPOPMIN/BZPOPMAX/BZMPOP and
// XREAD BLOCK reuse it): which clients wait on which keys of this worker, until when.
//
// The model is CLIENT PAUSE's parking (client_pause.hpp): a blocking command that finds no
// data is not run; the executor answers "parks" (Executor::parks), the server's loop (or the
// mesh, for a command forwarded from another worker's proxy port) keeps the command and runs
// it again later. Here is what decides "later":
//
// * A waiter is a client token (origin worker, client id: the WATCH token) with its db, the
//   keys it waits on (the command's first key spec: BLMOVE waits on its source only) and an
//   absolute deadline (0 = forever). It is added the first time its command parks.
// * Each waited-on key has its waiters in blocking order (Redis 7's FIFO). A write handle's
//   key_ready on one of those keys (a push, a move into it, a command of an EXEC, a forwarded
//   write) queues the key as ready. The server then serves the key as Redis's
//   handleClientsBlockedOnKeys does: its waiters in order, each one's parked command run
//   again only while the key holds a value of the type that waiter waits for; it stops at the
//   first waiter that finds the key empty (the others are not touched: the cost of a push is
//   the clients it serves, not the clients parked). A waiter of another type is passed over
//   (Redis rotates it to the tail; here it keeps its place). A deadline passing resumes just
//   the waiters that are due.
// * A command run again after its deadline is not parked: it runs, finds nothing and answers
//   the timeout reply (timed_out() tells the handler so). A served, timed-out, refused (bad
//   timeout, WRONGTYPE) or disconnected client leaves the table.
// * Inside MULTI a blocking command never parks (as Redis): it runs at once, in the queue.
//
// The commands layer has no loop: the server polls next_deadline() with its own timer while
// someone waits (within 10 ms), and takes the ready keys (take_ready) once per loop turn.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "worker/store/db.hpp"

namespace ruvio::worker {

// What the blocking framework needs to know of a command: where its timeout is and the type
// of value it waits for. A blocking command's row points at its spec (CommandDef::blocking).
struct BlockingSpec {
  int timeout_arg;  // > 0: that argument; < 0: counted from the end (-1: the last)
  types::Type type;
  // Whether the other arguments parse (LEFT|RIGHT, COUNT...): a command that would answer a
  // syntax error never waits. Null: nothing else to check.
  bool (*args_ok)(std::span<const std::string_view> args) = nullptr;

  // Streams (XREAD, XREADGROUP): a key can exist with nothing for the command, the timeout is
  // an option, and what "$" meant must be kept from the moment the client blocked.
  // Where the timeout is when it is an option: its position, or 0 (no BLOCK: never waits).
  std::size_t (*timeout_at)(std::span<const std::string_view> args) = nullptr;
  bool timeout_ms = false;  // an integer of milliseconds (XREAD BLOCK), not float seconds
  // Whether the `index`-th key (e: its entry, null when missing) can serve the command now;
  // kFifo: yes, unless a client that blocked earlier waits on it (the data is theirs first).
  // Null: any value of `type` serves, FIFO.
  enum class Serve : std::uint8_t { kNo, kYes, kFifo };
  Serve (*serves)(const store::Entry* e, std::span<const std::string_view> args, std::size_t index,
                  std::string_view memo) = nullptr;
  // What to remember when the client blocks (XREAD: the IDs "$" stands for), handed back to
  // the handler by Blocking::take_memo when the wait ends.
  std::string (*memo)(store::Db& db, std::span<const std::string_view> args) = nullptr;
  // XREADGROUP: a waited-on key that stops holding a stream (deleted, flushed, overwritten by
  // another type) ends the wait with -UNBLOCKED, as Redis 7.0's deleted-stream unblocking;
  // the other commands stay blocked on a key of another type.
  bool ends_when_not_type = false;
};
// The specs of the list and sorted-set blocking commands, for their rows (XREAD's is beside
// its handler, in stream_read_commands.cpp).
extern const BlockingSpec kBlockList;    // BLPOP, BRPOP, BRPOPLPUSH: timeout last
extern const BlockingSpec kBlockBlmove;  // BLMOVE: and LEFT|RIGHT twice
extern const BlockingSpec kBlockBlmpop;  // BLMPOP timeout numkeys key… LEFT|RIGHT [COUNT n]
extern const BlockingSpec kBlockZset;    // BZPOPMIN, BZPOPMAX: timeout last
extern const BlockingSpec kBlockBzmpop;  // BZMPOP timeout numkeys key… MIN|MAX [COUNT n]

// Redis's getTimeoutFromObjectOrReply in seconds: milliseconds (0 = forever), or the error
// text. `now_ms` turns it absolute.
struct Timeout {
  std::int64_t deadline_ms = 0;  // 0: forever
  std::string_view error;        // non-empty: the reply ("ERR timeout is negative", ...)
};
Timeout parse_timeout(std::string_view arg, std::int64_t now_ms);
// The UNIT_MILLISECONDS form (XREAD BLOCK): an integer of milliseconds.
Timeout parse_timeout_ms(std::string_view arg, std::int64_t now_ms);

class Blocking {
 public:
  struct Waiter {
    int db = 0;
    std::uint64_t seq = 0;                  // blocking order
    std::int64_t deadline_ms = 0;           // 0: forever
    bool error = false;                     // CLIENT UNBLOCK ... ERROR
    types::Type type = types::Type::kList;  // the value type it waits for
    bool ends_when_not_type = false;        // BlockingSpec::ends_when_not_type
    std::vector<std::string> keys;
    std::string memo;  // BlockingSpec::memo's record
  };
  struct ReadyKey {
    int db = 0;
    std::string key;
  };

  bool empty() const { return waiters_.empty(); }
  std::size_t size() const { return waiters_.size(); }
  const Waiter* find(std::uint64_t token) const {
    auto it = waiters_.find(token);
    return it == waiters_.end() ? nullptr : &it->second;
  }
  void add(std::uint64_t token, int db, std::span<const std::string_view> keys,
           std::int64_t deadline_ms, types::Type type = types::Type::kList,
           bool ends_when_not_type = false);
  // True when the token was waiting.
  bool remove(std::uint64_t token);
  void set_memo(std::uint64_t token, std::string memo) {
    if (auto it = waiters_.find(token); it != waiters_.end()) it->second.memo = std::move(memo);
  }
  // The memo of `token`'s wait that just ended (empty when it did not wait with one).
  std::string take_memo(std::uint64_t token) {
    if (ended_token_ != token) return {};
    ended_token_ = 0;
    return std::move(ended_memo_);
  }
  // The keyspace's key_ready: a waited-on key was written (queued once until taken).
  void key_ready(int db, std::string_view key);
  // FLUSHDB, FLUSHALL, SWAPDB of `db`: every key waited on there is ready (Redis's
  // scanDatabaseForDeletedStreams / scanDatabaseForReadyKeys); whoever finds nothing parks
  // again.
  void db_ready(int db);
  // Whether a waited-on key was written and not yet taken.
  bool has_ready() const { return !ready_.empty(); }
  // Moves the keys made ready so far, in the order they became ready, into `out` (cleared
  // first); keys made ready while they are served queue again.
  void take_ready(std::vector<ReadyKey>& out) {
    out.clear();
    out.swap(ready_);
  }
  // The waiters on `key` in blocking order (null when none).
  const std::vector<std::uint64_t>* waiting_on(int db, std::string_view key) const;
  // Whether a client that blocked before `token` (or any waiter, when `token` does not wait)
  // waits on `key` for a value of `type`: then the data is that client's first (FIFO).
  bool earlier_waiter(std::uint64_t token, int db, std::string_view key,
                      types::Type type = types::Type::kList) const;
  // The waiters whose deadline is at or before `now_ms`, in blocking order, into `out`.
  void due(std::int64_t now_ms, std::vector<std::uint64_t>& out) const;
  // Forgets waiters whose deadline is before `before_ms`: tokens whose command can no longer
  // run (its client went away without a word), so they do not keep the poll busy.
  void drop_stale(std::int64_t before_ms);
  // The earliest deadline of any waiter; INT64_MAX when none has one.
  std::int64_t next_deadline() const;
  // The waiters that have a deadline (Redis's clients_in_timeout_table).
  std::size_t with_deadline() const;

  // Set by the executor for the one command it runs after its deadline.
  void set_timed_out(std::uint64_t token, bool error) {
    timed_out_ = token;
    timed_out_error_ = error;
  }
  // The handler's question: is this run the timeout of `token`? (clears it)
  bool take_timed_out(std::uint64_t token) {
    const bool t = timed_out_ == token && token != 0 && !timed_out_error_;
    timed_out_ = 0;
    return t;
  }
  // Whether this run ends `token`'s wait by CLIENT UNBLOCK ... ERROR (the handler answers
  // -UNBLOCKED); asked before take_timed_out.
  bool unblocked_by_error(std::uint64_t token) const {
    return timed_out_ == token && token != 0 && timed_out_error_;
  }
  // CLIENT UNBLOCK: ends the wait of the waiter whose client id is `id` (whichever worker
  // the client is connected to) at the next poll, as a timeout or with -UNBLOCKED. False
  // when no such client waits here.
  bool unblock_client(std::uint64_t id, bool error);

 private:
  static std::string slot_key(int db, std::string_view key);

  std::unordered_map<std::uint64_t, Waiter> waiters_;
  // "db:key" → its waiters' tokens in blocking order (seq ascending: add() appends).
  std::unordered_map<std::string, std::vector<std::uint64_t>> keys_;
  std::vector<ReadyKey> ready_;
  std::uint64_t timed_out_ = 0;
  bool timed_out_error_ = false;
  std::uint64_t next_seq_ = 1;
  std::uint64_t ended_token_ = 0;  // the last removed waiter with a memo, and the memo
  std::string ended_memo_;
};

}  // namespace ruvio::worker
