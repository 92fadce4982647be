// What the kernel says about one process: memory from /proc/<pid>/status and
// /proc/<pid>/smaps_rollup, CPU time from /proc/<pid>/stat. The supervisor reads it once a
// second per worker; a worker reads its snapshot child's (the copy-on-write size INFO
// persistence reports). Each read is a few small files, no allocation beyond one buffer.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace ruvio {

struct ProcStats {
  std::uint64_t rss_bytes = 0;            // status VmRSS
  std::uint64_t rss_anon_bytes = 0;       // status RssAnon
  std::uint64_t pss_bytes = 0;            // smaps_rollup Pss
  std::uint64_t private_dirty_bytes = 0;  // smaps_rollup Private_Dirty
  std::uint64_t cpu_ticks = 0;            // stat utime + stime, in clock ticks
};

// nullopt when the process is gone (or /proc is not readable).
std::optional<ProcStats> read_proc_stats(pid_t pid);

// The value of `key` ("VmRSS") in /proc's "Key:   1234 kB" layout, in bytes; nullopt when
// the key is absent. Exposed for the unit test.
std::optional<std::uint64_t> proc_kb_field(std::string_view text, std::string_view key);

// utime + stime (fields 14 and 15) of a /proc/<pid>/stat line; the command name in
// parentheses may itself hold spaces and parentheses, so fields count from the last ')'.
std::optional<std::uint64_t> stat_cpu_ticks(std::string_view stat_line);

}  // namespace ruvio
