#include "worker/server/orphan_watchdog.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace ruvio::worker {

void start_orphan_watchdog(int grace_seconds) {
  const pid_t parent = ::getppid();
  std::thread([parent, grace_seconds] {
    while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::seconds(1));
    std::this_thread::sleep_for(std::chrono::seconds(grace_seconds));
    spdlog::warn("supervisor gone and the worker did not stop within {} s: exiting", grace_seconds);
    ::_exit(1);
  }).detach();
}

}  // namespace ruvio::worker
