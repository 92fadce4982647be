// Handlers of the generic-key family that live outside key_commands.cpp (which holds the
// family's one declaration table). Private to worker/commands.
#pragma once

#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"

namespace ruvio::worker::keyfam {

// expire_commands.cpp
void cmd_expire(Context& ctx);
void cmd_pexpire(Context& ctx);
void cmd_expireat(Context& ctx);
void cmd_pexpireat(Context& ctx);
void cmd_ttl(Context& ctx);
void cmd_pttl(Context& ctx);
void cmd_expiretime(Context& ctx);
void cmd_pexpiretime(Context& ctx);
void cmd_persist(Context& ctx);

}  // namespace ruvio::worker::keyfam
