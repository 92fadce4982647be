// INFO on the proxy port: one text for the whole service, built from every worker's INFO.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ruvio::worker {

// `parts[i]` is worker i's INFO reply (bulk or verbatim). The result is worker `self`'s text
// with counters and the keyspace summed over all workers and, when `per_worker`, a
// "# Workers" section with one line per worker. `percentiles`: the latencystats lines of the
// workers' summed histograms (merged_percentile_lines); without them a command shows the
// line of the first worker that has it (this one first), exact only when it ran on one.
std::string merge_info(
    const std::vector<std::string>& parts, std::size_t self, bool per_worker,
    const std::map<std::string, std::string, std::less<>>* percentiles = nullptr);

// Does INFO with these arguments print "# Latencystats" (asked by name, "all", "everything")?
bool info_wants_latencystats(std::span<const std::string_view> args);

}  // namespace ruvio::worker
