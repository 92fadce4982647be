// FUNCTION DUMP / RESTORE payload bytes (function_payload.hpp draws them).
#include "worker/script/function_payload.hpp"

#include <array>
#include <cstring>

extern "C" {
#include <lzf.h>
}

namespace ruvio::worker::script {
namespace {

constexpr unsigned char kOpFunction2 = 245;      // RDB_OPCODE_FUNCTION2
constexpr unsigned char kOpFunctionPreGa = 246;  // RDB_OPCODE_FUNCTION (7.0 RC's format)
constexpr std::size_t kFooter = 10;              // u16 version + u64 crc

// The table of the reflected Jones polynomial, built once.
std::array<std::uint64_t, 256> make_table() {
  constexpr std::uint64_t kPoly = 0x95ac9329ac4bc9b5ull;  // 0xad93d23594c935a9 reflected
  std::array<std::uint64_t, 256> t{};
  for (std::uint64_t i = 0; i < 256; ++i) {
    std::uint64_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[i] = c;
  }
  return t;
}

void put_len(std::string& out, std::uint64_t len) {
  if (len < (1u << 6)) {
    out.push_back(static_cast<char>(len));
  } else if (len < (1u << 14)) {
    out.push_back(static_cast<char>(0x40 | (len >> 8)));
    out.push_back(static_cast<char>(len & 0xff));
  } else if (len <= 0xffffffffull) {
    out.push_back(static_cast<char>(0x80));
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((len >> s) & 0xff));
  } else {
    out.push_back(static_cast<char>(0x81));
    for (int s = 56; s >= 0; s -= 8) out.push_back(static_cast<char>((len >> s) & 0xff));
  }
}

// rdbSaveRawString for a string that is never an integer (library code starts with "#!").
void put_string(std::string& out, std::string_view s) {
  if (s.size() > 20) {
    std::string packed(s.size() - 4, '\0');
    const unsigned n = lzf_compress(s.data(), static_cast<unsigned>(s.size()), packed.data(),
                                    static_cast<unsigned>(packed.size()));
    if (n > 0) {
      out.push_back(static_cast<char>(0xC3));
      put_len(out, n);
      put_len(out, s.size());
      out.append(packed.data(), n);
      return;
    }
  }
  put_len(out, s.size());
  out.append(s);
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  std::size_t pos() const { return pos_; }
  bool byte(unsigned char& b) {
    if (pos_ >= data_.size()) return false;
    b = static_cast<unsigned char>(data_[pos_++]);
    return true;
  }
  bool bytes(std::size_t n, std::string_view& out) {
    if (n > data_.size() - pos_) return false;
    out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  // rdbLoadLen: false on a short read or an unknown length encoding.
  bool len(std::uint64_t& v, bool& encoded) {
    unsigned char b = 0;
    encoded = false;
    if (!byte(b)) return false;
    switch (b >> 6) {
      case 0:
        v = b & 0x3f;
        return true;
      case 1: {
        unsigned char lo = 0;
        if (!byte(lo)) return false;
        v = (static_cast<std::uint64_t>(b & 0x3f) << 8) | lo;
        return true;
      }
      case 3:
        encoded = true;
        v = b & 0x3f;
        return true;
      default:
        break;
    }
    int n = b == 0x80 ? 4 : b == 0x81 ? 8 : 0;
    if (n == 0) return false;
    v = 0;
    for (int j = 0; j < n; ++j) {
      unsigned char x = 0;
      if (!byte(x)) return false;
      v = (v << 8) | x;
    }
    return true;
  }
  // rdbGenericLoadStringObject.
  bool string(std::string& out) {
    std::uint64_t n = 0;
    bool encoded = false;
    if (!len(n, encoded)) return false;
    std::string_view raw;
    if (!encoded) {
      if (!bytes(n, raw)) return false;
      out.assign(raw);
      return true;
    }
    if (n <= 2) {  // INT8, INT16, INT32, little-endian two's complement
      const std::size_t width = std::size_t{1} << n;
      if (!bytes(width, raw)) return false;
      std::uint32_t u = 0;
      for (std::size_t j = 0; j < width; ++j)
        u |= static_cast<std::uint32_t>(static_cast<unsigned char>(raw[j])) << (8 * j);
      std::int64_t v = width == 1   ? static_cast<std::int8_t>(u)
                       : width == 2 ? static_cast<std::int16_t>(u)
                                    : static_cast<std::int32_t>(u);
      out = std::to_string(v);
      return true;
    }
    if (n != 3) return false;  // unknown string encoding
    std::uint64_t clen = 0, plain = 0;
    bool e1 = false, e2 = false;
    if (!len(clen, e1) || !len(plain, e2) || e1 || e2 || !bytes(clen, raw)) return false;
    // The uncompressed size comes from outside: a back reference (3 bytes) stands for at most
    // 264 bytes, so anything larger than that ratio is a lie, refused before allocating.
    if (plain > clen * 88 + 64 || plain > (1ull << 30)) return false;
    if (plain == 0) {  // Redis takes a zero length as the empty string
      out.clear();
      return true;
    }
    out.resize(plain);
    const unsigned got = lzf_decompress(raw.data(), static_cast<unsigned>(clen), out.data(),
                                        static_cast<unsigned>(plain));
    return got == plain;
  }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

}  // namespace

std::uint64_t crc64(std::uint64_t crc, std::string_view data) {
  static const std::array<std::uint64_t, 256> kTable = make_table();
  for (char ch : data) crc = kTable[(crc ^ static_cast<unsigned char>(ch)) & 0xff] ^ (crc >> 8);
  return crc;
}

std::string dump_functions(std::span<const std::string_view> codes) {
  std::string out;
  for (std::string_view code : codes) {
    out.push_back(static_cast<char>(kOpFunction2));
    put_string(out, code);
  }
  out.push_back(static_cast<char>(kRdbVersion & 0xff));
  out.push_back(static_cast<char>(kRdbVersion >> 8));
  std::uint64_t crc = crc64(0, out);
  char le[8];
  std::memcpy(le, &crc, 8);  // little-endian hosts, as the format
  out.append(le, 8);
  return out;
}

bool parse_functions(std::string_view payload, const LibraryFn& on_library, std::string& err) {
  // verifyDumpPayload.
  if (payload.size() < kFooter) {
    err = "DUMP payload version or checksum are wrong";
    return false;
  }
  const char* footer = payload.data() + payload.size() - kFooter;
  const unsigned version = static_cast<unsigned char>(footer[0]) |
                           (static_cast<unsigned>(static_cast<unsigned char>(footer[1])) << 8);
  std::uint64_t want = 0;
  std::memcpy(&want, footer + 2, 8);
  if (version > kRdbVersion || crc64(0, payload.substr(0, payload.size() - 8)) != want) {
    err = "DUMP payload version or checksum are wrong";
    return false;
  }
  // As Redis: records are read while more than the footer is left; a string may run into
  // the footer's bytes (the reader sees the whole payload), never past its end.
  Reader in(payload);
  while (payload.size() - in.pos() > kFooter) {
    unsigned char type = 0;
    if (!in.byte(type)) {
      err = "can not read data type";
      return false;
    }
    if (type != kOpFunction2 && type != kOpFunctionPreGa) {
      err = "given type is not a function";
      return false;
    }
    std::string code;
    if (type == kOpFunctionPreGa) {
      // 7.0 RC1/RC2: name, engine, description, code apart; made into a headed library.
      std::string name, engine, desc, blob;
      std::uint64_t has_desc = 0;
      bool encoded = false;
      if (!in.string(name)) {
        err = "Failed loading library name";
        return false;
      }
      if (!in.string(engine)) {
        err = "Failed loading engine name";
        return false;
      }
      if (!in.len(has_desc, encoded)) {
        err = "Failed loading library description indicator";
        return false;
      }
      if (has_desc != 0 && !in.string(desc)) {
        err = "Failed loading library description";
        return false;
      }
      if (!in.string(blob)) {
        err = "Failed loading library blob";
        return false;
      }
      code = "#!" + engine + " name=" + name + "\n" + blob;
    } else if (!in.string(code)) {
      err = "Failed loading library payload";
      return false;
    }
    if (!on_library(code, err)) return false;
  }
  return true;
}

}  // namespace ruvio::worker::script
