// Redis 7.0's parameters that do not apply to Ruvio, with Redis's default values.
#pragma once

#include <span>
#include <string_view>

namespace ruvio::worker {

struct ConfigDefault {
  std::string_view name;
  std::string_view value;
};

// Sorted by name; CONFIG GET consults it only for names that are not real parameters.
std::span<const ConfigDefault> redis_config_defaults();

}  // namespace ruvio::worker
