// Snapshots: the whole keyspace of one worker in one file, DIR/worker-<i>/snapshot.
//
// The file is a run of records framed exactly as WAL records (wal_format.hpp: u32 len,
// u32 crc32c, u8 version = kSnapshotVersion), whose payload starts with a kind byte:
//
//   head  | 'H' | "RUVIOSNP" | u64 wal_seq | i64 created_ms | u32 databases |
//   key   | 'K' | u32 db | u8 type | u8 enc | i64 expire_at | u32 klen | key | value |
//           enc 0 (bytes): value = u32 n, n bytes      enc 1 (int): value = i64
//           enc 2 (value object): value = u8 type id | u8 object encoding | u32 n | n bytes,
//             the bytes being what the type's ValueOps::save wrote (types/value.hpp)
//   lib   | 'F' | u32 n | n bytes: a function library's code (FUNCTION LOAD's argument) |
//   end   | 'E' | u64 keys |
//
//   [head][lib] ... [lib][key][key] ... [key][end]
//
// Function libraries come first, as Redis writes them before the keys of its RDB; recovery
// loads them again (an older build, which knew no 'F', refuses such a file as corrupt).
//
// wal_seq is the first WAL segment the snapshot does not cover: recovery loads the
// snapshot, then replays segments from wal_seq on. expire_at is absolute (-1 = none) and
// kept even when already past, so a later WAL record sees the key exactly as it was. A file
// without its end record, with a bad checksum or trailing bytes is corrupt, never half
// loaded. `type` is types::Type. Strings are written as in version 1's first builds, so the
// version did not change when value objects (enc 2) were added.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "worker/store/db.hpp"

namespace ruvio::persist {

inline constexpr std::uint8_t kSnapshotVersion = 1;
inline constexpr const char* kSnapshotFile = "snapshot";
inline constexpr const char* kSnapshotTmp = "snapshot.tmp";

struct SnapshotInfo {
  std::uint64_t wal_seq = 0;
  std::int64_t created_ms = 0;
  std::uint64_t keys = 0;
  std::uint64_t bytes = 0;
  // In: where the writer counts the keys written so far, after every batch (a fork child's
  // page shared with its worker, for INFO's current_save_keys_processed); null: not counted.
  std::atomic<std::uint64_t>* progress = nullptr;
};

// Writes `dbs` to DIR/snapshot.tmp, fsyncs it, renames it over DIR/snapshot and fsyncs DIR.
// Returns the error text on failure (the old snapshot, if any, is untouched). `file` names
// another file of DIR (its temporary is `file`.tmp): DEBUG RELOAD under --durability memory.
std::optional<std::string> write_snapshot(std::span<store::Db* const> dbs, const std::string& dir,
                                          std::uint64_t wal_seq, std::int64_t created_ms,
                                          SnapshotInfo& info,
                                          std::span<const std::string_view> libraries = {},
                                          std::string_view file = kSnapshotFile);

enum class LoadResult : std::uint8_t { kMissing, kLoaded, kCorrupt };
// Loads DIR/snapshot (or DIR/`file`) into `dbs` and the library codes into `libraries` (when
// given). A key already in `dbs` is overwritten (DEBUG RELOAD NOFLUSH). kCorrupt sets `error`.
LoadResult load_snapshot(std::span<store::Db* const> dbs, const std::string& dir,
                         SnapshotInfo& info, std::string& error,
                         std::vector<std::string>* libraries = nullptr,
                         std::string_view file = kSnapshotFile);

}  // namespace ruvio::persist
