// Operations hub of the supervisor (DESIGN.md §5): once a second it samples every worker
// (/proc figures, a StatsRequest over control) and pushes every worker's memory figures
// back for INFO; it serves the admin HTTP port (/metrics, /workers, /alloc), runs the eBPF
// allocation tracer, pings the systemd watchdog while every worker's heartbeat is fresh,
// and reloads the config file on SIGHUP. The supervisor loop calls the on_* hooks; Ops
// never reaches into the supervisor's worker table except through Hooks.
#pragma once

#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shared/config.hpp"
#include "shared/control.hpp"
#include "supervisor/admin_http.hpp"
#include "supervisor/bpf/alloc_tracer.hpp"
#include "supervisor/metrics.hpp"

namespace ruvio::supervisor {

// The command line `ruvio` was started with, kept so SIGHUP can re-read the config file
// with the same flags on top (flags still win). Called by main() before run().
void set_command_line(int argc, char** argv);

class Ops {
 public:
  struct Hooks {
    // Identity and state of every worker, by id: id, pid (0 = down), cpu, port, up,
    // restarts, uptime_seconds. Ops fills in the rest.
    std::function<std::vector<WorkerView>()> workers;
    std::function<void(int id, const control::Message&)> send;
    std::function<std::string()> summary;  // "2 workers on 127.0.0.1:6379, ..."
  };

  // `config` is the supervisor's: a reload changes its reloadable fields in place, so a
  // worker started later gets them too.
  Ops(uv_loop_t* loop, Config& config, std::string worker_bin, Hooks hooks);
  ~Ops();

  // Binds the admin port (when configured), loads the tracer, starts the timers.
  // Returns "" or a one-line error (the admin port is in use).
  std::string start();

  void on_worker_started(int id, pid_t pid);
  void on_worker_exited(int id);
  // True when the message was an operations message (and was handled).
  bool on_message(int id, const control::Message& msg);
  void reload();  // SIGHUP

 private:
  struct Slot {
    pid_t pid = 0;
    std::uint64_t started_ns = 0;
    std::uint64_t prev_ticks = 0;
    std::uint64_t prev_ns = 0;
    ProcStats proc;
    double cpu_percent = 0;
    bool have_report = false;
    control::StatsReport report;
    std::uint64_t last_heartbeat_ns = 0;
  };

  void tick();
  void watchdog();
  std::vector<WorkerView> views();
  AllocReport alloc_report(int only_worker);
  void handle(const HttpRequest& req, HttpReply reply);
  void handle_alloc(const HttpRequest& req, HttpReply reply);

  uv_loop_t* loop_;
  Config& config_;
  std::string worker_bin_;
  Hooks hooks_;
  std::vector<Slot> slots_;
  std::unique_ptr<AdminHttp> admin_;
  AllocTracer tracer_;
  uv_timer_t tick_timer_{};
  uv_timer_t watchdog_timer_{};
  uv_timer_t full_timer_{};
  std::uint64_t watchdog_usec_ = 0;
  std::uint64_t seq_ = 0;
  long ticks_per_second_ = 100;
  // The on-demand full trace in progress: who asked and for which worker.
  HttpReply full_reply_;
  int full_worker_ = -1;
  double full_seconds_ = 0;
};

}  // namespace ruvio::supervisor
