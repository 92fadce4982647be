// FUNCTION DUMP / FUNCTION RESTORE payloads in Redis 7.0's format, so a payload taken from
// redis-server restores here and the reverse (functions.c's functionDumpCommand, rdb.c):
//
//   +------+---------------------+------+---------------------+-----------+-------------+
//   | 0xF5 | rdb string: code 1  | 0xF5 | rdb string: code 2  | u16 ver   | u64 crc64   |
//   +------+---------------------+------+---------------------+-----------+-------------+
//   0xF5   RDB_OPCODE_FUNCTION2, one per library; the string is the whole library code,
//          `#!lua name=...` header included.
//   0xF6   the 7.0 release candidates' record (name, engine, has-desc length, [desc], code
//          as rdb strings), still read by 7.0 GA: made into a `#!<engine> name=<name>` code.
//   ver    RDB version, little-endian (10 for 7.0); a payload from a newer RDB is refused.
//   crc64  Redis's CRC-64 (Jones polynomial, reflected) of every byte before it, LE.
//
// An rdb string is a length then bytes, or an encoded value:
//   00xxxxxx                 6-bit length         01xxxxxx yyyyyyyy   14-bit length (BE)
//   0x80 + u32 BE            32-bit length        0x81 + u64 BE       64-bit length
//   0xC0 i8 / 0xC1 i16 / 0xC2 i32 (LE)            an integer written as its decimal text
//   0xC3 clen len bytes      LZF (liblzf) of len bytes in clen
// Dump writes LZF when it saves 4 bytes or more on a string over 20 bytes, as Redis does.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio::worker::script {

// The DUMP payload of `codes` (one library code each).
std::string dump_functions(std::span<const std::string_view> codes);

// Parses a RESTORE payload, handing each library code to `on_library` as it is read (so the
// errors come in Redis's order: a bad first library before a torn second one). False with
// `err` set: on_library's error, or Redis's text:
// "DUMP payload version or checksum are wrong", "can not read data type",
// "given type is not a function", "Failed loading library payload" (and the pre-GA
// record's "Failed loading library name" ... "Failed loading library blob").
using LibraryFn = std::function<bool(const std::string& code, std::string& err)>;
bool parse_functions(std::string_view payload, const LibraryFn& on_library, std::string& err);

}  // namespace ruvio::worker::script
