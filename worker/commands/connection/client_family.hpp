// The CLIENT family (client_commands.cpp): its subcommand table, and the client description
// the server's log lines share with CLIENT LIST.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "worker/engine/client_info.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

std::span<const CommandDef> client_subcommands();

// Redis accepts names of printable ASCII without spaces ('!'..'~') for CLIENT SETNAME,
// HELLO SETNAME and CLIENT SETINFO.
bool valid_client_name(std::string_view name);

}  // namespace ruvio::worker
