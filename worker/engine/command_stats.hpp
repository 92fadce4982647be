// What Redis's call() records around every command: per-command counters (INFO
// commandstats), error replies by prefix (INFO errorstats), the slow log (SLOWLOG) and the
// latency monitor's event series (LATENCY). One of each per worker, owned by the Executor.
//
// Cost on the command path: the counters are a flat array indexed by CommandDef::id (no name
// lookup, no allocation); the clock is read twice per command, as Redis does. The slow log and
// the latency monitor only work when a command is slower than their thresholds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/resp_writer.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/hdr_histogram.hpp"
#include "worker/engine/latency_monitor.hpp"

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

  // latency-tracking: Redis's updateCommandLatencyHistogram. The duration in µs is recorded
  // in ns (so every sample is a multiple of 1000, as Redis's), clamped to the histogram's
  // 1 ns .. 1 s; a command's 24 KiB histogram is made on its first call.
  void record_latency(const CommandDef& def, std::int64_t usec) {
    std::unique_ptr<LatencyHistogram>& h = hist_[def.id];
    if (h == nullptr) [[unlikely]]
      h = std::make_unique<LatencyHistogram>();
    // A sub-µs command (most of them) is the 1 ns slot; the others are clamped to 1 s.
    h->record_in_range(usec <= 0 ? 1 : std::min<std::int64_t>(usec * 1000, kLatencyHdr.highest));
  }
  // Command `id`'s histogram, null before its first call (and after CONFIG RESETSTAT).
  const LatencyHistogram* histogram(std::size_t id) const { return hist_[id].get(); }

  // CONFIG RESETSTAT.
  void reset();

 private:
  std::vector<CommandCounters> counters_;
  std::vector<std::unique_ptr<LatencyHistogram>> hist_;  // by CommandDef::id
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
  void maybe_add(std::int64_t threshold, std::uint64_t max_len, const CommandDef& def,
                 std::span<const std::string_view> args, std::int64_t usec, std::string_view addr,
                 std::string_view name);
  void trim(std::uint64_t max_len);
  void reset() { entries_.clear(); }
  const std::deque<Entry>& entries() const { return entries_; }

 private:
  std::deque<Entry> entries_;  // front = newest
  std::uint64_t next_id_ = 0;
};

// INFO latencystats' value for one command: "p50=1.003,p99=..." for each of `percentiles`
// (latency-tracking-info-percentiles), in µs with 3 decimals, as Redis's
// fillPercentileDistributionLatencies. Shared by INFO and the proxy's merged histograms.
std::string latency_percentiles_value(const LatencyHistogram& h,
                                      const std::vector<double>& percentiles);

// The arguments SLOWLOG and MONITOR show as "(redacted)" (Redis's redactClientCommandArgument):
// what the row of `def` (or of the subcommand that ran, CONFIG SET) redacts. True when any was.
bool redacted_args(const CommandDef* def, std::span<const std::string_view> args,
                   std::vector<std::size_t>& positions);
// The rows' Redact functions: AUTH's arguments, HELLO's AUTH pair, MIGRATE's AUTH/AUTH2
// passwords, CONFIG SET's sensitive values (requirepass, masterauth).
void redact_auth(std::span<const std::string_view> args, std::vector<std::size_t>& positions);
void redact_hello(std::span<const std::string_view> args, std::vector<std::size_t>& positions);
void redact_migrate(std::span<const std::string_view> args, std::vector<std::size_t>& positions);
void redact_config_set(std::span<const std::string_view> args, std::vector<std::size_t>& positions);

}  // namespace ruvio::worker
