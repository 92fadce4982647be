#include "shared/sds_text.hpp"

#include <cstdio>

namespace ruvio {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char unescape(char e) {
  switch (e) {
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'a':
      return '\a';
    default:
      return e;
  }
}

}  // namespace

std::optional<std::vector<std::string>> split_args(std::string_view line) {
  std::vector<std::string> words;
  std::size_t p = 0;
  while (true) {
    while (p < line.size() && is_space(line[p])) ++p;
    if (p >= line.size()) return words;
    std::string word;
    bool dq = false, sq = false;
    for (;; ++p) {
      if (p >= line.size()) {
        if (dq || sq) return std::nullopt;
        break;
      }
      const char c = line[p];
      if (dq) {
        if (c == '\\' && p + 3 < line.size() && line[p + 1] == 'x' && hex_digit(line[p + 2]) >= 0 &&
            hex_digit(line[p + 3]) >= 0) {
          word.push_back(static_cast<char>(hex_digit(line[p + 2]) * 16 + hex_digit(line[p + 3])));
          p += 3;
        } else if (c == '\\' && p + 1 < line.size()) {
          word.push_back(unescape(line[++p]));
        } else if (c == '"') {
          if (p + 1 < line.size() && !is_space(line[p + 1])) return std::nullopt;
          ++p;
          break;
        } else {
          word.push_back(c);
        }
      } else if (sq) {
        if (c == '\\' && p + 1 < line.size() && line[p + 1] == '\'') {
          word.push_back('\'');
          ++p;
        } else if (c == '\'') {
          if (p + 1 < line.size() && !is_space(line[p + 1])) return std::nullopt;
          ++p;
          break;
        } else {
          word.push_back(c);
        }
      } else if (is_space(c)) {
        break;
      } else if (c == '"') {
        dq = true;
      } else if (c == '\'') {
        sq = true;
      } else {
        word.push_back(c);
      }
    }
    words.push_back(std::move(word));
  }
}

void append_repr(std::string& out, std::string_view bytes, std::size_t max) {
  out += '"';
  const std::size_t n = bytes.size() < max ? bytes.size() : max;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      default:
        if (c >= ' ' && c < 127) {
          out += static_cast<char>(c);
        } else {
          char hex[5];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          out += hex;
        }
    }
  }
  out += '"';
}

std::string repr(std::string_view bytes, std::size_t max) {
  std::string out;
  append_repr(out, bytes, max);
  return out;
}

}  // namespace ruvio
