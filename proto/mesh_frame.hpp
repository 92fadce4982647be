// The mesh frame codec: how a request travels from worker A to worker B and how its reply
// comes back (worker/route/mesh.* moves the bytes; this file only knows their shape).
//
//   request frame (A → B), little endian:
//
//     0        4      5    6      7        8                16               24
//     +--------+------+----+------+--------+----------------+----------------+-------------+
//     | u32 n  | kind | db | resp | origin | u64 client id  | u64 request id | payload     |
//     +--------+------+----+------+--------+----------------+----------------+-------------+
//              '------------------------ n bytes ---------------------------------------'
//
//     n counts everything after the length field: 20 bytes of meta, then the kind's payload,
//     nothing after it.
//     kind   MeshKind below; any other value is a malformed frame.
//     db     the client's selected database, resp its protocol (2 or 3): B answers in it.
//     origin A's worker id; (origin, client id) names the client on B (WATCH, per-client
//            order while a request is parked).
//     request id  chosen by A, echoed in the reply; unique among A's requests in flight on
//            this link, so B may answer out of order (a parked request must not hold up the
//            replies behind it).
//
//   payload by kind (each decodes to the struct named; "multibulk" is exactly one RESP
//   multibulk command, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"):
//
//     kCommand      MeshCommand  | u16 command | u8 flags | u32 u | u bytes user | multibulk |
//                   command: CommandDef::id of the definition that runs (A resolved it);
//                   flags bit 0: tracked (B remembers the keys read as read by the client),
//                   the other bits 0; user: the ACL user B runs it as, empty for the mesh
//                   client's own (unrestricted) permissions.
//     kExec         MeshExec     | u32 u | u bytes user | u32 count | count × (u16 command |
//                                multibulk) |   count 0: MULTI then EXEC, WATCHes there
//     kTracking     MeshTracking | multibulk |  the tracking layer's own message
//     kMonitor      MeshMonitor  | u8 op | line bytes |  op 0 off, 1 on (no line), 2 line
//     kPause        MeshPause    | u8 mode | i64 end ms |  mode 1 WRITE, 2 ALL
//     kClientExists MeshClientExists | u64 client id |
//     the others    no payload (n = 20)
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
// a frame is trusted: lengths are checked against the buffer and a limit before use, and a
// payload that is not exactly its kind's is an error. What the numbers mean (is the command id
// a command, does the user exist) is for the receiver: the codec only knows the shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "proto/resp_parser.hpp"

namespace ruvio::proto {

enum class MeshKind : std::uint8_t {
  kCommand = 0,   // run one command (MeshCommand), reply with its reply
  kPatterns = 1,  // this worker's pattern subscriptions, as an array (PUBSUB NUMPAT)
  kExec = 2,      // run a queued transaction atomically (MeshExec); reply = EXEC's reply
  kForget = 3,    // the client left: drop its requests still parked here; reply +OK
  // CLIENT TRACKING REDIRECT's question (MeshClientExists): is that client of B connected?
  // Reply :1 or :0.
  kClientExists = 4,
  // A one-way tracking message (worker/engine/tracking.hpp, MeshTracking): an invalidation for
  // a client of the receiving worker, a redirected one, BCAST keys, or the sender's BCAST
  // prefixes.
  kTracking = 5,
  // MONITOR across workers (MeshMonitor): the origin's clients started / stopped monitoring,
  // or one line for the origin's monitors; reply +OK, dropped.
  kMonitor = 6,
  // DEBUG DIGEST through the proxy: this worker's part per database, an array of one bulk per
  // database: "" when empty there, else the hex xor of its keys' digests.
  kDigest = 7,
  // This worker's ACL LOG entries, oldest fields raw (times in ms) for the proxy to regroup.
  kAclLog = 8,
  // The sender's CLIENT PAUSE in force, for a peer that restarted meanwhile (MeshPause; the
  // workers share the clock). Never parked; reply +OK.
  kPause = 9,
  // INFO latencystats through the proxy: this worker's per-command latency histograms, only
  // their non-zero slots: an array of name, [slot index, count, ...] pairs (empty with
  // latency-tracking off), for the proxy to add up (worker/route/latency_merge.hpp).
  kHistograms = 10,
  // LATENCY DOCTOR / GRAPH through the proxy: this worker's latency monitor, an array of
  // [event, all-time max, [time, latency, ...]] per event.
  kLatencyEvents = 11,
};
inline constexpr std::uint8_t kMeshKindLast = 11;

// ---------------------------------------------------------------- payloads (drawn above)

struct MeshCommand {
  std::uint16_t command = 0;  // CommandDef::id (worker/engine/command.hpp) of what runs
  bool tracked = false;
  std::string_view user;  // empty: the mesh client's own permissions
  std::span<const std::string_view> args;
};

struct MeshQueued {
  std::uint16_t command = 0;
  std::span<const std::string_view> args;
};

struct MeshExec {
  std::string_view user;
  std::span<const MeshQueued> commands;
};

struct MeshTracking {
  std::span<const std::string_view> args;
};

enum class MonitorOp : std::uint8_t { kOff = 0, kOn = 1, kLine = 2 };

struct MeshMonitor {
  MonitorOp op = MonitorOp::kOff;
  std::string_view line;  // kLine only
};

enum class PauseMode : std::uint8_t { kWrite = 1, kAll = 2 };

struct MeshPause {
  PauseMode mode = PauseMode::kWrite;
  std::int64_t end_ms = 0;  // wall clock
};

struct MeshClientExists {
  std::uint64_t client_id = 0;
};

// One request as its receiver reads it: the kind and, for the kinds that have one, its
// payload (std::monostate for the others). kind_fits() says which goes with which.
using MeshPayload = std::variant<std::monostate, MeshCommand, MeshExec, MeshTracking, MeshMonitor,
                                 MeshPause, MeshClientExists>;

struct MeshMessage {
  MeshKind kind = MeshKind::kCommand;
  MeshPayload payload;
};

// The payload's type is the one its kind carries.
bool kind_fits(const MeshMessage& m);

inline constexpr std::size_t kMeshLengthBytes = 4;
inline constexpr std::size_t kMeshRequestMeta = 20;  // kind db resp origin client-id request-id
inline constexpr std::size_t kMeshReplyMeta = 8;     // request id
// A frame larger than this is refused: a bulk may be 512 MB (proto-max-bulk-len), and a
// command carries several.
inline constexpr std::size_t kMeshMaxFrame = 1ull << 31;

// The meta every request frame carries besides its kind.
struct MeshRequestHeader {
  std::uint8_t db = 0;
  std::uint8_t resp = 2;
  std::uint8_t origin = 0;
  std::uint64_t client_id = 0;
  std::uint64_t request_id = 0;
};

// ---------------------------------------------------------------- encoding

// Appends a whole request frame to `out`; `m` must fit its kind (kind_fits).
void encode_mesh_request(std::string& out, const MeshRequestHeader& h, const MeshMessage& m);
// Starts a reply frame in `out` and returns where it starts; the caller appends the reply
// bytes, then end_mesh_frame() fills in the length.
std::size_t begin_mesh_reply(std::string& out, std::uint64_t request_id);
void end_mesh_frame(std::string& out, std::size_t frame_start);

// ---------------------------------------------------------------- decoding

enum class FrameStatus : std::uint8_t { kFrame, kNeedMore, kError };

enum class FrameError : std::uint8_t {
  kNone,
  kShortMeta,   // n smaller than the frame's fixed meta
  kOversized,   // n above the decoder's limit
  kBadKind,     // request kind not a MeshKind
  kBadBody,     // a multibulk not exactly one RESP command (request) / reply not one reply
  kBadPayload,  // a request payload not of its kind's shape (short, long, bad field value)
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
  MeshMessage message;     // its spans point into args and queued below
  std::string_view frame;  // the whole frame, length field included (a view into the input)
  std::vector<std::string_view> args;  // views into the input: every multibulk's arguments
  std::vector<MeshQueued> queued;      // kExec's commands
};

class MeshRequestDecoder {
 public:
  explicit MeshRequestDecoder(std::size_t max_frame = kMeshMaxFrame) : max_frame_(max_frame) {}
  // Decodes the first frame of `input`. On kFrame `out` holds views into `input` (decode a
  // copy of `out.frame` again to read a kept request).
  FrameResult decode(std::string_view input, MeshRequest& out);

 private:
  // One multibulk at the start of `in`, its arguments appended to `args`; the bytes it used,
  // 0 when `in` does not start with a whole multibulk of at least one argument.
  std::size_t multibulk(std::string_view in, std::vector<std::string_view>& args);
  FrameError payload(std::string_view in, MeshRequest& out);

  std::size_t max_frame_;
  RequestParser parser_;
  std::vector<std::string_view> scratch_;
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
