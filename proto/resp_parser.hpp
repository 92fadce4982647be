// Incremental RESP request parser (multibulk and inline), Redis 7's rules and error wording.
//
// The parser never copies a multibulk argument: every argument is a view into the caller's
// input buffer, valid until the caller consumes/compacts that buffer. Inline arguments with
// quotes or escapes are unescaped into the parser's own scratch buffer (views point there,
// valid until the next parse call).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio::proto {

inline constexpr std::size_t kDefaultMaxBulkLen = 512ull * 1024 * 1024;  // proto-max-bulk-len
inline constexpr std::size_t kInlineMaxSize = 64 * 1024;                 // PROTO_INLINE_MAX_SIZE

enum class ParseStatus {
  kCommand,   // one command parsed into args; `consumed` bytes belong to it
  kNeedMore,  // input ends inside a command; `consumed` bytes (empty commands) may be dropped
  kError,     // protocol error: reply `-<error>` and close the connection
};

struct ParseResult {
  ParseStatus status;
  std::size_t consumed = 0;  // bytes of input used (kCommand/kNeedMore)
  std::size_t need = 0;  // kNeedMore: total bytes from `consumed` the command needs, 0 if unknown
  std::string_view error{};  // kError: full error text without the leading '-', e.g.
                             // "ERR Protocol error: invalid bulk length"
};

class RequestParser {
 public:
  // Parses at most one command from the start of `input`. Empty commands (`*0`, `*-1`, blank
  // inline lines) are skipped and counted in `consumed`.
  //
  // After kNeedMore with consumed == 0 the parser remembers how far it got, so the next call
  // must pass the same bytes again (moved or not) followed by more; a command arriving in many
  // reads is then parsed in linear time. `args` is cleared on every call; after kNeedMore its
  // content is unspecified (one vector may be shared by many connections' parsers).
  // Inline: a whole command with plain headers (nearly every request) is read in one pass.
  ParseResult parse(std::string_view input, std::vector<std::string_view>& args) {
    args.clear();
    std::size_t consumed;
    if (phase_ == Phase::kIdle && !input.empty() && input[0] == '*' &&
        parse_whole(input, args, consumed)) {
      return {ParseStatus::kCommand, consumed, 0, {}};
    }
    return parse_general(input, args);
  }

  // Forgets a partly parsed command (call when the caller drops its input buffer).
  void reset();

  // How far a partly arrived command got, as Redis's client shows it (CLIENT LIST): the
  // arguments parsed so far (their bytes and count: argv-mem) and where the unparsed rest
  // starts from the command's first byte (Redis trims its query buffer there: qbuf). Read
  // only when asked; parsing keeps no extra state for it.
  struct Progress {
    std::size_t arg_bytes = 0;
    std::size_t args = 0;
    std::size_t parsed = 0;
  };
  Progress progress() const {
    Progress p;
    if (phase_ != Phase::kBulkHeader && phase_ != Phase::kBulkBody) return p;
    for (const Span& s : saved_) p.arg_bytes += s.len;
    p.args = saved_.size();
    p.parsed = pos_;
    return p;
  }

  void set_max_bulk_len(std::size_t n) { max_bulk_len_ = n; }
  // Unauthenticated clients may not send large multibulk headers (Redis: > 10 args, bulk > 16 KiB).
  void set_authenticated(bool yes) { authenticated_ = yes; }

 private:
  // Where a command that did not fit in the input stopped, relative to the command's first byte.
  enum class Phase : std::uint8_t { kIdle, kInline, kCount, kBulkHeader, kBulkBody };
  struct Span {
    std::size_t off;
    std::size_t len;
  };

  ParseResult parse_general(std::string_view in, std::vector<std::string_view>& args);
  bool parse_whole(std::string_view in, std::vector<std::string_view>& args,
                   std::size_t& consumed) const;
  ParseResult parse_inline(std::string_view in, std::size_t start,
                           std::vector<std::string_view>& args);
  ParseResult parse_multibulk(std::string_view in, std::size_t start,
                              std::vector<std::string_view>& args);
  bool split_inline(std::string_view line, std::vector<std::string_view>& args);
  ParseResult need_more(std::string_view in, std::size_t start,
                        const std::vector<std::string_view>& args, std::size_t need);
  ParseResult fail(std::string_view error);

  std::size_t max_bulk_len_ = kDefaultMaxBulkLen;
  bool authenticated_ = true;
  std::string scratch_;  // unescaped inline arguments

  Phase phase_ = Phase::kIdle;
  std::size_t pos_ = 0;         // current line (or bulk body) offset from the command start
  std::size_t scan_ = 0;        // bytes of the current line known to hold no terminator
  std::int64_t remaining_ = 0;  // multibulk arguments still to read
  std::int64_t bulk_len_ = -1;  // kBulkBody: length announced by the `$` line
  std::vector<Span> saved_;     // arguments parsed by earlier calls of an unfinished command
  char error_buf_[64] = {};     // "expected '$', got 'X'" needs a formatted message
};

}  // namespace ruvio::proto
