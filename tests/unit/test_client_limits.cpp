// client-output-buffer-limit: the value's parsing and printing (CONFIG SET/GET, the config
// file) and the hard/soft rule of checkClientOutputBufferLimits. The closing itself is checked
// against redis-server in tests/integration/test_client_limits.py.
#include <doctest/doctest.h>

#include <string>

#include "shared/config.hpp"
#include "worker/server/client_limits.hpp"

using ruvio::ClientBufferLimit;
using ruvio::format_client_output_buffer_limit;
using ruvio::kClientClasses;
using ruvio::parse_client_output_buffer_limit;

TEST_CASE("client-output-buffer-limit: defaults, groups, errors leave the limits as they were") {
  ruvio::Config config;
  ClientBufferLimit* l = config.obuf_limits;
  CHECK(format_client_output_buffer_limit(l) ==
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  CHECK_FALSE(parse_client_output_buffer_limit("", l));
  CHECK_FALSE(parse_client_output_buffer_limit("  NORMAL 1mb 2k 3   replica 5 5 5 ", l));
  CHECK(format_client_output_buffer_limit(l) ==
        "normal 1048576 2000 3 slave 5 5 5 pubsub 33554432 8388608 60");
  const std::string before = format_client_output_buffer_limit(l);
  CHECK(*parse_client_output_buffer_limit("pubsub 1 2 3 normal 1 2", l) ==
        "Wrong number of arguments in buffer limit configuration.");
  CHECK(*parse_client_output_buffer_limit("pubsub 1 2 3 master 1 2 3", l) ==
        "Invalid client class specified in buffer limit configuration.");
  CHECK(*parse_client_output_buffer_limit("pubsub 1 2 3 normal 1 2 -1", l) ==
        "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
  CHECK(*parse_client_output_buffer_limit("pubsub 1 2 3 normal 1 2x 1", l) ==
        "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
  CHECK(format_client_output_buffer_limit(l) == before);  // all or nothing
}

TEST_CASE("output limit: hard at once, soft only after its seconds, the clock resets below") {
  using ruvio::worker::output_over_limit;
  const ClientBufferLimit limit{1000, 100, 2};
  std::int64_t since = 0;
  CHECK_FALSE(output_over_limit(limit, 99, 10'000, since));
  CHECK(since == 0);
  CHECK(output_over_limit(limit, 1000, 10'000, since));  // hard
  since = 0;
  CHECK_FALSE(output_over_limit(limit, 100, 10'000, since));  // soft: the clock starts
  CHECK(since == 10'000);
  CHECK_FALSE(output_over_limit(limit, 500, 12'000, since));  // 2 s: not more than 2
  CHECK(output_over_limit(limit, 500, 12'001, since));
  CHECK_FALSE(output_over_limit(limit, 50, 12'002, since));  // under: forgotten
  CHECK(since == 0);
  const ClientBufferLimit off{0, 0, 0};
  CHECK_FALSE(output_over_limit(off, std::size_t{1} << 40, 1, since));
}
