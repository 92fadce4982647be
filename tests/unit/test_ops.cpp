// Operations (issue 5): /proc parsing, the in-process allocation sampler's estimate, the
// exact Prometheus text and JSON of the admin port, and the new control messages.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "shared/control.hpp"
#include "shared/proc_stats.hpp"
#include "supervisor/admin_http.hpp"
#include "supervisor/metrics.hpp"
#include "worker/memory/alloc_sampler.hpp"

using namespace ruvio;
using namespace ruvio::supervisor;

TEST_CASE("ops: /proc status and smaps_rollup fields in bytes") {
  const std::string status =
      "Name:\truvio-worker\nVmPeak:\t  300000 kB\nVmRSS:\t   18000 kB\nRssAnon:\t   12000 kB\n";
  CHECK(proc_kb_field(status, "VmRSS") == 18000ULL * 1024);
  CHECK(proc_kb_field(status, "RssAnon") == 12000ULL * 1024);
  CHECK_FALSE(proc_kb_field(status, "VmSwap").has_value());
  CHECK_FALSE(proc_kb_field(status, "VmRS").has_value());  // a prefix is not the key
  const std::string rollup =
      "55d0-7ffd ---p 00000000 00:00 0  [rollup]\nRss:  17000 kB\nPss:  14000 kB\n"
      "Pss_Anon:  11000 kB\nPrivate_Dirty:  13000 kB\n";
  CHECK(proc_kb_field(rollup, "Pss") == 14000ULL * 1024);
  CHECK(proc_kb_field(rollup, "Private_Dirty") == 13000ULL * 1024);
}

TEST_CASE("ops: CPU ticks from /proc/<pid>/stat, command names with spaces and parens") {
  const std::string stat =
      "1234 (ruvio (w) 1) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0";
  CHECK(stat_cpu_ticks(stat) == 300u);
  CHECK_FALSE(stat_cpu_ticks("garbage").has_value());
}

TEST_CASE("ops: the allocation sampler's weights estimate live bytes") {
  store::AllocSampler sampler;
  sampler.configure(64 * 1024);
  std::vector<char> arena(4u << 20);  // fake, distinct addresses; never dereferenced
  std::uint64_t total = 0;
  for (std::size_t off = 0; off + 48 <= arena.size(); off += 48) {
    sampler.on_alloc(arena.data() + off, 48);
    total += 48;
  }
  const double estimate = static_cast<double>(sampler.live_bytes());
  CHECK(estimate > 0.7 * static_cast<double>(total));
  CHECK(estimate < 1.3 * static_cast<double>(total));
  for (std::size_t off = 0; off + 48 <= arena.size(); off += 48) {
    sampler.on_free(arena.data() + off, 48);
  }
  CHECK(sampler.live_bytes() == 0);
  CHECK(sampler.live_count() == 0);

  store::AllocSampler off;
  off.configure(0);
  for (int i = 0; i < 1000; ++i) off.on_alloc(arena.data() + i, 1 << 20);
  CHECK(off.live_count() == 0);
}

TEST_CASE("ops: Prometheus text has HELP/TYPE once and a worker label per sample") {
  WorkerView w;
  w.id = 0;
  w.pid = 42;
  w.cpu = 3;
  w.port = 6380;
  w.up = true;
  w.restarts = 2;
  w.proc.rss_bytes = 1000;
  w.proc.pss_bytes = 900;
  w.report.keys = {5, 0, 7};
  w.report.used_memory = 321;
  w.report.commands_processed = 99;
  w.report.connected_clients = 4;
  WorkerView down;
  down.id = 1;
  const std::string text = prometheus_text({w, down}, nullptr);
  CHECK(text.find("# HELP ruvio_worker_up ") != std::string::npos);
  CHECK(text.find("# TYPE ruvio_worker_up gauge\nruvio_worker_up{worker=\"0\"} 1\n"
                  "ruvio_worker_up{worker=\"1\"} 0\n") != std::string::npos);
  CHECK(text.find("ruvio_worker_keys{worker=\"0\"} 12\n") != std::string::npos);
  CHECK(text.find("ruvio_worker_db_keys{worker=\"0\",db=\"db2\"} 7\n") != std::string::npos);
  CHECK(text.find("db=\"db1\"") == std::string::npos);
  CHECK(text.find("ruvio_worker_restarts_total{worker=\"0\"} 2\n") != std::string::npos);
  CHECK(text.find("ruvio_worker_commands_total{worker=\"0\"} 99\n") != std::string::npos);
  CHECK(text.find("ruvio_worker_info{worker=\"0\",pid=\"42\",cpu=\"3\",port=\"6380\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("ruvio_alloc") == std::string::npos);

  AllocReport alloc;
  alloc.state = "on";
  AllocWorker aw;
  aw.by_size_class.push_back({48, 4096, 2});
  alloc.workers.push_back(aw);
  const std::string with_alloc = prometheus_text({w}, &alloc);
  CHECK(with_alloc.find("ruvio_alloc_tracing{} 1\n") != std::string::npos);
  CHECK(with_alloc.find("ruvio_alloc_live_bytes{worker=\"0\",size_class=\"48\"} 4096\n") !=
        std::string::npos);
}

TEST_CASE("ops: /workers JSON carries the contract's fields") {
  WorkerView w;
  w.id = 1;
  w.pid = 7;
  w.up = true;
  w.report.keys = {3};
  const std::string json = workers_json({w});
  for (const char* field :
       {"\"id\": 1", "\"pid\": 7", "\"cpu\": 0", "\"port\": 0", "\"up\": true", "\"rss_bytes\": 0",
        "\"pss_bytes\": 0", "\"keys\": 3", "\"used_memory_bytes\": 0", "\"restarts\": 0"}) {
    CHECK_MESSAGE(json.find(field) != std::string::npos, field);
  }
  CHECK(json.front() == '[');
  CHECK(json.substr(json.size() - 2) == "]\n");
}

TEST_CASE("ops: query parameters") {
  CHECK(AdminHttp::query_param("worker=1&seconds=5", "seconds") == "5");
  CHECK(AdminHttp::query_param("worker=1&seconds=5", "worker") == "1");
  CHECK(AdminHttp::query_param("worker=1", "seconds").empty());
  CHECK(AdminHttp::query_param("", "worker").empty());
}

TEST_CASE("ops: the new control messages round-trip") {
  control::StatsReport r;
  r.seq = 9;
  r.keys = {1, 2};
  r.used_memory = 77;
  r.sampled_live_bytes = 5;
  std::string wire;
  control::encode(r, wire);
  control::WorkerFigures f;
  f.workers.push_back({3, 44, true, 1, 2, 3, 4, 5, 6});
  control::encode(f, wire);
  control::encode(control::ConfigUpdate{"debug", 100, "allkeys-lru", "pw"}, wire);
  control::encode(control::AllocTraceAttached{}, wire);
  std::size_t used = 0;
  bool bad = false;
  auto m1 = control::decode(wire, used, bad);
  REQUIRE(m1);
  CHECK(std::get<control::StatsReport>(*m1).keys == std::vector<std::uint64_t>{1, 2});
  CHECK(std::get<control::StatsReport>(*m1).sampled_live_bytes == 5);
  std::string_view rest(wire);
  rest.remove_prefix(used);
  auto m2 = control::decode(rest, used, bad);
  REQUIRE(m2);
  CHECK(std::get<control::WorkerFigures>(*m2).workers.at(0).pss == 4);
  rest.remove_prefix(used);
  auto m3 = control::decode(rest, used, bad);
  REQUIRE(m3);
  CHECK(std::get<control::ConfigUpdate>(*m3).maxmemory_policy == "allkeys-lru");
  rest.remove_prefix(used);
  auto m4 = control::decode(rest, used, bad);
  REQUIRE(m4);
  CHECK(std::holds_alternative<control::AllocTraceAttached>(*m4));
}
