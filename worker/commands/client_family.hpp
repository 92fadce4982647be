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

// One CLIENT LIST line without its newline (Redis's catClientInfoString).
void client_info_line(const ClientInfo& c, std::int64_t now_ms, std::string& out);

// Redis accepts names of printable ASCII without spaces ('!'..'~') for CLIENT SETNAME,
// HELLO SETNAME and CLIENT SETINFO.
bool valid_client_name(std::string_view name);

}  // namespace ruvio::worker
