#include "worker/persist/wal_reader.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "worker/persist/wal_writer.hpp"

namespace ruvio::persist {
namespace {

std::string sys_error(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// A read-only view of a whole file.
class Mapped {
 public:
  ~Mapped() {
    if (base_ != nullptr) ::munmap(base_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  std::optional<std::string> open(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) return sys_error("cannot open", path);
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return sys_error("cannot stat", path);
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ == 0) return std::nullopt;
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) return sys_error("cannot map", path);
    base_ = p;
    ::madvise(base_, size_, MADV_SEQUENTIAL);
    return std::nullopt;
  }
  std::string_view data() const {
    return base_ == nullptr ? std::string_view()
                            : std::string_view(static_cast<const char*>(base_), size_);
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  void* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace

std::vector<Segment> list_segments(const std::string& dir) {
  std::vector<Segment> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    unsigned long long seq = 0;
    if (name.size() != 24 || !name.starts_with("wal-") || !name.ends_with(".log")) continue;
    if (std::sscanf(e->d_name + 4, "%16llx", &seq) != 1) continue;
    out.push_back({seq, dir + "/" + std::string(name)});
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(),
            [](const Segment& a, const Segment& b) { return a.seq < b.seq; });
  return out;
}

std::optional<std::string> replay_wal(const std::string& dir, std::uint64_t from_seq,
                                      const std::function<void(const Command&)>& apply,
                                      ReplayReport& report) {
  std::vector<Segment> segs = list_segments(dir);
  bool stopped = false;
  bool changed_names = false;
  Command cmd;
  for (const Segment& seg : segs) {
    report.last_seq = std::max(report.last_seq, seg.seq);
    if (seg.seq < from_seq) {
      ::unlink(seg.path.c_str());
      changed_names = true;
      continue;
    }
    if (stopped) {
      std::string aside = seg.path + ".cut-off";
      if (::rename(seg.path.c_str(), aside.c_str()) != 0)
        return sys_error("cannot rename", seg.path);
      report.set_aside.push_back(aside);
      changed_names = true;
      continue;
    }
    Mapped file;
    if (auto err = file.open(seg.path)) return err;
    std::string_view data = file.data();
    std::size_t at = 0;
    Parse status = Parse::kEnd;
    while (at < data.size()) {
      RecordView rec;
      status = parse_record(data.substr(at), rec);
      if (status != Parse::kOk) break;
      if (rec.version != kWalVersion && rec.version != kWalBatchVersion) {
        return "record version " + std::to_string(rec.version) + " at offset " +
               std::to_string(at) + " of " + seg.path +
               " is not known to this build (written by a newer Ruvio?)";
      }
      if (rec.version == kWalBatchVersion) {
        std::vector<std::string_view> inner;
        bool ok = decode_batch(rec.payload, inner);
        for (std::size_t i = 0; ok && i < inner.size(); ++i) ok = decode_command(inner[i], cmd);
        if (!ok) {
          status = Parse::kCorrupt;
          break;
        }
        for (std::string_view payload : inner) {
          decode_command(payload, cmd);
          apply(cmd);
        }
      } else {
        if (!decode_command(rec.payload, cmd)) {
          status = Parse::kCorrupt;
          break;
        }
        apply(cmd);
      }
      ++report.records;
      report.bytes += rec.size;
      at += rec.size;
    }
    if (at < data.size()) {
      // Zeros after the data are unused preallocation; anything else is what a crash or a
      // bad disk left, and is cut.
      std::size_t last = data.size();
      while (last > at && data[last - 1] == 0) --last;
      if (last > at) {
        report.cut = true;
        report.cut_seq = seg.seq;
        report.cut_offset = at;
        report.cut_bytes = last - at;
        report.cut_reason = status == Parse::kTorn      ? "torn record"
                            : status == Parse::kCorrupt ? "corrupt record"
                                                        : "data after the end mark";
        stopped = true;
      }
      if (::ftruncate(file.fd(), static_cast<off_t>(at)) != 0 || ::fsync(file.fd()) != 0) {
        return sys_error("cannot truncate", seg.path);
      }
    }
  }
  if (changed_names) sync_dir(dir);
  return std::nullopt;
}

}  // namespace ruvio::persist
