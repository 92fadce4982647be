// What Redis's call() records around every command: per-command counters (INFO
// commandstats), error replies by prefix (INFO errorstats), the slow log (SLOWLOG) and the
// latency monitor's event series (LATENCY). One of each per worker, owned by the Executor.
//
// Cost on the command path: the counters are a flat array indexed by CommandDef::id (no name
// lookup, no allocation); the clock is read twice per command, as Redis does. The slow log and
// the latency monitor only work when a command is slower than their thresholds.
#pragma once

#include <bit>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/resp_writer.hpp"
#include "worker/commands/command.hpp"

namespace ruvio::worker {

struct CommandCounters {
  std::uint64_t calls = 0;
  std::uint64_t usec = 0;
  std::uint64_t rejected_calls = 0;  // refused before it ran (arity, NOAUTH, MOVED, BUSY …)
  std::uint64_t failed_calls = 0;    // ran and replied an error
};

class CommandStats final : public proto::ErrorSink {
 public:
  CommandStats();

  // Every error reply: counted under its prefix (the first word, as Redis's afterErrorReply).
  void on_error(std::string_view text) override;

  CommandCounters& of(const CommandDef& def) { return counters_[def.id]; }
  const CommandCounters& at(std::size_t id) const { return counters_[id]; }
  std::size_t size() const { return counters_.size(); }

  // Redis's incrCommandStatsOnError: were errors replied since the last call? Each command
  // asks once, so an EXEC whose queued commands failed is not failed itself.
  bool errors_since_last_check() {
    const bool more = total_errors_ != checked_errors_;
    checked_errors_ = total_errors_;
    return more;
  }
  std::uint64_t total_errors() const { return total_errors_; }
  // (prefix, count) in first-seen order; INFO sorts them as Redis's rax does.
  const std::vector<std::pair<std::string, std::uint64_t>>& errors() const { return errors_; }

  // latency-tracking: Redis keeps an HDR histogram per command and reports it in
  // log2 buckets of microseconds (LATENCY HISTOGRAM) and as percentiles (INFO latencystats).
  // Ruvio keeps those log2 buckets only: bucket b counts durations in (2^(b-1), 2^b] × 1.024 µs
  // (Redis's first bucket is 1024 ns), so HISTOGRAM answers the same buckets and the
  // percentiles are the bucket's upper bound (Redis's are exact to 2 significant digits).
  static constexpr std::size_t kBuckets = 40;
  void record_latency(const CommandDef& def, std::int64_t usec) {
    if (hist_.empty()) hist_.assign(counters_.size() * kBuckets, 0);
    const std::uint64_t ns = static_cast<std::uint64_t>(usec < 0 ? 0 : usec) * 1000;
    const std::uint64_t units = (ns + 1023) / 1024;  // of Redis's 1024 ns first bucket
    std::size_t b = units <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(units - 1));
    if (b >= kBuckets) b = kBuckets - 1;
    hist_[def.id * kBuckets + b]++;
  }
  // Counts per bucket of command `id` (empty when nothing was recorded).
  std::span<const std::uint64_t> histogram(std::size_t id) const {
    if (hist_.empty()) return {};
    return std::span<const std::uint64_t>(hist_).subspan(id * kBuckets, kBuckets);
  }
  // The upper bound of bucket b in µs, as Redis prints it (1, 2, 4, …).
  static std::uint64_t bucket_usec(std::size_t b) { return std::uint64_t{1} << b; }

  // CONFIG RESETSTAT.
  void reset();

 private:
  std::vector<CommandCounters> counters_;
  std::vector<std::uint64_t> hist_;
  std::vector<std::pair<std::string, std::uint64_t>> errors_;
  std::uint64_t total_errors_ = 0;
  std::uint64_t checked_errors_ = 0;
};

// Redis's slowlog.c: the newest entries first, at most max_len of them; arguments cut to 32
// (the last saying how many more) and each to 128 bytes (saying how many more bytes).
class SlowLog {
 public:
  struct Entry {
    std::uint64_t id = 0;
    std::int64_t time = 0;  // unix seconds
    std::int64_t usec = 0;
    std::vector<std::string> args;
    std::string addr;
    std::string name;
  };

  // Takes the entry when `usec` reaches the threshold (slowlog-log-slower-than; < 0: off).
  void maybe_add(std::int64_t threshold, std::uint64_t max_len,
                 std::span<const std::string_view> args, std::int64_t usec, std::string_view addr,
                 std::string_view name);
  void trim(std::uint64_t max_len);
  void reset() { entries_.clear(); }
  const std::deque<Entry>& entries() const { return entries_; }

 private:
  std::deque<Entry> entries_;  // front = newest
  std::uint64_t next_id_ = 0;
};

// Redis's latency.c: per event, the last 160 samples (one per second: the max within it),
// the latest and the all-time max, in milliseconds.
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
  static constexpr std::size_t kSamples = 160;

  void add(std::string_view event, std::uint32_t ms);
  // LATENCY RESET: the named events (all when empty); returns how many series were dropped.
  std::size_t reset(std::span<const std::string_view> events);
  const std::vector<Series>& series() const { return series_; }
  const Series* find(std::string_view event) const;

 private:
  std::vector<Series> series_;
};

// AUTH's arguments, HELLO's AUTH pair and MIGRATE's passwords as SLOWLOG and MONITOR show
// them: "(redacted)" (Redis's redactClientCommandArgument). True when any was redacted.
bool redacted_args(std::span<const std::string_view> args, std::vector<std::size_t>& positions);

}  // namespace ruvio::worker
