// The mesh frame codec: how a request travels from worker A to worker B and how its reply
// comes back (worker/route/mesh.* moves the bytes; this file only knows their shape).
//
//   request frame (A → B), little endian:
//
//     0        4      5    6      7        8                16               24
//     +--------+------+----+------+--------+----------------+----------------+-------------+
//     | u32 n  | kind | db | resp | origin | u64 client id  | u64 request id | multibulk   |
//     +--------+------+----+------+--------+----------------+----------------+-------------+
//              '------------------------ n bytes ---------------------------------------'
//
//     n counts everything after the length field: 20 bytes of meta, then exactly one RESP
//     multibulk command ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), nothing after it.
//     kind   MeshKind below; any other value is a malformed frame.
//     db     the client's selected database, resp its protocol (2 or 3): B answers in it.
//     origin A's worker id; (origin, client id) names the client on B (WATCH, per-client
//            order while a request is parked).
//     request id  chosen by A, echoed in the reply; unique among A's requests in flight on
//            this link, so B may answer out of order (a parked request must not hold up the
//            replies behind it).
//
//   reply frame (B → A):
//
//     0        4                12
//     +--------+----------------+-----------------------------------+
//     | u32 n  | u64 request id | one RESP reply, as the client sees |
//     +--------+----------------+-----------------------------------+
//              '--------------- n bytes ----------------------------'
//
//   parked notice (B → A): a reply frame whose request id is 0 (A numbers its requests from 1)
//   and whose reply is the integer ":<request id>\r\n": B parked that blocking command (it
//   waits on a key there, nothing was popped). If B dies, A may send it again to the new B
//   (MeshLink::fail); a request never noticed as parked may have run and gets LOADING.
//
// Decoding is incremental: give the decoder whatever bytes have arrived; it answers "need
// more" (and how many bytes the frame needs), one frame (with the bytes it used), or an
// error. An error means the stream cannot be trusted any more: the link is closed. Nothing in
// a frame is trusted: lengths are checked against the buffer and a limit before use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proto/resp_parser.hpp"

namespace ruvio::proto {

enum class MeshKind : std::uint8_t {
  kCommand = 0,   // run one command, reply with its reply
  kPatterns = 1,  // this worker's pattern subscriptions, as an array (PUBSUB NUMPAT)
  kExec = 2,      // run a queued transaction atomically; reply = EXEC's reply
  kForget = 3,    // the client left: drop its requests still parked here; reply +OK
  // A kCommand or kExec of a client whose ACL user is restricted: the multibulk starts with
  // the user's name and the inner kind ("0" or "2"), so B runs it (scripts' redis.call, EXEC's
  // re-check) with that user's permissions.
  kAsUser = 4,
  // Client-side caching across workers (worker/engine/tracking.hpp):
  // a kCommand of a tracking client whose keys B remembers as read by (origin, client id);
  kTracked = 5,
  // a one-way tracking message: an invalidation for a client of the receiving worker, a
  // redirected one, BCAST keys, or the sender's BCAST prefixes (args[0] says which).
  kTracking = 6,
  // MONITOR across workers: "on" / "off" (the origin's clients started / stopped monitoring)
  // or "line" <text> for the origin's monitors; reply +OK, dropped.
  kMonitor = 7,
  // DEBUG DIGEST through the proxy: this worker's part per database, an array of one bulk per
  // database: "" when empty there, else the hex xor of its keys' digests.
  kDigest = 8,
  // This worker's ACL LOG entries, oldest fields raw (times in ms) for the proxy to regroup.
  kAclLog = 9,
  // The sender's CLIENT PAUSE in force, for a peer that restarted meanwhile: "WRITE"|"ALL"
  // and its end in wall-clock ms (the workers share the clock). Never parked; reply +OK.
  kPause = 10,
  // INFO latencystats through the proxy: this worker's per-command latency histograms, only
  // their non-zero slots: an array of name, [slot index, count, ...] pairs (empty with
  // latency-tracking off), for the proxy to add up (worker/route/latency_merge.hpp).
  kHistograms = 11,
  // LATENCY DOCTOR / GRAPH through the proxy: this worker's latency monitor, an array of
  // [event, all-time max, [time, latency, ...]] per event.
  kLatencyEvents = 12,
};
inline constexpr std::uint8_t kMeshKindLast = 12;

inline constexpr std::size_t kMeshLengthBytes = 4;
inline constexpr std::size_t kMeshRequestMeta = 20;  // kind db resp origin client-id request-id
inline constexpr std::size_t kMeshReplyMeta = 8;     // request id
// A frame larger than this is refused: a bulk may be 512 MB (proto-max-bulk-len), and a
// command carries several.
inline constexpr std::size_t kMeshMaxFrame = 1ull << 31;

struct MeshRequestHeader {
  MeshKind kind = MeshKind::kCommand;
  std::uint8_t db = 0;
  std::uint8_t resp = 2;
  std::uint8_t origin = 0;
  std::uint64_t client_id = 0;
  std::uint64_t request_id = 0;
};

// ---------------------------------------------------------------- encoding

// Appends a whole request frame for `args` to `out`.
void encode_mesh_request(std::string& out, const MeshRequestHeader& h,
                         std::span<const std::string_view> args);
// Starts a reply frame in `out` and returns where it starts; the caller appends the reply
// bytes, then end_mesh_frame() fills in the length.
std::size_t begin_mesh_reply(std::string& out, std::uint64_t request_id);
void end_mesh_frame(std::string& out, std::size_t frame_start);

// ---------------------------------------------------------------- decoding

enum class FrameStatus : std::uint8_t { kFrame, kNeedMore, kError };

enum class FrameError : std::uint8_t {
  kNone,
  kShortMeta,  // n smaller than the frame's fixed meta
  kOversized,  // n above the decoder's limit
  kBadKind,    // request kind not a MeshKind
  kBadBody,    // body not exactly one RESP command (request) / reply (reply)
};
std::string_view frame_error_text(FrameError e);

struct FrameResult {
  FrameStatus status = FrameStatus::kNeedMore;
  std::size_t consumed = 0;  // kFrame: the frame's bytes, to drop from the input
  std::size_t need = 0;      // kNeedMore: total bytes the frame needs (0: not known yet)
  FrameError error = FrameError::kNone;
};

struct MeshRequest {
  MeshRequestHeader header;
  std::string_view body;               // the multibulk bytes (a view into the input)
  std::vector<std::string_view> args;  // views into the input (body)
};

class MeshRequestDecoder {
 public:
  explicit MeshRequestDecoder(std::size_t max_frame = kMeshMaxFrame) : max_frame_(max_frame) {}
  // Decodes the first frame of `input`. On kFrame `out` holds views into `input`.
  FrameResult decode(std::string_view input, MeshRequest& out);
  // Parses a body kept from an earlier frame (a parked request) back into arguments.
  bool parse_body(std::string_view body, std::vector<std::string_view>& args);

 private:
  std::size_t max_frame_;
  RequestParser parser_;
};

struct MeshReply {
  std::uint64_t request_id = 0;
  std::string_view reply;  // one complete RESP reply (a view into the input)
};

FrameResult decode_mesh_reply(std::string_view input, MeshReply& out,
                              std::size_t max_frame = kMeshMaxFrame);

// The parked notice (drawn above): the request id a notice's reply names, or 0 when the reply
// is no valid notice (its frame came with request id kMeshNoticeId).
inline constexpr std::uint64_t kMeshNoticeId = 0;
void append_parked_notice(std::string& out, std::uint64_t request_id);
std::uint64_t parked_notice_id(std::string_view reply);

}  // namespace ruvio::proto
