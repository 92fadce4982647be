// What the stream family's files share (stream_commands.cpp: the table, XADD XDEL XTRIM XSETID
// and the helpers below; stream_read_commands.cpp: XRANGE XREVRANGE XLEN XREAD;
// stream_group_commands.cpp: consumer groups and XREADGROUP's delivery;
// stream_info_commands.cpp: XINFO): the names they use, ID arguments, entry replies, the
// XREADGROUP delivery that XREAD's parser hands over, and the handlers the table points at.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "worker/engine/blocking.hpp"
#include "worker/engine/context.hpp"
#include "worker/types/stream/stream.hpp"
#include "worker/types/stream/stream_group.hpp"

namespace ruvio::worker::streams {

using store::Entry;
using types::ParsedStreamId;
using types::Stream;
using types::StreamConsumer;
using types::StreamGroup;
using types::StreamID;
using types::StreamIter;
using types::StreamNack;
using types::StreamTrim;
using types::Type;

// The stream a found key of type stream holds.
inline const types::Stream* stream_in(store::Entry e) {
  return static_cast<const types::Stream*>(e.object());
}

inline constexpr std::string_view kInvalidStreamId =
    "ERR Invalid stream ID specified as stream command argument";

// streamParseStrictIDOrReply / streamParseIDOrReply: false after replying the error.
bool parse_stream_id(Context& ctx, std::string_view arg, std::uint64_t missing_seq, bool strict,
                     types::StreamID& out);
// streamParseIntervalIDOrReply: "(" makes the bound exclusive.
bool parse_interval(Context& ctx, std::string_view arg, types::StreamID& id, bool& ex,
                    std::uint64_t missing_seq);
// getLongLongFromObjectOrReply.
bool parse_ll(Context& ctx, std::string_view arg, std::int64_t& out);

// "NOGROUP No such key '<key>' or consumer group '<group>" and `tail`.
void nogroup(Context& ctx, std::string_view key, std::string_view group,
             std::string_view tail = "'");

void reply_stream_id(Context& ctx, const types::StreamID& id);
// One entry: [id, [field, value, ...]].
void reply_stream_entry(Context& ctx, const types::StreamIter& it);

// An array (or map) whose length is known only after its elements are written: the header is
// put in front of them at the end (a memmove of what was written, no allocation).
class DeferredLen {
 public:
  explicit DeferredLen(Context& ctx, char prefix = '*')
      : out_(ctx.out.buffer()), at_(out_.size()), prefix_(prefix) {}
  void set(std::size_t n);

 private:
  std::string& out_;
  std::size_t at_;
  char prefix_;
};

// streamReplyWithRange without a group: entries of [start, end] (COUNT 0: all), as an array.
std::size_t reply_stream_range(Context& ctx, const types::Stream* s, const types::StreamID& start,
                               const types::StreamID& end, std::size_t count, bool rev);

// XREADGROUP's part of one stream (the key's reply element is written by the caller):
// history (`gt` is not ">") from the consumer's PEL, or new entries past the group's last ID.
// Creates the consumer when missing and refreshes its seen-time. Adds its WAL effect (the
// caller began it with ctx.log_begin()): consumer creation, claims, the group's last ID.
void xreadgroup_serve(Context& ctx, std::string_view key, store::WriteHandle& h,
                      types::StreamGroup* g, std::string_view consumer, const types::StreamID& gt,
                      bool history, std::size_t count, bool noack);

// The handlers of stream_read_commands.cpp (the table is in stream_commands.cpp), and XREAD's
// and XREADGROUP's specs under the blocking framework.
void xrange(Context& ctx);
void xrevrange(Context& ctx);
void xlen(Context& ctx);
void xread(Context& ctx);
void xreadgroup(Context& ctx);
extern const BlockingSpec kBlockXread;
extern const BlockingSpec kBlockXreadgroup;

// The handlers of stream_group_commands.cpp and stream_info_commands.cpp.
void xgroup_create(Context& ctx);
void xgroup_setid(Context& ctx);
void xgroup_destroy(Context& ctx);
void xgroup_createconsumer(Context& ctx);
void xgroup_delconsumer(Context& ctx);
void xgroup_help(Context& ctx);
void xack(Context& ctx);
void xpending(Context& ctx);
void xclaim(Context& ctx);
void xautoclaim(Context& ctx);
void xinfo_stream(Context& ctx);
void xinfo_groups(Context& ctx);
void xinfo_consumers(Context& ctx);
void xinfo_help(Context& ctx);

}  // namespace ruvio::worker::streams
