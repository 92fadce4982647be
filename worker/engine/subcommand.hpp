// Container commands (OBJECT, MEMORY, CONFIG, COMMAND): the container's handler picks the
// subcommand from its declaration table, checks the subcommand's arity and replies Redis's
// own errors, so the dispatcher needs to know nothing about subcommands.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "worker/engine/command.hpp"
#include "worker/engine/context.hpp"

namespace ruvio::worker {

// args[1] names the subcommand. Replies "ERR unknown subcommand 'x'. Try OBJECT HELP." or
// "ERR wrong number of arguments for 'object|encoding' command" like Redis 7.0.
void dispatch_subcommand(Context& ctx, const CommandDef& container);

// Redis's "ERR unknown subcommand 'x'. Try CONTAINER HELP." (x cut at 128 bytes or a NUL).
std::string unknown_subcommand(std::string_view container, std::string_view sub);

// The HELP reply: one status line per entry, then Redis's closing "HELP" lines.
void reply_help(Context& ctx, std::string_view container_upper,
                std::initializer_list<std::string_view> lines);

}  // namespace ruvio::worker
