// `ruvio`: parse the flags, set up logging, hand over to the supervisor loop.
#include <cstdio>

#include "shared/config.hpp"
#include "shared/log.hpp"
#include "supervisor/ops.hpp"
#include "supervisor/supervisor.hpp"

int main(int argc, char** argv) {
  ruvio::Config config;
  if (const auto error = ruvio::parse_config(argc, argv, config)) {
    if (error->exit_code == 0) {  // --help / --version
      std::fputs(error->message.c_str(), stdout);
      return 0;
    }
    std::fprintf(stderr, "%s\n", error->message.c_str());
    return error->exit_code;
  }
  ruvio::setup_logging(config.log_level, "supervisor");
  ruvio::supervisor::set_command_line(argc, argv);  // SIGHUP re-reads the config with these
  return ruvio::supervisor::run(config);
}
