// Request parser: Redis 7.0's processMultibulkBuffer / processInlineBuffer rules, in place.
//
// Wire forms (one command each):
//
//   multibulk   * 3 \r \n  $ 3 \r \n S E T \r \n  $ 1 \r \n k \r \n  $ 1 \r \n v \r \n
//               └count─┘   └─len─┘  └─body─┘    one `$len` line + body per argument
//   inline      S E T ␠ k ␠ " v \n " \r \n        anything not starting with '*', split like
//                                                  sdssplitargs, ends at \n (\r before it dropped)
//
// Redis quirks kept on purpose so replies match a real server byte for byte: a header line ends
// at the first '\r' and the byte after it is skipped unread; the two bytes after a bulk body are
// skipped unread; `*0` and `*-N` are empty commands; a header line with no '\r' in the first
// 64 KiB is refused ("too big ... count string"); the multibulk count limit is INT_MAX and
// unauthenticated clients get their own error words for more than 10 arguments or 16 KiB bulks.
//
// Unlike Redis, NUL bytes are ordinary bytes (Redis's strchr stalls the connection on them).
//
// Resuming: when input ends inside a command the parser records the phase and the offset of
// the line (or bulk body) it stopped in, relative to the command's first byte, plus the
// (offset, length) of the arguments already read; the next call continues there, so a command
// arriving in many small reads costs linear time, not quadratic.
#include "proto/resp_parser.hpp"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstring>

namespace ruvio::proto {
namespace {

constexpr std::string_view kErrMbulkLen = "ERR Protocol error: invalid multibulk length";
constexpr std::string_view kErrBulkLen = "ERR Protocol error: invalid bulk length";
constexpr std::string_view kErrUnauthMbulk = "ERR Protocol error: unauthenticated multibulk length";
constexpr std::string_view kErrUnauthBulk = "ERR Protocol error: unauthenticated bulk length";
constexpr std::string_view kErrQuotes = "ERR Protocol error: unbalanced quotes in request";
constexpr std::string_view kErrBigInline = "ERR Protocol error: too big inline request";
constexpr std::string_view kErrBigMbulk = "ERR Protocol error: too big mbulk count string";
constexpr std::string_view kErrBigBulk = "ERR Protocol error: too big bulk count string";
constexpr std::string_view kExpectedPrefix = "ERR Protocol error: expected '$', got '";

constexpr std::int64_t kUnauthMaxArgs = 10;
constexpr std::int64_t kUnauthMaxBulk = 16384;
// parse_whole takes commands of at most this many arguments (longer ones go the general way).
constexpr std::int64_t kWholeMaxArgs = 1024;
constexpr std::size_t kNpos = static_cast<std::size_t>(-1);
// saved_ keeps its memory between commands unless one huge command inflated it.
constexpr std::size_t kSavedKeepCapacity = 4096;

// Redis's string2ll: optional '-', no '+', no leading zeros, no spaces, fits in long long.
bool parse_ll(const char* p, std::size_t n, std::int64_t& out) {
  if (n == 0 || n >= 21) return false;
  if (n == 1 && p[0] == '0') {
    out = 0;
    return true;
  }
  std::size_t i = 0;
  const bool negative = p[0] == '-';
  if (negative && ++i == n) return false;
  if (p[i] < '1' || p[i] > '9') return false;
  std::uint64_t v = static_cast<std::uint64_t>(p[i++] - '0');
  for (; i < n; ++i) {
    const unsigned d = static_cast<unsigned char>(p[i]) - static_cast<unsigned>('0');
    if (d > 9) return false;
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (negative) {
    if (v > static_cast<std::uint64_t>(INT64_MAX) + 1) return false;
    out = static_cast<std::int64_t>(0 - v);
  } else {
    if (v > static_cast<std::uint64_t>(INT64_MAX)) return false;
    out = static_cast<std::int64_t>(v);
  }
  return true;
}

// First '\r' at or after from+scan. Header lines are a few bytes long, so a short byte loop
// beats a memchr call; long lines (garbage, or a line being refused) fall back to memchr.
std::size_t find_cr(const char* p, std::size_t from, std::size_t n) {
  const std::size_t short_end = std::min(n, from + 24);
  for (std::size_t i = from; i < short_end; ++i) {
    if (p[i] == '\r') return i;
  }
  if (short_end == n) return kNpos;
  const void* hit = std::memchr(p + short_end, '\r', n - short_end);
  return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - p) : kNpos;
}

// Fast path for a well-formed header `<prefix><digits>\r?` at p[at]: reads the number and finds
// the '\r' in one pass. Returns false (caller takes the general path, which gives the same
// answer or the right error) on anything unusual: a sign, a leading zero, 19+ digits, or a line
// not yet complete up to the byte after '\r'.
bool fast_header(const char* p, std::size_t at, std::size_t n, std::int64_t& value,
                 std::size_t& cr) {
  // One digit (`*3`, `$5`), the usual header: no loop.
  if (at + 3 < n && p[at + 2] == '\r') {
    const unsigned d = static_cast<unsigned char>(p[at + 1]) - static_cast<unsigned>('1');
    if (d > 8) return false;  // '0' (an empty command or bulk) or not a digit: general path
    value = static_cast<std::int64_t>(d) + 1;
    cr = at + 2;
    return true;
  }
  std::size_t i = at + 1;
  const std::size_t lim = std::min(n, i + 18);
  if (i >= lim || p[i] < '1' || p[i] > '9') return false;
  std::int64_t v = 0;
  for (; i < lim; ++i) {
    const unsigned d = static_cast<unsigned char>(p[i]) - static_cast<unsigned>('0');
    if (d > 9) break;
    v = v * 10 + static_cast<std::int64_t>(d);
  }
  if (i + 1 >= n || p[i] != '\r') return false;
  value = v;
  cr = i;
  return true;
}

// isspace() in the C locale: blanks sdssplitargs skips between arguments.
bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}
// Bytes that end an unquoted argument (sdssplitargs: ' ', \n, \r, \t; not \v or \f).
bool ends_word(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void RequestParser::reset() {
  phase_ = Phase::kIdle;
  pos_ = 0;
  scan_ = 0;
  remaining_ = 0;
  bulk_len_ = -1;
  saved_.clear();
  if (saved_.capacity() > kSavedKeepCapacity) std::vector<Span>().swap(saved_);
}

ParseResult RequestParser::fail(std::string_view error) {
  reset();
  return {ParseStatus::kError, 0, 0, error};
}

ParseResult RequestParser::need_more(std::string_view in, std::size_t start,
                                     const std::vector<std::string_view>& args, std::size_t need) {
  if (start != 0) {
    // The caller may or may not drop the skipped empty commands, so offsets relative to this
    // input would be ambiguous next time: start over then (rare: blank lines before a split).
    reset();
    return {ParseStatus::kNeedMore, start, need, {}};
  }
  for (std::string_view a : args) {
    saved_.push_back({static_cast<std::size_t>(a.data() - in.data()), a.size()});
  }
  return {ParseStatus::kNeedMore, 0, need, {}};
}

// The common case in one pass: a whole multibulk command of plain headers (digits, no sign, no
// leading zero) at the start of the input, within the limits. It writes no parser state, so
// anything else (a split command, `$0`, an odd header, a limit) is left to the general path,
// which starts from the same state and gives the same answer or error.
bool RequestParser::parse_whole(std::string_view in, std::vector<std::string_view>& args,
                                std::size_t& consumed) const {
  const char* p = in.data();
  const std::size_t n = in.size();
  std::int64_t count;
  std::size_t cr;
  if (!fast_header(p, 0, n, count, cr) || count > kWholeMaxArgs ||
      (!authenticated_ && count > kUnauthMaxArgs)) {
    return false;
  }
  if (args.capacity() < static_cast<std::size_t>(count)) {
    args.reserve(static_cast<std::size_t>(count));
  }
  std::uint64_t max_len = max_bulk_len_;
  if (!authenticated_) max_len = std::min<std::uint64_t>(max_len, kUnauthMaxBulk);
  std::size_t pos = cr + 2;
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t len;
    if (pos >= n || p[pos] != '$' || !fast_header(p, pos, n, len, cr) ||
        static_cast<std::uint64_t>(len) > max_len) {
      args.clear();
      return false;
    }
    pos = cr + 2;
    const std::size_t end = pos + static_cast<std::size_t>(len) + 2;
    if (end > n) {
      args.clear();
      return false;
    }
    args.emplace_back(p + pos, static_cast<std::size_t>(len));
    pos = end;
  }
  consumed = pos;
  return true;
}

ParseResult RequestParser::parse_general(std::string_view in, std::vector<std::string_view>& args) {
  args.clear();
  if (phase_ != Phase::kIdle) {
    const bool same_kind = !in.empty() && ((in[0] == '*') == (phase_ != Phase::kInline));
    if (!same_kind || in.size() < pos_ + scan_) reset();
  }
  std::size_t start = 0;
  for (;;) {
    if (phase_ == Phase::kIdle) {
      if (start == in.size()) return {ParseStatus::kNeedMore, start, 0, {}};
      phase_ = in[start] == '*' ? Phase::kCount : Phase::kInline;
      pos_ = 0;
      scan_ = 0;
    }
    ParseResult r =
        phase_ == Phase::kInline ? parse_inline(in, start, args) : parse_multibulk(in, start, args);
    if (r.status != ParseStatus::kCommand || !args.empty()) return r;
    start = r.consumed;  // an empty command: skip it
  }
}

ParseResult RequestParser::parse_multibulk(std::string_view in, std::size_t start,
                                           std::vector<std::string_view>& args) {
  const char* p = in.data() + start;
  const std::size_t n = in.size() - start;
  std::size_t pos = pos_;

  if (phase_ == Phase::kCount) {
    std::int64_t count;
    std::size_t cr;
    if (!fast_header(p, 0, n, count, cr)) {
      cr = find_cr(p, scan_, n);
      if (cr == kNpos) {
        if (n > kInlineMaxSize) return fail(kErrBigMbulk);
        scan_ = n;
        return need_more(in, start, args, 0);
      }
      if (cr + 1 >= n) {  // the '\n' has not arrived
        scan_ = cr;
        return need_more(in, start, args, 0);
      }
      if (!parse_ll(p + 1, cr - 1, count)) return fail(kErrMbulkLen);
    }
    if (count > INT_MAX) return fail(kErrMbulkLen);
    if (!authenticated_ && count > kUnauthMaxArgs) return fail(kErrUnauthMbulk);
    pos = cr + 2;
    if (count <= 0) {
      phase_ = Phase::kIdle;
      return {ParseStatus::kCommand, start + pos, 0, {}};
    }
    remaining_ = count;
    phase_ = Phase::kBulkHeader;
    scan_ = 0;
    // Redis caps the first argv allocation the same way, so a lying count costs nothing.
    const std::size_t hint = static_cast<std::size_t>(std::min<std::int64_t>(count, 1024));
    if (args.capacity() < hint) args.reserve(hint);
  }

  while (remaining_ > 0) {
    if (phase_ == Phase::kBulkHeader) {
      std::int64_t len;
      std::size_t cr;
      if (pos >= n || p[pos] != '$' || !fast_header(p, pos, n, len, cr)) {
        cr = find_cr(p, pos + scan_, n);
        if (cr == kNpos) {
          if (n - pos > kInlineMaxSize) return fail(kErrBigBulk);
          pos_ = pos;
          scan_ = n - pos;
          return need_more(in, start, args, 0);
        }
        if (cr + 1 >= n) {
          pos_ = pos;
          scan_ = cr - pos;
          return need_more(in, start, args, 0);
        }
        if (p[pos] != '$') {
          // Redis's error formatter turns CR/LF into spaces.
          const char got = (p[pos] == '\r' || p[pos] == '\n') ? ' ' : p[pos];
          std::memcpy(error_buf_, kExpectedPrefix.data(), kExpectedPrefix.size());
          error_buf_[kExpectedPrefix.size()] = got;
          error_buf_[kExpectedPrefix.size() + 1] = '\'';
          return fail({error_buf_, kExpectedPrefix.size() + 2});
        }
        if (!parse_ll(p + pos + 1, cr - pos - 1, len) || len < 0) return fail(kErrBulkLen);
      }
      if (static_cast<std::uint64_t>(len) > max_bulk_len_) return fail(kErrBulkLen);
      if (!authenticated_ && len > kUnauthMaxBulk) return fail(kErrUnauthBulk);
      pos = cr + 2;
      bulk_len_ = len;
      phase_ = Phase::kBulkBody;
      scan_ = 0;
    }
    const std::size_t body_end = pos + static_cast<std::size_t>(bulk_len_) + 2;
    if (body_end > n) {
      pos_ = pos;
      return need_more(in, start, args, body_end);
    }
    args.emplace_back(p + pos, static_cast<std::size_t>(bulk_len_));
    pos = body_end;
    phase_ = Phase::kBulkHeader;
    --remaining_;
  }

  if (!saved_.empty()) {
    // Arguments from earlier calls go first; they were kept as offsets because the caller may
    // have moved its buffer in between.
    const std::size_t fresh = args.size();
    const std::size_t old = saved_.size();
    args.resize(old + fresh);
    std::move_backward(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(fresh), args.end());
    for (std::size_t i = 0; i < old; ++i) args[i] = {p + saved_[i].off, saved_[i].len};
  }
  reset();
  return {ParseStatus::kCommand, start + pos, 0, {}};
}

ParseResult RequestParser::parse_inline(std::string_view in, std::size_t start,
                                        std::vector<std::string_view>& args) {
  const char* p = in.data() + start;
  const std::size_t n = in.size() - start;
  const void* hit = std::memchr(p + scan_, '\n', n - scan_);
  if (hit == nullptr) {
    if (n > kInlineMaxSize) return fail(kErrBigInline);
    scan_ = n;
    return need_more(in, start, args, 0);
  }
  const std::size_t newline = static_cast<std::size_t>(static_cast<const char*>(hit) - p);
  std::size_t end = newline;
  if (end > 0 && p[end - 1] == '\r') --end;
  if (!split_inline({p, end}, args)) return fail(kErrQuotes);
  reset();
  return {ParseStatus::kCommand, start + newline + 1, 0, {}};
}

// sdssplitargs. Plain words are views into the line; a word with a quoted part is unescaped
// into scratch_, which is reserved up front (output never outgrows the line) so earlier views
// into it stay valid.
bool RequestParser::split_inline(std::string_view line, std::vector<std::string_view>& args) {
  scratch_.clear();
  if (scratch_.capacity() < line.size()) scratch_.reserve(line.size());
  const char* s = line.data();
  const std::size_t n = line.size();
  std::size_t i = 0;
  for (;;) {
    while (i < n && is_space(s[i])) ++i;
    if (i == n) return true;
    const std::size_t word = i;
    while (i < n && !ends_word(s[i]) && s[i] != '"' && s[i] != '\'') ++i;
    if (i == n || ends_word(s[i])) {
      args.emplace_back(s + word, i - word);
      continue;
    }
    // A quote opens inside or at the start of the word; the quoted part ends the word.
    const std::size_t out = scratch_.size();
    scratch_.append(s + word, i - word);
    if (s[i++] == '"') {
      for (;;) {
        if (i == n) return false;
        const char c = s[i];
        if (c == '\\' && i + 3 < n && s[i + 1] == 'x' && hex_value(s[i + 2]) >= 0 &&
            hex_value(s[i + 3]) >= 0) {
          scratch_.push_back(static_cast<char>(hex_value(s[i + 2]) * 16 + hex_value(s[i + 3])));
          i += 4;
        } else if (c == '\\' && i + 1 < n) {
          char e = s[i + 1];
          switch (e) {
            case 'n':
              e = '\n';
              break;
            case 'r':
              e = '\r';
              break;
            case 't':
              e = '\t';
              break;
            case 'b':
              e = '\b';
              break;
            case 'a':
              e = '\a';
              break;
            default:
              break;
          }
          scratch_.push_back(e);
          i += 2;
        } else if (c == '"') {
          ++i;
          break;
        } else {
          scratch_.push_back(c);
          ++i;
        }
      }
    } else {
      for (;;) {
        if (i == n) return false;
        const char c = s[i];
        if (c == '\\' && i + 1 < n && s[i + 1] == '\'') {
          scratch_.push_back('\'');
          i += 2;
        } else if (c == '\'') {
          ++i;
          break;
        } else {
          scratch_.push_back(c);
          ++i;
        }
      }
    }
    // A closing quote must be followed by a blank or the end of the line.
    if (i < n && !is_space(s[i])) return false;
    assert(scratch_.size() <= line.size());
    args.emplace_back(scratch_.data() + out, scratch_.size() - out);
  }
}

}  // namespace ruvio::proto
