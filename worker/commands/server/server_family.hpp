// Handlers of the server family that live outside server_commands.cpp (which holds the
// family's one declaration table). Private to worker/commands.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "worker/engine/context.hpp"

namespace ruvio::worker::srvfam {

// info_command.cpp
void cmd_info(Context& ctx);

// introspection_commands.cpp (COMMAND and its subcommands)
void cmd_command(Context& ctx);  // bare COMMAND, or dispatch to a subcommand
void command_count(Context& ctx);
void command_info(Context& ctx);
void command_docs(Context& ctx);
void command_list(Context& ctx);
void command_getkeys(Context& ctx);
void command_getkeysandflags(Context& ctx);
void command_help(Context& ctx);

// config_commands.cpp
void cmd_config(Context& ctx);
void config_get(Context& ctx);
void config_set(Context& ctx);
void config_resetstat(Context& ctx);
void config_rewrite(Context& ctx);  // config_rewrite.cpp
// The current value of a parameter CONFIG SET can change (nullopt: none such), for CONFIG
// REWRITE and a restarted peer (the names changed since start: Shard::config_changed).
std::optional<std::string> settable_value(Shard& shard, std::string_view name);
void config_help(Context& ctx);

}  // namespace ruvio::worker::srvfam
