#include "worker/server/persistence.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#include "shared/proc_stats.hpp"
#include "worker/engine/executor.hpp"
#include "worker/persist/snapshot.hpp"
#include "worker/persist/wal_reader.hpp"
#include "worker/script/functions.hpp"
#include "worker/script/lua_engine.hpp"

namespace ruvio::persist {

struct Persistence::ChildShared {
  std::atomic<std::uint64_t> keys{0};       // written so far (current_save_keys_processed)
  std::atomic<std::uint64_t> cow_bytes{0};  // the child's Private_Dirty as it finished
};

namespace {

constexpr std::uint64_t kTickMs = 100;

std::int64_t wall_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

bool make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return true;
  return false;
}

std::string meta_text(const control::WorkerInit& init) {
  return "ruvio-data 1\nworkers " + std::to_string(init.worker_count) + "\nslots " +
         std::to_string(init.slot_first) + "-" + std::to_string(init.slot_last) + "\n";
}

}  // namespace

Persistence::Persistence(uv_loop_t* loop, worker::Shard& shard, const control::WorkerInit& init,
                         Execute execute)
    : loop_(loop), shard_(shard), init_(init), execute_(std::move(execute)) {
  dir_ = init.config.dir + "/worker-" + std::to_string(init.id);
  always_ = init.config.durability == Durability::kAlways;
  writer_ = std::make_unique<WalWriter>(dir_, init.config.wal_segment_bytes, always_);
  last_save_ms_ = wall_ms();
}

Persistence::~Persistence() {
  if (timers_) {
    uv_timer_stop(&sync_timer_);
    uv_timer_stop(&tick_timer_);
  }
}

std::vector<store::Db*> Persistence::dbs() {
  std::vector<store::Db*> v;
  for (int i = 0; i < shard_.databases(); ++i) v.push_back(&shard_.db(i));
  return v;
}

// The data dir records the service layout it was written for: keys are placed by slot, so
// the same files under another worker count or slot range would serve the wrong keys.
namespace {

// A meta file's text on one line, or nullopt when there is none.
std::optional<std::string> read_meta(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::optional<std::string> Persistence::check_meta() {
  const std::string path = dir_ + "/meta";
  const std::string want = meta_text(init_);
  std::optional<std::string> have = read_meta(path);
  if (!have) {
    // No meta of our own: a new worker dir. It is only new if the other workers' dirs were
    // written for this same worker count; otherwise this worker's slots hold keys that
    // live in a sibling dir (e.g. 1 worker → 2), and serving them empty would be wrong.
    const std::string workers_line = "workers " + std::to_string(init_.worker_count) + "\n";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(init_.config.dir, ec)) {
      if (entry.path().filename().string().rfind("worker-", 0) != 0) continue;
      auto sibling = read_meta(entry.path().string() + "/meta");
      if (sibling && sibling->find(workers_line) == std::string::npos) {
        have = sibling;
        break;
      }
    }
  }
  if (have) {
    if (*have == want) return std::nullopt;
    return "data dir " + dir_ + " was written by a different layout (" + one_line(*have) +
           ") than this service's (workers " + std::to_string(init_.worker_count) + ", slots " +
           std::to_string(init_.slot_first) + "-" + std::to_string(init_.slot_last) +
           "). Resharding a data dir is not supported yet: start with the worker count it "
           "was written with, or move " +
           init_.config.dir + " away to start empty";
  }
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create " + tmp + ": " + std::strerror(errno);
  bool ok = ::write(fd, want.data(), want.size()) == static_cast<ssize_t>(want.size()) &&
            ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0 || !sync_dir(dir_)) {
    return "cannot write " + path + ": " + std::strerror(errno);
  }
  return std::nullopt;
}

std::vector<std::string_view> Persistence::library_codes() const {
  std::vector<std::string_view> codes;
  const worker::script::Engine* e =
      shard_.executor != nullptr ? worker::script::started_engine(*shard_.executor) : nullptr;
  const worker::script::Functions* f = e != nullptr ? e->functions_if_started() : nullptr;
  if (f == nullptr) return codes;
  for (const auto& [name, lib] : f->libraries()) codes.emplace_back(lib->code);
  return codes;
}

std::optional<std::string> Persistence::recover() {
  if (!make_dir(init_.config.dir) || !make_dir(dir_)) {
    return "cannot create data dir " + dir_ + ": " + std::strerror(errno);
  }
  if (auto err = check_meta()) return err;
  ::unlink((dir_ + "/" + kSnapshotTmp).c_str());  // a snapshot a crash interrupted

  const auto t0 = std::chrono::steady_clock::now();
  SnapshotInfo snap;
  std::string error;
  auto all = dbs();
  std::vector<std::string> libraries;
  LoadResult lr = load_snapshot(all, dir_, snap, error, &libraries);
  if (lr == LoadResult::kCorrupt) {
    if (!init_.config.ignore_corrupt_snapshot) {
      return "corrupt snapshot, refusing to start rather than serve partial data: " + error +
             ". To start from the WAL alone (keys only in the snapshot are lost), start with "
             "--ignore-corrupt-snapshot on; or restore " +
             dir_ + "/snapshot from a backup";
    }
    spdlog::warn("corrupt snapshot ignored (--ignore-corrupt-snapshot on): {}", error);
    for (store::Db* db : all) db->clear();
    snap = SnapshotInfo{};
    ::rename((dir_ + "/snapshot").c_str(), (dir_ + "/snapshot.corrupt").c_str());
  } else if (lr == LoadResult::kLoaded) {
    loaded_keys_ = snap.keys;
    snapshot_bytes_ = snap.bytes;
    last_save_ms_ = snap.created_ms;
  }

  // Replay: each record runs through the command table as it ran live, on its own clock.
  worker::ClientInfo replayer;
  replayer.name = "wal-replay";
  replayer.obey = true;
  std::string scratch;
  proto::ReplyWriter out(scratch);
  // The snapshot's function libraries load first, as FUNCTION LOAD (without its timeout:
  // they were accepted once).
  if (lr == LoadResult::kLoaded) {
    for (const std::string& code : libraries) {
      scratch.clear();
      const std::string_view load[] = {"FUNCTION", "LOAD", code};
      execute_(replayer, load, out);
      if (!scratch.empty() && scratch[0] == '-') spdlog::warn("snapshot library: {}", scratch);
    }
  }
  std::uint64_t errors = 0;
  ReplayReport report;
  auto err = replay_wal(
      dir_, snap.wal_seq,
      [&](const Command& cmd) {
        replayer.db = cmd.db;
        shard_.set_now_ms(cmd.now_ms);
        scratch.clear();
        if (cmd.db < 0 || cmd.db >= shard_.databases()) {
          ++errors;
          return;
        }
        execute_(replayer, cmd.args, out);
        if (!scratch.empty() && scratch[0] == '-') {
          if (errors++ < 5)
            spdlog::warn("WAL record {} replied {}", std::string(cmd.args[0]), scratch);
        }
      },
      report);
  shard_.set_now_ms(wall_ms());
  if (err) return "cannot replay the WAL: " + *err;
  if (report.cut) {
    spdlog::warn("WAL: {} in {} at offset {}: cut {} bytes; every record before it was kept",
                 report.cut_reason, segment_name(report.cut_seq), report.cut_offset,
                 report.cut_bytes);
    for (const auto& p : report.set_aside) spdlog::warn("WAL: later segment set aside as {}", p);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::uint64_t keys = 0;
  for (store::Db* db : all) keys += db->size();
  spdlog::info("recovered {} keys in {:.3f} s (snapshot: {} keys; WAL: {} records, {} bytes{})",
               keys, secs, snap.keys, report.records, report.bytes,
               errors ? ", " + std::to_string(errors) + " replied errors" : std::string());
  dirty_ = report.records;

  std::uint64_t next = std::max(report.last_seq, snap.wal_seq > 0 ? snap.wal_seq - 1 : 0) + 1;
  if (!writer_->start(next)) {
    spdlog::error("WAL: cannot create segment {}: {}; writes are refused until it can",
                  segment_name(next), std::strerror(writer_->last_errno()));
    was_writable_ = false;
  }
  logged_at_snapshot_ = 0;
  journaling_ = true;
  last_sync_ms_ = wall_ms();

  uv_timer_init(loop_, &sync_timer_);
  sync_timer_.data = this;
  uv_timer_init(loop_, &tick_timer_);
  tick_timer_.data = this;
  timers_ = true;
  if (!always_) {
    auto ms = static_cast<std::uint64_t>(init_.config.sync_interval_ms);
    uv_timer_start(&sync_timer_, on_sync_timer, ms, ms);
  }
  uv_timer_start(&tick_timer_, on_tick, kTickMs, kTickMs);
  return std::nullopt;
}

void Persistence::misconf(proto::ReplyWriter& out) {
  // Redis 7's text when the AOF cannot be written (processCommand).
  std::string msg = "MISCONF Errors writing to the AOF file: ";
  msg += std::strerror(writer_->last_errno() != 0 ? writer_->last_errno() : EIO);
  out.error(msg);
  set_writable_state(false);
}

void Persistence::batch_command(int db, std::span<const std::string_view> args) {
  std::size_t at = batch_.size();
  put_u32(batch_, 0);
  append_command_payload(batch_, shard_.now_ms(), db, args);
  auto n = static_cast<std::uint32_t>(batch_.size() - at - 4);
  std::memcpy(batch_.data() + at, &n, 4);
  ++batch_count_;
}

void Persistence::log(int db, std::span<const std::string_view> args) {
  const Effect& e = shard_.effect();
  if (!e.is_set()) {
    if (batching_) {
      batch_command(db, args);
    } else {
      append_command(writer_->buffer(), shard_.now_ms(), db, args);
    }
  } else if (e.count() == 0) {
    return;  // a change that needs no record (the command said so)
  } else if (batching_) {
    for (std::size_t i = 0; i < e.count(); ++i) batch_command(db, e.command(i));
  } else if (e.count() == 1) {
    append_command(writer_->buffer(), shard_.now_ms(), db, e.args());
  } else {
    // Several commands of one effect (XREADGROUP's claims and last ID): one all-or-nothing
    // record, as EXEC's. batch_ is free outside a batch.
    batch_.clear();
    batch_count_ = 0;
    for (std::size_t i = 0; i < e.count(); ++i) batch_command(db, e.command(i));
    append_batch(writer_->buffer(), batch_, batch_count_);
    batch_.clear();
    batch_count_ = 0;
  }
  ++dirty_;
}

void Persistence::end_batch() {
  if (batching_ && batch_count_ > 0) append_batch(writer_->buffer(), batch_, batch_count_);
  batching_ = false;
  batch_.clear();
  batch_count_ = 0;
}

void Persistence::set_writable_state(bool ok) {
  if (ok == was_writable_) return;
  was_writable_ = ok;
  if (ok) {
    spdlog::warn("WAL writable again; write commands are accepted");
  } else {
    spdlog::error("WAL not writable ({}); write commands are refused with -MISCONF",
                  std::strerror(writer_->last_errno()));
  }
}

void Persistence::on_turn() {
  if (!journaling_ || writer_->buffer().empty()) return;
  bool ok = writer_->flush();
  if (ok && always_) {
    // Redis's "aof-fsync-always" latency event; the clock is read only with the monitor on.
    const std::int64_t threshold = shard_.config().latency_monitor_threshold;
    const std::uint64_t start = threshold > 0 ? uv_hrtime() : 0;
    ok = writer_->sync();
    if (threshold > 0 && shard_.executor != nullptr) {
      shard_.executor->latency().add_if_needed(
          threshold, "aof-fsync-always",
          static_cast<std::int64_t>((uv_hrtime() - start) / 1000000));
    }
  }
  if (ok) return;
  if (always_) {
    // The replies of this turn promise their records are on disk, and they are not: the
    // only honest way out is Redis's, to stop before any of them leaves.
    spdlog::critical(
        "WAL write/fsync failed under --durability always ({}); exiting so no "
        "unlogged write is acknowledged",
        std::strerror(writer_->last_errno()));
    std::_Exit(1);
  }
  set_writable_state(false);
}

void Persistence::on_sync_timer(uv_timer_t* t) {
  auto* self = static_cast<Persistence*>(t->data);
  if (!self->writer_->writable()) return;
  if (!self->writer_->needs_sync()) {
    self->last_sync_ms_ = wall_ms();  // nothing unsynced: the disk is as current as it gets
    return;
  }
  if (self->writer_->flush() && self->writer_->sync()) {
    self->last_sync_ms_ = wall_ms();
  } else {
    self->set_writable_state(false);
  }
}

bool Persistence::sync_now() {
  if (!journaling_ || !writer_->writable()) return false;
  if (writer_->needs_sync() && !(writer_->flush() && writer_->sync())) {
    set_writable_state(false);
    return false;
  }
  last_sync_ms_ = wall_ms();
  return true;
}

void Persistence::on_tick(uv_timer_t* t) {
  static_cast<Persistence*>(t->data)->tick();
}

void Persistence::tick() {
  if (!writer_->writable()) {
    if (writer_->retry()) set_writable_state(true);
  } else {
    set_writable_state(true);
  }
  reap_child();
  if (child_ < 0) {
    bool too_big = init_.config.wal_snapshot_bytes > 0 &&
                   writer_->logged_bytes() - logged_at_snapshot_ >= init_.config.wal_snapshot_bytes;
    if (scheduled_ || too_big) {
      if (too_big && !scheduled_)
        spdlog::info("WAL passed {} bytes: snapshotting", init_.config.wal_snapshot_bytes);
      scheduled_ = false;
      if (auto err = start_bgsave(child_rewrite_)) spdlog::warn("snapshot not started: {}", *err);
    }
  }
}

std::optional<std::string> Persistence::start_bgsave(bool rewrite) {
  if (!writer_->writable()) return "the WAL is not writable";
  // Everything logged so far goes into segments below `seq`; the snapshot covers them.
  std::uint64_t seq = writer_->roll();
  if (seq == 0) {
    set_writable_state(false);
    return std::string("cannot start a new WAL segment: ") + std::strerror(writer_->last_errno());
  }
  auto all = dbs();
  const auto libraries = library_codes();
  const std::int64_t now = wall_ms();
  release_child_shared();
  void* page = ::mmap(nullptr, sizeof(ChildShared), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return std::string("mmap: ") + std::strerror(errno);
  child_shared_ = new (page) ChildShared;
  child_keys_total_ = 0;
  for (store::Db* db : all) child_keys_total_ += db->size();
  const std::uint64_t fork_start = uv_hrtime();
  pid_t pid = ::fork();
  if (pid < 0) {
    release_child_shared();
    return std::string("fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    // The child shares libuv's signal pipe with the worker: a signal here must not reach
    // the worker's loop.
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    // A worker that dies mid-snapshot takes its child along: the restarted worker must not
    // race a stale snapshot writer.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    SnapshotInfo info;
    info.progress = &child_shared_->keys;
    auto err = write_snapshot(all, dir_, seq, now, info, libraries);
    if (err) {
      std::fprintf(stderr, "snapshot failed: %s\n", err->c_str());
      std::_Exit(1);
    }
    // Redis's RDB_COW_SIZE: the pages this process holds alone now, the worker's writes
    // during the snapshot among them (each one a page copied).
    if (auto proc = read_proc_stats(::getpid())) {
      child_shared_->cow_bytes.store(proc->private_dirty_bytes, std::memory_order_relaxed);
    }
    std::_Exit(0);
  }
  note_fork(uv_hrtime() - fork_start);
  cow_current_ = cow_peak_ = 0;
  cow_sampled_ms_ = now;
  child_ = pid;
  child_rewrite_ = rewrite;
  child_seq_ = seq;
  child_dirty_ = dirty_;
  child_start_ms_ = now;
  logged_at_snapshot_ = writer_->logged_bytes();
  spdlog::info("background snapshot started by pid {}", pid);
  return std::nullopt;
}

// Redis's redisFork: the "fork" latency event (ms) and the fork rate LATENCY DOCTOR judges
// (the dataset's GB copied per second of fork).
void Persistence::note_fork(std::uint64_t ns) {
  ++shard_.stats().total_forks;
  shard_.stats().latest_fork_usec = ns / 1000;
  if (shard_.executor == nullptr) return;
  worker::LatencyMonitor& monitor = shard_.executor->latency();
  const double usec = std::max<double>(static_cast<double>(ns) / 1000.0, 1.0);
  monitor.set_fork_rate(static_cast<double>(shard_.used_memory()) * 1000000 / usec /
                        (1024.0 * 1024 * 1024));
  monitor.add_if_needed(shard_.config().latency_monitor_threshold, "fork",
                        static_cast<std::int64_t>(ns / 1000000));
}

void Persistence::reap_child() {
  if (child_ < 0) return;
  int status = 0;
  pid_t r = ::waitpid(child_, &status, WNOHANG);
  if (r == 0) {
    sample_child_cow(wall_ms());
    return;
  }
  bool ok = r == child_ && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  child_ = -1;
  if (ok && child_shared_ != nullptr) {
    const std::uint64_t cow = child_shared_->cow_bytes.load(std::memory_order_relaxed);
    (child_rewrite_ ? last_rewrite_cow_ : last_cow_) = cow;
  }
  release_child_shared();
  cow_current_ = cow_peak_ = 0;
  snapshot_done(ok, wall_ms() - child_start_ms_);
}

// current_cow_size: the running child's Private_Dirty, read once a second as Redis's child
// reports it (each read is three small /proc files).
void Persistence::sample_child_cow(std::int64_t now_ms) {
  if (now_ms - cow_sampled_ms_ < 1000) return;
  if (auto proc = read_proc_stats(child_)) {
    cow_current_ = proc->private_dirty_bytes;
    cow_peak_ = std::max(cow_peak_, cow_current_);
    cow_sampled_ms_ = now_ms;
  }
}

void Persistence::release_child_shared() {
  if (child_shared_ == nullptr) return;
  child_shared_->~ChildShared();
  ::munmap(child_shared_, sizeof(ChildShared));
  child_shared_ = nullptr;
}

void Persistence::snapshot_done(bool ok, std::int64_t took_ms) {
  last_bgsave_ok_ = ok;
  last_bgsave_sec_ = took_ms / 1000;
  if (!ok) {
    spdlog::warn("background snapshot failed; the WAL is kept whole");
    return;
  }
  writer_->remove_before(child_seq_);
  dirty_ -= std::min(dirty_, child_dirty_);
  last_save_ms_ = child_start_ms_;
  ++saves_;
  if (child_rewrite_) ++rewrites_;
  struct stat st {};
  if (::stat((dir_ + "/snapshot").c_str(), &st) == 0)
    snapshot_bytes_ = static_cast<std::uint64_t>(st.st_size);
  spdlog::info("background snapshot done in {} ms; WAL segments before {} removed", took_ms,
               segment_name(child_seq_));
}

std::optional<std::string> Persistence::save() {
  if (child_ > 0) return std::string("ERR Background save already in progress");
  if (!writer_->writable()) return std::string("ERR the WAL is not writable");
  std::uint64_t seq = writer_->roll();
  if (seq == 0) return std::string("ERR cannot start a new WAL segment");
  const std::int64_t now = wall_ms();
  SnapshotInfo info;
  if (auto err = write_snapshot(dbs(), dir_, seq, now, info, library_codes())) {
    spdlog::error("SAVE failed: {}", *err);
    last_bgsave_ok_ = false;
    return "ERR " + *err;
  }
  writer_->remove_before(seq);
  logged_at_snapshot_ = writer_->logged_bytes();
  dirty_ = 0;
  last_save_ms_ = now;
  snapshot_bytes_ = info.bytes;
  ++saves_;
  return std::nullopt;
}

std::string Persistence::bgsave(bool schedule, bool rewrite) {
  if (child_ > 0) {
    if (rewrite || schedule) {
      scheduled_ = true;
      child_rewrite_ = child_rewrite_ || rewrite;
      return rewrite ? "Background append only file rewriting scheduled"
                     : "Background saving scheduled";
    }
    return "ERR Background save already in progress";
  }
  if (auto err = start_bgsave(rewrite)) {
    last_bgsave_ok_ = false;
    return "ERR " + *err;
  }
  return rewrite ? "Background append only file rewriting started" : "Background saving started";
}

void Persistence::shutdown() {
  if (!journaling_) return;
  if (child_ > 0) {
    // Redis stops a running BGSAVE on shutdown; its temp file is removed at next start.
    ::kill(child_, SIGKILL);
    ::waitpid(child_, nullptr, 0);
    child_ = -1;
    release_child_shared();
  }
  writer_->close();
  journaling_ = false;
  spdlog::info("WAL flushed and fsynced");
}

void Persistence::info(const std::function<void(std::string_view, std::string_view)>& f) {
  auto num = [&](std::string_view k, std::int64_t v) { f(k, std::to_string(v)); };
  const bool bg = child_ > 0;
  const std::int64_t now = wall_ms();
  num("loading", 0);
  num("async_loading", 0);
  const std::uint64_t processed =
      bg && child_shared_ != nullptr ? child_shared_->keys.load(std::memory_order_relaxed) : 0;
  const std::uint64_t total = bg ? child_keys_total_ : 0;
  num("current_cow_peak", static_cast<std::int64_t>(bg ? cow_peak_ : 0));
  num("current_cow_size", static_cast<std::int64_t>(bg ? cow_current_ : 0));
  num("current_cow_size_age", bg && cow_current_ != 0 ? (now - cow_sampled_ms_) / 1000 : 0);
  char perc[32];
  std::snprintf(
      perc, sizeof perc, "%.2f",
      total != 0 ? 100.0 * static_cast<double>(processed) / static_cast<double>(total) : 0.0);
  f("current_fork_perc", perc);
  num("current_save_keys_processed", static_cast<std::int64_t>(processed));
  num("current_save_keys_total", static_cast<std::int64_t>(total));
  num("rdb_changes_since_last_save", static_cast<std::int64_t>(dirty_));
  num("rdb_bgsave_in_progress", bg && !child_rewrite_);
  num("rdb_last_save_time", last_save_ms_ / 1000);
  f("rdb_last_bgsave_status", last_bgsave_ok_ ? "ok" : "err");
  num("rdb_last_bgsave_time_sec", last_bgsave_sec_);
  num("rdb_current_bgsave_time_sec", bg ? (now - child_start_ms_) / 1000 : -1);
  num("rdb_saves", static_cast<std::int64_t>(saves_));
  num("rdb_last_cow_size", static_cast<std::int64_t>(last_cow_));
  num("rdb_last_load_keys_expired", 0);
  num("rdb_last_load_keys_loaded", static_cast<std::int64_t>(loaded_keys_));
  num("aof_enabled", 1);
  num("aof_rewrite_in_progress", bg && child_rewrite_);
  num("aof_rewrite_scheduled", scheduled_);
  num("aof_last_rewrite_time_sec", rewrites_ > 0 ? last_bgsave_sec_ : -1);
  num("aof_current_rewrite_time_sec", bg && child_rewrite_ ? (now - child_start_ms_) / 1000 : -1);
  f("aof_last_bgrewrite_status", last_bgsave_ok_ ? "ok" : "err");
  num("aof_rewrites", static_cast<std::int64_t>(rewrites_));
  num("aof_rewrites_consecutive_failures", 0);
  f("aof_last_write_status", writer_->writable() ? "ok" : "err");
  num("aof_last_cow_size", static_cast<std::int64_t>(last_rewrite_cow_));
  num("module_fork_in_progress", 0);
  num("module_fork_last_cow_size", 0);
  num("aof_current_size",
      static_cast<std::int64_t>(snapshot_bytes_ + writer_->logged_bytes() - logged_at_snapshot_));
  num("aof_base_size", static_cast<std::int64_t>(snapshot_bytes_));
  num("aof_pending_rewrite", scheduled_);
  num("aof_buffer_length", static_cast<std::int64_t>(writer_->buffer().size()));
  num("aof_pending_bio_fsync", 0);
  num("aof_delayed_fsync", 0);
  // Ruvio's own: the durability profile and this worker's WAL position.
  f("ruvio_durability", always_ ? "always" : "everysec");
  f("ruvio_wal_segment", segment_name(writer_->seq()));
  num("ruvio_wal_last_fsync_age_ms", always_ ? 0 : now - last_sync_ms_);
}

}  // namespace ruvio::persist
