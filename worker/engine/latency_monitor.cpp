#include "worker/engine/latency_monitor.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "worker/engine/common.hpp"

namespace ruvio::worker {

LatencyMonitor::Series& LatencyMonitor::series_of(std::string_view event) {
  for (Series& x : series_) {
    if (x.event == event) return x;
  }
  series_.push_back(Series{std::string(event), {}, 0});
  return series_.back();
}

void LatencyMonitor::add(std::string_view event, std::uint32_t ms) {
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  Series* s = &series_of(event);
  s->max = std::max(s->max, ms);
  if (!s->samples.empty() && s->samples.back().time == now) {
    s->samples.back().latency = std::max(s->samples.back().latency, ms);
    return;
  }
  s->samples.push_back(Sample{now, ms});
  if (s->samples.size() > kSamples) s->samples.pop_front();
}

void LatencyMonitor::absorb(std::string_view event, std::uint32_t max,
                            std::span<const Sample> samples) {
  Series* s = &series_of(event);
  s->max = std::max(s->max, max);
  std::deque<Sample> merged;
  auto a = s->samples.begin();
  auto b = samples.begin();
  while (a != s->samples.end() || b != samples.end()) {
    Sample next;
    if (b == samples.end() || (a != s->samples.end() && a->time < b->time)) {
      next = *a++;
    } else if (a == s->samples.end() || b->time < a->time) {
      next = *b++;
    } else {  // the same second on both: the larger, as add() keeps
      next = Sample{a->time, std::max(a->latency, b->latency)};
      ++a;
      ++b;
    }
    merged.push_back(next);
    if (merged.size() > kSamples) merged.pop_front();
  }
  s->samples = std::move(merged);
}

std::size_t LatencyMonitor::reset(std::span<const std::string_view> events) {
  if (events.empty()) {
    const std::size_t n = series_.size();
    series_.clear();
    return n;
  }
  std::size_t n = 0;
  for (std::string_view ev : events) {
    const auto gone = std::remove_if(series_.begin(), series_.end(),
                                     [&](const Series& s) { return iequals(s.event, ev); });
    n += static_cast<std::size_t>(series_.end() - gone);
    series_.erase(gone, series_.end());
  }
  return n;
}

const LatencyMonitor::Series* LatencyMonitor::find(std::string_view event) const {
  for (const Series& s : series_) {
    if (s.event == event) return &s;
  }
  return nullptr;
}

namespace {

// The advices in the order the report prints them (createLatencyReport's texts).
enum Advice {
  kBetterVm,
  kSlowlogEnabled,
  kSlowlogTuning,
  kSlowlogInspect,
  kScheduler,
  kLocalDisk,
  kSsd,
  kDataWriteback,
  kDiskContention,
  kNoAppendfsync,
  kRelaxFsync,
  kWriteLoadInfo,
  kHz,
  kLargeObjects,
  kMassEviction,
  kDisableThp,
  kAdvices
};

constexpr const char* kAdviceText[kAdvices] = {
    // better_vm
    "- If you are using a virtual machine, consider upgrading it with a faster one using a "
    "hypervisior that provides less latency during fork() calls. Xen is known to have poor fork() "
    "performance. Even in the context of the same VM provider, certain kinds of instances can "
    "execute fork faster than others.\n",
    // slowlog_enabled
    "- There are latency issues with potentially slow commands you are using. Try to enable the "
    "Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %llu'. If the "
    "Slow log is disabled Redis is not able to log slow commands execution for you.\n",
    // slowlog_tuning
    "- Your current Slow Log configuration only logs events that are slower than your configured "
    "latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %llu'.\n",
    // slowlog_inspect
    "- Check your Slow Log to understand what are the commands you are running which are too slow "
    "to execute. Please check https://redis.io/commands/slowlog for more information.\n",
    // scheduler
    "- The system is slow to execute Redis code paths not containing system calls. This usually "
    "means the system does not provide Redis CPU time to run for long periods. You should try to:\n"
    "  1) Lower the system load.\n"
    "  2) Use a computer / VM just for Redis if you are running other software in the same "
    "system.\n"
    "  3) Check if you have a \"noisy neighbour\" problem.\n"
    "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your "
    "system.\n"
    "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you "
    "are using Jemalloc. However this may create fragmentation problems.\n",
    // local_disk
    "- It is strongly advised to use local disks for persistence, especially if you are using AOF. "
    "Remote disks provided by platform-as-a-service providers are known to be slow.\n",
    // ssd
    "- SSD disks are able to reduce fsync latency, and total time needed for snapshotting and AOF "
    "log rewriting (resulting in smaller memory usage). With extremely high write load SSD disks "
    "can be a good option. However Redis should perform reasonably with high load using normal "
    "disks. Use this advice as a last resort.\n",
    // data_writeback
    "- Mounting ext3/4 filesystems with data=writeback can provide a performance boost compared to "
    "data=ordered, however this mode of operation provides less guarantees, and sometimes it can "
    "happen that after a hard crash the AOF file will have a half-written command at the end and "
    "will require to be repaired before Redis restarts.\n",
    // disk_contention
    "- Try to lower the disk contention. This is often caused by other disk intensive processes "
    "running in the same computer (including other Redis instances).\n",
    // no_appendfsync
    "- Assuming from the point of view of data safety this is viable in your environment, you "
    "could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not be "
    "performed while there is a child rewriting the AOF file or producing an RDB file (the moment "
    "where there is high disk contention).\n",
    // relax_fsync
    "- Your fsync policy is set to 'always'. It is very hard to get good performances with such a "
    "setup, if possible try to relax the fsync policy to 'onesec'.\n",
    // write_load_info
    "- Latency during the AOF atomic rename operation or when the final difference is flushed to "
    "the AOF file at the end of the rewrite, sometimes is caused by very high write load, causing "
    "the AOF buffer to get very large. If possible try to send less commands to accomplish the "
    "same work, or use Lua scripts to group multiple operations into a single EVALSHA call.\n",
    // hz
    "- In order to make the Redis keys expiring process more incremental, try to set the 'hz' "
    "configuration parameter to 100 using 'CONFIG SET hz 100'.\n",
    // large_objects
    "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking "
    "operation. If you have very large objects that are often deleted, expired, or evicted, try to "
    "fragment those objects into multiple smaller objects.\n",
    // mass_eviction
    "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects "
    "via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys "
    "migrations (RESTORE command), may create sudden memory pressure forcing the server to block "
    "trying to evict keys. \n",
    // disable_thp
    "- I detected a non zero amount of anonymous huge pages used by your process. This creates "
    "very serious latency events in different conditions, especially when Redis is persisting on "
    "disk. To disable THP support use the command 'echo never > "
    "/sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so "
    "that the command will be executed again after a reboot. Note that even if you have already "
    "disabled THP, you still need to restart the Redis process to get rid of the huge pages "
    "already created.\n",
};

struct EventRule {
  std::string_view event;
  std::initializer_list<Advice> advices;
};

// Which advices an event calls for (the count of each rule is what Redis adds to `advices`,
// even where the advice itself is not printed, as "aof-fsync-always" without appendfsync
// always). "command" and "fork" depend on the configuration and are decided in render().
const EventRule kRules[] = {
    {"fast-command", {kScheduler}},
    {"aof-write-pending-fsync", {kLocalDisk, kDiskContention, kSsd, kDataWriteback}},
    {"aof-write-active-child", {kNoAppendfsync, kDataWriteback, kSsd}},
    {"aof-write-alone", {kLocalDisk, kDataWriteback, kSsd}},
    {"aof-fsync-always", {kRelaxFsync}},
    {"aof-fstat", {kDiskContention, kLocalDisk}},
    {"rdb-unlink-temp-file", {kDiskContention, kLocalDisk}},
    {"aof-rewrite-diff-write", {kWriteLoadInfo, kDataWriteback, kSsd, kLocalDisk}},
    {"aof-rename", {kWriteLoadInfo, kDataWriteback, kSsd, kLocalDisk}},
    {"expire-cycle", {kHz, kLargeObjects}},
    {"eviction-del", {kLargeObjects}},
    {"eviction-cycle", {kMassEviction}},
};

// analyzeLatencyForEvent: sample count, integer average, mean absolute deviation and the
// seconds since the oldest sample (at least 1).
struct EventStats {
  std::uint64_t samples = 0, avg = 0, mad = 0;
  std::int64_t period = 0;
};

EventStats analyze(const LatencyMonitor::Series& s, std::int64_t now) {
  EventStats st;
  std::uint64_t sum = 0;
  std::int64_t oldest = 0;
  for (const auto& x : s.samples) {
    ++st.samples;
    sum += x.latency;
    if (oldest == 0 || x.time < oldest) oldest = x.time;
  }
  if (st.samples == 0) return st;
  st.avg = sum / st.samples;
  st.period = std::max<std::int64_t>(now - oldest, 1);
  std::uint64_t dev = 0;
  for (const auto& x : s.samples) {
    const auto d = static_cast<std::int64_t>(st.avg) - x.latency;
    dev += static_cast<std::uint64_t>(d < 0 ? -d : d);
  }
  st.mad = dev / st.samples;
  return st;
}

}  // namespace

std::string LatencyReport::render(const LatencyMonitor& monitor) const {
  if (monitor.series().empty() && threshold_ms == 0) {
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
           "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
           "order to enable it. If we weren't in a deep space mission I'd suggest to take a look "
           "at https://redis.io/topics/latency-monitor.\n";
  }
  std::string report;
  bool advise[kAdvices] = {};
  int advices = 0;
  int eventnum = 0;
  char line[512];
  for (const LatencyMonitor::Series& s : monitor.series()) {
    if (++eventnum == 1) {
      report +=
          "Dave, I have observed latency spikes in this Redis instance. You don't mind talking "
          "about it, do you Dave?\n\n";
    }
    const EventStats st = analyze(s, now);
    std::snprintf(line, sizeof line,
                  "%d. %s: %d latency spikes (average %lums, mean deviation %lums, period %.2f "
                  "sec). Worst all time event %lums.",
                  eventnum, s.event.c_str(), static_cast<int>(st.samples),
                  static_cast<unsigned long>(st.avg), static_cast<unsigned long>(st.mad),
                  static_cast<double>(st.period) / static_cast<double>(st.samples),
                  static_cast<unsigned long>(s.max));
    report += line;
    if (iequals(s.event, "fork")) {
      const double rate = monitor.fork_rate();
      const char* quality = rate < 10    ? "terrible"
                            : rate < 25  ? "poor"
                            : rate < 100 ? "good"
                                         : "excellent";
      if (rate < 25) {
        advise[kBetterVm] = true;
        ++advices;
      }
      std::snprintf(line, sizeof line, " Fork rate is %.2f GB/sec (%s).", rate, quality);
      report += line;
    }
    if (iequals(s.event, "command")) {
      if (slowlog_slower_than < 0) {
        advise[kSlowlogEnabled] = true;
        ++advices;
      } else if (slowlog_slower_than / 1000 > threshold_ms) {
        advise[kSlowlogTuning] = true;
        ++advices;
      }
      advise[kSlowlogInspect] = advise[kLargeObjects] = true;
      advices += 2;
    }
    for (const EventRule& r : kRules) {
      if (!iequals(s.event, r.event)) continue;
      for (Advice a : r.advices) advise[a] = true;
      advices += static_cast<int>(r.advices.size());
    }
    report += "\n";
  }
  if (huge_pages) {
    advise[kDisableThp] = true;
    ++advices;
  }
  if (eventnum == 0 && advices == 0) {
    return report +
           "Dave, no latency spike was observed during the lifetime of this Redis instance, not "
           "in the slightest bit. I honestly think you ought to sit down calmly, take a stress "
           "pill, and think things over.\n";
  }
  if (eventnum > 0 && advices == 0) {
    return report +
           "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please "
           "use the Redis community to get some help, providing this report in your help "
           "request.\n";
  }
  report += "\nI have a few advices for you:\n\n";
  advise[kRelaxFsync] = advise[kRelaxFsync] && fsync_always;
  advise[kHz] = advise[kHz] && hz < 100;
  for (int a = 0; a < kAdvices; ++a) {
    if (!advise[a]) continue;
    if (a == kSlowlogEnabled || a == kSlowlogTuning) {
      std::snprintf(line, sizeof line, kAdviceText[a],
                    static_cast<unsigned long long>(threshold_ms) * 1000);
      report += line;
    } else {
      report += kAdviceText[a];
    }
  }
  return report;
}

LatencyReport make_latency_report(const Config& config) {
  LatencyReport report;
  report.threshold_ms = config.latency_monitor_threshold;
  report.slowlog_slower_than = config.slowlog_log_slower_than;
  report.fsync_always = config.durability == Durability::kAlways;
  report.hz = config.hz;
  report.huge_pages = anon_huge_pages_bytes() > 0;
  report.now = static_cast<std::int64_t>(std::time(nullptr));
  return report;
}

std::int64_t anon_huge_pages_bytes() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string word;
  while (in >> word) {
    if (word == "AnonHugePages:") {
      std::int64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

namespace {

// sparkline.c's renderer, for one block of up to `columns` samples: `rows` rows where each
// sample's height is in steps of 1/3 row drawn with "_o#" (and "|" below the top), then a
// blank row and the labels written top to bottom, one character per row.
void render_range(std::string& out, const std::vector<std::pair<double, std::string>>& seq,
                  double min, double max, std::size_t offset, std::size_t len, int rows) {
  static constexpr char kFill[] = "_o#";
  constexpr int kCharsetLen = 3;
  constexpr int kLabelMarginTop = 1;
  double relmax = max - min;
  if (relmax == 0) relmax = 1;
  const int steps = kCharsetLen * rows;
  std::string chars(len, ' ');
  for (int row = 0;; ++row) {
    bool more = false;
    std::fill(chars.begin(), chars.end(), ' ');
    for (std::size_t j = 0; j < len; ++j) {
      const auto& [value, label] = seq[offset + j];
      // (int)(relval * steps) / relmax, truncated again on assignment, as the C code does.
      int step = static_cast<int>(static_cast<int>((value - min) * steps) / relmax);
      step = std::clamp(step, 0, steps - 1);
      if (row < rows) {
        const int charidx = step - ((rows - row - 1) * kCharsetLen);
        more = true;
        if (charidx >= 0 && charidx < kCharsetLen) {
          chars[j] = kFill[charidx];
        } else if (charidx >= kCharsetLen) {
          chars[j] = '|';
        }
      } else {
        if (row - rows < kLabelMarginTop) {  // every sample has a label here
          more = true;
          break;
        }
        const auto at = static_cast<std::size_t>(row - rows - kLabelMarginTop);
        if (label.size() > at) {
          more = true;
          chars[j] = label[at];
        }
      }
    }
    if (!more) break;
    out.append(chars).append("\n");
  }
}

}  // namespace

std::string latency_graph(const LatencyMonitor::Series& series, std::int64_t now) {
  constexpr std::size_t kColumns = 80;  // LATENCY_GRAPH_COLS
  std::vector<std::pair<double, std::string>> seq;
  std::uint32_t low = 0, high = 0;
  double min = 0, max = 0;
  char buf[64];
  for (const auto& x : series.samples) {
    if (seq.empty()) {
      low = high = x.latency;
      min = max = x.latency;
    } else {
      low = std::min(low, x.latency);
      high = std::max(high, x.latency);
      // sparklineSequenceAddSample's min/max (an else-if: a new minimum is not a maximum).
      if (x.latency < min) {
        min = x.latency;
      } else if (x.latency > max) {
        max = x.latency;
      }
    }
    const auto elapsed = static_cast<int>(now - x.time);
    if (elapsed < 60) {
      std::snprintf(buf, sizeof buf, "%ds", elapsed);
    } else if (elapsed < 3600) {
      std::snprintf(buf, sizeof buf, "%dm", elapsed / 60);
    } else if (elapsed < 3600 * 24) {
      std::snprintf(buf, sizeof buf, "%dh", elapsed / 3600);
    } else {
      std::snprintf(buf, sizeof buf, "%dd", elapsed / (3600 * 24));
    }
    seq.emplace_back(x.latency, buf);
  }
  std::snprintf(buf, sizeof buf, "%lu", static_cast<unsigned long>(high));
  std::string out = series.event + " - high " + buf + " ms, low ";
  out += std::to_string(low) + " ms (all time high " + std::to_string(series.max) + " ms)\n";
  out.append(kColumns, '-').append("\n");
  for (std::size_t j = 0; j < seq.size(); j += kColumns) {
    if (j != 0) out += "\n";
    render_range(out, seq, min, max, j, std::min(kColumns, seq.size() - j), 4);
  }
  return out;
}

}  // namespace ruvio::worker
