// The proxy's reply mergers: how the replies of a command's parts (one per worker, or one per
// key owner) become the one reply a client gets, by the command's Merge (routing_of: Redis's
// response_policy tips or Ruvio's own). INFO, ACL LOG and LATENCY have files of their own
// (info_merge, acl_log_merge, latency_merge).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "worker/engine/command.hpp"
#include "worker/route/routed_client.hpp"

namespace ruvio::worker {

// The first error reply among the parts, or null.
const std::string* first_error(const std::vector<std::string>& parts);
// The elements of an array reply, as views into it; false when it is not an array.
bool elements(std::string_view reply, std::vector<std::string_view>& out);
// Channel lists (PUBSUB CHANNELS): each element once, whichever parts hold it.
void merge_union(std::vector<std::string>& parts, std::string& out);
// The merge for `how` (never Merge::kTips).
MergeFn merge_of(Merge how);

}  // namespace ruvio::worker
