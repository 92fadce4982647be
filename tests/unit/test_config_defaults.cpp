// The table of Redis parameters that do not apply (CONFIG GET answers their Redis default)
// must never shadow a real option: when another change makes a name a real option, this
// fails until the name leaves the table.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "shared/config.hpp"
#include "worker/commands/server/config_defaults.hpp"

using namespace ruvio;

TEST_CASE("config defaults: no name is both a real option and a Redis default") {
  const auto names = option_names();
  const std::set<std::string> options(names.begin(), names.end());
  for (const auto& d : worker::redis_config_defaults()) {
    INFO("parameter ", std::string(d.name));
    CHECK(options.count(std::string(d.name)) == 0);
  }
}

TEST_CASE("config defaults: each name once, lower case") {
  std::set<std::string> seen;
  for (const auto& d : worker::redis_config_defaults()) {
    INFO("parameter ", std::string(d.name));
    CHECK(seen.insert(std::string(d.name)).second);
    for (char c : d.name) CHECK(!(c >= 'A' && c <= 'Z'));
  }
}
