// The options of SCAN, SSCAN, HSCAN and ZSCAN (Redis's scanGenericCommand): COUNT n, MATCH
// pattern and, for SCAN only, TYPE name, in any order, each at most once in effect (a later
// one wins). Parsed after the cursor and the key, as Redis does, so a missing key answers
// an empty scan whatever its options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "worker/engine/context.hpp"

namespace ruvio::worker {

struct ScanOptions {
  std::int64_t count = 10;
  std::string_view pattern;  // meaningful when use_pattern
  bool use_pattern = false;  // MATCH given and not "*"
  std::string_view type;     // SCAN TYPE, meaningful when use_type
  bool use_type = false;
};

// Options from args[first] on. A bad one gets Redis's error reply and nullopt.
std::optional<ScanOptions> parse_scan_options(Context& ctx, std::size_t first, bool allow_type);

}  // namespace ruvio::worker
