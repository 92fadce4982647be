#include "shared/log.hpp"

#include <spdlog/sinks/ansicolor_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>

namespace ruvio {

std::optional<spdlog::level::level_enum> parse_log_level(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  using spdlog::level::level_enum;
  if (lower == "trace") return level_enum::trace;
  if (lower == "debug") return level_enum::debug;
  if (lower == "info") return level_enum::info;
  if (lower == "warn" || lower == "warning") return level_enum::warn;
  if (lower == "error" || lower == "err") return level_enum::err;
  if (lower == "critical") return level_enum::critical;
  if (lower == "off") return level_enum::off;
  return std::nullopt;
}

bool setup_logging(const std::string& level, std::string_view component) {
  try {
    spdlog::sink_ptr sink;
    if (isatty(STDERR_FILENO) == 1) {
      sink = std::make_shared<spdlog::sinks::ansicolor_stderr_sink_mt>();
    } else {
      // The plain sink writes no escape codes: journald and log files stay clean.
      sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    }
    auto logger = std::make_shared<spdlog::logger>(std::string(component), std::move(sink));
    // "2024-05-01 12:00:00.123 [worker 3] [pid 4242] info: ..." — the component in the
    // logger name, so every line of every process carries it.
    logger->set_pattern("%Y-%m-%d %H:%M:%S.%e [%n] [pid %P] %^%l%$: %v");
    logger->flush_on(spdlog::level::trace);
    const auto parsed = parse_log_level(level);
    logger->set_level(parsed.value_or(spdlog::level::info));
    spdlog::set_default_logger(std::move(logger));
    return parsed.has_value();
  } catch (...) {
    // Logging must never take the process down; spdlog's own default logger stays.
    return false;
  }
}

}  // namespace ruvio
