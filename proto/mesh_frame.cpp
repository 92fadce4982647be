#include "proto/mesh_frame.hpp"

#include <cassert>
#include <charconv>
#include <iterator>
#include <type_traits>

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

void append_multibulk(std::string& out, std::span<const std::string_view> args) {
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
    case FrameError::kBadPayload:
      return "request payload does not match its kind";
  }
  return "unknown error";
}

bool kind_fits(const MeshMessage& m) {
  // By kind: the index of the MeshPayload alternative it carries (0, std::monostate: none).
  static constexpr std::size_t kPayloadOf[] = {
      1,  // kCommand: MeshCommand
      0,  // kPatterns
      2,  // kExec: MeshExec
      0,  // kForget
      6,  // kClientExists: MeshClientExists
      3,  // kTracking: MeshTracking
      4,  // kMonitor: MeshMonitor
      0,  // kDigest
      0,  // kAclLog
      5,  // kPause: MeshPause
      0,  // kHistograms
      0,  // kLatencyEvents
  };
  static_assert(std::size(kPayloadOf) == kMeshKindLast + 1);
  static_assert(std::is_same_v<std::variant_alternative_t<1, MeshPayload>, MeshCommand> &&
                std::is_same_v<std::variant_alternative_t<2, MeshPayload>, MeshExec> &&
                std::is_same_v<std::variant_alternative_t<3, MeshPayload>, MeshTracking> &&
                std::is_same_v<std::variant_alternative_t<4, MeshPayload>, MeshMonitor> &&
                std::is_same_v<std::variant_alternative_t<5, MeshPayload>, MeshPause> &&
                std::is_same_v<std::variant_alternative_t<6, MeshPayload>, MeshClientExists>);
  const auto k = static_cast<std::size_t>(m.kind);
  return k < std::size(kPayloadOf) && m.payload.index() == kPayloadOf[k];
}

void encode_mesh_request(std::string& out, const MeshRequestHeader& h, const MeshMessage& m) {
  assert(kind_fits(m));
  std::size_t at = out.size();
  out.append(kMeshLengthBytes, '\0');
  out += static_cast<char>(m.kind);
  out += static_cast<char>(h.db);
  out += static_cast<char>(h.resp);
  out += static_cast<char>(h.origin);
  append_le(out, h.client_id, 8);
  append_le(out, h.request_id, 8);
  if (const auto* c = std::get_if<MeshCommand>(&m.payload)) {
    append_le(out, c->command, 2);
    out += static_cast<char>(c->tracked ? 1 : 0);
    append_le(out, c->user.size(), 4);
    out.append(c->user);
    append_multibulk(out, c->args);
  } else if (const auto* e = std::get_if<MeshExec>(&m.payload)) {
    append_le(out, e->user.size(), 4);
    out.append(e->user);
    append_le(out, e->commands.size(), 4);
    for (const MeshQueued& q : e->commands) {
      append_le(out, q.command, 2);
      append_multibulk(out, q.args);
    }
  } else if (const auto* t = std::get_if<MeshTracking>(&m.payload)) {
    append_multibulk(out, t->args);
  } else if (const auto* mo = std::get_if<MeshMonitor>(&m.payload)) {
    out += static_cast<char>(mo->op);
    if (mo->op == MonitorOp::kLine) out.append(mo->line);
  } else if (const auto* p = std::get_if<MeshPause>(&m.payload)) {
    out += static_cast<char>(p->mode);
    append_le(out, static_cast<std::uint64_t>(p->end_ms), 8);
  } else if (const auto* x = std::get_if<MeshClientExists>(&m.payload)) {
    append_le(out, x->client_id, 8);
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
  out.message.kind = static_cast<MeshKind>(kind);
  out.header.db = static_cast<std::uint8_t>(meta[1]);
  out.header.resp = static_cast<std::uint8_t>(meta[2]);
  out.header.origin = static_cast<std::uint8_t>(meta[3]);
  out.header.client_id = get_le(meta + 4, 8);
  out.header.request_id = get_le(meta + 12, 8);
  out.frame = input.substr(0, r.consumed);
  const FrameError e =
      payload(std::string_view(meta + kMeshRequestMeta, n - kMeshRequestMeta), out);
  if (e != FrameError::kNone) return error(e);
  return r;
}

std::size_t MeshRequestDecoder::multibulk(std::string_view in,
                                          std::vector<std::string_view>& args) {
  // Only multibulk: an inline command would be a peer that does not speak this codec.
  if (in.empty() || in[0] != '*') return 0;
  ParseResult p = parser_.parse(in, scratch_);
  // A multibulk that ends inside its command leaves the parser mid-command: forget it.
  parser_.reset();
  if (p.status != ParseStatus::kCommand || scratch_.empty()) return 0;
  args.insert(args.end(), scratch_.begin(), scratch_.end());
  return p.consumed;
}

// Reads `in` (the bytes after the meta) as out.message.kind's payload.
FrameError MeshRequestDecoder::payload(std::string_view in, MeshRequest& out) {
  out.args.clear();
  out.queued.clear();
  // A u32-counted string at the start of `in`, taken off it.
  auto counted = [&in](std::string_view& s) {
    if (in.size() < 4) return false;
    const std::uint64_t len = get_le(in.data(), 4);
    if (in.size() - 4 < len) return false;
    s = in.substr(4, len);
    in.remove_prefix(4 + len);
    return true;
  };
  switch (out.message.kind) {
    case MeshKind::kCommand: {
      MeshCommand c;
      if (in.size() < 3) return FrameError::kBadPayload;
      c.command = static_cast<std::uint16_t>(get_le(in.data(), 2));
      const auto flags = static_cast<std::uint8_t>(in[2]);
      if (flags > 1) return FrameError::kBadPayload;
      c.tracked = flags == 1;
      in.remove_prefix(3);
      if (!counted(c.user)) return FrameError::kBadPayload;
      const std::size_t used = multibulk(in, out.args);
      if (used == 0 || used != in.size()) return FrameError::kBadBody;
      c.args = out.args;
      out.message.payload = c;
      return FrameError::kNone;
    }
    case MeshKind::kExec: {
      MeshExec e;
      if (!counted(e.user) || in.size() < 4) return FrameError::kBadPayload;
      const std::uint64_t count = get_le(in.data(), 4);
      in.remove_prefix(4);
      // Each command takes at least 2 + 4 bytes ("*1\r\n" and more): a count the bytes cannot
      // hold is refused before anything is reserved for it.
      if (count > in.size() / 6) return FrameError::kBadPayload;
      std::vector<std::size_t> ends;  // where each command's arguments end in out.args
      for (std::uint64_t i = 0; i < count; ++i) {
        if (in.size() < 2) return FrameError::kBadPayload;
        out.queued.push_back({static_cast<std::uint16_t>(get_le(in.data(), 2)), {}});
        in.remove_prefix(2);
        const std::size_t used = multibulk(in, out.args);
        if (used == 0) return FrameError::kBadBody;
        in.remove_prefix(used);
        ends.push_back(out.args.size());
      }
      if (!in.empty()) return FrameError::kBadPayload;
      // out.args is complete: the views into it are taken now.
      std::size_t begin = 0;
      for (std::size_t i = 0; i < out.queued.size(); ++i) {
        out.queued[i].args =
            std::span<const std::string_view>(out.args).subspan(begin, ends[i] - begin);
        begin = ends[i];
      }
      e.commands = out.queued;
      out.message.payload = e;
      return FrameError::kNone;
    }
    case MeshKind::kTracking: {
      const std::size_t used = multibulk(in, out.args);
      if (used == 0 || used != in.size()) return FrameError::kBadBody;
      out.message.payload = MeshTracking{out.args};
      return FrameError::kNone;
    }
    case MeshKind::kMonitor: {
      if (in.empty() || static_cast<std::uint8_t>(in[0]) > 2) return FrameError::kBadPayload;
      MeshMonitor m{static_cast<MonitorOp>(in[0]), in.substr(1)};
      if (m.op != MonitorOp::kLine && !m.line.empty()) return FrameError::kBadPayload;
      out.message.payload = m;
      return FrameError::kNone;
    }
    case MeshKind::kPause: {
      const auto mode = in.empty() ? 0 : static_cast<std::uint8_t>(in[0]);
      if (in.size() != 9 || (mode != 1 && mode != 2)) return FrameError::kBadPayload;
      out.message.payload = MeshPause{static_cast<PauseMode>(mode),
                                      static_cast<std::int64_t>(get_le(in.data() + 1, 8))};
      return FrameError::kNone;
    }
    case MeshKind::kClientExists:
      if (in.size() != 8) return FrameError::kBadPayload;
      out.message.payload = MeshClientExists{get_le(in.data(), 8)};
      return FrameError::kNone;
    case MeshKind::kPatterns:
    case MeshKind::kForget:
    case MeshKind::kDigest:
    case MeshKind::kAclLog:
    case MeshKind::kHistograms:
    case MeshKind::kLatencyEvents:
      if (!in.empty()) return FrameError::kBadPayload;
      out.message.payload = std::monostate();
      return FrameError::kNone;
  }
  return FrameError::kBadKind;
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
