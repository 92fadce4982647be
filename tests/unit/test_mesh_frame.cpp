#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proto/mesh_frame.hpp"

using namespace ruvio::proto;

namespace {

struct Req {
  MeshRequestHeader h;
  MeshMessage m;
};

struct Rep {
  std::uint64_t id;
  std::string reply;
};

std::string request_bytes(const Req& r) {
  std::string out;
  encode_mesh_request(out, r.h, r.m);
  return out;
}

std::string reply_bytes(const Rep& r) {
  std::string out;
  std::size_t at = begin_mesh_reply(out, r.id);
  out += r.reply;
  end_mesh_frame(out, at);
  return out;
}

// A message as text, every field and argument (length-prefixed), to compare a decoded one
// with the one encoded.
std::string describe(const MeshMessage& m) {
  std::string d = std::to_string(static_cast<int>(m.kind)) + ":";
  auto args = [&d](std::span<const std::string_view> a) {
    d += "[";
    for (std::string_view x : a) d += std::to_string(x.size()) + "=" + std::string(x) + ",";
    d += "]";
  };
  if (const auto* c = std::get_if<MeshCommand>(&m.payload)) {
    d += "cmd " + std::to_string(c->command) + (c->tracked ? " tracked " : " ") +
         std::string(c->user);
    args(c->args);
  } else if (const auto* e = std::get_if<MeshExec>(&m.payload)) {
    d += "exec " + std::string(e->user);
    for (const MeshQueued& q : e->commands) {
      d += " " + std::to_string(q.command);
      args(q.args);
    }
  } else if (const auto* t = std::get_if<MeshTracking>(&m.payload)) {
    d += "tracking";
    args(t->args);
  } else if (const auto* mo = std::get_if<MeshMonitor>(&m.payload)) {
    d += "monitor " + std::to_string(static_cast<int>(mo->op)) + " " + std::string(mo->line);
  } else if (const auto* p = std::get_if<MeshPause>(&m.payload)) {
    d += "pause " + std::to_string(static_cast<int>(p->mode)) + " " + std::to_string(p->end_ms);
  } else if (const auto* x = std::get_if<MeshClientExists>(&m.payload)) {
    d += "exists " + std::to_string(x->client_id);
  } else {
    d += "none";
  }
  return d;
}

const std::string kBig(300, '\0');
const std::string_view kGet[] = {"GET", "k"};
const std::string_view kSet[] = {"SET", "k", kBig, ""};
const std::string_view kIncr[] = {"INCR", "a"};
const MeshQueued kTx[] = {{12, kSet}, {7, kIncr}};
const std::string_view kKeyNote[] = {"key", "17", "3", "k"};

// At least one request of every kind, every payload field at a boundary somewhere.
std::vector<Req> sample_requests() {
  std::vector<Req> v;
  v.push_back({{0, 2, 1, 7, 1}, {MeshKind::kCommand, MeshCommand{5, false, {}, kGet}}});
  v.push_back({{15, 3, 3, 0xfedcba9876543210ull, 0xffffffffffffffffull},
               {MeshKind::kExec, MeshExec{"alice", kTx}}});
  v.push_back({{1, 2, 0, 1, 2}, {MeshKind::kPatterns, {}}});
  // An empty transaction (MULTI, EXEC) still goes to the worker holding its WATCHes.
  v.push_back({{0, 2, 1, 7, 16}, {MeshKind::kExec, MeshExec{{}, {}}}});
  v.push_back({{0, 2, 1, 9, 3}, {MeshKind::kCommand, MeshCommand{0xffff, true, "bob", kSet}}});
  v.push_back({{0, 2, 1, 9, 4}, {MeshKind::kForget, {}}});
  v.push_back({{0, 2, 1, 9, 5}, {MeshKind::kClientExists, MeshClientExists{UINT64_MAX}}});
  v.push_back({{0, 2, 1, 0, 6}, {MeshKind::kTracking, MeshTracking{kKeyNote}}});
  v.push_back({{0, 2, 1, 0, 7}, {MeshKind::kMonitor, MeshMonitor{MonitorOp::kOn, {}}}});
  v.push_back({{0, 2, 1, 0, 8}, {MeshKind::kMonitor, MeshMonitor{MonitorOp::kOff, {}}}});
  v.push_back({{0, 2, 1, 0, 9},
               {MeshKind::kMonitor, MeshMonitor{MonitorOp::kLine, "1.5 [0 x] \"GET\" \"k\"\r\n"}}});
  v.push_back({{0, 2, 1, 0, 10}, {MeshKind::kDigest, {}}});
  v.push_back({{0, 2, 1, 0, 11}, {MeshKind::kAclLog, {}}});
  v.push_back({{0, 2, 1, 0, 12}, {MeshKind::kPause, MeshPause{PauseMode::kAll, 1700000000123}}});
  v.push_back({{0, 2, 1, 0, 13}, {MeshKind::kPause, MeshPause{PauseMode::kWrite, INT64_MIN}}});
  v.push_back({{0, 2, 1, 0, 14}, {MeshKind::kHistograms, {}}});
  v.push_back({{0, 2, 1, 0, 15}, {MeshKind::kLatencyEvents, {}}});
  return v;
}

std::vector<Rep> sample_replies() {
  return {{1, "+OK\r\n"},
          {0xffffffffffffffffull, "$-1\r\n"},
          {3, "*2\r\n$1\r\na\r\n:12\r\n"},
          {2, "-ERR x\r\n"},
          {4, "$300\r\n" + std::string(300, 'x') + "\r\n"}};
}

// A link's read loop: bytes arrive in pieces at new addresses (as a reading buffer grows and
// compacts); every complete frame is decoded and dropped.
template <typename Decode>
FrameStatus feed(std::string& buf, std::string_view piece, Decode&& decode) {
  std::string moved = buf;
  moved.append(piece);
  buf.swap(moved);
  for (;;) {
    // An exact-size heap copy so a read past the end would be seen by the sanitizers.
    std::unique_ptr<char[]> exact(new char[buf.size() + 1]);
    buf.copy(exact.get(), buf.size());
    FrameResult r = decode(std::string_view(exact.get(), buf.size()));
    if (r.status != FrameStatus::kFrame) {
      if (r.status == FrameStatus::kNeedMore && r.need != 0) CHECK(r.need > buf.size());
      return r.status;
    }
    CHECK(r.consumed <= buf.size());
    buf.erase(0, r.consumed);
  }
}

bool same_header(const MeshRequestHeader& a, const MeshRequestHeader& b) {
  return a.db == b.db && a.resp == b.resp && a.origin == b.origin && a.client_id == b.client_id &&
         a.request_id == b.request_id;
}

}  // namespace

TEST_CASE("mesh frame: request layout is the one the header comment draws") {
  const std::string_view ping[] = {"PING"};
  Req r{{5, 3, 2, 0x0102030405060708ull, 0x1112131415161718ull},
        {MeshKind::kCommand, MeshCommand{0x0a0b, true, "u", ping}}};
  std::string b = request_bytes(r);
  std::string body = "*1\r\n$4\r\nPING\r\n";
  // u16 command, u8 flags, u32 user length, the user, the multibulk
  std::string payload = std::string("\x0b\x0a\x01\x01\0\0\0u", 8) + body;
  REQUIRE(b.size() == 4 + 20 + payload.size());
  CHECK(static_cast<unsigned char>(b[0]) == 20 + payload.size());
  CHECK(b.substr(1, 3) == std::string(3, '\0'));
  CHECK(b[4] == 0);
  CHECK(b[5] == 5);
  CHECK(b[6] == 3);
  CHECK(b[7] == 2);
  CHECK(b.substr(8, 8) == "\x08\x07\x06\x05\x04\x03\x02\x01");
  CHECK(b.substr(16, 8) == "\x18\x17\x16\x15\x14\x13\x12\x11");
  CHECK(b.substr(24) == payload);

  // kExec: u32 user length, user, u32 count, then u16 command + multibulk each.
  const MeshQueued one[] = {{3, ping}};
  std::string e = request_bytes({{}, {MeshKind::kExec, MeshExec{"", one}}});
  CHECK(e.substr(24) == std::string("\0\0\0\0\x01\0\0\0\x03\0", 10) + body);
  std::string p = request_bytes({{}, {MeshKind::kPause, MeshPause{PauseMode::kAll, 0x0102}}});
  CHECK(p.substr(24) == std::string("\x02\x02\x01\0\0\0\0\0\0", 9));
  std::string x = request_bytes({{}, {MeshKind::kClientExists, MeshClientExists{0x0304}}});
  CHECK(x.substr(24) == std::string("\x04\x03\0\0\0\0\0\0", 8));
  std::string m = request_bytes({{}, {MeshKind::kMonitor, MeshMonitor{MonitorOp::kLine, "ab"}}});
  CHECK(m.substr(24) ==
        "\x02"
        "ab");
  CHECK(request_bytes({{}, {MeshKind::kDigest, {}}}).size() == 24);

  std::string rb = reply_bytes({0x0102030405060708ull, "+OK\r\n"});
  CHECK(rb == std::string("\x0d\0\0\0\x08\x07\x06\x05\x04\x03\x02\x01+OK\r\n", 4 + 8 + 5));
}

TEST_CASE("mesh frame: every kind round-trips through the codec") {
  std::vector<Req> reqs = sample_requests();
  std::vector<bool> seen(kMeshKindLast + 1);
  for (const Req& r : reqs) {
    CAPTURE(describe(r.m));
    REQUIRE(kind_fits(r.m));
    seen[static_cast<std::size_t>(r.m.kind)] = true;
    const std::string b = request_bytes(r);
    MeshRequestDecoder dec;
    MeshRequest m;
    FrameResult fr = dec.decode(b, m);
    REQUIRE(fr.status == FrameStatus::kFrame);
    CHECK(fr.consumed == b.size());
    CHECK(m.frame == b);
    CHECK(kind_fits(m.message));
    CHECK(same_header(m.header, r.h));
    CHECK(describe(m.message) == describe(r.m));
    std::string again;
    encode_mesh_request(again, m.header, m.message);
    CHECK(again == b);
  }
  for (std::size_t k = 0; k < seen.size(); ++k) {
    CAPTURE(k);
    CHECK(seen[k]);
  }
  // A payload of another kind's type never fits.
  CHECK_FALSE(kind_fits({MeshKind::kCommand, {}}));
  CHECK_FALSE(kind_fits({MeshKind::kDigest, MeshClientExists{1}}));
  CHECK_FALSE(kind_fits({MeshKind::kExec, MeshCommand{}}));
}

TEST_CASE("mesh frame: requests decode the same at every split point") {
  std::vector<Req> reqs = sample_requests();
  reqs.resize(6);  // every payload shape but the fixed-size ones; keeps the double loop short
  std::string stream;
  for (const Req& r : reqs) stream += request_bytes(r);
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    for (std::size_t cut2 = cut; cut2 <= stream.size(); cut2 += (cut2 < cut + 40 ? 1 : 97)) {
      MeshRequestDecoder dec;
      std::vector<std::pair<MeshRequestHeader, std::string>> got;
      auto decode = [&](std::string_view in) {
        MeshRequest m;
        FrameResult fr = dec.decode(in, m);
        if (fr.status == FrameStatus::kFrame) {
          got.emplace_back(m.header, describe(m.message));
          CHECK(m.frame.size() == fr.consumed);
        }
        return fr;
      };
      std::string buf;
      CHECK(feed(buf, std::string_view(stream).substr(0, cut), decode) == FrameStatus::kNeedMore);
      CHECK(feed(buf, std::string_view(stream).substr(cut, cut2 - cut), decode) ==
            FrameStatus::kNeedMore);
      CHECK(feed(buf, std::string_view(stream).substr(cut2), decode) == FrameStatus::kNeedMore);
      CHECK(buf.empty());
      REQUIRE(got.size() == reqs.size());
      for (std::size_t i = 0; i < reqs.size(); ++i) {
        CHECK(same_header(got[i].first, reqs[i].h));
        CHECK(got[i].second == describe(reqs[i].m));
      }
    }
  }
}

TEST_CASE("mesh frame: replies decode the same at every split point") {
  std::vector<Rep> reps = sample_replies();
  std::string stream;
  for (const Rep& r : reps) stream += reply_bytes(r);
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    for (std::size_t cut2 = cut; cut2 <= stream.size(); cut2 += (cut2 < cut + 40 ? 1 : 97)) {
      std::vector<Rep> got;
      auto decode = [&](std::string_view in) {
        MeshReply m;
        FrameResult fr = decode_mesh_reply(in, m);
        if (fr.status == FrameStatus::kFrame) got.push_back({m.request_id, std::string(m.reply)});
        return fr;
      };
      std::string buf;
      feed(buf, std::string_view(stream).substr(0, cut), decode);
      feed(buf, std::string_view(stream).substr(cut, cut2 - cut), decode);
      CHECK(feed(buf, std::string_view(stream).substr(cut2), decode) == FrameStatus::kNeedMore);
      CHECK(buf.empty());
      REQUIRE(got.size() == reps.size());
      for (std::size_t i = 0; i < reps.size(); ++i) {
        CHECK(got[i].id == reps[i].id);
        CHECK(got[i].reply == reps[i].reply);
      }
    }
  }
}

TEST_CASE("mesh frame: need tells the whole frame's size once the length is in") {
  std::string b = request_bytes(sample_requests()[0]);
  MeshRequestDecoder dec;
  MeshRequest m;
  for (std::size_t n = 0; n < b.size(); ++n) {
    FrameResult r = dec.decode(std::string_view(b).substr(0, n), m);
    CHECK(r.status == FrameStatus::kNeedMore);
    CHECK(r.need == (n < 4 ? 0 : b.size()));
  }
  FrameResult r = dec.decode(b, m);
  CHECK(r.status == FrameStatus::kFrame);
  CHECK(r.consumed == b.size());
}

namespace {

std::string with_length(std::uint32_t n, std::string rest) {
  std::string out;
  for (int i = 0; i < 4; ++i) out += static_cast<char>(n >> (8 * i));
  return out + rest;
}

std::string request_meta(std::uint8_t kind) {
  std::string m;
  m += static_cast<char>(kind);
  m += std::string(19, '\0');
  return m;
}

FrameError request_error(const std::string& bytes, std::size_t max = kMeshMaxFrame) {
  MeshRequestDecoder dec(max);
  MeshRequest m;
  // Also when the bytes come one at a time: the verdict is the same and never a frame.
  FrameError first = FrameError::kNone;
  for (std::size_t n = 0; n <= bytes.size(); ++n) {
    FrameResult r = dec.decode(std::string_view(bytes).substr(0, n), m);
    REQUIRE(r.status != FrameStatus::kFrame);
    if (r.status == FrameStatus::kError) {
      first = r.error;
      break;
    }
  }
  return first;
}

FrameError reply_error(const std::string& bytes, std::size_t max = kMeshMaxFrame) {
  MeshReply m;
  FrameError first = FrameError::kNone;
  for (std::size_t n = 0; n <= bytes.size(); ++n) {
    FrameResult r = decode_mesh_reply(std::string_view(bytes).substr(0, n), m, max);
    REQUIRE(r.status != FrameStatus::kFrame);
    if (r.status == FrameStatus::kError) {
      first = r.error;
      break;
    }
  }
  return first;
}

std::string req_with_body(std::string body, std::uint8_t kind) {
  return with_length(static_cast<std::uint32_t>(20 + body.size()), request_meta(kind) + body);
}

// A kCommand frame: command 5, no flags, no user, then `body` (one multibulk if well formed).
std::string req_with_body(std::string body) {
  return req_with_body(std::string("\x05\0\0\0\0\0\0", 7) + body, 0);
}

std::string u32(std::uint32_t n) {
  return with_length(n, "");
}

std::string rep_with_body(std::string body) {
  return with_length(static_cast<std::uint32_t>(8 + body.size()), std::string(8, '\1') + body);
}

}  // namespace

TEST_CASE("mesh frame: every malformed request is an error, never a frame") {
  SUBCASE("short meta") {
    for (std::uint32_t n = 0; n < 20; ++n) {
      CHECK(request_error(with_length(n, std::string(n, '\0'))) == FrameError::kShortMeta);
    }
  }
  SUBCASE("oversized") {
    CHECK(request_error(with_length(0xffffffffu, "")) == FrameError::kOversized);
    CHECK(request_error(req_with_body("*1\r\n$4\r\nPING\r\n"), 40) == FrameError::kOversized);
    MeshRequestDecoder dec(41);  // exactly the limit is fine
    MeshRequest m;
    CHECK(dec.decode(req_with_body("*1\r\n$4\r\nPING\r\n"), m).status == FrameStatus::kFrame);
  }
  SUBCASE("bad kind") {
    for (int k = kMeshKindLast + 1; k < 256; ++k) {
      CHECK(request_error(req_with_body("", static_cast<std::uint8_t>(k))) == FrameError::kBadKind);
    }
  }
  SUBCASE("bad payload") {
    const std::string ping = "*1\r\n$4\r\nPING\r\n";
    const std::string id1("\x01\0", 2);  // a queued command's id
    auto k = [](MeshKind kind) { return static_cast<std::uint8_t>(kind); };
    for (auto [payload, kind] : std::vector<std::pair<std::string, std::uint8_t>>{
             {"", k(MeshKind::kCommand)},                                   // no command id
             {std::string("\x05\0", 2), k(MeshKind::kCommand)},             // no flags
             {std::string("\x05\0\x02", 3) + u32(0) + ping, 0},             // unknown flag
             {std::string("\x05\0\0", 3), k(MeshKind::kCommand)},           // no user length
             {std::string("\x05\0\0", 3) + u32(1), k(MeshKind::kCommand)},  // user past the end
             {std::string("\x05\0\0", 3) + u32(0xffffffffu) + ping, 0},     // user length huge
             {"", k(MeshKind::kExec)},                                      // no user length
             {u32(0) + u32(0xffffffffu) + id1 + ping, k(MeshKind::kExec)},  // count too big
             {u32(0) + u32(2) + id1 + ping + "\x01", k(MeshKind::kExec)},   // second cut
             {u32(0) + u32(1) + id1 + ping + "x", k(MeshKind::kExec)},      // trailing byte
             {"", k(MeshKind::kMonitor)},                                   // no op
             {"\x03", k(MeshKind::kMonitor)},                               // unknown op
             {"\x01x", k(MeshKind::kMonitor)},                              // a line with "on"
             {"", k(MeshKind::kPause)},                                     // no mode
             {std::string("\x01", 1) + std::string(7, '\0'), k(MeshKind::kPause)},  // short end
             {std::string("\x02", 1) + std::string(9, '\0'), k(MeshKind::kPause)},  // long
             {std::string(9, '\0'), k(MeshKind::kPause)},                           // mode 0
             {std::string("\x03", 1) + std::string(8, '\0'), k(MeshKind::kPause)},  // mode 3
             {std::string(7, '\0'), k(MeshKind::kClientExists)},                    // short id
             {std::string(9, '\0'), k(MeshKind::kClientExists)},                    // long id
             {"x", k(MeshKind::kPatterns)},
             {"x", k(MeshKind::kForget)},
             {"x", k(MeshKind::kDigest)},
             {"x", k(MeshKind::kAclLog)},
             {"x", k(MeshKind::kHistograms)},
             {"x", k(MeshKind::kLatencyEvents)},
         }) {
      CAPTURE(payload);
      CAPTURE(static_cast<int>(kind));
      CHECK(request_error(req_with_body(payload, kind)) == FrameError::kBadPayload);
    }
    // A multibulk cut short, or followed by more, in the kinds that carry one.
    CHECK(request_error(req_with_body("*1\r\n$4\r\nPI", k(MeshKind::kTracking))) ==
          FrameError::kBadBody);
    CHECK(request_error(req_with_body(ping + "+", k(MeshKind::kTracking))) == FrameError::kBadBody);
    CHECK(request_error(req_with_body(u32(0) + u32(1) + id1 + "PING\r\n", k(MeshKind::kExec))) ==
          FrameError::kBadBody);
  }
  SUBCASE("bad body") {
    for (std::string body : {
             std::string(""),                                       // nothing
             std::string("PING\r\n"),                               // inline
             std::string("*0\r\n"),                                 // empty command
             std::string("*-1\r\n"),                                // null command
             std::string("*1\r\n$4\r\nPI"),                         // ends inside the command
             std::string("*1\r\n$4\r\nPING\r\n+"),                  // trailing byte
             std::string("*1\r\n$4\r\nPING\r\n*1\r\n$1\r\nx\r\n"),  // two commands
             std::string("*1\r\n$x\r\nPING\r\n"),                   // bad bulk length
             std::string("*1\r\n:4\r\nPING\r\n"),                   // not a bulk
             std::string("*2\r\n$4\r\nPING\r\n"),                   // fewer args than announced
         }) {
      CAPTURE(body);
      CHECK(request_error(req_with_body(body)) == FrameError::kBadBody);
    }
  }
  SUBCASE("the decoder works again after a bad body") {
    MeshRequestDecoder dec;
    MeshRequest m;
    CHECK(dec.decode(req_with_body("*2\r\n$3\r\nGET\r\n"), m).error == FrameError::kBadBody);
    REQUIRE(dec.decode(req_with_body("*1\r\n$4\r\nPING\r\n"), m).status == FrameStatus::kFrame);
    CHECK(m.args == std::vector<std::string_view>{"PING"});
  }
}

TEST_CASE("mesh frame: every malformed reply is an error, never a frame") {
  for (std::uint32_t n = 0; n < 8; ++n) {
    CHECK(reply_error(with_length(n, std::string(n, '\0'))) == FrameError::kShortMeta);
  }
  CHECK(reply_error(with_length(0xffffffffu, "")) == FrameError::kOversized);
  CHECK(reply_error(rep_with_body("+OK\r\n"), 12) == FrameError::kOversized);
  for (std::string body :
       {std::string(""), std::string("+OK"), std::string("+OK\r\n+OK\r\n"),
        std::string("$3\r\nab\r\n"), std::string("*2\r\n:1\r\n"), std::string("?\r\n")}) {
    CAPTURE(body);
    CHECK(reply_error(rep_with_body(body)) == FrameError::kBadBody);
  }
  CHECK(frame_error_text(FrameError::kBadBody) == "frame body is not exactly one RESP value");
}

TEST_CASE("mesh frame: a parked notice is a reply frame of request id 0 naming the request") {
  std::string out;
  append_parked_notice(out, 42);
  // u32 n = 8 + 5, u64 id 0, ":42\r\n"
  CHECK(out == std::string("\x0d\0\0\0", 4) + std::string(8, '\0') + ":42\r\n");
  MeshReply r;
  FrameResult f = decode_mesh_reply(out, r);
  REQUIRE(f.status == FrameStatus::kFrame);
  CHECK(f.consumed == out.size());
  CHECK(r.request_id == kMeshNoticeId);
  CHECK(parked_notice_id(r.reply) == 42);
  std::string big;
  append_parked_notice(big, UINT64_MAX);
  REQUIRE(decode_mesh_reply(big, r).status == FrameStatus::kFrame);
  CHECK(parked_notice_id(r.reply) == UINT64_MAX);
  // Anything else in a notice frame names no request (the link treats it as malformed).
  for (std::string_view bad : {":0\r\n", ":-1\r\n", "+42\r\n", ":\r\n", ":4x\r\n", ":42\n",
                               ":18446744073709551616\r\n", "$2\r\n42\r\n", ""}) {
    CAPTURE(bad);
    CHECK(parked_notice_id(bad) == 0);
  }
}
