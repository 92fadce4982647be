// The primitives of Redis's RDB serialization (src/rdb.c), as DUMP/RESTORE carry them: type
// bytes, lengths, strings in their three forms, doubles. The value codec (rdb_value.hpp) is
// built from these; the RDB file format proper (aux fields, selectdb, expiry opcodes) is not.
//
//   length (rdbSaveLen / rdbLoadLen), big-endian where wider than a byte:
//     00nnnnnn                 n < 64
//     01nnnnnn nnnnnnnn        n < 16384
//     10000000 [u32 BE]        n < 2^32
//     10000001 [u64 BE]        any
//     11eeeeee                 not a length: a string in special encoding e (below)
//   string (rdbSaveRawString / rdbGenericLoadStringObject):
//     [length n][n bytes]                      verbatim
//     0xC0 [i8] | 0xC1 [i16 LE] | 0xC2 [i32 LE]  a decimal integer's text, when the text is
//                                              canonical (string2ll then ll2string round trip)
//     0xC3 [length clen][length len][clen bytes] LZF of a string longer than 20 bytes that
//                                              compresses by at least 4 bytes
//   double: ZSET_2 as 8 bytes little-endian IEEE (rdbSaveBinaryDoubleValue); the old ZSET
//     type as [u8 n][n bytes of "%.17g" text], n 253/254/255 = nan/+inf/-inf.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ruvio::persist::rdb {

// RDB_TYPE_* of Redis 7.0 (rdb.h); 7.0 reads and writes nothing above 19.
enum RdbType : std::uint8_t {
  kString = 0,
  kList = 1,
  kSet = 2,
  kZSet = 3,
  kHash = 4,
  kZSet2 = 5,
  kHashZipmap = 9,
  kListZiplist = 10,
  kSetIntset = 11,
  kZSetZiplist = 12,
  kHashZiplist = 13,
  kListQuicklist = 14,
  kStreamListpacks = 15,
  kHashListpack = 16,
  kZSetListpack = 17,
  kListQuicklist2 = 18,
  kStreamListpacks2 = 19,
};

// Quicklist node containers (QUICKLIST_2).
inline constexpr std::uint64_t kNodePlain = 1;
inline constexpr std::uint64_t kNodePacked = 2;

// RDB_VERSION of Redis 7.0: DUMP writes it, RESTORE refuses a payload from a newer one.
inline constexpr std::uint16_t kVersion = 10;

void put_len(std::string& out, std::uint64_t n);
// rdbSaveRawString: integer, LZF or verbatim form, as 7.0 (rdbcompression yes) picks it.
void put_string(std::string& out, std::string_view s);
// rdbSaveLongLongAsStringObject: an int-encoded value.
void put_int_string(std::string& out, std::int64_t v);
// rdbSaveLzfBlob: data that is already LZF (a compressed quicklist node).
void put_lzf_blob(std::string& out, std::string_view compressed, std::size_t raw_len);
void put_binary_double(std::string& out, double d);
void put_u64_le(std::string& out, std::uint64_t v);

// Reads untrusted bytes: every read is bounds-checked and returns false on malformed input
// (no exceptions, never a read outside the buffer).
class Reader {
 public:
  explicit Reader(std::string_view in) : p_(in.data()), end_(in.data() + in.size()) {}
  bool u8(std::uint8_t& v);
  bool len(std::uint64_t& n);  // a plain length (an encoded-string marker is an error)
  // A string of any form into `out` (integers as their decimal text).
  bool string(std::string& out);
  bool binary_double(double& d);
  bool text_double(double& d);
  bool u64_le(std::uint64_t& v);
  bool raw(std::size_t n, std::string_view& out);
  std::size_t remaining() const { return static_cast<std::size_t>(end_ - p_); }
  bool done() const { return p_ == end_; }

 private:
  // The length that follows first byte `b`; *encoded set for a 11eeeeee marker (n = e).
  bool len_after(std::uint8_t b, std::uint64_t& n, bool* encoded);
  const char* p_;
  const char* end_;
};

}  // namespace ruvio::persist::rdb
