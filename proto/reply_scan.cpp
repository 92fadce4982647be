#include "proto/reply_scan.hpp"

#include <charconv>

namespace ruvio::worker {
namespace {

// Parses "<int>\r\n" at s[pos...]; returns the value and moves pos past the CRLF.
std::optional<std::int64_t> line_int(std::string_view s, std::size_t& pos) {
  std::size_t end = s.find("\r\n", pos);
  if (end == std::string_view::npos) return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data() + pos, s.data() + end, v);
  if (ec != std::errc() || p != s.data() + end) return std::nullopt;
  pos = end + 2;
  return v;
}

std::size_t value_length(std::string_view s, std::size_t pos, int depth) {
  if (pos >= s.size() || depth > 64) return 0;
  char t = s[pos];
  std::size_t p = pos + 1;
  switch (t) {
    case '+':
    case '-':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(': {
      std::size_t end = s.find("\r\n", p);
      return end == std::string_view::npos ? 0 : end + 2 - pos;
    }
    case '$':
    case '=':
    case '!': {
      auto n = line_int(s, p);
      if (!n) return 0;
      if (*n < 0) return p - pos;  // $-1
      std::size_t need = p + static_cast<std::size_t>(*n) + 2;
      return need <= s.size() ? need - pos : 0;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      auto n = line_int(s, p);
      if (!n) return 0;
      if (*n < 0) return p - pos;  // *-1
      std::int64_t items = (t == '%' || t == '|') ? *n * 2 : *n;
      for (std::int64_t i = 0; i < items; ++i) {
        std::size_t len = value_length(s, p, depth + 1);
        if (len == 0) return 0;
        p += len;
      }
      return p - pos;
    }
    default:
      return 0;
  }
}

}  // namespace

std::size_t reply_length(std::string_view s) {
  return value_length(s, 0, 0);
}

std::optional<std::int64_t> reply_integer(std::string_view s) {
  if (s.empty() || s[0] != ':') return std::nullopt;
  std::size_t p = 1;
  return line_int(s, p);
}

std::optional<AggregateHeader> reply_aggregate(std::string_view s) {
  if (s.empty() || (s[0] != '*' && s[0] != '~' && s[0] != '%')) return std::nullopt;
  std::size_t p = 1;
  auto n = line_int(s, p);
  if (!n) return std::nullopt;
  return AggregateHeader{*n, p};
}

std::optional<std::string_view> reply_string(std::string_view s) {
  if (s.empty() || (s[0] != '$' && s[0] != '=')) return std::nullopt;
  std::size_t p = 1;
  auto n = line_int(s, p);
  if (!n || *n < 0 || p + static_cast<std::size_t>(*n) > s.size()) return std::nullopt;
  std::string_view body = s.substr(p, static_cast<std::size_t>(*n));
  if (s[0] == '=' && body.size() >= 4) body.remove_prefix(4);  // "txt:"
  return body;
}

}  // namespace ruvio::worker
