// The supervisor's half of the eBPF allocation tracer: loads the BPF program
// (alloc_trace.bpf.c, through its bpftool skeleton), attaches the sampled-mode USDT probes
// to every worker by PID (again after a restart), runs the on-demand full mode on one
// worker, and turns the maps into AllocWorker reports with symbolized stacks.
//
// When the kernel refuses (no privilege, no BTF, lockdown) load() returns false and
// reason() holds the kernel's words; everything else in the supervisor runs on without it.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "supervisor/bpf/alloc_report.hpp"

struct alloc_trace;
struct bpf_link;

namespace ruvio::supervisor {

class AllocTracer {
 public:
  AllocTracer();
  ~AllocTracer();
  AllocTracer(const AllocTracer&) = delete;
  AllocTracer& operator=(const AllocTracer&) = delete;

  bool load();
  bool on() const { return skel_ != nullptr; }
  const std::string& reason() const { return reason_; }
  void set_off(std::string reason) { reason_ = std::move(reason); }

  // Sampled mode. Returns "" or why the probes could not be attached.
  std::string attach_worker(int id, pid_t pid, const std::string& worker_bin);
  // Drops the probes and the map entries of a worker that exited.
  void detach_worker(int id);
  AllocWorker sampled(int id, pid_t pid, std::size_t top_stacks);

  // Full mode on one worker. start: "" or the error; finish reads, detaches and clears.
  bool full_running() const { return full_pid_ != 0; }
  std::string full_start(pid_t pid);
  AllocWorker full_finish(int id, std::size_t top_stacks);

 private:
  struct Attached {
    pid_t pid = 0;
    std::vector<bpf_link*> links;
  };
  std::vector<std::string> stack_frames(int stack_id, pid_t pid);
  void forget_pid(pid_t pid);

  alloc_trace* skel_ = nullptr;
  std::string reason_ = "not loaded";
  std::map<int, Attached> attached_;
  pid_t full_pid_ = 0;
  std::vector<bpf_link*> full_links_;
  std::thread detacher_;  // destroys the last full trace's links off the loop
  std::shared_ptr<std::atomic<bool>> detaching_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace ruvio::supervisor
