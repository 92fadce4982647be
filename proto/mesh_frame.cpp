#include "proto/mesh_frame.hpp"

#include <charconv>

#include "proto/reply_scan.hpp"

namespace ruvio::proto {
namespace {

void put_le(std::string& out, std::size_t at, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
  }
}

void append_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>(v >> (8 * i));
}

std::uint64_t get_le(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void append_decimal(std::string& out, std::size_t n) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out.append(buf, end);
}

// The length field and the frame limit, shared by both directions.
FrameResult frame_length(std::string_view in, std::size_t meta, std::size_t max_frame,
                         std::size_t& n) {
  FrameResult r;
  if (in.size() < kMeshLengthBytes) return r;  // kNeedMore, size not known yet
  n = get_le(in.data(), 4);
  if (n > max_frame) {
    r.status = FrameStatus::kError;
    r.error = FrameError::kOversized;
    return r;
  }
  if (n < meta) {
    r.status = FrameStatus::kError;
    r.error = FrameError::kShortMeta;
    return r;
  }
  if (in.size() - kMeshLengthBytes < n) {
    r.need = kMeshLengthBytes + n;
    return r;
  }
  r.status = FrameStatus::kFrame;
  r.consumed = kMeshLengthBytes + n;
  return r;
}

FrameResult error(FrameError e) {
  FrameResult r;
  r.status = FrameStatus::kError;
  r.error = e;
  return r;
}

}  // namespace

std::string_view frame_error_text(FrameError e) {
  switch (e) {
    case FrameError::kNone:
      return "no error";
    case FrameError::kShortMeta:
      return "frame shorter than its header";
    case FrameError::kOversized:
      return "frame length over the limit";
    case FrameError::kBadKind:
      return "unknown request kind";
    case FrameError::kBadBody:
      return "frame body is not exactly one RESP value";
  }
  return "unknown error";
}

void encode_mesh_request(std::string& out, const MeshRequestHeader& h,
                         std::span<const std::string_view> args) {
  std::size_t at = out.size();
  out.append(kMeshLengthBytes, '\0');
  out += static_cast<char>(h.kind);
  out += static_cast<char>(h.db);
  out += static_cast<char>(h.resp);
  out += static_cast<char>(h.origin);
  append_le(out, h.client_id, 8);
  append_le(out, h.request_id, 8);
  out += '*';
  append_decimal(out, args.size());
  out += "\r\n";
  for (std::string_view a : args) {
    out += '$';
    append_decimal(out, a.size());
    out += "\r\n";
    out.append(a);
    out += "\r\n";
  }
  end_mesh_frame(out, at);
}

std::size_t begin_mesh_reply(std::string& out, std::uint64_t request_id) {
  std::size_t at = out.size();
  out.append(kMeshLengthBytes, '\0');
  append_le(out, request_id, 8);
  return at;
}

void end_mesh_frame(std::string& out, std::size_t frame_start) {
  put_le(out, frame_start, out.size() - frame_start - kMeshLengthBytes, 4);
}

FrameResult MeshRequestDecoder::decode(std::string_view input, MeshRequest& out) {
  std::size_t n = 0;
  FrameResult r = frame_length(input, kMeshRequestMeta, max_frame_, n);
  if (r.status != FrameStatus::kFrame) return r;
  const char* meta = input.data() + kMeshLengthBytes;
  auto kind = static_cast<std::uint8_t>(meta[0]);
  if (kind > kMeshKindLast) return error(FrameError::kBadKind);
  out.header.kind = static_cast<MeshKind>(kind);
  out.header.db = static_cast<std::uint8_t>(meta[1]);
  out.header.resp = static_cast<std::uint8_t>(meta[2]);
  out.header.origin = static_cast<std::uint8_t>(meta[3]);
  out.header.client_id = get_le(meta + 4, 8);
  out.header.request_id = get_le(meta + 12, 8);
  out.body = std::string_view(meta + kMeshRequestMeta, n - kMeshRequestMeta);
  if (!parse_body(out.body, out.args)) return error(FrameError::kBadBody);
  return r;
}

bool MeshRequestDecoder::parse_body(std::string_view body, std::vector<std::string_view>& args) {
  // Only multibulk: an inline command would be a peer that does not speak this codec.
  if (body.empty() || body[0] != '*') {
    args.clear();
    return false;
  }
  ParseResult p = parser_.parse(body, args);
  // A body that ends inside its command leaves the parser mid-command: forget it.
  parser_.reset();
  return p.status == ParseStatus::kCommand && p.consumed == body.size() && !args.empty();
}

FrameResult decode_mesh_reply(std::string_view input, MeshReply& out, std::size_t max_frame) {
  std::size_t n = 0;
  FrameResult r = frame_length(input, kMeshReplyMeta, max_frame, n);
  if (r.status != FrameStatus::kFrame) return r;
  const char* meta = input.data() + kMeshLengthBytes;
  out.request_id = get_le(meta, 8);
  out.reply = std::string_view(meta + kMeshReplyMeta, n - kMeshReplyMeta);
  if (out.reply.empty() || worker::reply_length(out.reply) != out.reply.size()) {
    return error(FrameError::kBadBody);
  }
  return r;
}

void append_parked_notice(std::string& out, std::uint64_t request_id) {
  const std::size_t at = begin_mesh_reply(out, kMeshNoticeId);
  out += ':';
  append_decimal(out, request_id);
  out += "\r\n";
  end_mesh_frame(out, at);
}

std::uint64_t parked_notice_id(std::string_view reply) {
  // ":<digits>\r\n", nothing else: a request id is never 0 and fits in 20 digits.
  if (reply.size() < 4 || reply.size() > 23 || reply[0] != ':' ||
      reply.substr(reply.size() - 2) != "\r\n") {
    return 0;
  }
  const char* first = reply.data() + 1;
  const char* last = reply.data() + reply.size() - 2;
  std::uint64_t id = 0;
  auto [end, ec] = std::from_chars(first, last, id);
  return ec == std::errc() && end == last ? id : 0;
}

}  // namespace ruvio::proto
