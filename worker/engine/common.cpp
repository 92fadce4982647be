// Number parsing with Redis's exact acceptance rules (util.c string2ll / string2ld / string2d).
// Clients and test suites probe the edges ("007", "+1", " 1", "-0", "1e-5000", "nan"), so
// the rules are reproduced decision for decision rather than delegated to from_chars.
#include "worker/engine/common.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ruvio::worker {

namespace {

// Redis's LONG_STR_SIZE: a longer input is rejected before any digit is read.
constexpr std::size_t kLongStrSize = 21;
// Redis's MAX_LONG_DOUBLE_CHARS: string2ld copies into a buffer of this size.
constexpr std::size_t kMaxLongDoubleChars = 5 * 1024;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace

std::optional<std::uint64_t> parse_scan_cursor(std::string_view s) {
  if (s.empty()) return 0;
  const bool neg = s[0] == '-';
  if (s[0] == '-' || s[0] == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;  // ERANGE
    v = v * 10 + d;
  }
  return neg ? 0 - v : v;
}

std::optional<std::int64_t> parse_int64(std::string_view s) {
  if (s.empty() || s.size() >= kLongStrSize) return std::nullopt;
  if (s.size() == 1 && s[0] == '0') return 0;

  std::size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    if (++i == s.size()) return std::nullopt;
  }
  // The first digit must be 1-9: rejects "007", "-0", "+1", " 1".
  if (s[i] < '1' || s[i] > '9') return std::nullopt;

  // Accumulate the magnitude unsigned so LLONG_MIN's magnitude fits.
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return std::nullopt;
    auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  if (negative) {
    constexpr std::uint64_t kMinMagnitude = static_cast<std::uint64_t>(INT64_MAX) + 1;
    if (v > kMinMagnitude) return std::nullopt;
    if (v == kMinMagnitude) return INT64_MIN;
    return -static_cast<std::int64_t>(v);
  }
  if (v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

std::optional<long double> parse_long_double(std::string_view s) {
  if (s.empty() || s.size() >= kMaxLongDoubleChars) return std::nullopt;
  // strtold needs a terminator; the argument is a view into the query buffer.
  char buf[kMaxLongDoubleChars];
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';

  errno = 0;
  char* end = nullptr;
  long double v = std::strtold(buf, &end);
  if (is_space(buf[0]) || *end != '\0' || static_cast<std::size_t>(end - buf) != s.size() ||
      (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || std::fpclassify(v) == FP_ZERO)) ||
      errno == EINVAL || std::isnan(v)) {
    return std::nullopt;
  }
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty() || is_space(s[0])) return std::nullopt;
  // Scores are short; a stack copy serves all but absurd inputs.
  char small[128];
  std::string large;
  const char* p;
  if (s.size() < sizeof(small)) {
    std::memcpy(small, s.data(), s.size());
    small[s.size()] = '\0';
    p = small;
  } else {
    large.assign(s);
    p = large.c_str();
  }

  errno = 0;
  char* end = nullptr;
  double v = std::strtod(p, &end);
  if (static_cast<std::size_t>(end - p) != s.size() ||
      (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) ||
      std::isnan(v)) {
    return std::nullopt;
  }
  return v;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string_view format_int64(std::int64_t v, char* buf) {
  // Digits are produced backwards into a scratch area, then moved to the front of `buf`.
  char tmp[20];
  std::size_t n = 0;
  std::uint64_t u = v < 0 ? static_cast<std::uint64_t>(0) - static_cast<std::uint64_t>(v)
                          : static_cast<std::uint64_t>(v);
  do {
    tmp[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  std::size_t len = 0;
  if (v < 0) buf[len++] = '-';
  while (n > 0) buf[len++] = tmp[--n];
  return {buf, len};
}

// ld2string(LD_STR_HUMAN): "%.17Lf", then trailing zeros (and a bare '.') trimmed, "-0" → "0".
std::string_view format_long_double_human(long double v, char* buf, std::size_t cap) {
  int n = std::snprintf(buf, cap, "%.17Lf", v);
  if (n <= 0 || static_cast<std::size_t>(n) >= cap) return {};
  auto len = static_cast<std::size_t>(n);
  if (std::memchr(buf, '.', len) != nullptr) {
    while (buf[len - 1] == '0') --len;
    if (buf[len - 1] == '.') --len;
  }
  if (len == 2 && buf[0] == '-' && buf[1] == '0') {
    buf[0] = '0';
    len = 1;
  }
  return {buf, len};
}

}  // namespace ruvio::worker
