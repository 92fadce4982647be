// Redis's string2ll rules for "is this string an int64 Redis would store as an integer", used
// by the record (int encoding) and the compact encodings (listpack integers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ruvio::containers {

// Redis string2ll: true when `s` is the canonical decimal form of an int64 ("-0", "+1",
// "01", " 1" and anything over 20 chars are not).
bool parse_canonical_int(std::string_view s, std::int64_t* out);
// Decimal digits (plus sign) of v.
std::size_t int_text_len(std::int64_t v);

}  // namespace ruvio::containers
