// libFuzzer target: untrusted bytes as a stream ID argument (XADD, XRANGE, XREAD, ...). The
// parser must never read past the argument, and whatever it accepts must print and parse
// back to the same ID; the interval steps must stay inside the 128-bit range.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_stream_id.cpp worker/containers/stream_id.cpp -o fuzz_stream_id
//
// Input: byte 0 picks the flags (strict, "<ms>-*" allowed, the missing sequence 0 or max),
// the rest is the argument.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "worker/containers/stream_id.hpp"

namespace {

using ruvio::types::ParsedStreamId;
using ruvio::types::StreamID;

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  // A copy of exactly the argument's bytes, so ASan sees any read past it.
  const std::string arg(reinterpret_cast<const char*>(data + 1), size - 1);
  const bool strict = flags & 1, star = flags & 2;
  const std::uint64_t missing = (flags & 4) ? UINT64_MAX : 0;
  ParsedStreamId p;
  if (!ruvio::types::stream_id_parse(arg, missing, strict, star, p)) return 0;
  check(star || p.seq_given);
  char buf[ruvio::types::kStreamIdBuf];
  const std::string_view text = ruvio::types::stream_id_format(p.id, buf);
  ParsedStreamId back;
  check(ruvio::types::stream_id_parse(text, 0, true, false, back));
  check(back.id == p.id && back.seq_given);
  StreamID up = p.id, down = p.id;
  if (ruvio::types::stream_id_incr(up)) {
    check(up > p.id);
  } else {
    check(p.id == ruvio::types::kStreamMaxId && up == p.id);
  }
  if (ruvio::types::stream_id_decr(down)) {
    check(down < p.id);
  } else {
    check(p.id == ruvio::types::kStreamMinId && down == p.id);
  }
  return 0;
}
