// The event a write command publishes by default (keyspace_notify.cpp).
#pragma once

#include "worker/store/db.hpp"

namespace ruvio::worker {

struct CommandDef;

// Its name in its group's class ("lpush" in l, "xgroup-create" in t); none for a read-only
// command. A handler states another where Redis's event is not the command's name.
store::KeyspaceEvent declared_event(const CommandDef& def);

}  // namespace ruvio::worker
