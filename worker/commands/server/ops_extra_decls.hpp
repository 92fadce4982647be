// Written by hand: WAITAOF is Redis 7.2's, and the redis-server 7.0.15 that
// tests/tools/snapshot_command_decls.py reads has no declaration to generate it from (so
// test_server does not compare it). Fields as Redis 7.2's src/commands/waitaof.json.
#pragma once

#include "worker/engine/command.hpp"

namespace ruvio::worker::decl {

inline constexpr Arg waitaof_args[] = {
    {.name = "numlocal", .type = ArgType::kInteger},
    {.name = "numreplicas", .type = ArgType::kInteger},
    {.name = "timeout", .type = ArgType::kInteger},
};
inline constexpr CommandDecl waitaof{.name = "waitaof",
                                     .arity = 4,
                                     .flags = kNoScript,
                                     .acl = kCatSlow | kCatConnection,
                                     .group = "generic",
                                     .summary =
                                         "Wait for all write commands sent by the client to be "
                                         "appended to the AOF of the master and its replicas",
                                     .since = "7.2.0",
                                     .complexity = "O(1)",
                                     .args = waitaof_args};

}  // namespace ruvio::worker::decl
