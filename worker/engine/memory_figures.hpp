// The memory figures INFO memory and MEMORY STATS / DOCTOR report, measured once per call:
// what the keyspace accounting holds, what mimalloc has committed for it, what is resident,
// and Redis's ratios between them (object.c's getMemoryOverheadData).
#pragma once

#include <cstdint>

namespace ruvio::worker {

class Shard;

struct MemoryFigures {
  std::uint64_t used = 0;            // used_memory: the accounting plus the base and client buffers
  std::uint64_t startup = 0;         // used_memory_startup
  std::uint64_t peak = 0;            // used_memory_peak (raised to `used` by this measure)
  std::uint64_t rss = 0;             // the process's resident set
  std::uint64_t active = 0;          // allocator_active: mimalloc's committed bytes
  std::uint64_t resident = 0;        // allocator_resident: of those, at most the RSS
  std::uint64_t clients = 0;         // clients.normal: the connections' buffers
  std::uint64_t overhead = 0;        // used_memory_overhead (startup, clients, tables)
  std::uint64_t main_tables = 0;     // every db's main table arrays
  std::uint64_t expires_tables = 0;  // every db's expires table arrays
};

// Measures now; raises the shard's recorded peak (Stats::peak_memory) to `used`.
MemoryFigures measure_memory(Shard& shard);

// Redis's ratio and difference of two figures (0 when the divisor is 0; may be negative).
double memory_ratio(std::uint64_t a, std::uint64_t b);
std::int64_t memory_difference(std::uint64_t a, std::uint64_t b);

}  // namespace ruvio::worker
