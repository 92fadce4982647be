// One worker's durability: the journal around every write command, the fsync policy, the
// snapshots (fork), the start-up recovery and the data dir's identity check.
//
// The server calls it at four points: recover() before listening; before_write/after_write
// around each write command (the executor's Journal); on_turn() at the start of each loop turn's
// check phase, before any reply leaves; shutdown() when the worker stops.
#pragma once

#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "proto/resp_writer.hpp"
#include "shared/control.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/shard.hpp"
#include "worker/persist/effect.hpp"
#include "worker/persist/service.hpp"
#include "worker/persist/wal_format.hpp"
#include "worker/persist/wal_writer.hpp"

namespace ruvio::persist {

class Persistence final : public Service, public worker::Journal {
 public:
  using Execute = std::function<void(worker::ClientInfo&, std::span<const std::string_view>,
                                     proto::ReplyWriter&)>;
  Persistence(uv_loop_t* loop, worker::Shard& shard, const control::WorkerInit& init,
              Execute execute);
  ~Persistence() override;

  // Loads the snapshot and replays the WAL through `execute`, then opens a fresh segment.
  // Returns why the worker must not start (wrong data dir, corrupt snapshot, unknown format).
  std::optional<std::string> recover();

  // Before a write command: false (and a -MISCONF reply written) when it cannot be logged.
  bool before_write(std::span<const std::string_view> args, proto::ReplyWriter& out) override {
    if (!journaling_) return true;
    // Inside EXEC the whole batch is written as one record: room for all of it so far.
    if (!writer_->reserve(command_record_size(args) + kEffectSlack + batch_.size())) {
      misconf(out);
      return false;
    }
    mutations_before_ = shard_.mutations();
    shard_.effect().clear();
    return true;
  }
  // After it ran: logs its effect when it changed the keyspace.
  void after_write(int db, std::span<const std::string_view> args) override {
    if (!journaling_ || shard_.mutations() == mutations_before_) return;
    log(db, args);
  }
  // EXEC: the effects logged between these two calls become one all-or-nothing record.
  void begin_batch() override {
    batching_ = journaling_;
    batch_.clear();
    batch_count_ = 0;
  }
  void end_batch() override;

  // Start of the check phase: this turn's records reach the file (and, under `always`, the
  // disk) before the replies that depend on them are flushed.
  void on_turn();
  // Graceful stop: everything logged is written and fsynced.
  void shutdown();

  // Service
  std::optional<std::string> save() override;
  std::string bgsave(bool schedule, bool rewrite) override;
  std::int64_t last_save_unix() const override { return last_save_ms_ / 1000; }
  void info(const std::function<void(std::string_view, std::string_view)>& field) override;
  std::uint64_t wal_bytes() const override {
    return journaling_ ? writer_->logged_bytes() - logged_at_snapshot_ : 0;
  }
  bool sync_now() override;
  std::string snapshot_dir() const override { return dir_; }
  std::uint64_t wal_lag_ms(std::int64_t now_ms) const override {
    if (!journaling_ || always_ || !writer_->pending_sync()) return 0;
    return static_cast<std::uint64_t>(now_ms - last_sync_ms_);
  }

 private:
  static constexpr std::size_t kEffectSlack = 128;  // a rewritten effect may be a bit longer

  static void on_sync_timer(uv_timer_t* t);
  static void on_tick(uv_timer_t* t);
  void tick();
  void misconf(proto::ReplyWriter& out);
  void log(int db, std::span<const std::string_view> args);
  void batch_command(int db, std::span<const std::string_view> args);  // one inner payload
  std::optional<std::string> check_meta();
  std::optional<std::string> start_bgsave(bool rewrite);
  void reap_child();
  void snapshot_done(bool ok, std::int64_t took_ms);
  void set_writable_state(bool ok);
  std::vector<store::Db*> dbs();
  // The function libraries' codes, for a snapshot (views into the live libraries).
  std::vector<std::string_view> library_codes() const;

  uv_loop_t* loop_;
  void note_fork(std::uint64_t ns);
  void sample_child_cow(std::int64_t now_ms);
  void release_child_shared();
  worker::Shard& shard_;
  control::WorkerInit init_;
  Execute execute_;
  std::string dir_;
  std::unique_ptr<WalWriter> writer_;
  bool always_ = false;
  bool batching_ = false;
  std::string batch_;
  std::uint32_t batch_count_ = 0;
  bool journaling_ = false;
  bool was_writable_ = true;
  std::uint64_t mutations_before_ = 0;
  uv_timer_t sync_timer_{};
  uv_timer_t tick_timer_{};
  bool timers_ = false;

  // Snapshot state (Redis's INFO names in comments).
  pid_t child_ = -1;
  bool child_rewrite_ = false;
  std::uint64_t child_seq_ = 0;    // first segment the running snapshot does not cover
  std::uint64_t child_dirty_ = 0;  // dirty_ when it started
  std::int64_t child_start_ms_ = 0;
  // What a snapshot child tells its worker, as Redis's child info pipe does: a page both
  // map, with the keys written so far and the child's copy-on-write size when it ends.
  struct ChildShared;
  ChildShared* child_shared_ = nullptr;
  std::uint64_t child_keys_total_ = 0;    // current_save_keys_total
  std::uint64_t cow_current_ = 0;         // current_cow_size: the child's Private_Dirty
  std::uint64_t cow_peak_ = 0;            // current_cow_peak
  std::int64_t cow_sampled_ms_ = 0;       // when current_cow_size was read
  std::uint64_t last_cow_ = 0;            // rdb_last_cow_size
  std::uint64_t last_rewrite_cow_ = 0;    // aof_last_cow_size (BGREWRITEAOF's snapshot)
  bool scheduled_ = false;                // aof_rewrite_scheduled / BGSAVE SCHEDULE
  std::uint64_t dirty_ = 0;               // rdb_changes_since_last_save
  std::int64_t last_save_ms_ = 0;         // rdb_last_save_time
  bool last_bgsave_ok_ = true;            // rdb_last_bgsave_status
  std::int64_t last_bgsave_sec_ = -1;     // rdb_last_bgsave_time_sec
  std::uint64_t saves_ = 0;               // rdb_saves
  std::uint64_t rewrites_ = 0;            // aof_rewrites
  std::uint64_t loaded_keys_ = 0;         // rdb_last_load_keys_loaded
  std::uint64_t logged_at_snapshot_ = 0;  // WAL bytes when the last snapshot began
  std::uint64_t snapshot_bytes_ = 0;      // aof_base_size
  std::int64_t last_sync_ms_ = 0;
};

}  // namespace ruvio::persist
