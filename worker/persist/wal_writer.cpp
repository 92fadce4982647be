#include "worker/persist/wal_writer.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace ruvio::persist {

std::string segment_name(std::uint64_t seq) {
  char name[32];
  std::snprintf(name, sizeof name, "wal-%016" PRIx64 ".log", seq);
  return name;
}

bool sync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// fallocate leaves "unwritten" extents: the first write to each turns it into a written one,
// a metadata change that every fdatasync then has to commit. Writing the zeros once up front
// (as PostgreSQL does for its WAL segments) leaves fdatasync only data pages to flush.
bool zero_fill(int fd, std::uint64_t bytes) {
  static const std::string zeros(1 << 20, '\0');
  for (std::uint64_t at = 0; at < bytes;) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(zeros.size(), bytes - at));
    ssize_t w = ::pwrite(fd, zeros.data(), n, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    at += static_cast<std::uint64_t>(w);
  }
  return ::fdatasync(fd) == 0;
}

WalWriter::WalWriter(std::string dir, std::uint64_t segment_bytes, bool zero_fill)
    : dir_(std::move(dir)), segment_bytes_(segment_bytes), zero_fill_(zero_fill) {
  buf_.reserve(1 << 20);
}

WalWriter::~WalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void WalWriter::fail(int err) {
  writable_ = false;
  errno_ = err;
}

bool WalWriter::open_segment(std::uint64_t seq, std::uint64_t bytes) {
  std::string path = dir_ + "/" + segment_name(seq);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail(errno);
    return false;
  }
  // Mode 0 extends the file: the tail reads as zeros, which the reader takes as "end".
  int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (rc != 0) {
    ::close(fd);
    ::unlink(path.c_str());
    fail(rc);
    return false;
  }
  if (zero_fill_ && !zero_fill(fd, bytes)) {
    int e = errno;
    ::close(fd);
    ::unlink(path.c_str());
    fail(e);
    return false;
  }
  if (!sync_dir(dir_)) {
    int e = errno;
    ::close(fd);
    ::unlink(path.c_str());
    fail(e);
    return false;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  seq_ = seq;
  seg_size_ = bytes;
  written_ = 0;
  unsynced_ = false;
  return true;
}

bool WalWriter::start(std::uint64_t seq) {
  seq_ = seq;
  if (!open_segment(seq, segment_bytes_)) return false;
  writable_ = true;
  errno_ = 0;
  return true;
}

bool WalWriter::reserve(std::size_t need) {
  if (!writable_) return false;
  if (fd_ >= 0 && written_ + buf_.size() + need <= seg_size_) return true;
  return next_segment(std::max<std::uint64_t>(segment_bytes_, need + 4096));
}

bool WalWriter::next_segment(std::uint64_t bytes) {
  int old_fd = fd_;
  if (old_fd >= 0) {
    // Finish the current segment while it is still current.
    if (!flush() || !sync()) return false;
  }
  std::uint64_t old_written = written_;
  std::uint64_t old_size = seg_size_;
  fd_ = -1;  // open_segment must not close the old one before the new one exists
  if (!open_segment(seq_ + 1, bytes)) {
    // The new segment could not be had: the current one stays as it is.
    fd_ = old_fd;
    written_ = old_written;
    seg_size_ = old_size;
    return false;
  }
  if (old_fd >= 0) {
    // Cut the unused preallocated tail of the finished segment.
    if (::ftruncate(old_fd, static_cast<off_t>(old_written)) == 0) ::fdatasync(old_fd);
    ::close(old_fd);
  }
  return true;
}

bool WalWriter::flush() {
  if (buf_.empty()) return true;
  if (fd_ < 0) {
    fail(EBADF);
    return false;
  }
  std::size_t done = 0;
  while (done < buf_.size()) {
    ssize_t n =
        ::pwrite(fd_, buf_.data() + done, buf_.size() - done, static_cast<off_t>(written_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      written_ += done;
      logged_ += done;
      buf_.erase(0, done);
      unsynced_ = unsynced_ || done > 0;
      fail(e);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  written_ += done;
  logged_ += done;
  buf_.clear();
  unsynced_ = true;
  return true;
}

bool WalWriter::sync() {
  if (!unsynced_) return true;
  if (::fdatasync(fd_) != 0) {
    fail(errno);
    return false;
  }
  unsynced_ = false;
  return true;
}

bool WalWriter::retry() {
  if (writable_) return true;
  writable_ = true;  // let flush/sync/reserve run; each sets it back on failure
  if (!flush() || !sync()) return false;
  if (fd_ < 0 || written_ + 64 * 1024 > seg_size_) {
    if (!reserve(64 * 1024)) return false;
  }
  errno_ = 0;
  return true;
}

std::uint64_t WalWriter::roll() {
  if (!writable_ || !next_segment(segment_bytes_)) return 0;
  return seq_;
}

void WalWriter::remove_before(std::uint64_t seq) {
  DIR* d = ::opendir(dir_.c_str());
  if (d == nullptr) return;
  std::vector<std::string> doomed;
  while (dirent* e = ::readdir(d)) {
    unsigned long long s = 0;
    char tail[8] = {};
    if (std::sscanf(e->d_name, "wal-%16llx.%4s", &s, tail) == 2 &&
        std::string_view(tail) == "log" && s < seq) {
      doomed.push_back(dir_ + "/" + e->d_name);
    }
  }
  ::closedir(d);
  for (const auto& p : doomed) ::unlink(p.c_str());
  if (!doomed.empty()) sync_dir(dir_);
}

void WalWriter::close() {
  if (fd_ < 0) return;
  flush();
  sync();
  if (::ftruncate(fd_, static_cast<off_t>(written_)) == 0) ::fdatasync(fd_);
  ::close(fd_);
  fd_ = -1;
  writable_ = false;
}

}  // namespace ruvio::persist
