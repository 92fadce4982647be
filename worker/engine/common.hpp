// Argument parsing and error texts shared by every command family. The texts are Redis 7's
// own, word for word: clients match on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ruvio::worker {

namespace err {
inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInt = "ERR value is not an integer or out of range";
// getIntFromObjectOrReply's text for an int64 outside int's range.
inline constexpr std::string_view kIntRange =
    "ERR value is out of range, value must between -2147483648 and 2147483647";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kDbIndex = "ERR DB index is out of range";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
}  // namespace err

// Redis's string2ll: optional '-', no '+', no spaces, no leading zeros ("0" alone is fine),
// must fit int64.
std::optional<std::int64_t> parse_int64(std::string_view s);
// Redis's string2ld / strtold rules for INCRBYFLOAT and friends: no spaces, not NaN.
std::optional<long double> parse_long_double(std::string_view s);
// Redis's string2d (for doubles such as ZADD scores): accepts "inf", "+inf", "-inf".
std::optional<double> parse_double(std::string_view s);

// A SCAN cursor as Redis 7.0's parseScanCursorOrReply reads it (strtoul, base 10): optional
// sign (a '-' wraps: "-1" is 2^64-1), then digits only, no leading space, no overflow; an
// empty string is cursor 0. The one parser of the proxy port and the direct ports.
std::optional<std::uint64_t> parse_scan_cursor(std::string_view s);

// Case-insensitive ASCII comparison, for option keywords.
bool iequals(std::string_view a, std::string_view b);

// Formats like Redis's ld2string(LD_STR_HUMAN) into `buf` ("%.17Lf", trailing zeros and a bare
// '.' trimmed, "-0" as "0"); empty when it does not fit `cap`.
std::string_view format_long_double_human(long double v, char* buf, std::size_t cap);

// Formats like Redis's ll2string into `buf` (at least 21 bytes); returns the view.
std::string_view format_int64(std::int64_t v, char* buf);

}  // namespace ruvio::worker
