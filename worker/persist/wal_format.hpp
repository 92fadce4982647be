// The bytes of the write-ahead log and of snapshots: record framing and the command payload.
//
// A WAL segment (DIR/worker-<i>/wal-<seq, 16 hex digits>.log) is preallocated with zeros
// (fallocate) and filled from the front; a zero length word marks the end of the data:
//
//   [record][record] ... [record][00 00 00 00 00 ...preallocated, never written...]
//
// Every record, in the WAL and in a snapshot:
//
//   0        4        8     9
//   +--------+--------+-----+--------------------------------------------+
//   | u32    | u32    | u8  | payload: len - 1 bytes                     |
//   | len    | crc    | ver |                                            |
//   +--------+--------+-----+--------------------------------------------+
//   len  bytes after the crc field (ver + payload); 1..kMaxBody. 0 = end of data.
//   crc  CRC32C over the 4 len bytes, then ver + payload: a flipped bit anywhere, or a
//        length that points into garbage, fails the check.
//   ver  payload format. A reader refuses a version it does not know (a newer Ruvio's
//        log) instead of guessing.
//
// WAL payload, version 1: one logical write, replayed through the command table.
//
//   +------------+--------+----------+------------------------------+
//   | i64 now_ms | u32 db | u32 argc | argc × [u32 n][n bytes]      |
//   +------------+--------+----------+------------------------------+
//   now_ms  the worker's clock when the command ran. Replay runs the record with this
//           clock, so lazy expiry and anything time-relative decides as it did live
//           (commands also log absolute times: EXPIRE → PEXPIREAT, SET EX → SET PXAT).
//   args    the command's logical effect: its own arguments, or what the handler wrote
//           with Context::log_as (INCRBYFLOAT → SET of the result, GETDEL → DEL, ...).
//
// WAL payload, version 2: a transaction (EXEC), all or nothing — one checksum covers every
// command, so a torn tail can never keep a prefix of it.
//
//   +-----------+---------------------------------------------+
//   | u32 count | count × [u32 n][n bytes: a version-1 payload] |
//   +-----------+---------------------------------------------+
//
// Every integer is little-endian. A data type added later needs no new framing: its
// commands are logged as commands; only the snapshot gains a value encoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio::persist {

inline constexpr std::size_t kHeaderBytes = 9;  // len + crc + ver
inline constexpr std::uint32_t kMaxBody = 1u << 30;
inline constexpr std::uint8_t kWalVersion = 1;
inline constexpr std::uint8_t kWalBatchVersion = 2;

inline void put_u32(std::string& b, std::uint32_t v) {
  char x[4];
  std::memcpy(x, &v, 4);  // x86/ARM Linux are little-endian; the format says so too
  b.append(x, 4);
}
inline void put_u64(std::string& b, std::uint64_t v) {
  char x[8];
  std::memcpy(x, &v, 8);
  b.append(x, 8);
}
inline std::uint32_t get_u32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline std::uint64_t get_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Starts a record in `b`; returns its offset for finish_record.
inline std::size_t begin_record(std::string& b, std::uint8_t version) {
  std::size_t at = b.size();
  b.append(8, '\0');
  b.push_back(static_cast<char>(version));
  return at;
}
// Fills in len and crc of the record begun at `at` (everything appended since is its body).
void finish_record(std::string& b, std::size_t at);

// Appends one complete WAL command record.
void append_command(std::string& b, std::int64_t now_ms, int db,
                    std::span<const std::string_view> args);
// The exact size append_command will add.
std::size_t command_record_size(std::span<const std::string_view> args);

enum class Parse : std::uint8_t {
  kOk,       // `body` (ver + payload) and `size` (header + body) are set
  kEnd,      // a zero length word: no more records
  kTorn,     // the bytes stop inside the record (a crash mid-write)
  kCorrupt,  // a length out of range or a checksum mismatch
};
struct RecordView {
  std::uint8_t version = 0;
  std::string_view payload;  // after the version byte
  std::size_t size = 0;      // bytes the whole record takes
};
Parse parse_record(std::string_view data, RecordView& out);

struct Command {
  std::int64_t now_ms = 0;
  int db = 0;
  std::vector<std::string_view> args;  // views into the record
};
// false when the payload is malformed (its checksum passed, so: a bug or a foreign file).
bool decode_command(std::string_view payload, Command& out);

// A version-1 payload without framing (the inner commands of a batch).
void append_command_payload(std::string& b, std::int64_t now_ms, int db,
                            std::span<const std::string_view> args);
// Frames `inner` ([u32 n][payload] × count) as one version-2 record.
void append_batch(std::string& b, std::string_view inner, std::uint32_t count);
// The inner payloads of a version-2 record; false when malformed.
bool decode_batch(std::string_view payload, std::vector<std::string_view>& out);

}  // namespace ruvio::persist
