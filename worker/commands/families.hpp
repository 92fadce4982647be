// Every family's declaration table, one function each, defined in the family's group folder
// (worker/commands/<group>/); worker/commands/command_table.cpp gathers them into the table.
#pragma once

#include <span>

#include "worker/engine/command.hpp"

namespace ruvio::worker {

std::span<const CommandDef> connection_commands();
std::span<const CommandDef> string_commands();
std::span<const CommandDef> list_commands();
std::span<const CommandDef> pubsub_commands();
std::span<const CommandDef> transaction_commands();
std::span<const CommandDef> key_commands();
std::span<const CommandDef> server_commands();
std::span<const CommandDef> persist_commands();
std::span<const CommandDef> zset_commands();
std::span<const CommandDef> set_commands();
std::span<const CommandDef> sort_commands();
std::span<const CommandDef> hash_commands();
std::span<const CommandDef> hash_ttl_commands();
std::span<const CommandDef> geo_commands();
std::span<const CommandDef> bitmap_commands();
std::span<const CommandDef> hll_commands();
std::span<const CommandDef> stream_commands();
std::span<const CommandDef> dump_commands();
std::span<const CommandDef> debug_commands();
std::span<const CommandDef> script_commands();
std::span<const CommandDef> function_commands();
std::span<const CommandDef> acl_commands();
std::span<const CommandDef> ops_commands();
std::span<const CommandDef> cluster_commands();

}  // namespace ruvio::worker
