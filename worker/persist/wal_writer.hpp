// Appends WAL records to preallocated segment files and makes them durable.
//
// Disk-full safety comes from preallocation: a segment is fallocate'd whole when it is
// created, so writing into it cannot hit ENOSPC. Before a write command runs, the caller
// reserves room for its record (reserve); when the segment is full a new one is
// preallocated, and when that fails the journal turns not-writable: the command is refused
// before it touches the keyspace. write/fsync errors (EIO, a file system gone read-only)
// turn it not-writable too; retry() (on a timer) brings it back once the disk recovers.
//
// Records are gathered in memory during a loop turn and written with one write() per turn
// (flush). Durability is the caller's choice of when to call sync(): once per turn
// (`always`, group commit) or on a timer (`everysec`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ruvio::persist {

// "wal-000000000000002a.log"
std::string segment_name(std::uint64_t seq);

class WalWriter {
 public:
  // zero_fill: write every new segment's bytes once (see wal_writer.cpp) so that a later
  // fdatasync has no extent conversions to commit; worth it when fsyncs are frequent.
  WalWriter(std::string dir, std::uint64_t segment_bytes, bool zero_fill = false);
  ~WalWriter();
  WalWriter(const WalWriter&) = delete;
  WalWriter& operator=(const WalWriter&) = delete;

  // Creates segment `seq` (it must not exist). false when it cannot be preallocated: the
  // writer then stays not-writable and retry() keeps trying.
  bool start(std::uint64_t seq);

  bool writable() const { return writable_; }
  int last_errno() const { return errno_; }

  // Room for `need` more bytes of records, in this segment or a fresh one. false = refuse.
  bool reserve(std::size_t need);
  // Records of this turn go here (after a successful reserve for their size).
  std::string& buffer() { return buf_; }

  // Writes the buffer to the segment. false on a write error (the unwritten part is kept).
  bool flush();
  // fdatasync when anything was written since the last sync. false on error.
  bool sync();
  bool needs_sync() const { return unsynced_ || !buf_.empty(); }
  // Tries to clear an error: write what is pending, sync, and get preallocated room again.
  bool retry();

  // Ends the current segment (flushed and synced) and starts the next one; returns the new
  // segment's sequence number, or 0 on failure. Everything logged so far lies in
  // segments with a smaller number (BGSAVE notes this boundary).
  std::uint64_t roll();
  std::uint64_t seq() const { return seq_; }
  // Bytes of records logged since start (written or buffered).
  std::uint64_t logged_bytes() const { return logged_; }
  // Records are waiting in the buffer or written but not yet fsynced.
  bool pending_sync() const { return unsynced_ || !buf_.empty(); }
  // Removes every segment numbered below `seq` (they are covered by a snapshot).
  void remove_before(std::uint64_t seq);
  // Closes the segment, cutting its unused preallocated tail (graceful shutdown).
  void close();

 private:
  bool open_segment(std::uint64_t seq, std::uint64_t bytes);
  bool next_segment(std::uint64_t bytes);
  void fail(int err);

  std::string dir_;
  std::uint64_t segment_bytes_;
  bool zero_fill_;
  std::string buf_;
  int fd_ = -1;
  std::uint64_t seq_ = 0;
  std::uint64_t seg_size_ = 0;  // preallocated bytes of the current segment
  std::uint64_t written_ = 0;   // bytes written to it (buffer not included)
  std::uint64_t logged_ = 0;
  bool unsynced_ = false;
  bool writable_ = false;
  int errno_ = 0;
};

// fsync of a directory, so a created, renamed or removed name survives a crash.
bool sync_dir(const std::string& dir);

}  // namespace ruvio::persist
