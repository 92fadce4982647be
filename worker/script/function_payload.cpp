// FUNCTION DUMP / RESTORE payload bytes (function_payload.hpp draws them), written and read
// with the RDB primitives and CRC64 that DUMP/RESTORE of keys use (worker/persist/).
#include "worker/script/function_payload.hpp"

#include <cstring>

#include "worker/persist/crc64.hpp"
#include "worker/persist/rdb_io.hpp"

namespace ruvio::worker::script {
namespace {

constexpr unsigned char kOpFunction2 = 245;      // RDB_OPCODE_FUNCTION2
constexpr unsigned char kOpFunctionPreGa = 246;  // RDB_OPCODE_FUNCTION (7.0 RC's format)
constexpr std::size_t kFooter = 10;              // u16 version + u64 crc

}  // namespace

std::string dump_functions(std::span<const std::string_view> codes) {
  std::string out;
  for (std::string_view code : codes) {
    out.push_back(static_cast<char>(kOpFunction2));
    persist::rdb::put_string(out, code);
  }
  out.push_back(static_cast<char>(persist::rdb::kVersion & 0xff));
  out.push_back(static_cast<char>(persist::rdb::kVersion >> 8));
  std::uint64_t crc = persist::crc64(0, out);
  char le[8];
  std::memcpy(le, &crc, 8);  // little-endian hosts, as the format
  out.append(le, 8);
  return out;
}

bool parse_functions(std::string_view payload, const LibraryFn& on_library, std::string& err) {
  // verifyDumpPayload.
  if (payload.size() < kFooter) {
    err = "DUMP payload version or checksum are wrong";
    return false;
  }
  const char* footer = payload.data() + payload.size() - kFooter;
  const unsigned version = static_cast<unsigned char>(footer[0]) |
                           (static_cast<unsigned>(static_cast<unsigned char>(footer[1])) << 8);
  std::uint64_t want = 0;
  std::memcpy(&want, footer + 2, 8);
  if (version > persist::rdb::kVersion ||
      persist::crc64(0, payload.substr(0, payload.size() - 8)) != want) {
    err = "DUMP payload version or checksum are wrong";
    return false;
  }
  // As Redis: records are read while more than the footer is left; a string may run into
  // the footer's bytes (the reader sees the whole payload), never past its end.
  persist::rdb::Reader in(payload);
  while (in.remaining() > kFooter) {
    std::uint8_t type = 0;
    if (!in.u8(type)) {
      err = "can not read data type";
      return false;
    }
    if (type != kOpFunction2 && type != kOpFunctionPreGa) {
      err = "given type is not a function";
      return false;
    }
    std::string code;
    if (type == kOpFunctionPreGa) {
      // 7.0 RC1/RC2: name, engine, description, code apart; made into a headed library.
      std::string name, engine, desc, blob;
      std::uint64_t has_desc = 0;
      if (!in.string(name)) {
        err = "Failed loading library name";
        return false;
      }
      if (!in.string(engine)) {
        err = "Failed loading engine name";
        return false;
      }
      if (!in.len(has_desc)) {
        err = "Failed loading library description indicator";
        return false;
      }
      if (has_desc != 0 && !in.string(desc)) {
        err = "Failed loading library description";
        return false;
      }
      if (!in.string(blob)) {
        err = "Failed loading library blob";
        return false;
      }
      code = "#!" + engine + " name=" + name + "\n" + blob;
    } else if (!in.string(code)) {
      err = "Failed loading library payload";
      return false;
    }
    if (!on_library(code, err)) return false;
  }
  return true;
}

}  // namespace ruvio::worker::script
