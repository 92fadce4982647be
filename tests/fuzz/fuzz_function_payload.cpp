// libFuzzer target: untrusted bytes (a FUNCTION RESTORE payload) go through
// parse_functions: it must never read outside the payload nor allocate what an LZF header
// claims without bound; whatever it accepts, dumped again and parsed, gives back the same
// library codes.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/liblzf \
//       tests/fuzz/fuzz_function_payload.cpp worker/script/function_payload.cpp \
//       worker/persist/crc64.cpp worker/persist/rdb_io.cpp worker/persist/lzf_fast.cpp \
//       worker/containers/canonical_int.cpp \
//       -llzf -lisal -o fuzz_function_payload
//
// Input: the payload bytes as FUNCTION DUMP returns them (seed with a redis-server DUMP).
// They are tried as they are and, so that the fuzzer gets past the checksum, again as the
// records of a payload whose version and CRC64 footer are computed here.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "worker/persist/crc64.hpp"
#include "worker/persist/rdb_io.hpp"
#include "worker/script/function_payload.hpp"

using ruvio::worker::script::dump_functions;
using ruvio::worker::script::parse_functions;

namespace {

void check(std::string_view payload) {
  std::vector<std::string> codes;
  std::string err;
  auto collect = [&](const std::string& code, std::string&) {
    codes.push_back(code);
    return true;
  };
  if (!parse_functions(payload, collect, err)) return;
  std::vector<std::string_view> views(codes.begin(), codes.end());
  const std::string again = dump_functions(views);
  std::vector<std::string> back;
  auto collect_back = [&](const std::string& code, std::string&) {
    back.push_back(code);
    return true;
  };
  if (!parse_functions(again, collect_back, err) || back != codes) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check(input);
  std::string framed(input);
  framed.push_back(static_cast<char>(ruvio::persist::rdb::kVersion));
  framed.push_back('\0');
  const std::uint64_t crc = ruvio::persist::crc64(0, framed);
  framed.append(reinterpret_cast<const char*>(&crc), 8);
  check(framed);
  return 0;
}
