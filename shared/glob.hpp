// Redis's glob matching (stringmatchlen), used by KEYS, SCAN MATCH, CONFIG GET and
// COMMAND LIST FILTERBY PATTERN. Clients rely on its exact quirks, so they are kept:
//   *  any run (including empty)      ?  one byte
//   [abc] [^abc] [a-z] (a reversed range [z-a] is the same set)   \x  literal x
//   an unclosed '[' takes the rest of the pattern as the set.
// A pattern of many '*' cannot blow up: once the tail after a '*' fails at every offset,
// no earlier '*' can help, and matching stops (Redis does the same), with a nesting cap.
#pragma once

#include <string_view>

namespace ruvio::worker {

bool glob_match(std::string_view pattern, std::string_view text, bool nocase = false);

}  // namespace ruvio::worker
