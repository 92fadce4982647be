#include "worker/persist/wal_format.hpp"

#include "worker/persist/crc32c.hpp"

namespace ruvio::persist {

void finish_record(std::string& b, std::size_t at) {
  auto len = static_cast<std::uint32_t>(b.size() - at - 8);
  std::memcpy(b.data() + at, &len, 4);
  std::uint32_t crc = crc32c(0, b.data() + at, 4);
  crc = crc32c(crc, b.data() + at + 8, len);
  std::memcpy(b.data() + at + 4, &crc, 4);
}

std::size_t command_record_size(std::span<const std::string_view> args) {
  std::size_t n = kHeaderBytes + 8 + 4 + 4;
  for (auto a : args) n += 4 + a.size();
  return n;
}

void append_command_payload(std::string& b, std::int64_t now_ms, int db,
                            std::span<const std::string_view> args) {
  put_u64(b, static_cast<std::uint64_t>(now_ms));
  put_u32(b, static_cast<std::uint32_t>(db));
  put_u32(b, static_cast<std::uint32_t>(args.size()));
  for (auto a : args) {
    put_u32(b, static_cast<std::uint32_t>(a.size()));
    b.append(a);
  }
}

void append_command(std::string& b, std::int64_t now_ms, int db,
                    std::span<const std::string_view> args) {
  b.reserve(b.size() + command_record_size(args));
  std::size_t at = begin_record(b, kWalVersion);
  append_command_payload(b, now_ms, db, args);
  finish_record(b, at);
}

void append_batch(std::string& b, std::string_view inner, std::uint32_t count) {
  std::size_t at = begin_record(b, kWalBatchVersion);
  put_u32(b, count);
  b.append(inner);
  finish_record(b, at);
}

bool decode_batch(std::string_view payload, std::vector<std::string_view>& out) {
  out.clear();
  if (payload.size() < 4) return false;
  std::uint32_t count = get_u32(payload.data());
  std::size_t at = 4;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (payload.size() - at < 4) return false;
    std::uint32_t n = get_u32(payload.data() + at);
    at += 4;
    if (payload.size() - at < n) return false;
    out.push_back(payload.substr(at, n));
    at += n;
  }
  return at == payload.size();
}

Parse parse_record(std::string_view data, RecordView& out) {
  if (data.size() < 4) {
    // Fewer than 4 bytes left: end of data when they are zeros (or none), else torn.
    for (char c : data) {
      if (c != 0) return Parse::kTorn;
    }
    return Parse::kEnd;
  }
  std::uint32_t len = get_u32(data.data());
  if (len == 0) return Parse::kEnd;
  if (len > kMaxBody) return Parse::kCorrupt;
  if (data.size() < 8 + static_cast<std::size_t>(len)) return Parse::kTorn;
  std::uint32_t crc = crc32c(0, data.data(), 4);
  crc = crc32c(crc, data.data() + 8, len);
  if (crc != get_u32(data.data() + 4)) return Parse::kCorrupt;
  out.version = static_cast<std::uint8_t>(data[8]);
  out.payload = data.substr(kHeaderBytes, len - 1);
  out.size = 8 + len;
  return Parse::kOk;
}

bool decode_command(std::string_view p, Command& out) {
  if (p.size() < 16) return false;
  out.now_ms = static_cast<std::int64_t>(get_u64(p.data()));
  out.db = static_cast<int>(get_u32(p.data() + 8));
  std::uint32_t argc = get_u32(p.data() + 12);
  std::size_t at = 16;
  out.args.clear();
  if (argc == 0 || argc > p.size()) return false;
  for (std::uint32_t i = 0; i < argc; ++i) {
    if (p.size() - at < 4) return false;
    std::uint32_t n = get_u32(p.data() + at);
    at += 4;
    if (p.size() - at < n) return false;
    out.args.push_back(p.substr(at, n));
    at += n;
  }
  return at == p.size();
}

}  // namespace ruvio::persist
