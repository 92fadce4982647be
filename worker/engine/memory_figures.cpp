#include "worker/engine/memory_figures.hpp"

#include <mimalloc.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "worker/engine/shard.hpp"

namespace ruvio::worker {
namespace {

std::uint64_t rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages_total = 0;
  std::uint64_t pages_rss = 0;
  if (!(statm >> pages_total >> pages_rss)) return 0;
  return pages_rss * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

MemoryFigures measure_memory(Shard& shard) {
  MemoryFigures m;
  m.used = shard.counted_memory();
  m.startup = Shard::kBaseMemory;
  std::uint64_t& peak = shard.stats().peak_memory;
  peak = std::max(peak, m.used);
  m.peak = peak;
  m.rss = rss_bytes();
  std::size_t elapsed = 0, user = 0, sys = 0, mi_rss = 0, mi_peak_rss = 0, commit = 0,
              peak_commit = 0, faults = 0;
  mi_process_info(&elapsed, &user, &sys, &mi_rss, &mi_peak_rss, &commit, &peak_commit, &faults);
  m.active = std::max<std::uint64_t>(commit, m.used);
  m.resident = std::min(m.active, m.rss);
  m.clients = shard.client_buffer_bytes;
  for (int i = 0; i < shard.databases(); ++i) {
    m.main_tables += shard.db(i).main_table_bytes();
    m.expires_tables += shard.db(i).expires_table_bytes();
  }
  m.overhead = std::min(m.used, m.startup + m.clients + m.main_tables + m.expires_tables);
  return m;
}

double memory_ratio(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

std::int64_t memory_difference(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::int64_t>(a) - static_cast<std::int64_t>(b);
}

}  // namespace ruvio::worker
