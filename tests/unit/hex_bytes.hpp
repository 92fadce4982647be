// Test helpers shared by the encoding unit tests: bytes as lower-case hex and back, to compare
// an encoding with the blobs captured from redis-server (tests/unit/capture_redis_encodings.py).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio::testing {

inline std::string hex(std::span<const std::uint8_t> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::uint8_t c : b) {
    s += d[c >> 4];
    s += d[c & 15];
  }
  return s;
}

inline std::vector<std::uint8_t> unhex(std::string_view h) {
  std::vector<std::uint8_t> out;
  auto v = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(v(h[i]) << 4 | v(h[i + 1])));
  }
  return out;
}

}  // namespace ruvio::testing
