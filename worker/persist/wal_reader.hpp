// Reads the WAL back at start-up: every segment in order, every record checked, and the
// log cut at the first record that is torn or corrupt (everything before it is kept).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "worker/persist/wal_format.hpp"

namespace ruvio::persist {

struct Segment {
  std::uint64_t seq = 0;
  std::string path;
};
// The segment files of `dir`, oldest first.
std::vector<Segment> list_segments(const std::string& dir);

struct ReplayReport {
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;     // record bytes replayed
  std::uint64_t last_seq = 0;  // highest segment number present (0: none)
  // Set when the log was cut: where, how many non-zero bytes went, and why.
  bool cut = false;
  std::uint64_t cut_seq = 0;
  std::uint64_t cut_offset = 0;
  std::uint64_t cut_bytes = 0;
  std::string cut_reason;
  std::vector<std::string> set_aside;  // later segments renamed to *.log.cut-off
};

// Replays the records of segments numbered `from_seq` and up, in order, through `apply`.
// Segments below `from_seq` are covered by the snapshot and are removed. A torn or corrupt
// record ends the replay: its segment is truncated there and any later segment is renamed
// aside (kept for inspection, never replayed). Returns an error for what must stop the
// start-up: an unreadable file, or a record version this build does not know.
std::optional<std::string> replay_wal(const std::string& dir, std::uint64_t from_seq,
                                      const std::function<void(const Command&)>& apply,
                                      ReplayReport& report);

}  // namespace ruvio::persist
