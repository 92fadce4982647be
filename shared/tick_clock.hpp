// Durations of commands (INFO commandstats usec, the slow log, the latency monitor) from the
// CPU's time-stamp counter instead of clock_gettime, as Redis does when it is built with its
// processor clock (monotonic.c, "X86 TSC").
//
// Why: every command reads the clock twice around its handler (Redis's call() does too).
// On this project's VMs a vDSO clock_gettime(CLOCK_MONOTONIC) costs ~70-90 ns (an ordered TSC
// read, the vDSO page's seqlock, a multiply), a bare rdtsc ~30 ns: perf measured the vDSO at
// 9-12% of a worker's CPU on PING/GET, the largest single cost left on the shared path after
// the kernel's socket work (bench/README.md, "syscalls"). callgrind cannot see it: valgrind
// hides the vDSO, so there clock_gettime is a system call and counts zero instructions.
//
// The counter is used only where the kernel itself trusts it (its clocksource is "tsc":
// invariant and synchronised across CPUs); otherwise, and on other CPUs, the ticks are
// CLOCK_MONOTONIC nanoseconds. Ticks become µs through a multiplier the loop's housekeeping
// measures against CLOCK_MONOTONIC (calibrate(), from a baseline that grows with the
// worker's uptime); until the first calibration the ns clock is used. Only differences of
// two now() values taken in one command are ever converted, and the worker's single thread
// never calibrates between the two, so a duration uses one multiplier.
#pragma once

#include <time.h>

#include <cstdint>
#include <fstream>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RUVIO_HAVE_TSC 1
#endif

namespace ruvio {

class TickClock {
  __extension__ using U128 = unsigned __int128;  // GCC/Clang's; -Wpedantic wants it marked

 public:
  TickClock() {
#ifdef RUVIO_HAVE_TSC
    std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    std::string source;
    trusted_ = static_cast<bool>(f >> source) && source == "tsc";
    if (trusted_) {
      ns0_ = mono_ns();
      tsc0_ = __rdtsc();
    }
#endif
  }

  // An opaque point in time: TSC ticks, or CLOCK_MONOTONIC ns.
  std::uint64_t now() const {
#ifdef RUVIO_HAVE_TSC
    if (tsc_) [[likely]]
      return __rdtsc();
#endif
    return mono_ns();
  }

  // Whole µs from `from` to `to` (two now() values; 0 when `to` is not later).
  std::int64_t micros(std::uint64_t from, std::uint64_t to) const {
    if (to <= from) return 0;
    const std::uint64_t d = to - from;
    if (!tsc_) return static_cast<std::int64_t>(d / 1000);
    return static_cast<std::int64_t>((static_cast<U128>(d) * mult_) >> 32);
  }

  // Called by the loop's housekeeping (10 times a second): the multiplier from the TSC and
  // CLOCK_MONOTONIC advances since the clock was made, once they span kMinBaselineNs.
  void calibrate() {
#ifdef RUVIO_HAVE_TSC
    if (!trusted_) return;
    const std::uint64_t ns = mono_ns() - ns0_;
    const std::uint64_t ticks = __rdtsc() - tsc0_;
    if (ns < kMinBaselineNs || ticks == 0) return;
    // µs per tick × 2^32 = (ns << 32) / (1000 × ticks).
    const auto mult = static_cast<std::uint64_t>((static_cast<U128>(ns) << 32) /
                                                 (static_cast<U128>(ticks) * 1000));
    if (mult == 0) return;
    mult_ = mult;
    tsc_ = true;
#endif
  }

  bool uses_tsc() const {
    return tsc_;
  }

 private:
  static constexpr std::uint64_t kMinBaselineNs = 50'000'000;

  static std::uint64_t mono_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
  }

  bool trusted_ = false;  // the kernel's clocksource is the TSC
  bool tsc_ = false;      // now() reads the TSC (trusted and calibrated)
  std::uint64_t mult_ = 0;
  std::uint64_t tsc0_ = 0;
  std::uint64_t ns0_ = 0;
};

}  // namespace ruvio
