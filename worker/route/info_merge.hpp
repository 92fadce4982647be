// INFO on the proxy port: one text for the whole service, built from every worker's INFO.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ruvio::worker {

// `parts[i]` is worker i's INFO reply (bulk or verbatim). The result is worker `self`'s text
// with counters and the keyspace summed over all workers and, when `per_worker`, a
// "# Workers" section with one line per worker.
std::string merge_info(const std::vector<std::string>& parts, std::size_t self, bool per_worker);

}  // namespace ruvio::worker
