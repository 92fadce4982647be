// libFuzzer target: the proxy's merge of the workers' latency answers (worker/route/
// latency_merge.cpp: MeshKind::kHistograms and kLatencyEvents parts, LATENCY LATEST / HISTORY
// / HISTOGRAM / RESET parts) reads bytes that come from peer processes. Whatever those bytes
// are (a peer of another version, a torn or corrupt answer), the merge must not crash, read
// outside its input or loop without end, and when every part is one whole RESP reply (a
// worker's error is passed on as it came), so is what it answers the client.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_latency_merge.cpp worker/route/latency_merge.cpp \
//       worker/engine/latency_monitor.cpp worker/engine/command_stats.cpp \
//       worker/engine/command_table.cpp \
//       worker/engine/common.cpp shared/config.cpp shared/config_codec.cpp \
//       shared/config_params.cpp shared/log.cpp shared/notify_flags.cpp \
//       shared/sds_text.cpp shared/topology.cpp shared/slots.cpp proto/reply_scan.cpp \
//       proto/resp_writer.cpp -DSPDLOG_SHARED_LIB -DSPDLOG_COMPILED_LIB -DSPDLOG_FMT_EXTERNAL \
//       -lspdlog -lfmt -o fuzz_latency_merge
//
// Input: byte 0 picks the merge (0 INFO latencystats' histograms, 1 DOCTOR, 2 GRAPH, 3 LATEST,
// 4 HISTORY, 5 HISTOGRAM, 6 RESET), byte 1's low bit the client's RESP version; the rest is
// split on '\n\n' into the workers' parts. The merges read no command table (only the
// workers' side, write_histograms, does): the one here is never called.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/reply_scan.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/route/latency_merge.hpp"

namespace ruvio::worker {
const CommandTable& command_table() {
  std::abort();
}
}  // namespace ruvio::worker

namespace {

using namespace ruvio::worker;

bool whole(std::string_view reply) {
  return !reply.empty() && reply_length(reply) == reply.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const int mode = data[0] % 7;
  const int resp = (data[1] & 1) ? 3 : 2;
  std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  std::vector<std::string> parts;
  for (std::size_t pos = 0;;) {
    const std::size_t end = rest.find("\n\n", pos);
    parts.emplace_back(rest.substr(pos, end == std::string_view::npos ? end : end - pos));
    if (end == std::string_view::npos || parts.size() == 16) break;
    pos = end + 2;
  }
  std::string out;
  switch (mode) {
    case 0: {
      const auto lines = merged_percentile_lines(parts, {50.0, 99.0, 99.9});
      for (const auto& [key, line] : lines) {
        if (!line.starts_with(key + ":")) std::abort();
      }
      return 0;
    }
    case 1:
    case 2: {
      LatencyReport report;
      report.threshold_ms = 1;
      report.now = 1'700'000'000;
      merge_latency_report(mode == 1 ? "doctor" : "graph", "command", parts, report, resp, out);
      break;
    }
    default: {
      static const char* const kSubs[] = {"latest", "history", "histogram", "reset"};
      merge_latency(kSubs[mode - 3], parts, resp, out);
      break;
    }
  }
  bool parts_whole = true;
  for (const std::string& p : parts) parts_whole = parts_whole && whole(p);
  if (parts_whole && !whole(out)) std::abort();
  return 0;
}
