#include "worker/persist/rdb_io.hpp"

#include <lzf.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "worker/persist/lzf_fast.hpp"
#include "worker/store/record.hpp"

namespace ruvio::persist::rdb {
namespace {

constexpr std::uint8_t kEncInt8 = 0;
constexpr std::uint8_t kEncInt16 = 1;
constexpr std::uint8_t kEncInt32 = 2;
constexpr std::uint8_t kEncLzf = 3;

void put_be(std::string& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// rdbEncodeInteger: false when v needs more than 32 bits.
bool put_small_int(std::string& out, std::int64_t v) {
  if (v >= INT8_MIN && v <= INT8_MAX) {
    out.push_back(static_cast<char>(0xC0 | kEncInt8));
    put_le(out, static_cast<std::uint64_t>(v), 1);
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    out.push_back(static_cast<char>(0xC0 | kEncInt16));
    put_le(out, static_cast<std::uint64_t>(v), 2);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    out.push_back(static_cast<char>(0xC0 | kEncInt32));
    put_le(out, static_cast<std::uint64_t>(v), 4);
  } else {
    return false;
  }
  return true;
}

// rdbSaveLzfStringObject: false when LZF does not save at least 4 bytes.
bool put_lzf(std::string& out, std::string_view s) {
  thread_local std::string buf;
  const std::size_t outlen = s.size() - 4;
  buf.resize(outlen + 1);
  const unsigned n = lzf_compress(s.data(), static_cast<unsigned>(s.size()), buf.data(),
                                  static_cast<unsigned>(outlen));
  if (n == 0) return false;
  put_lzf_blob(out, std::string_view(buf.data(), n), s.size());
  return true;
}

}  // namespace

void put_len(std::string& out, std::uint64_t n) {
  if (n < (1u << 6)) {
    out.push_back(static_cast<char>(n));
  } else if (n < (1u << 14)) {
    out.push_back(static_cast<char>(0x40 | (n >> 8)));
    out.push_back(static_cast<char>(n & 0xff));
  } else if (n <= std::numeric_limits<std::uint32_t>::max()) {
    out.push_back(static_cast<char>(0x80));
    put_be(out, n, 4);
  } else {
    out.push_back(static_cast<char>(0x81));
    put_be(out, n, 8);
  }
}

void put_string(std::string& out, std::string_view s) {
  std::int64_t v = 0;
  if (s.size() <= 11 && containers::parse_canonical_int(s, &v) && put_small_int(out, v)) return;
  // Under 21 bytes LZF cannot gain the 4 bytes it must (rdb.c's comment).
  if (s.size() > 20 && put_lzf(out, s)) return;
  put_len(out, s.size());
  out.append(s);
}

void put_int_string(std::string& out, std::int64_t v) {
  if (put_small_int(out, v)) return;
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  put_len(out, static_cast<std::size_t>(r.ptr - buf));
  out.append(buf, r.ptr);
}

void put_lzf_blob(std::string& out, std::string_view compressed, std::size_t raw_len) {
  out.push_back(static_cast<char>(0xC0 | kEncLzf));
  put_len(out, compressed.size());
  put_len(out, raw_len);
  out.append(compressed);
}

void put_binary_double(std::string& out, double d) {
  put_le(out, std::bit_cast<std::uint64_t>(d), 8);
}

void put_u64_le(std::string& out, std::uint64_t v) {
  put_le(out, v, 8);
}

bool Reader::u8(std::uint8_t& v) {
  if (p_ == end_) return false;
  v = static_cast<std::uint8_t>(*p_++);
  return true;
}

bool Reader::raw(std::size_t n, std::string_view& out) {
  if (remaining() < n) return false;
  out = std::string_view(p_, n);
  p_ += n;
  return true;
}

bool Reader::len_after(std::uint8_t b, std::uint64_t& n, bool* encoded) {
  *encoded = false;
  switch (b >> 6) {
    case 0:
      n = b & 0x3f;
      return true;
    case 1: {
      std::uint8_t lo = 0;
      if (!u8(lo)) return false;
      n = (static_cast<std::uint64_t>(b & 0x3f) << 8) | lo;
      return true;
    }
    case 2: {
      int bytes = b == 0x80 ? 4 : b == 0x81 ? 8 : 0;
      if (bytes == 0 || remaining() < static_cast<std::size_t>(bytes)) return false;
      n = 0;
      for (int i = 0; i < bytes; ++i) n = (n << 8) | static_cast<std::uint8_t>(*p_++);
      return true;
    }
    default:
      *encoded = true;
      n = b & 0x3f;
      return true;
  }
}

bool Reader::len(std::uint64_t& n) {
  std::uint8_t b = 0;
  bool encoded = false;
  return u8(b) && len_after(b, n, &encoded) && !encoded;
}

bool Reader::string(std::string& out) {
  std::uint8_t b = 0;
  std::uint64_t n = 0;
  bool encoded = false;
  if (!u8(b) || !len_after(b, n, &encoded)) return false;
  if (!encoded) {
    std::string_view s;
    if (n > remaining() || !raw(static_cast<std::size_t>(n), s)) return false;
    out.assign(s);
    return true;
  }
  std::int64_t v = 0;
  std::string_view s;
  switch (n) {
    case kEncInt8:
      if (!raw(1, s)) return false;
      v = static_cast<std::int8_t>(s[0]);
      break;
    case kEncInt16:
      if (!raw(2, s)) return false;
      v = static_cast<std::int16_t>(static_cast<std::uint8_t>(s[0]) |
                                    (static_cast<std::uint8_t>(s[1]) << 8));
      break;
    case kEncInt32: {
      if (!raw(4, s)) return false;
      std::uint32_t u = 0;
      for (int i = 3; i >= 0; --i) u = (u << 8) | static_cast<std::uint8_t>(s[i]);
      v = static_cast<std::int32_t>(u);
      break;
    }
    case kEncLzf: {
      std::uint64_t clen = 0, ulen = 0;
      if (!len(clen) || !len(ulen) || clen > remaining() || !raw(clen, s)) return false;
      // LZF expands at most ~88x (a 3-byte back reference yields 264 bytes): a larger claimed
      // length is corrupt, and must not make us allocate it.
      if (ulen > clen * 90 + 16) return false;
      // A claimed length of 0 passes as Redis lets it: lzf_decompress then yields 0 == len.
      out.resize(static_cast<std::size_t>(ulen));
      char none = 0;
      const std::size_t got =
          lzf_decompress_fast(s.data(), static_cast<std::size_t>(clen),
                              ulen != 0 ? out.data() : &none, static_cast<std::size_t>(ulen));
      return got == ulen;
    }
    default:
      return false;
  }
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.assign(buf, r.ptr);
  return true;
}

bool Reader::binary_double(double& d) {
  std::uint64_t u = 0;
  if (!u64_le(u)) return false;
  d = std::bit_cast<double>(u);
  return true;
}

bool Reader::u64_le(std::uint64_t& v) {
  std::string_view s;
  if (!raw(8, s)) return false;
  v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(s[i]);
  return true;
}

bool Reader::text_double(double& d) {
  std::uint8_t n = 0;
  if (!u8(n)) return false;
  switch (n) {
    case 253:
      d = std::nan("");
      return true;
    case 254:
      d = std::numeric_limits<double>::infinity();
      return true;
    case 255:
      d = -std::numeric_limits<double>::infinity();
      return true;
    default: {
      std::string_view s;
      if (!raw(n, s)) return false;
      char buf[256];
      std::memcpy(buf, s.data(), n);
      buf[n] = '\0';
      // rdbLoadDoubleValue: sscanf "%lg", so trailing junk is ignored as Redis ignores it.
      char* end = nullptr;
      d = std::strtod(buf, &end);
      return end != buf;
    }
  }
}

}  // namespace ruvio::persist::rdb
