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
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ruvio::worker {

// `sub`: the LATENCY subcommand; `parts`: one reply per worker; `resp`: the client's protocol.
// A worker's error is the answer.
void merge_latency(std::string_view sub, const std::vector<std::string>& parts, int resp,
                   std::string& out);

}  // namespace ruvio::worker
