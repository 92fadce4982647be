// DEBUG RELOAD (debug_reload.cpp): the worker's snapshot written, the worker emptied and the
// file loaded back.
#pragma once

namespace ruvio::worker {

struct Context;

void debug_reload(Context& ctx);

}  // namespace ruvio::worker
