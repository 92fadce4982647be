// Reading complete RESP replies back (what the mesh returns), to merge the parts of a split
// or fanned-out command. Only framing is parsed; element bytes are copied through as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ruvio::worker {

// Length in bytes of the first complete RESP2/RESP3 value in `s`, or 0 if it is incomplete
// or malformed.
std::size_t reply_length(std::string_view s);

// ":123\r\n" → 123.
std::optional<std::int64_t> reply_integer(std::string_view s);

// For an aggregate ("*n\r\n…", "~n", "%n"): n and the offset of its first element.
struct AggregateHeader {
  std::int64_t count = 0;
  std::size_t body = 0;
};
std::optional<AggregateHeader> reply_aggregate(std::string_view s);

// The payload of a bulk ("$n\r\n…") or verbatim ("=n\r\ntxt:…") string; nullopt otherwise.
std::optional<std::string_view> reply_string(std::string_view s);

inline bool reply_is_error(std::string_view s) {
  return !s.empty() && (s[0] == '-' || s[0] == '!');
}

}  // namespace ruvio::worker
