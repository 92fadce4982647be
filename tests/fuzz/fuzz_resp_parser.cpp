// libFuzzer target: the request parser must give the same commands and the same final verdict
// whether the input arrives in one piece or split at fuzzer-chosen points (with the buffer
// moved between reads, as a connection compacting its input would), and never read outside it.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_resp_parser.cpp proto/resp_parser.cpp -o fuzz_resp_parser
//
// Input layout (split_input.hpp): byte 0 = flags (bit 0: unauthenticated, bit 1: small max
// bulk len), byte 1 = number of split points k, bytes 2..2+2k = split offsets (u16), rest =
// wire bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proto/resp_parser.hpp"
#include "split_input.hpp"

namespace {

using ruvio::proto::ParseResult;
using ruvio::proto::ParseStatus;
using ruvio::proto::RequestParser;

struct Outcome {
  std::vector<std::vector<std::string>> commands;
  ParseStatus last = ParseStatus::kNeedMore;
  std::string error;
  std::size_t leftover = 0;
};

void check(bool ok) {
  if (!ok) std::abort();
}

// Parses everything in buf; returns false once an error ends the connection.
bool drain(RequestParser& p, std::string& buf, Outcome& o) {
  std::vector<std::string_view> args;
  for (;;) {
    // An exact-size heap copy (at a new address each call) so ASan sees any read past the end.
    std::unique_ptr<char[]> exact(new char[buf.size()]);
    if (!buf.empty()) std::memcpy(exact.get(), buf.data(), buf.size());
    ParseResult r = p.parse(std::string_view(exact.get(), buf.size()), args);
    o.last = r.status;
    if (r.status == ParseStatus::kError) {
      check(!r.error.empty());
      o.error = std::string(r.error);
      return false;
    }
    check(r.consumed <= buf.size());
    if (r.status == ParseStatus::kNeedMore) {
      if (r.need != 0) check(r.need > buf.size() - r.consumed);
      buf.erase(0, r.consumed);
      return true;
    }
    check(r.consumed > 0 && !args.empty());
    std::vector<std::string> cmd;
    for (std::string_view a : args) {
      // Views point into the input or the parser's scratch; touching every byte lets ASan check.
      cmd.emplace_back(a);
    }
    o.commands.push_back(std::move(cmd));
    buf.erase(0, r.consumed);
  }
}

void configure(RequestParser& p, std::uint8_t flags) {
  p.set_authenticated(!(flags & 1));
  if (flags & 2) p.set_max_bulk_len(64);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto in = ruvio::fuzz::split_input(data, size);
  if (!in) return 0;
  const std::uint8_t flags = in->flags;
  const std::string_view wire = in->wire;
  const std::vector<std::size_t>& cuts = in->cuts;

  Outcome whole;
  {
    RequestParser p;
    configure(p, flags);
    std::string buf(wire);
    drain(p, buf, whole);
    whole.leftover = buf.size();
  }

  Outcome split;
  {
    RequestParser p;
    configure(p, flags);
    split.leftover =
        ruvio::fuzz::feed_split(wire, cuts, [&](std::string& buf) { return drain(p, buf, split); });
  }

  check(whole.commands == split.commands);
  check(whole.last == split.last);
  check(whole.error == split.error);
  if (whole.last == ParseStatus::kNeedMore) check(whole.leftover == split.leftover);
  return 0;
}
