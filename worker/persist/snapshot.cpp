#include "worker/persist/snapshot.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "worker/persist/wal_format.hpp"
#include "worker/persist/wal_writer.hpp"
#include "worker/types/value.hpp"

namespace ruvio::persist {
namespace {

constexpr std::string_view kMagic = "RUVIOSNP";
constexpr std::size_t kChunk = 1 << 20;
constexpr char kEncBytes = 0;
constexpr char kEncInt = 1;
constexpr char kEncObject = 2;

class Out {
 public:
  explicit Out(int fd) : fd_(fd) { buf_.reserve(kChunk + 4096); }
  std::string& buf() { return buf_; }
  bool maybe_drain() { return buf_.size() < kChunk || drain(); }
  bool drain() {
    std::size_t done = 0;
    while (done < buf_.size()) {
      ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    bytes_ += buf_.size();
    buf_.clear();
    return true;
  }
  std::uint64_t bytes() const { return bytes_; }

 private:
  int fd_;
  std::string buf_;
  std::uint64_t bytes_ = 0;
};

std::string sys(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

}  // namespace

std::optional<std::string> write_snapshot(std::span<store::Db* const> dbs, const std::string& dir,
                                          std::uint64_t wal_seq, std::int64_t created_ms,
                                          SnapshotInfo& info,
                                          std::span<const std::string_view> libraries,
                                          std::string_view file) {
  const std::string final_path = dir + "/" + std::string(file);
  const std::string tmp = file == kSnapshotFile ? dir + "/" + kSnapshotTmp : final_path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return sys("cannot create " + tmp);
  Out out(fd);
  std::string& b = out.buf();
  std::size_t at = begin_record(b, kSnapshotVersion);
  b.push_back('H');
  b.append(kMagic);
  put_u64(b, wal_seq);
  put_u64(b, static_cast<std::uint64_t>(created_ms));
  put_u32(b, static_cast<std::uint32_t>(dbs.size()));
  finish_record(b, at);
  for (std::string_view code : libraries) {
    at = begin_record(b, kSnapshotVersion);
    b.push_back('F');
    put_u32(b, static_cast<std::uint32_t>(code.size()));
    b.append(code);
    finish_record(b, at);
  }
  std::uint64_t keys = 0;
  bool ok = true;
  for (std::size_t i = 0; i < dbs.size() && ok; ++i) {
    std::uint64_t cursor = 0;
    do {
      cursor = dbs[i]->scan(cursor, 1024, [&](store::Entry e) {
        std::size_t r = begin_record(b, kSnapshotVersion);
        b.push_back('K');
        put_u32(b, static_cast<std::uint32_t>(i));
        b.push_back(static_cast<char>(e.type()));
        const types::Object* obj = e.object();
        b.push_back(obj != nullptr ? kEncObject : e.is_int() ? kEncInt : kEncBytes);
        put_u64(b, static_cast<std::uint64_t>(e.expire_at()));
        put_u32(b, static_cast<std::uint32_t>(e.key().size()));
        b.append(e.key());
        if (obj != nullptr) {
          b.push_back(static_cast<char>(obj->type_id));
          b.push_back(static_cast<char>(obj->enc));
          const std::size_t len_at = b.size();
          put_u32(b, 0);
          types::ops_of(obj).save(obj, b);
          const auto n = static_cast<std::uint32_t>(b.size() - len_at - 4);
          std::string n_bytes;
          put_u32(n_bytes, n);
          b.replace(len_at, 4, n_bytes);
        } else if (e.is_int()) {
          put_u64(b, static_cast<std::uint64_t>(e.int_value()));
        } else {
          std::string_view v = e.str();
          put_u32(b, static_cast<std::uint32_t>(v.size()));
          b.append(v);
        }
        finish_record(b, r);
        ++keys;
      });
      if (info.progress != nullptr) info.progress->store(keys, std::memory_order_relaxed);
      if (!out.maybe_drain()) ok = false;
    } while (cursor != 0 && ok);
  }
  at = begin_record(b, kSnapshotVersion);
  b.push_back('E');
  put_u64(b, keys);
  finish_record(b, at);
  if (!ok || !out.drain() || ::fsync(fd) != 0) {
    std::string err = sys("cannot write " + tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return err;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), final_path.c_str()) != 0) return sys("cannot rename " + tmp);
  if (!sync_dir(dir)) return sys("cannot fsync " + dir);
  info.wal_seq = wal_seq;
  info.created_ms = created_ms;
  info.keys = keys;
  info.bytes = out.bytes();
  return std::nullopt;
}

LoadResult load_snapshot(std::span<store::Db* const> dbs, const std::string& dir,
                         SnapshotInfo& info, std::string& error,
                         std::vector<std::string>* libraries, std::string_view file) {
  const std::string path = dir + "/" + std::string(file);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return LoadResult::kMissing;
    error = sys("cannot open " + path);
    return LoadResult::kCorrupt;
  }
  struct stat st {};
  ::fstat(fd, &st);
  const auto size = static_cast<std::size_t>(st.st_size);
  void* base = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
  ::close(fd);
  if (base == MAP_FAILED) {
    error = sys("cannot map " + path);
    return LoadResult::kCorrupt;
  }
  if (base != nullptr) ::madvise(base, size, MADV_SEQUENTIAL);
  std::string_view data(static_cast<const char*>(base), base != nullptr ? size : 0);
  auto fail = [&](const std::string& why, std::size_t offset) {
    error = path + ": " + why + " at offset " + std::to_string(offset);
    if (base != nullptr) ::munmap(base, size);
    return LoadResult::kCorrupt;
  };
  std::size_t at = 0;
  bool head = false;
  std::uint64_t keys = 0;
  while (true) {
    RecordView rec;
    Parse p = parse_record(data.substr(at), rec);
    if (p != Parse::kOk) {
      return fail(p == Parse::kEnd    ? "no end record (file cut short)"
                  : p == Parse::kTorn ? "record cut short"
                                      : "checksum mismatch",
                  at);
    }
    if (rec.version != kSnapshotVersion) return fail("unknown record version", at);
    std::string_view q = rec.payload;
    if (q.empty()) return fail("empty record", at);
    const char kind = q[0];
    q.remove_prefix(1);
    if (!head) {
      if (kind != 'H' || q.size() != 8 + 8 + 8 + 4 || q.substr(0, 8) != kMagic)
        return fail("not a Ruvio snapshot", at);
      info.wal_seq = get_u64(q.data() + 8);
      info.created_ms = static_cast<std::int64_t>(get_u64(q.data() + 16));
      head = true;
    } else if (kind == 'K') {
      if (q.size() < 4 + 1 + 1 + 8 + 4) return fail("short key record", at);
      const std::uint32_t db = get_u32(q.data());
      const auto type = static_cast<std::uint8_t>(q[4]);
      const auto enc = static_cast<std::uint8_t>(q[5]);
      const auto expire_at = static_cast<std::int64_t>(get_u64(q.data() + 6));
      const std::uint32_t klen = get_u32(q.data() + 14);
      q.remove_prefix(18);
      if (q.size() < klen) return fail("short key record", at);
      std::string_view key = q.substr(0, klen);
      q.remove_prefix(klen);
      if (db >= dbs.size()) {
        return fail("key in database " + std::to_string(db) + " but only " +
                        std::to_string(dbs.size()) + " databases are configured",
                    at);
      }
      store::SetOptions opt;
      opt.expire_at = expire_at;
      if (enc == kEncObject) {
        if (q.size() < 6 || q.size() - 6 != get_u32(q.data() + 2))
          return fail("malformed value", at);
        const auto type_id = static_cast<std::uint8_t>(q[0]);
        const types::ValueOps* ops = types::find_ops(type_id);
        if (ops == nullptr || static_cast<std::uint8_t>(ops->type) != type)
          return fail("value type " + std::to_string(type_id) + " unknown to this build", at);
        types::Object* obj =
            ops->load(dbs[db]->heap(), static_cast<std::uint8_t>(q[1]), q.substr(6));
        if (obj == nullptr) return fail("malformed value", at);
        dbs[db]->set_object(key, obj, opt);
      } else if (type != static_cast<std::uint8_t>(types::Type::kString)) {
        return fail("value type " + std::to_string(type) + " unknown to this build", at);
      } else if (enc == kEncInt && q.size() == 8) {
        dbs[db]->set_int(key, static_cast<std::int64_t>(get_u64(q.data())), opt);
      } else if (enc == kEncBytes && q.size() >= 4 && q.size() - 4 == get_u32(q.data())) {
        dbs[db]->set_string(key, q.substr(4), opt);
      } else {
        return fail("malformed value", at);
      }
      ++keys;
    } else if (kind == 'F') {
      if (q.size() < 4 || q.size() - 4 != get_u32(q.data())) return fail("malformed library", at);
      if (libraries != nullptr) libraries->emplace_back(q.substr(4));
    } else if (kind == 'E') {
      if (q.size() != 8 || get_u64(q.data()) != keys) return fail("key count mismatch", at);
      at += rec.size;
      if (at != data.size()) return fail("bytes after the end record", at);
      break;
    } else {
      return fail("unknown record kind", at);
    }
    at += rec.size;
  }
  info.keys = keys;
  info.bytes = size;
  if (base != nullptr) ::munmap(base, size);
  return LoadResult::kLoaded;
}

}  // namespace ruvio::persist
