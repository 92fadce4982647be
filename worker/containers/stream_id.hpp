// Stream entry IDs: <ms>-<seq>, two unsigned 64-bit numbers ordered as one 128-bit number,
// and their text forms as Redis 7.0's t_stream.c parses and prints them.
//
//   text   "<ms>-<seq>"  both decimal, printed "%llu-%llu"
//   input  Redis's streamGenericParseIDOrReply over a NUL-terminated copy of at most 127
//          bytes: "-" and "+" (when not strict) are 0-0 and the maximum ID; "<ms>" alone takes
//          the caller's missing sequence; "<ms>-*" (XADD only) leaves the sequence to the
//          stream. Each number is read by string2ull: string2ll's strict form, or else
//          strtoull's lenient one (leading blanks, '+', even a '-' that wraps), so " 5",
//          "+5" and "05" are 5 and "-18446744073709551615" is 1, exactly as redis-server.
//
// The parser reads outside bytes: tests/fuzz/fuzz_stream_id.cpp.
#pragma once

#include <compare>
#include <cstdint>
#include <string_view>

namespace ruvio::types {

struct StreamID {
  std::uint64_t ms = 0;
  std::uint64_t seq = 0;
  friend constexpr auto operator<=>(const StreamID&, const StreamID&) = default;
  constexpr bool zero() const { return ms == 0 && seq == 0; }
};

inline constexpr StreamID kStreamMinId{0, 0};
inline constexpr StreamID kStreamMaxId{UINT64_MAX, UINT64_MAX};

// streamIncrID / streamDecrID: false (and the ID unchanged) at the end of the range.
bool stream_id_incr(StreamID& id);
bool stream_id_decr(StreamID& id);

// "%llu-%llu" into `buf` (at least kStreamIdBuf bytes).
inline constexpr std::size_t kStreamIdBuf = 48;
std::string_view stream_id_format(const StreamID& id, char* buf);

struct ParsedStreamId {
  StreamID id;
  bool seq_given = true;  // false for "<ms>-*"
};

// streamGenericParseIDOrReply. `strict`: "-" and "+" are refused (XADD, XDEL, XACK, ...).
// `allow_seq_star`: "<ms>-*" is accepted (XADD's ID). False: the text is no stream ID.
bool stream_id_parse(std::string_view s, std::uint64_t missing_seq, bool strict,
                     bool allow_seq_star, ParsedStreamId& out);

// Redis's string2ull over a NUL-terminated string.
bool stream_string2ull(const char* s, std::uint64_t& out);

}  // namespace ruvio::types
