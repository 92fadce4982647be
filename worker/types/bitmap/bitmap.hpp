// Bitmaps: bit operations on the bytes of a string value, as Redis's bitops.c defines them.
// No RESP, no keyspace: the command family (worker/commands/bitmap/bitmap_commands.cpp) hands in
// the bytes (through store::StringHandle for writes) and writes the replies.
//
// Bit numbering is Redis's: bit 0 is the most significant bit of byte 0, so a bitmap reads
// left to right as written. A BITFIELD integer of `bits` width at bit offset `off` occupies
// bits off .. off+bits-1 in that order, most significant first (big-endian when aligned):
//
//   SET u5 at offset 7 to 23 (10111b) in a zeroed bitmap:
//     byte 0            byte 1
//     0 0 0 0 0 0 0 1 | 0 1 1 1 0 0 0 0
//     bit 0 ........7   8 ..11
//
// The whole-string loops (popcount, first set/clear bit, AND/OR/XOR/NOT) go a 64-bit word at a
// time (__builtin_popcountll; the AND/OR/XOR loops are left to the compiler's vectorizer), so
// a 1 MiB BITCOUNT costs tens of microseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ruvio::types::bitmap {

// Set bits in `bytes`.
std::uint64_t popcount(const std::uint8_t* p, std::size_t n);

// Position of the first bit equal to `bit` in p[0..n), counting from the first byte's MSB.
// Looking for 0 in all-ones bytes answers n*8 (the string is taken as zero-padded on the
// right); looking for 1 in all-zero bytes answers -1. (redisBitpos)
std::int64_t first_bit(const std::uint8_t* p, std::size_t n, int bit);

enum class Op : std::uint8_t { kAnd, kOr, kXor, kNot };

// BITOP: out[0..max len) from the sources; a shorter source reads as zero bytes past its end.
// `out` has room for the longest source.
void combine(Op op, std::span<const std::string_view> srcs, std::uint8_t* out);

// A BITFIELD integer: `bits` 1..64 wide at bit `offset`. The bytes must cover it.
std::uint64_t get_unsigned(const std::uint8_t* p, std::uint64_t offset, unsigned bits);
std::int64_t get_signed(const std::uint8_t* p, std::uint64_t offset, unsigned bits);
void set_bits(std::uint8_t* p, std::uint64_t offset, unsigned bits, std::uint64_t value);

enum class Overflow : std::uint8_t { kWrap, kSat, kFail };

// value + incr stored in `bits`: 0 when it fits, 1 above the range, -1 below it. On overflow
// *limit is what WRAP or SAT would store (untouched for FAIL). Redis's
// check{Unsigned,Signed}BitfieldOverflow, to the last corner (value itself out of range).
int check_unsigned(std::uint64_t value, std::int64_t incr, unsigned bits, Overflow ow,
                   std::uint64_t* limit);
int check_signed(std::int64_t value, std::int64_t incr, unsigned bits, Overflow ow,
                 std::int64_t* limit);

}  // namespace ruvio::types::bitmap
