// TickClock (shared/tick_clock.hpp): command durations in µs, from the TSC once calibrated
// (where the kernel's clocksource is the TSC) and from CLOCK_MONOTONIC before that.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "shared/tick_clock.hpp"

using ruvio::TickClock;

namespace {

// µs the clock measures across a sleep of `ms` milliseconds.
std::int64_t measured_sleep(const TickClock& clock, int ms) {
  const std::uint64_t start = clock.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return clock.micros(start, clock.now());
}

}  // namespace

TEST_CASE("TickClock: before calibration, CLOCK_MONOTONIC nanoseconds") {
  TickClock clock;
  CHECK_FALSE(clock.uses_tsc());
  CHECK(clock.micros(1000, 1999) == 0);
  CHECK(clock.micros(1000, 2000) == 1);
  CHECK(clock.micros(0, 3'000'000'999) == 3'000'000);
  // A later point first (or the same one): no duration, never a negative one.
  CHECK(clock.micros(5000, 1000) == 0);
  CHECK(clock.micros(7, 7) == 0);
  const std::int64_t us = measured_sleep(clock, 20);
  CHECK(us >= 20'000);
  CHECK(us < 2'000'000);
}

TEST_CASE("TickClock: calibration waits for a 50 ms baseline, then durations keep their size") {
  TickClock clock;
  clock.calibrate();  // no baseline yet: still the ns clock
  CHECK_FALSE(clock.uses_tsc());
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  clock.calibrate();
#if defined(__x86_64__) || defined(__i386__)
  // Only where the kernel itself reads time from the TSC; elsewhere the ns clock stays.
  std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  f >> source;
  CHECK(clock.uses_tsc() == (source == "tsc"));
#endif
  const std::int64_t us = measured_sleep(clock, 20);
  CHECK(us >= 19'000);  // a 60 ms baseline: well within 5% of the ns clock
  CHECK(us < 2'000'000);
  CHECK(clock.micros(clock.now(), clock.now() - 1) == 0);
}
