// What the command families see of the persistence layer (SAVE, BGSAVE, LASTSAVE,
// BGREWRITEAOF, INFO persistence, SHUTDOWN SAVE). The worker's Persistence implements it; the
// shard holds a pointer (null under --durability memory).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ruvio::persist {

class Service {
 public:
  virtual ~Service() = default;
  // SAVE: a snapshot in the foreground. The error text on failure.
  virtual std::optional<std::string> save() = 0;
  // BGSAVE [SCHEDULE] (rewrite = false) and BGREWRITEAOF (rewrite = true). Returns the reply:
  // a status text, or an error text starting with "ERR".
  virtual std::string bgsave(bool schedule, bool rewrite) = 0;
  virtual std::int64_t last_save_unix() const = 0;
  // INFO persistence, field by field in Redis's order and names.
  virtual void info(const std::function<void(std::string_view, std::string_view)>& field) = 0;
  // For the supervisor's figures: bytes in the WAL since the last snapshot, and how long
  // acknowledged writes may have waited for their fsync (0 under always, or nothing pending).
  virtual std::uint64_t wal_bytes() const = 0;
  virtual std::uint64_t wal_lag_ms(std::int64_t now_ms) const = 0;
  // WAITAOF: what was logged so far is written and fsynced now. false when there is no WAL
  // or the disk refused.
  virtual bool sync_now() { return false; }
  // The folder holding this worker's snapshot file (DEBUG RELOAD reads it back).
  virtual std::string snapshot_dir() const = 0;
};

}  // namespace ruvio::persist
