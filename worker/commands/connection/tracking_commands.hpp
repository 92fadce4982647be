// CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO (tracking_commands.cpp), declared in
// the CLIENT subcommand table of client_commands.cpp.
#pragma once

namespace ruvio::worker {

struct Context;

void client_tracking(Context& ctx);
void client_caching(Context& ctx);
void client_getredir(Context& ctx);
void client_trackinginfo(Context& ctx);

}  // namespace ruvio::worker
