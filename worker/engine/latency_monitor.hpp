// Redis's latency.c: the latency monitor's event series (LATENCY LATEST / HISTORY / RESET),
// its human report (LATENCY DOCTOR, createLatencyReport) and its ASCII graph (LATENCY GRAPH,
// latencyCommandGenSparkeline + sparkline.c). Texts only: the RESP replies are built by the
// LATENCY handlers (ops_commands.cpp). One monitor per worker, owned by the Executor.
//
// Events Ruvio records, as Redis names them: "command" / "fast-command" (the executor),
// "expire-cycle" (the active expiry pass), "eviction-cycle" / "eviction-del" /
// "eviction-lazyfree" (maxmemory),
// "fork" (a snapshot's fork) and "aof-fsync-always" (the WAL's fsync under durability always).
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shared/config.hpp"

namespace ruvio::worker {

class LatencyMonitor {
 public:
  struct Sample {
    std::int64_t time = 0;  // unix seconds
    std::uint32_t latency = 0;
  };
  struct Series {
    std::string event;
    std::deque<Sample> samples;  // oldest first, at most kSamples
    std::uint32_t max = 0;
  };
  static constexpr std::size_t kSamples = 160;  // LATENCY_TS_LEN

  // latencyAddSampleIfNeeded: only when the monitor is on and `ms` reaches its threshold.
  void add_if_needed(std::int64_t threshold_ms, std::string_view event, std::int64_t ms) {
    if (threshold_ms > 0 && ms >= threshold_ms) [[unlikely]]
      add(event, static_cast<std::uint32_t>(ms));
  }
  // latencyAddSample: one sample per second, the largest latency of that second.
  void add(std::string_view event, std::uint32_t ms);
  // A peer's series of `event` (its samples oldest first), for the proxy's DOCTOR / GRAPH:
  // per second the larger latency, the newest kSamples, the larger all-time max: the series
  // one monitor that saw both workers' events would hold. A new event goes last.
  void absorb(std::string_view event, std::uint32_t max, std::span<const Sample> samples);
  // LATENCY RESET: the named events, compared without case (all when empty); how many went.
  std::size_t reset(std::span<const std::string_view> events);
  const std::vector<Series>& series() const { return series_; }
  // HISTORY / GRAPH look the event up as Redis's dict does: case-sensitive.
  const Series* find(std::string_view event) const;

  // The snapshot's last fork, for DOCTOR's "Fork rate" (Redis's stat_fork_rate, GB/s).
  void set_fork_rate(double gb_per_sec) { fork_rate_ = gb_per_sec; }
  double fork_rate() const { return fork_rate_; }

 private:
  // The event's series, a new empty one (last) when it has none.
  Series& series_of(std::string_view event);

  std::vector<Series> series_;
  double fork_rate_ = 0;
};

// What createLatencyReport reads from the server besides the series.
struct LatencyReport {
  std::int64_t threshold_ms = 0;  // latency-monitor-threshold
  std::int64_t slowlog_slower_than = 0;
  bool fsync_always = false;  // appendfsync always (durability always)
  int hz = 10;
  bool huge_pages = false;  // AnonHugePages > 0 in the worker's smaps
  std::int64_t now = 0;     // unix seconds

  std::string render(const LatencyMonitor& monitor) const;
};

// The report's settings from `config` (threshold, slow log, fsync), this process's huge pages
// and the time now: what LATENCY DOCTOR renders with, here or at the proxy.
LatencyReport make_latency_report(const Config& config);

// AnonHugePages of this process (/proc/self/smaps_rollup), in bytes: Redis's
// THPGetAnonHugePagesSize, behind DOCTOR's THP advice.
std::int64_t anon_huge_pages_bytes();

// LATENCY GRAPH's text: the header line, 80 dashes and the sparkline of the samples (4 rows
// of "_o#|", a blank row and each sample's age written downwards), 80 columns per block.
std::string latency_graph(const LatencyMonitor::Series& series, std::int64_t now);

}  // namespace ruvio::worker
