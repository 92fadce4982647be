// Per-worker figures the supervisor holds, and their two renderings for the admin port:
// Prometheus text (`GET /metrics`, names as INTERFACE.md, label `worker`) and JSON
// (`GET /workers`, via cereal). Pure functions of the figures, so the unit test can pin
// the exact text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shared/control.hpp"
#include "shared/proc_stats.hpp"
#include "supervisor/bpf/alloc_report.hpp"

namespace ruvio::supervisor {

struct WorkerView {
  int id = 0;
  int pid = 0;   // 0 while down
  int cpu = 0;   // pinned core
  int port = 0;  // direct (cluster-mode) port, 0 = none
  bool up = false;
  int restarts = 0;
  double uptime_seconds = 0;
  ProcStats proc;
  double cpu_percent = 0;    // of one core, over the last sampling second
  double cpu_seconds = 0;    // utime + stime of the current incarnation
  bool have_report = false;  // a StatsReport arrived from this incarnation
  control::StatsReport report;
};

std::uint64_t total_keys(const control::StatsReport& r);

// `alloc` may be null (tracing off): the ruvio_alloc_* series are then left out.
std::string prometheus_text(const std::vector<WorkerView>& workers, const AllocReport* alloc);
std::string workers_json(const std::vector<WorkerView>& workers);
std::string alloc_json(const AllocReport& report);

}  // namespace ruvio::supervisor
