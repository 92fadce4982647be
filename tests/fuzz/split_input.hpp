// What the split-stream fuzz targets share (fuzz_resp_parser, fuzz_mesh_frame): their input
// layout, decoded into the wire bytes and where to cut them, and the feeding of the cut wire.
//
//   byte 0          flags (each target's own)
//   byte 1          k = number of split points (taken mod 16)
//   bytes 2..2+2k   k split offsets, u16 little-endian, each taken mod (wire size + 1)
//   the rest        the wire bytes
//
// cuts comes back sorted, with the wire's end as its last entry, so a target feeds
// wire[cuts[i-1], cuts[i]) read after read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio::fuzz {

struct SplitInput {
  std::uint8_t flags = 0;
  std::string_view wire;
  std::vector<std::size_t> cuts;
};

// nullopt when the input is too short for its own header.
inline std::optional<SplitInput> split_input(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return std::nullopt;
  const std::size_t k = data[1] % 16;
  if (size < 2 + 2 * k) return std::nullopt;
  SplitInput in;
  in.flags = data[0];
  in.wire = std::string_view(reinterpret_cast<const char*>(data) + 2 + 2 * k, size - 2 - 2 * k);
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t c = data[2 + 2 * i] | (data[3 + 2 * i] << 8);
    in.cuts.push_back(in.wire.empty() ? 0 : c % (in.wire.size() + 1));
  }
  std::sort(in.cuts.begin(), in.cuts.end());
  in.cuts.push_back(in.wire.size());
  return in;
}

// Feeds wire[cuts[i-1], cuts[i]) read after read, each read into a fresh copy of the buffer
// (a connection compacting its input moves it: a decoder keeping a pointer into the old bytes
// reads freed memory; past the 15 bytes std::string keeps inline), and calls drain(buf), which
// consumes what it decodes and answers false to stop. Returns the bytes left undecoded.
template <class Drain>
std::size_t feed_split(std::string_view wire, const std::vector<std::size_t>& cuts, Drain&& drain) {
  std::string buf;
  std::size_t at = 0;
  for (std::size_t c : cuts) {
    std::string next = buf;
    next.append(wire.substr(at, c - at));
    at = c;
    buf.swap(next);
    if (!drain(buf)) break;
  }
  return buf.size();
}

}  // namespace ruvio::fuzz
