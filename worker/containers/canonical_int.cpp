// Redis's string2ll rules for "is this string an int64 Redis would store as an integer",
// used by the record (int encoding) and the compact encodings (listpack integers).
#include "worker/containers/canonical_int.hpp"

#include <cstdint>
#include <limits>
#include <string_view>

namespace ruvio::containers {

bool parse_canonical_int(std::string_view s, std::int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  std::size_t i = 0;
  bool neg = false;
  if (s[0] == '-') {
    neg = true;
    i = 1;
    if (s.size() == 1) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;  // no leading zero, no "-0", no '+'
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return false;
    std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  constexpr std::uint64_t kMaxPos = static_cast<std::uint64_t>(INT64_MAX);
  if (neg) {
    if (v > kMaxPos + 1) return false;
    *out = v == kMaxPos + 1 ? INT64_MIN : -static_cast<std::int64_t>(v);
  } else {
    if (v > kMaxPos) return false;
    *out = static_cast<std::int64_t>(v);
  }
  return true;
}

std::size_t int_text_len(std::int64_t v) {
  std::size_t n = v < 0 ? 2 : 1;
  std::uint64_t u = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  while (u >= 10) {
    u /= 10;
    ++n;
  }
  return n;
}

}  // namespace ruvio::containers
