// The CLIENT family (client_commands.cpp): its subcommand table, and the client description
// the server's log lines share with CLIENT LIST.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "worker/commands/command.hpp"
#include "worker/commands/shard.hpp"

namespace ruvio::worker {

std::span<const CommandDef> client_subcommands();

// One CLIENT LIST line without its newline (Redis's catClientInfoString). `argv` is the
// command the client is running (CLIENT LIST/INFO about itself: Redis counts its argv).
void client_info_line(const ClientInfo& c, std::int64_t now_ms, std::string& out,
                      std::span<const std::string_view> argv = {});

// A client's memory as Redis 7.0's getClientMemoryUsage counts it (CLIENT LIST tot-mem, what
// maxmemory-clients measures), from what the connection last recorded: the query buffer with
// its room, the output buffers' room (at least what they hold), the connection object,
// queued MULTI commands (their arguments, a pointer each and Redis's multiCmd array of
// max(2, next power of two) entries of 24 bytes), watched keys (56 bytes each: Redis's list
// node and watchedKey), pub/sub channels (a 24-byte dict entry each plus 8 per slot of a
// power-of-two table) and patterns (a 24-byte list node each). Ruvio's own structures for
// the last three differ; Redis's sizes are used so the two servers' figures compare.
std::size_t client_memory_usage(const ClientInfo& c);

// Redis accepts names of printable ASCII without spaces ('!'..'~') for CLIENT SETNAME,
// HELLO SETNAME and CLIENT SETINFO.
bool valid_client_name(std::string_view name);

}  // namespace ruvio::worker
