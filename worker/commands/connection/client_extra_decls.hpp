// Written by hand: CLIENT subcommands that redis-server 7.0.15 does not have, so
// tests/tools/gen_command_decls.py cannot take their declarations from it (Redis 7.2's docs).
#pragma once

#include "worker/commands/connection/client_decls.hpp"
#include "worker/engine/command.hpp"

namespace ruvio::worker::decl {

inline constexpr Arg client_setinfo_args_0[] = {
    {.name = "libname", .type = ArgType::kString, .token = "LIB-NAME"},
    {.name = "libver", .type = ArgType::kString, .token = "LIB-VER"},
};
inline constexpr Arg client_setinfo_args[] = {
    {.name = "attr", .type = ArgType::kOneof, .args = client_setinfo_args_0},
};
inline constexpr CommandDecl client_setinfo{.args = client_setinfo_args};

// CLIENT NO-TOUCH (7.2): its arguments have the shape of NO-EVICT's.
inline constexpr CommandDecl client_no_touch{.args = client_no_evict_args};

}  // namespace ruvio::worker::decl
