#include "shared/glob.hpp"

#include <cctype>
#include <cstddef>

namespace ruvio::worker {
namespace {

constexpr int kMaxNesting = 1000;

int fold(unsigned char c, bool nocase) {
  return nocase ? std::tolower(c) : c;
}

bool same(char a, char b, bool nocase) {
  return fold(static_cast<unsigned char>(a), nocase) == fold(static_cast<unsigned char>(b), nocase);
}

// Matches one bracket set starting just after '['. Returns whether `c` is in the set and
// leaves `i` just past the closing ']' (or at the end when the set is unclosed).
bool bracket(std::string_view p, std::size_t& i, char c, bool nocase) {
  const bool negate = i < p.size() && p[i] == '^';
  if (negate) ++i;
  bool hit = false;
  while (i < p.size() && p[i] != ']') {
    if (p[i] == '\\' && p.size() - i >= 2) {
      if (same(p[i + 1], c, nocase)) hit = true;
      i += 2;
    } else if (p.size() - i >= 3 && p[i + 1] == '-') {
      int lo = fold(static_cast<unsigned char>(p[i]), nocase);
      int hi = fold(static_cast<unsigned char>(p[i + 2]), nocase);
      if (lo > hi) std::swap(lo, hi);
      const int x = fold(static_cast<unsigned char>(c), nocase);
      if (x >= lo && x <= hi) hit = true;
      i += 3;
    } else {
      if (same(p[i], c, nocase)) hit = true;
      ++i;
    }
  }
  if (i < p.size()) ++i;  // the ']'
  return negate ? !hit : hit;
}

bool match(std::string_view p, std::string_view s, bool nocase, bool& give_up, int depth) {
  if (depth > kMaxNesting) return false;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < p.size() && j < s.size()) {
    switch (p[i]) {
      case '*': {
        while (i + 1 < p.size() && p[i + 1] == '*') ++i;
        if (i + 1 == p.size()) return true;
        const std::string_view rest = p.substr(i + 1);
        // A literal after the '*' can only match where the text has that byte: the offsets
        // between fail on their first byte without giving up, so they are skipped (the keyspace
        // pattern __key*@*__:* is tried at one or two offsets per channel, not at every one).
        const char lead = rest[0];
        const bool literal = lead != '*' && lead != '?' && lead != '[' && lead != '\\';
        for (; j < s.size(); ++j) {
          if (literal && !same(lead, s[j], nocase)) continue;
          if (match(rest, s.substr(j), nocase, give_up, depth + 1)) return true;
          if (give_up) return false;
        }
        give_up = true;
        return false;
      }
      case '?':
        ++i;
        ++j;
        break;
      case '[':
        ++i;
        if (!bracket(p, i, s[j], nocase)) return false;
        ++j;
        break;
      case '\\':
        if (p.size() - i >= 2) ++i;
        [[fallthrough]];
      default:
        if (!same(p[i], s[j], nocase)) return false;
        ++i;
        ++j;
        break;
    }
    if (j == s.size()) {
      while (i < p.size() && p[i] == '*') ++i;
    }
  }
  return i == p.size() && j == s.size();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text, bool nocase) {
  bool give_up = false;
  return match(pattern, text, nocase, give_up, 0);
}

}  // namespace ruvio::worker
