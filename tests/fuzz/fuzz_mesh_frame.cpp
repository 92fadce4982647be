// libFuzzer target: the mesh frame decoders (proto/mesh_frame.hpp) must give the same frames
// and the same final verdict whether a stream arrives in one piece or split at fuzzer-chosen
// points (moved between reads), never read outside the input, and every decoded request
// must carry its kind's payload (MeshCommand, MeshExec, ...) and encode back to the bytes it
// came from; a malformed payload is an error, never a crash; a parked notice's id survives
// re-encoding.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_mesh_frame.cpp proto/mesh_frame.cpp proto/resp_parser.cpp \
//       proto/reply_scan.cpp -o fuzz_mesh_frame
//
// Input layout (split_input.hpp): byte 0 = flags (bit 0: reply stream instead of request stream,
// bit 1: small frame limit), byte 1 = number of split points k, bytes 2..2+2k = split offsets
// (u16), rest = wire bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proto/mesh_frame.hpp"
#include "split_input.hpp"

namespace {

using namespace ruvio::proto;

struct Outcome {
  std::vector<std::string> frames;  // each decoded frame, re-encoded
  FrameStatus last = FrameStatus::kNeedMore;
  FrameError error = FrameError::kNone;
  std::size_t leftover = 0;
};

void check(bool ok) {
  if (!ok) std::abort();
}

struct Stream {
  bool replies;
  std::size_t max_frame;
  MeshRequestDecoder requests;

  Stream(bool r, std::size_t max) : replies(r), max_frame(max), requests(max) {}

  // Decodes everything in buf; returns false once an error ends the link.
  bool drain(std::string& buf, Outcome& o) {
    for (;;) {
      // An exact-size heap copy (at a new address each call) so ASan sees any read past it.
      std::unique_ptr<char[]> exact(new char[buf.size()]);
      if (!buf.empty()) std::memcpy(exact.get(), buf.data(), buf.size());
      std::string_view in(exact.get(), buf.size());
      FrameResult r;
      std::string again;
      if (replies) {
        MeshReply m;
        r = decode_mesh_reply(in, m, max_frame);
        if (r.status == FrameStatus::kFrame) {
          std::size_t at = begin_mesh_reply(again, m.request_id);
          again.append(m.reply);
          end_mesh_frame(again, at);
          // A parked notice's id survives its own encoding (MeshLink reads only this much).
          if (const std::uint64_t id = parked_notice_id(m.reply); id != 0) {
            std::string notice;
            append_parked_notice(notice, id);
            MeshReply back;
            check(decode_mesh_reply(notice, back).status == FrameStatus::kFrame);
            check(back.request_id == kMeshNoticeId && parked_notice_id(back.reply) == id);
          }
        }
      } else {
        MeshRequest m;
        r = requests.decode(in, m);
        if (r.status == FrameStatus::kFrame) {
          check(kind_fits(m.message));
          check(m.frame.size() == r.consumed);
          encode_mesh_request(again, m.header, m.message);
        }
      }
      o.last = r.status;
      if (r.status == FrameStatus::kError) {
        check(r.error != FrameError::kNone);
        o.error = r.error;
        return false;
      }
      if (r.status == FrameStatus::kNeedMore) {
        if (r.need != 0) check(r.need > buf.size());
        return true;
      }
      check(r.consumed > 0 && r.consumed <= buf.size());
      // Replies are copied through as they are; requests re-encode to the same bytes unless
      // the body used a spelling the encoder does not (e.g. "$04" lengths), which the
      // decoder accepts as Redis does: then at least the arguments must survive.
      if (replies) check(again == in.substr(0, r.consumed));
      o.frames.push_back(std::move(again));
      buf.erase(0, r.consumed);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto in = ruvio::fuzz::split_input(data, size);
  if (!in) return 0;
  const bool replies = in->flags & 1;
  const std::size_t max_frame = (in->flags & 2) ? 64 : kMeshMaxFrame;
  const std::string_view wire = in->wire;
  const std::vector<std::size_t>& cuts = in->cuts;

  Outcome whole;
  {
    Stream s(replies, max_frame);
    std::string buf(wire);
    s.drain(buf, whole);
    whole.leftover = buf.size();
  }

  Outcome split;
  {
    Stream s(replies, max_frame);
    split.leftover =
        ruvio::fuzz::feed_split(wire, cuts, [&](std::string& buf) { return s.drain(buf, split); });
  }

  check(whole.frames == split.frames);
  check(whole.last == split.last);
  check(whole.error == split.error);
  if (whole.last == FrameStatus::kNeedMore) check(whole.leftover == split.leftover);
  return 0;
}
