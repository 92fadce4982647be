// What a client looks like from outside: its CLIENT LIST line, its memory as Redis counts it
// and Redis's reply-buffer figures. CLIENT LIST/INFO, ACL LOG's client-info, client eviction
// and the output-buffer limits all read them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "worker/engine/shard.hpp"

namespace ruvio::worker {

// One CLIENT LIST line without its newline (Redis's catClientInfoString). `argv` is the
// command the client is running (CLIENT LIST/INFO about itself: Redis counts its argv).
void client_info_line(const ClientInfo& c, std::int64_t now_ms, std::string& out,
                      std::span<const std::string_view> argv = {});

// A client's memory as Redis 7.0's getClientMemoryUsage counts it (CLIENT LIST tot-mem, what
// maxmemory-clients measures), from what the connection last recorded: the query buffer with
// its room, the output buffers' room (at least what they hold), the connection object,
// queued MULTI commands (their arguments, a pointer each and Redis's multiCmd array of
// max(2, next power of two) entries of 24 bytes), watched keys (56 bytes each: Redis's list
// node and watchedKey; those held by other workers counted by the client's), pub/sub channels (a
// 24-byte dict entry each plus 8 per slot of a power-of-two table) and patterns (a 24-byte list
// node each). Ruvio's own structures for the last three differ; Redis's sizes are used so the two
// servers' figures compare.
std::size_t client_memory_usage(const ClientInfo& c);

// Redis 7.0's reply buffers for `pending` reply bytes (CLIENT LIST obl/oll/omem, and what
// client-output-buffer-limit measures). Redis fills a fixed 16 KB buf (PROTO_REPLY_CHUNK_BYTES)
// first and the rest goes to a list of blocks; only the list counts as output-buffer memory
// (getClientOutputBufferMemoryUsage: each block's room plus a 24-byte listNode and a 16-byte
// clientReplyBlock header). Ruvio keeps one buffer and no reply boundaries, so the list is
// modelled as blocks of what small replies fill: at least 16 KB plus the header, which
// jemalloc rounds to its 20 KB class, 20464 bytes of room (measured on redis-server 7.0.15:
// omem = 20504 per block). A reply over 16 KB gets one block its own size in Redis, so for
// large replies oll here is higher than Redis's and omem within jemalloc's rounding of it.
// `stuck`: an earlier write left bytes the socket did not take. Redis wrote its buf out first
// then, and while its list holds anything new replies join the list: obl 0, all in the list.
struct ReplyList {
  std::size_t buf = 0;     // obl
  std::size_t blocks = 0;  // oll
  std::size_t memory = 0;  // omem
};
inline constexpr std::size_t kReplyBufBytes = 16 * 1024;
inline constexpr std::size_t kReplyBlockRoom = 20480 - 16;
inline constexpr std::size_t kReplyBlockOverhead = 24 + 16;
constexpr ReplyList reply_list_of(std::size_t pending, bool stuck) {
  ReplyList r;
  r.buf = stuck ? 0 : std::min(pending, kReplyBufBytes);
  const std::size_t listed = pending - r.buf;
  r.blocks = (listed + kReplyBlockRoom - 1) / kReplyBlockRoom;
  r.memory = r.blocks * (kReplyBlockRoom + kReplyBlockOverhead);
  return r;
}

// The same line as a string of its own (ACL LOG's client-info).
std::string client_info_line(const ClientInfo& c, std::int64_t now_ms);

}  // namespace ruvio::worker
