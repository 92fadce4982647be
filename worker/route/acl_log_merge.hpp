// ACL LOG through the proxy port: each worker logs the denials of its own clients (and of the
// scripts it runs); the proxy asks every worker for its raw entries (MeshKind::kAclLog) and
// answers them as one server's log would read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ruvio::worker {

// `parts`: one raw log per worker (write_acl_log_raw). The entries are replayed oldest first
// through Redis's grouping (the same reason, context, object and user within 60 s join one
// entry, their counts added), the log cut to `max_len`, and the newest `count` answered in
// protocol `resp`. A part that is an error (a worker down, its log lost) is left out.
void merge_acl_log(const std::vector<std::string>& parts, std::size_t count, std::size_t max_len,
                   int resp, std::string& out);

}  // namespace ruvio::worker
