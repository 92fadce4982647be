#include "worker/engine/command_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"

namespace ruvio::worker {

CommandStats::CommandStats() : counters_(command_table().ids()), hist_(command_table().ids()) {}

void CommandStats::on_error(std::string_view text) {
  ++total_errors_;
  // afterErrorReply: the code is what precedes the first space within the first 32 bytes of
  // "-CODE message"; without one, "ERR".
  std::string_view code = "ERR";
  const std::size_t space = text.substr(0, 31).find(' ');
  if (space != std::string_view::npos) code = text.substr(0, space);
  for (auto& [name, count] : errors_) {
    if (name == code) {
      ++count;
      return;
    }
  }
  errors_.emplace_back(std::string(code), 1);
}

std::string latency_percentiles_value(const LatencyHistogram& h,
                                      const std::vector<double>& percentiles) {
  std::string value;
  for (double p : percentiles) {
    char num[48];
    std::snprintf(num, sizeof num, "%.3f", static_cast<double>(h.value_at_percentile(p)) / 1000.0);
    if (!value.empty()) value += ',';
    value.append("p").append(format_percentile(p)).append("=").append(num);
  }
  return value;
}

void CommandStats::reset() {
  std::fill(counters_.begin(), counters_.end(), CommandCounters{});
  // resetCommandTableStats frees the histograms: LATENCY HISTOGRAM lists none until called.
  for (auto& h : hist_) h.reset();
  errors_.clear();
  total_errors_ = 0;
  checked_errors_ = 0;
}

namespace {
constexpr std::size_t kSlowlogMaxArgc = 32;
constexpr std::size_t kSlowlogMaxString = 128;
}  // namespace

void SlowLog::maybe_add(std::int64_t threshold, std::uint64_t max_len, const CommandDef& def,
                        std::span<const std::string_view> args, std::int64_t usec,
                        std::string_view addr, std::string_view name) {
  if (threshold < 0) return;
  if (usec >= threshold) {
    Entry e;
    e.id = next_id_++;
    e.time = static_cast<std::int64_t>(std::time(nullptr));
    e.usec = usec;
    e.addr = std::string(addr);
    e.name = std::string(name);
    std::vector<std::size_t> redacted;
    redacted_args(&def, args, redacted);
    const std::size_t argc = std::min(args.size(), kSlowlogMaxArgc);
    e.args.reserve(argc);
    for (std::size_t j = 0; j < argc; ++j) {
      if (argc != args.size() && j == argc - 1) {
        e.args.push_back("... (" + std::to_string(args.size() - argc + 1) + " more arguments)");
      } else if (std::find(redacted.begin(), redacted.end(), j) != redacted.end()) {
        e.args.emplace_back("(redacted)");
      } else if (args[j].size() > kSlowlogMaxString) {
        std::string s(args[j].substr(0, kSlowlogMaxString));
        s += "... (" + std::to_string(args[j].size() - kSlowlogMaxString) + " more bytes)";
        e.args.push_back(std::move(s));
      } else {
        e.args.emplace_back(args[j]);
      }
    }
    entries_.push_front(std::move(e));
  }
  trim(max_len);
}

void SlowLog::trim(std::uint64_t max_len) {
  while (entries_.size() > max_len) entries_.pop_back();
}

void redact_auth(std::span<const std::string_view> args, std::vector<std::size_t>& positions) {
  for (std::size_t j = 1; j < args.size(); ++j) positions.push_back(j);
}

void redact_hello(std::span<const std::string_view> args, std::vector<std::size_t>& positions) {
  for (std::size_t j = 2; j < args.size(); ++j) {
    if (iequals(args[j], "auth") && j + 2 < args.size()) {
      positions.push_back(j + 1);
      positions.push_back(j + 2);
      j += 2;
    } else if (iequals(args[j], "setname") && j + 1 < args.size()) {
      ++j;
    }
  }
}

void redact_migrate(std::span<const std::string_view> args, std::vector<std::size_t>& positions) {
  for (std::size_t j = 6; j < args.size(); ++j) {
    if (iequals(args[j], "auth") && j + 1 < args.size()) {
      positions.push_back(j + 1);
      ++j;
    } else if (iequals(args[j], "auth2") && j + 2 < args.size()) {
      positions.push_back(j + 1);
      positions.push_back(j + 2);
      j += 2;
    } else if (iequals(args[j], "keys")) {
      break;
    }
  }
}

void redact_config_set(std::span<const std::string_view> args,
                       std::vector<std::size_t>& positions) {
  if (args.size() < 4) return;
  // SENSITIVE_CONFIG values (requirepass, masterauth).
  for (std::size_t j = 2; j + 1 < args.size(); j += 2) {
    if (iequals(args[j], "requirepass") || iequals(args[j], "masterauth")) {
      positions.push_back(j + 1);
    }
  }
}

bool redacted_args(const CommandDef* def, std::span<const std::string_view> args,
                   std::vector<std::size_t>& positions) {
  if (def == nullptr || args.empty()) return false;
  // A container with its own handler (CONFIG): the subcommand that ran decides.
  if (!def->subcommands.empty() && args.size() >= 2) {
    if (const CommandDef* sub = CommandTable::find_sub(*def, args[1])) def = sub;
  }
  if (def->redact == nullptr) return false;
  def->redact(args, positions);
  return !positions.empty();
}

}  // namespace ruvio::worker
