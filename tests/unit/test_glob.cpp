// Glob matching (shared/glob.hpp): the literal-after-'*' skip answers as Redis's
// stringmatchlen does, checked on fixed cases and against a plain transcription of
// stringmatchlen (every offset after a '*' tried) on random patterns and texts.
#include <doctest/doctest.h>

#include <cctype>
#include <random>
#include <string>
#include <string_view>

#include "shared/glob.hpp"

using ruvio::worker::glob_match;

namespace {

// stringmatchlen (Redis 7.0 util.c), written out directly: the oracle.
bool oracle(std::string_view p, std::string_view s, bool nocase, bool& skip, int nesting) {
  if (nesting > 1000) return false;
  auto eq = [&](char a, char b) {
    return nocase ? std::tolower(static_cast<unsigned char>(a)) ==
                        std::tolower(static_cast<unsigned char>(b))
                  : a == b;
  };
  std::size_t i = 0, j = 0;
  while (i < p.size() && j < s.size()) {
    switch (p[i]) {
      case '*':
        while (i + 1 < p.size() && p[i + 1] == '*') ++i;
        if (i + 1 == p.size()) return true;
        for (; j < s.size(); ++j) {
          if (oracle(p.substr(i + 1), s.substr(j), nocase, skip, nesting + 1)) return true;
          if (skip) return false;
        }
        skip = true;
        return false;
      case '?':
        break;
      case '[': {
        ++i;
        const bool neg = i < p.size() && p[i] == '^';
        if (neg) ++i;
        bool hit = false;
        while (i < p.size() && p[i] != ']') {
          if (p[i] == '\\' && p.size() - i >= 2) {
            if (eq(p[i + 1], s[j])) hit = true;
            i += 2;
          } else if (p.size() - i >= 3 && p[i + 1] == '-') {
            int lo = nocase ? std::tolower(static_cast<unsigned char>(p[i]))
                            : static_cast<unsigned char>(p[i]);
            int hi = nocase ? std::tolower(static_cast<unsigned char>(p[i + 2]))
                            : static_cast<unsigned char>(p[i + 2]);
            if (lo > hi) std::swap(lo, hi);
            const int c = nocase ? std::tolower(static_cast<unsigned char>(s[j]))
                                 : static_cast<unsigned char>(s[j]);
            if (c >= lo && c <= hi) hit = true;
            i += 3;
          } else {
            if (eq(p[i], s[j])) hit = true;
            ++i;
          }
        }
        if (neg) hit = !hit;
        if (!hit) return false;
        if (i == p.size()) return j + 1 == s.size();  // unclosed set: nothing after it
        break;
      }
      case '\\':
        if (p.size() - i >= 2) ++i;
        [[fallthrough]];
      default:
        if (!eq(p[i], s[j])) return false;
        break;
    }
    ++i;
    ++j;
    if (j == s.size()) {
      while (i < p.size() && p[i] == '*') ++i;
    }
  }
  return i == p.size() && j == s.size();
}

bool reference(std::string_view p, std::string_view s, bool nocase) {
  bool skip = false;
  return oracle(p, s, nocase, skip, 0);
}

}  // namespace

TEST_CASE("glob: the keyspace pattern and fixed cases") {
  CHECK(glob_match("__key*@*__:*", "__keyspace@0__:key:000001"));
  CHECK(glob_match("__key*@*__:*", "__keyevent@15__:set"));
  CHECK_FALSE(glob_match("__key*@*__:*", "__keyspace@0_:x"));
  CHECK(glob_match("a*b*c", "aXbYc"));
  CHECK_FALSE(glob_match("a*b*c", "aXbY"));
  CHECK(glob_match("*a", "bbba"));
  CHECK_FALSE(glob_match("*a", "bbbb"));
  CHECK(glob_match("*A", "bbba", true));
  CHECK(glob_match("h*llo", "hllo"));
  CHECK(glob_match("*\\*", "ab*"));
  CHECK(glob_match("*[ab]", "xxb"));
}

TEST_CASE("glob: random patterns answer as stringmatchlen") {
  std::mt19937 rng(14);
  const char pat_alpha[] = "abAB*?[]^-\\";
  const char text_alpha[] = "abAB-*";
  int matched = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string p, s;
    const int plen = static_cast<int>(rng() % 8);
    const int slen = static_cast<int>(rng() % 8);
    for (int i = 0; i < plen; ++i) p += pat_alpha[rng() % (sizeof pat_alpha - 1)];
    for (int i = 0; i < slen; ++i) s += text_alpha[rng() % (sizeof text_alpha - 1)];
    const bool nocase = rng() % 4 == 0;
    const bool want = reference(p, s, nocase);
    matched += want;
    if (glob_match(p, s, nocase) != want) {
      INFO("pattern '" << p << "' text '" << s << "' nocase " << nocase);
      CHECK(glob_match(p, s, nocase) == want);
    }
  }
  CHECK(matched > 1000);
}
