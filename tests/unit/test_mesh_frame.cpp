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
  std::vector<std::string> args;
};

struct Rep {
  std::uint64_t id;
  std::string reply;
};

std::string request_bytes(const Req& r) {
  std::vector<std::string_view> views(r.args.begin(), r.args.end());
  std::string out;
  encode_mesh_request(out, r.h, views);
  return out;
}

std::string reply_bytes(const Rep& r) {
  std::string out;
  std::size_t at = begin_mesh_reply(out, r.id);
  out += r.reply;
  end_mesh_frame(out, at);
  return out;
}

std::vector<Req> sample_requests() {
  std::vector<Req> v;
  v.push_back({{MeshKind::kCommand, 0, 2, 1, 7, 1}, {"GET", "k"}});
  v.push_back({{MeshKind::kExec, 15, 3, 3, 0xfedcba9876543210ull, 0xffffffffffffffffull},
               {"EXEC", "2", "SET", "a", "1"}});
  v.push_back({{MeshKind::kPatterns, 1, 2, 0, 1, 2}, {"PUBSUB", "NUMPAT"}});
  v.push_back({{MeshKind::kCommand, 0, 2, 1, 9, 3}, {"SET", "k", std::string(300, '\0'), ""}});
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
  return a.kind == b.kind && a.db == b.db && a.resp == b.resp && a.origin == b.origin &&
         a.client_id == b.client_id && a.request_id == b.request_id;
}

}  // namespace

TEST_CASE("mesh frame: request layout is the one the header comment draws") {
  Req r{{MeshKind::kExec, 5, 3, 2, 0x0102030405060708ull, 0x1112131415161718ull}, {"PING"}};
  std::string b = request_bytes(r);
  std::string body = "*1\r\n$4\r\nPING\r\n";
  REQUIRE(b.size() == 4 + 20 + body.size());
  CHECK(static_cast<unsigned char>(b[0]) == 20 + body.size());
  CHECK(b.substr(1, 3) == std::string(3, '\0'));
  CHECK(b[4] == 2);
  CHECK(b[5] == 5);
  CHECK(b[6] == 3);
  CHECK(b[7] == 2);
  CHECK(b.substr(8, 8) == "\x08\x07\x06\x05\x04\x03\x02\x01");
  CHECK(b.substr(16, 8) == "\x18\x17\x16\x15\x14\x13\x12\x11");
  CHECK(b.substr(24) == body);

  std::string rb = reply_bytes({0x0102030405060708ull, "+OK\r\n"});
  CHECK(rb == std::string("\x0d\0\0\0\x08\x07\x06\x05\x04\x03\x02\x01+OK\r\n", 4 + 8 + 5));
}

TEST_CASE("mesh frame: requests decode the same at every split point") {
  std::vector<Req> reqs = sample_requests();
  std::string stream;
  for (const Req& r : reqs) stream += request_bytes(r);
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    for (std::size_t cut2 = cut; cut2 <= stream.size(); cut2 += (cut2 < cut + 40 ? 1 : 97)) {
      MeshRequestDecoder dec;
      std::vector<Req> got;
      auto decode = [&](std::string_view in) {
        MeshRequest m;
        FrameResult fr = dec.decode(in, m);
        if (fr.status == FrameStatus::kFrame) {
          got.push_back({m.header, std::vector<std::string>(m.args.begin(), m.args.end())});
          CHECK(m.body.size() == fr.consumed - 24);
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
        CHECK(same_header(got[i].h, reqs[i].h));
        CHECK(got[i].args == reqs[i].args);
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

std::string req_with_body(std::string body, std::uint8_t kind = 0) {
  return with_length(static_cast<std::uint32_t>(20 + body.size()), request_meta(kind) + body);
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
    CHECK(request_error(req_with_body("*1\r\n$4\r\nPING\r\n"), 33) == FrameError::kOversized);
    MeshRequestDecoder dec(34);  // exactly the limit is fine
    MeshRequest m;
    CHECK(dec.decode(req_with_body("*1\r\n$4\r\nPING\r\n"), m).status == FrameStatus::kFrame);
  }
  SUBCASE("bad kind") {
    for (int k = kMeshKindLast + 1; k < 256; ++k) {
      CHECK(request_error(req_with_body("*1\r\n$4\r\nPING\r\n", static_cast<std::uint8_t>(k))) ==
            FrameError::kBadKind);
    }
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
