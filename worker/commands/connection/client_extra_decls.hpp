// Written by hand: CLIENT subcommands that redis-server 7.0.15 does not have, so
// tests/tools/snapshot_command_decls.py cannot take their declarations from it (Redis 7.2's docs).
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
inline constexpr CommandDecl client_setinfo{.name = "client|setinfo",
                                            .arity = 4,
                                            .flags = kNoScript | kLoading | kStale,
                                            .acl = kCatSlow | kCatConnection,
                                            .group = "connection",
                                            .summary = "Set client or connection specific info",
                                            .since = "7.2.0",
                                            .complexity = "O(1)",
                                            .args = client_setinfo_args};

// CLIENT NO-TOUCH (7.2): its arguments have the shape of NO-EVICT's.
inline constexpr CommandDecl client_no_touch{.name = "client|no-touch",
                                             .arity = 3,
                                             .flags = kNoScript | kLoading | kStale,
                                             .acl = kCatSlow | kCatConnection,
                                             .group = "connection",
                                             .summary =
                                                 "Controls whether commands sent by the client "
                                                 "will alter the LRU/LFU of the keys they access.",
                                             .since = "7.2.0",
                                             .complexity = "O(1)",
                                             .args = client_no_evict_args};

}  // namespace ruvio::worker::decl
