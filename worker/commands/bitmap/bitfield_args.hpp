// BITFIELD's argument parser, apart from the command so that a fuzz target can drive it alone
// (tests/fuzz/fuzz_bitfield.cpp). It reads every operation before the key is looked at and
// stops at the first bad one with Redis 7.0's exact error, as bitfieldGeneric does:
//
//   GET <type> <offset> | SET <type> <offset> <value> | INCRBY <type> <offset> <incr>
//   | OVERFLOW WRAP|SAT|FAIL        (applies to the SET/INCRBY operations after it)
//   type   = i1..i64 | u1..u63      offset = N | #N (N * width)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "worker/types/bitmap/bitmap.hpp"

namespace ruvio::worker::bitfield {

inline constexpr std::string_view kOffsetErr = "ERR bit offset is not an integer or out of range";
inline constexpr std::string_view kTypeErr =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";
// proto-max-bulk-len's default: a bit offset must address a byte below it.
inline constexpr std::uint64_t kMaxBytes = 512ULL * 1024 * 1024;

enum class Kind : std::uint8_t { kGet, kSet, kIncrBy };

struct Op {
  std::uint64_t offset = 0;  // in bits
  std::int64_t value = 0;    // SET's value or INCRBY's increment
  Kind kind = Kind::kGet;
  types::bitmap::Overflow overflow = types::bitmap::Overflow::kWrap;
  unsigned bits = 0;
  bool sign = false;
};

struct Parsed {
  std::string_view error;                   // empty when every operation parsed
  bool writes = false;                      // a SET or INCRBY is among them
  std::uint64_t lowest_write = UINT64_MAX;  // first bit a write touches
  std::uint64_t highest_write = 0;          // last bit a write touches
};

// getBitOffsetFromArgument: a non-negative integer whose byte is below kMaxBytes; with
// `hash` and a width, "#N" means N * width (wrapping as Redis's multiplication does).
std::optional<std::uint64_t> parse_offset(std::string_view s, bool hash, unsigned bits);

// `args` are the arguments after the key. Fills `ops` (cleared by the caller).
Parsed parse(std::span<const std::string_view> args, std::vector<Op>& ops);

}  // namespace ruvio::worker::bitfield
