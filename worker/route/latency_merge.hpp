// LATENCY through the proxy port: each worker keeps its own latency monitor and per-command
// histograms; the proxy asks every worker and answers as one server holding all of them
// would.
//
//   LATEST     one entry per event: the newest sample of any worker (the larger latency
//              when two fall in the same second) and the largest all-time max
//   HISTORY    every worker's samples of the event by time, one per second (the larger),
//              the newest 160
//   HISTOGRAM  per command the calls added and, per µs label, the cumulative counts added
//              (a label a worker left out counts as its previous one): the exact reply of
//              the workers' histograms summed, since they share the bucketing
//   RESET      the largest count of any worker (events of the same name on several workers
//              count once when one worker has them all; the reply carries no names)
//   DOCTOR     the report and graph of one monitor holding every worker's series
//   GRAPH      (LatencyMonitor::absorb), from MeshKind::kLatencyEvents parts
//
// INFO latencystats: the percentiles of each command's histogram summed over the workers
// (MeshKind::kHistograms parts: the slots are the same, so adding counts is exact).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "proto/resp_writer.hpp"
#include "worker/engine/command_stats.hpp"
#include "worker/engine/latency_monitor.hpp"

namespace ruvio::worker {

// MeshKind::kHistograms' answer: every command's histogram as its name and the [index, count]
// pairs of its non-zero slots; nothing with latency-tracking off (INFO shows the header alone).
void write_histograms(const CommandStats& stats, bool tracking, proto::ReplyWriter& out);
// MeshKind::kLatencyEvents' answer: [event, max, [time, latency, ...]] per series.
void write_latency_events(const LatencyMonitor& monitor, proto::ReplyWriter& out);

// INFO latencystats' lines of the summed histograms of `parts` (write_histograms answers; an
// error part, a worker down, is left out): line name -> whole line, in name order.
std::map<std::string, std::string, std::less<>> merged_percentile_lines(
    const std::vector<std::string>& parts, const std::vector<double>& percentiles);

// LATENCY DOCTOR (`event` unused) or GRAPH `event` over the write_latency_events `parts`,
// rendered with `report`'s settings. A worker's error is the answer.
void merge_latency_report(std::string_view sub, std::string_view event,
                          const std::vector<std::string>& parts, const LatencyReport& report,
                          int resp, std::string& out);

// `sub`: the LATENCY subcommand; `parts`: one reply per worker; `resp`: the client's protocol.
// A worker's error is the answer.
void merge_latency(std::string_view sub, const std::vector<std::string>& parts, int resp,
                   std::string& out);

}  // namespace ruvio::worker
