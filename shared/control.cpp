// Control frame, supervisor ⇄ worker:
//
//   0        4                                   4+len
//   +--------+-----------------------------------+
//   | len    | cereal PortableBinary(Message)    |
//   | u32 LE | [endian flag u8][variant index    |
//   |        |  i32][alternative's fields ...]   |
//   +--------+-----------------------------------+
//
// The length prefix lets the reader wait for a whole frame on a stream socket before
// handing bytes to cereal, which has no notion of "not enough data yet".
#include "shared/control.hpp"

#include <array>
#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/common.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/variant.hpp>
#include <cereal/types/vector.hpp>
#include <cstring>
#include <exception>
#include <istream>
#include <sstream>
#include <streambuf>

namespace ruvio::control {
namespace {

// Frames come only from our own processes; the cap turns a corrupted length into an error
// instead of a wait for gigabytes that never arrive.
constexpr std::size_t kMaxFrame = 64u << 20;
constexpr std::size_t kHeader = 4;

// Read-only streambuf over bytes we already hold, so decoding does not copy the payload.
class ViewBuf : public std::streambuf {
 public:
  explicit ViewBuf(std::string_view bytes) {
    char* begin = const_cast<char*>(bytes.data());  // never written: get area only
    setg(begin, begin, begin + bytes.size());
  }
  std::size_t remaining() const { return static_cast<std::size_t>(egptr() - gptr()); }
};

}  // namespace

void encode(const Message& msg, std::string& out) {
  std::ostringstream payload(std::ios::binary);
  {
    cereal::PortableBinaryOutputArchive archive(payload);
    archive(msg);
  }
  const std::string bytes = std::move(payload).str();
  const auto len = static_cast<std::uint32_t>(bytes.size());
  const std::array<char, kHeader> header = {
      static_cast<char>(len & 0xff), static_cast<char>((len >> 8) & 0xff),
      static_cast<char>((len >> 16) & 0xff), static_cast<char>((len >> 24) & 0xff)};
  out.append(header.data(), header.size());
  out.append(bytes);
}

std::optional<Message> decode(std::string_view in, std::size_t& consumed, bool& error) {
  consumed = 0;
  error = false;
  if (in.size() < kHeader) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t len = static_cast<std::size_t>(p[0]) | (static_cast<std::size_t>(p[1]) << 8) |
                          (static_cast<std::size_t>(p[2]) << 16) |
                          (static_cast<std::size_t>(p[3]) << 24);
  if (len > kMaxFrame || len == 0) {
    error = true;
    return std::nullopt;
  }
  if (in.size() - kHeader < len) return std::nullopt;

  ViewBuf buf(in.substr(kHeader, len));
  std::istream stream(&buf);
  Message msg;
  try {
    cereal::PortableBinaryInputArchive archive(stream);
    archive(msg);
  } catch (const std::exception&) {
    // cereal::Exception for a short payload or a bad variant index; bad_alloc/length_error
    // for an absurd string or vector size.
    error = true;
    return std::nullopt;
  }
  if (buf.remaining() != 0) {  // trailing bytes: the two sides disagree on the layout
    error = true;
    return std::nullopt;
  }
  consumed = kHeader + len;
  return msg;
}

}  // namespace ruvio::control
