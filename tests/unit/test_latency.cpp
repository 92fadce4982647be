// The HDR histogram behind latency-tracking, against values derived by hand from the HDR
// bucketing (and, where noted, seen from redis-server 7.0.15 for the same samples), and the
// latency monitor's texts (LATENCY GRAPH's sparkline, LATENCY DOCTOR's report).
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "worker/engine/hdr_histogram.hpp"
#include "worker/engine/latency_monitor.hpp"

using namespace ruvio::worker;

namespace {

std::vector<std::pair<std::int64_t, std::uint64_t>> cdf(const LatencyHistogram& h) {
  std::vector<std::pair<std::int64_t, std::uint64_t>> out;
  std::uint64_t previous = 0;
  h.for_each_log_step(1024, 2, [&](std::int64_t highest, std::uint64_t cumulative) {
    if (cumulative > previous) out.emplace_back(highest / 1000, cumulative);
    previous = cumulative;
  });
  return out;
}

}  // namespace

TEST_CASE("hdr: configuration from significant figures") {
  // 2 figures: 2 * 10^2 = 200 values at unit resolution -> 256 sub-buckets; 256 << 22 is the
  // first power past 1e9 reached from 256, so 23 buckets and (23 + 1) * 128 counts.
  CHECK(kLatencyHdr.sub_bucket_count() == 256);
  CHECK(kLatencyHdr.half_magnitude == 7);
  CHECK(kLatencyHdr.unit_magnitude == 0);
  CHECK(kLatencyHdr.bucket_count == 23);
  CHECK(LatencyHistogram::kCountsLen == 3072);
  // HdrHistogram's classic example: 1 .. 1 hour in µs at 3 figures.
  constexpr HdrConfig hour = hdr_config(1, 3'600'000'000, 3);
  CHECK(hour.sub_bucket_count() == 2048);
  CHECK(hour.bucket_count == 22);
  CHECK(hour.counts_len() == 23552);
  constexpr HdrConfig coarse = hdr_config(1000, 1'000'000, 1);  // unit 2^9, 32 sub-buckets
  CHECK(coarse.unit_magnitude == 9);
  CHECK(coarse.sub_bucket_count() == 32);
}

TEST_CASE("hdr: slot boundaries") {
  using H = LatencyHistogram;
  CHECK(H::index_of(0) == 0);
  CHECK(H::index_of(255) == 255);  // bucket 0 holds 0..255 one by one
  CHECK(H::index_of(256) == 256);  // bucket 1: 256..511 in steps of 2
  CHECK(H::index_of(257) == 256);
  CHECK(H::index_of(511) == 383);
  CHECK(H::index_of(512) == 384);  // bucket 2: steps of 4
  CHECK(H::value_at_index(383) == 510);
  CHECK(H::value_at_index(384) == 512);
  CHECK(H::value_at_index(127) == 127);
  CHECK(H::value_at_index(128) == 128);
  // Seen from redis-server: 4000 ns -> p0 4.000, p50 4.015; 9000 ns -> 8.960 / 9.023.
  CHECK(H::lowest_equivalent(4000) == 4000);
  CHECK(H::highest_equivalent(4000) == 4015);
  CHECK(H::lowest_equivalent(9000) == 8960);
  CHECK(H::highest_equivalent(9000) == 9023);
  // The top: 1e9 sits in bucket 22 (steps of 2^22), slot 3054 of 3072.
  CHECK(H::index_of(1'000'000'000) == 3054);
  CHECK(H::lowest_equivalent(1'000'000'000) == 998'244'352);
  CHECK(H::highest_equivalent(1'000'000'000) == 1'002'438'655);
  H h;
  CHECK(h.record(1'000'000'000));
  CHECK_FALSE(h.record(-1));
  CHECK_FALSE(h.record(std::int64_t{1} << 40));  // past the last bucket
  CHECK(h.total() == 1);
  h.record_in_range(1);  // the command path's sub-µs sample: slot 1
  CHECK(h.count_at_index(1) == 1);
  CHECK(h.total() == 2);
}

TEST_CASE("hdr: percentiles as Redis 7.0's hdr_value_at_percentile") {
  LatencyHistogram h;
  CHECK(h.value_at_percentile(50) == 0);  // empty
  for (std::int64_t v : {1000, 2000, 3000, 5000, 9000, 70000, 1000000}) h.record(v);
  CHECK(h.value_at_percentile(0) == 1000);      // the lowest equivalent of the first
  CHECK(h.value_at_percentile(0.1) == 1003);    // rank rounds to 0, at least 1: the first
  CHECK(h.value_at_percentile(50) == 5023);     // rank round(3.5 + 0.5) = 4: 5000's slot
  CHECK(h.value_at_percentile(42.8) == 3007);   // rank 3: 3000 in steps of 16, 2992..3007
  CHECK(h.value_at_percentile(99) == 1003519);  // 1e6 in steps of 4096: 999424..1003519
  CHECK(h.value_at_percentile(100) == 1003519);
  CHECK(h.value_at_percentile(150) == 1003519);
  LatencyHistogram two;  // GET twice on redis-server: 4 and 5 µs -> p0=4.000,p0.1=4.015
  two.record(4000);
  two.record(5000);
  CHECK(two.value_at_percentile(0) == 4000);
  CHECK(two.value_at_percentile(0.1) == 4015);
  CHECK(two.value_at_percentile(50) == 4015);
  CHECK(two.value_at_percentile(100) == 5023);
}

TEST_CASE("hdr: LATENCY HISTOGRAM buckets from the log walk") {
  LatencyHistogram h;
  for (std::int64_t v : {1000, 2000, 3000, 5000, 9000, 70000, 1000000}) h.record(v);
  // Levels 1024 << k; each reports its first slot's highest value: 1031 -> 1 µs, 2063 -> 2,
  // 4127 -> 4, 8255 -> 8, 16511 -> 16, 33023 -> 33, 66047 -> 66, 132095 -> 132, ...,
  // 1056767 -> 1056; a level is answered only where the cumulative count grew.
  using P = std::pair<std::int64_t, std::uint64_t>;
  CHECK(cdf(h) == std::vector<P>{{1, 1}, {2, 2}, {4, 3}, {8, 4}, {16, 5}, {132, 6}, {1056, 7}});
  // redis-server's DEBUG SLEEP buckets: 1048576, 2^21, 2^22 and 2^23 ns levels.
  LatencyHistogram sleeps;
  for (std::int64_t v : {131000, 600000, 1200000, 2050000, 2200000, 3600000, 5100000}) {
    sleeps.record(v);
  }
  CHECK(cdf(sleeps) == std::vector<P>{{132, 1}, {1056, 2}, {2113, 4}, {4227, 6}, {8454, 7}});
  // A sample inside a level's own slot (1024..1031) counts at that level.
  LatencyHistogram edge;
  edge.record(1031);
  edge.record(1032);
  CHECK(cdf(edge) == std::vector<P>{{1, 1}, {2, 2}});
  LatencyHistogram one;  // DEBUG SLEEP 0 takes ~1 µs or less: clamped to 1 ns by the caller
  one.record(1);
  CHECK(cdf(one) == std::vector<P>{{1, 1}});
}

TEST_CASE("latency graph: Redis's sparkline layout") {
  LatencyMonitor::Series s;
  s.event = "command";
  s.max = 12;
  s.samples = {{100, 1}, {101, 5}, {102, 10}};
  // steps = 3 * 4 rows; heights (v - 1) * 12 / 9: 0, 5 and 12 -> 11 (the top).
  const std::string dashes(80, '-');
  CHECK(latency_graph(s, 102) == "command - high 10 ms, low 1 ms (all time high 12 ms)\n" + dashes +
                                     "\n"
                                     "  #\n"
                                     "  |\n"
                                     " #|\n"
                                     "_||\n"
                                     "   \n"
                                     "210\n"
                                     "sss\n");
  // One sample: redis-server's own reply for a lone 5 ms spike.
  s.samples = {{100, 5}};
  s.max = 5;
  CHECK(latency_graph(s, 100) == "command - high 5 ms, low 5 ms (all time high 5 ms)\n" + dashes +
                                     "\n \n \n \n_\n \n0\ns\n");
  // Ages: seconds, minutes, hours, days.
  s.samples = {{0, 1}, {86400 - 7200, 1}, {86400 - 120, 1}};
  CHECK(latency_graph(s, 86400).ends_with("   \n122\ndhm\n"));
}

TEST_CASE("latency doctor: texts and advices") {
  LatencyMonitor m;
  LatencyReport r;
  r.now = 1000;
  CHECK(r.render(m).starts_with("I'm sorry, Dave, I can't do that."));
  r.threshold_ms = 1;
  r.slowlog_slower_than = 10000;
  CHECK(r.render(m).starts_with("Dave, no latency spike was observed"));
  r.huge_pages = true;  // no event, but the THP advice alone
  CHECK(r.render(m) ==
        "\nI have a few advices for you:\n\n- I detected a non zero amount of anonymous huge "
        "pages used by your process. This creates very serious latency events in different "
        "conditions, especially when Redis is persisting on disk. To disable THP support use the "
        "command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also "
        "add it into /etc/rc.local so that the command will be executed again after a reboot. "
        "Note that even if you have already disabled THP, you still need to restart the Redis "
        "process to get rid of the huge pages already created.\n");
  r.huge_pages = false;
  m.add("aof-fsync-always", 3);  // counts as an advice, printed only with appendfsync always
  const std::string report = r.render(m);
  CHECK(report.find("1. aof-fsync-always: 1 latency spikes (average 3ms, mean deviation 0ms, "
                    "period 1.00 sec). Worst all time event 3ms.\n") != std::string::npos);
  CHECK(report.ends_with("\nI have a few advices for you:\n\n"));
  r.fsync_always = true;
  CHECK(r.render(m).ends_with("relax the fsync policy to 'onesec'.\n"));
  CHECK(m.reset(std::vector<std::string_view>{"AOF-FSYNC-ALWAYS"}) == 1);  // without case
  m.add("something-else", 1);
  CHECK(
      r.render(m).ends_with("\nWhile there are latency events logged, I'm not able to suggest "
                            "any easy fix. Please use the Redis community to get some help, "
                            "providing this report in your help request.\n"));
}

TEST_CASE("hdr: adding slot counts is the histogram of all the samples") {
  // Two workers' samples, summed slot by slot, give the percentiles of one histogram that
  // recorded them all (what the proxy's INFO latencystats prints).
  LatencyHistogram a, b, both, merged;
  std::uint64_t seed = 42;
  for (int i = 0; i < 5000; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const auto v = static_cast<std::int64_t>(seed >> 34) % 50'000'000;  // up to 50 ms
    (i % 3 == 0 ? a : b).record(v);
    both.record(v);
  }
  for (const LatencyHistogram* h : {&a, &b}) {
    for (int i = 0; i < LatencyHistogram::kCountsLen; ++i) {
      if (h->count_at_index(i) != 0) CHECK(merged.add_at_index(i, h->count_at_index(i)));
    }
  }
  CHECK_FALSE(merged.add_at_index(-1, 1));
  CHECK_FALSE(merged.add_at_index(LatencyHistogram::kCountsLen, 1));
  CHECK(merged.total() == both.total());
  for (double p : {0.0, 0.5, 50.0, 99.0, 99.9, 100.0}) {
    CHECK(merged.value_at_percentile(p) == both.value_at_percentile(p));
  }
}

TEST_CASE("latency monitor: absorb merges series as one monitor") {
  using S = LatencyMonitor::Sample;
  LatencyMonitor m;
  const std::vector<S> w0 = {{100, 5}, {102, 7}, {104, 3}};
  const std::vector<S> w1 = {{101, 9}, {102, 4}, {105, 2}};
  m.absorb("command", 7, w0);
  m.absorb("command", 9, w1);
  m.absorb("fork", 0, {});
  REQUIRE(m.series().size() == 2);
  const LatencyMonitor::Series& s = m.series()[0];
  CHECK(s.event == "command");
  CHECK(s.max == 9);
  std::vector<std::pair<std::int64_t, std::uint32_t>> got;
  for (const S& x : s.samples) got.emplace_back(x.time, x.latency);
  CHECK(got == std::vector<std::pair<std::int64_t, std::uint32_t>>{
                   {100, 5}, {101, 9}, {102, 7}, {104, 3}, {105, 2}});
  CHECK(m.series()[1].event == "fork");
  // Redis's 160-sample cap keeps the newest.
  std::vector<S> many;
  for (int t = 0; t < 200; ++t) many.push_back(S{1000 + 2 * t, 1});
  LatencyMonitor capped;
  capped.absorb("x", 1, many);
  capped.absorb("x", 1, std::vector<S>{{1001, 2}});
  REQUIRE(capped.series()[0].samples.size() == LatencyMonitor::kSamples);
  CHECK(capped.series()[0].samples.front().time == 1000 + 2 * 40);
  CHECK(capped.series()[0].samples.back().time == 1000 + 2 * 199);
}
