// Logging set-up shared by the supervisor and the workers: spdlog to stderr, one line per
// event, every line naming the process ("supervisor", "worker 3") and its pid, so the
// interleaved output of N workers in one journal stays readable.
#pragma once

#include <spdlog/common.h>

#include <optional>
#include <string>
#include <string_view>

namespace ruvio {

// "trace", "debug", "info", "warn"/"warning", "error"/"err", "critical", "off"
// (case-insensitive); nullopt for anything else. Config validation uses the same function,
// so a level that passed parse_config is always accepted here.
std::optional<spdlog::level::level_enum> parse_log_level(std::string_view name);

// Installs the default logger. Colour only when stderr is a terminal. Returns false (and
// leaves level "info") on an unknown level; never throws.
bool setup_logging(const std::string& level, std::string_view component);

}  // namespace ruvio
