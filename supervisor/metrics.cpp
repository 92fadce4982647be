#include "supervisor/metrics.hpp"

#include <cereal/archives/json.hpp>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace ruvio::supervisor {
namespace {

// One metric family: HELP and TYPE once, then a sample per worker.
class Family {
 public:
  Family(std::string& out, const char* name, const char* type, const char* help)
      : out_(out), name_(name) {
    out_.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
  }
  void sample(const std::string& labels, double value) {
    char buf[64];
    // Shortest text that reads back as the same double (5.665, not 5.6656286160000002).
    const auto end = std::to_chars(buf, buf + sizeof(buf), value).ptr;
    out_.append(name_).append("{").append(labels).append("} ").append(buf, end).append("\n");
  }
  void sample_u(const std::string& labels, std::uint64_t value) {
    out_.append(name_).append("{").append(labels).append("} ").append(std::to_string(value));
    out_.append("\n");
  }

 private:
  std::string& out_;
  const char* name_;
};

std::string worker_label(int id) {
  return "worker=\"" + std::to_string(id) + "\"";
}

}  // namespace

std::uint64_t total_keys(const control::StatsReport& r) {
  std::uint64_t n = 0;
  for (auto k : r.keys) n += k;
  return n;
}

std::string prometheus_text(const std::vector<WorkerView>& workers, const AllocReport* alloc) {
  std::string out;
  const auto each = [&](const char* name, const char* type, const char* help, auto value) {
    Family f(out, name, type, help);
    for (const auto& w : workers) value(f, w, worker_label(w.id));
  };
  each("ruvio_worker_up", "gauge", "1 while the worker serves, 0 while it is down or starting",
       [](Family& f, const WorkerView& w, const std::string& l) { f.sample_u(l, w.up ? 1 : 0); });
  each("ruvio_worker_info", "gauge", "Worker identity: pid, pinned cpu and direct port",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l + ",pid=\"" + std::to_string(w.pid) + "\",cpu=\"" + std::to_string(w.cpu) +
                        "\",port=\"" + std::to_string(w.port) + "\"",
                    1);
       });
  each("ruvio_worker_restarts_total", "counter", "Times the supervisor restarted the worker",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, static_cast<std::uint64_t>(w.restarts));
       });
  each("ruvio_worker_uptime_seconds", "gauge", "Seconds since the current incarnation started",
       [](Family& f, const WorkerView& w, const std::string& l) { f.sample(l, w.uptime_seconds); });
  each("ruvio_worker_cpu_seconds_total", "counter",
       "User plus system CPU time of the current incarnation",
       [](Family& f, const WorkerView& w, const std::string& l) { f.sample(l, w.cpu_seconds); });
  each("ruvio_worker_rss_bytes", "gauge", "Resident set size (VmRSS, /proc/<pid>/status)",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.proc.rss_bytes);
       });
  each("ruvio_worker_rss_anon_bytes", "gauge", "Anonymous resident memory (RssAnon)",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.proc.rss_anon_bytes);
       });
  each("ruvio_worker_pss_bytes", "gauge", "Proportional set size (Pss, /proc/<pid>/smaps_rollup)",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.proc.pss_bytes);
       });
  each("ruvio_worker_private_dirty_bytes", "gauge", "Private dirty memory (Private_Dirty)",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.proc.private_dirty_bytes);
       });
  each("ruvio_worker_used_memory_bytes", "gauge",
       "Keyspace memory as the worker counts it (allocator usable sizes)",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.report.used_memory);
       });
  each("ruvio_worker_allocator_committed_bytes", "gauge", "Memory mimalloc has committed",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.report.mi_current_commit);
       });
  each("ruvio_worker_keys", "gauge", "Keys over all databases",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, total_keys(w.report));
       });
  {
    Family f(out, "ruvio_worker_db_keys", "gauge", "Keys per database (databases with keys)");
    for (const auto& w : workers) {
      for (std::size_t db = 0; db < w.report.keys.size(); ++db) {
        if (w.report.keys[db] == 0) continue;
        f.sample_u(worker_label(w.id) + ",db=\"db" + std::to_string(db) + "\"", w.report.keys[db]);
      }
    }
  }
  {
    Family f(out, "ruvio_worker_db_keys_expiring", "gauge", "Keys with a TTL per database");
    for (const auto& w : workers) {
      for (std::size_t db = 0; db < w.report.expires.size(); ++db) {
        if (w.report.keys.size() <= db || w.report.keys[db] == 0) continue;
        f.sample_u(worker_label(w.id) + ",db=\"db" + std::to_string(db) + "\"",
                   w.report.expires[db]);
      }
    }
  }
  each("ruvio_worker_commands_total", "counter", "Commands processed",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.report.commands_processed);
       });
  each("ruvio_worker_ops_per_second", "gauge", "Commands per second over the last second",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.report.ops_per_sec);
       });
  each("ruvio_worker_connected_clients", "gauge", "Client connections",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.report.connected_clients);
       });
  each("ruvio_worker_wal_bytes", "gauge", "Bytes in the write-ahead log",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample_u(l, w.report.wal_bytes);
       });
  each("ruvio_worker_wal_lag_seconds", "gauge", "Age of the oldest write not yet synced",
       [](Family& f, const WorkerView& w, const std::string& l) {
         f.sample(l, static_cast<double>(w.report.wal_lag_ms) / 1000.0);
       });
  if (alloc != nullptr) {
    {
      Family f(out, "ruvio_alloc_tracing", "gauge", "1 while eBPF allocation tracing is on");
      f.sample_u("", alloc->state == "on" ? 1 : 0);
    }
    if (alloc->state == "on") {
      Family f(out, "ruvio_alloc_live_bytes", "gauge",
               "Live store bytes by mimalloc size class, estimated from sampled allocations");
      for (const auto& w : alloc->workers) {
        for (const auto& c : w.by_size_class) {
          f.sample(worker_label(w.id) + ",size_class=\"" + std::to_string(c.size) + "\"",
                   static_cast<double>(c.bytes));
        }
      }
    }
  }
  return out;
}

namespace {

struct WorkerJson {
  const WorkerView& w;
  template <class A>
  void save(A& ar) const {
    const auto& r = w.report;
    ar(cereal::make_nvp("id", w.id), cereal::make_nvp("pid", w.pid), cereal::make_nvp("cpu", w.cpu),
       cereal::make_nvp("port", w.port), cereal::make_nvp("up", w.up),
       cereal::make_nvp("rss_bytes", w.proc.rss_bytes),
       cereal::make_nvp("rss_anon_bytes", w.proc.rss_anon_bytes),
       cereal::make_nvp("pss_bytes", w.proc.pss_bytes),
       cereal::make_nvp("private_dirty_bytes", w.proc.private_dirty_bytes),
       cereal::make_nvp("keys", total_keys(r)), cereal::make_nvp("keys_per_db", r.keys),
       cereal::make_nvp("expires_per_db", r.expires),
       cereal::make_nvp("used_memory_bytes", r.used_memory),
       cereal::make_nvp("restarts", w.restarts),
       cereal::make_nvp("uptime_seconds", w.uptime_seconds),
       cereal::make_nvp("cpu_percent", w.cpu_percent),
       cereal::make_nvp("commands_processed", r.commands_processed),
       cereal::make_nvp("ops_per_sec", r.ops_per_sec),
       cereal::make_nvp("connected_clients", r.connected_clients),
       cereal::make_nvp("wal_bytes", r.wal_bytes), cereal::make_nvp("wal_lag_ms", r.wal_lag_ms),
       cereal::make_nvp("mimalloc_rss_bytes", r.mi_current_rss),
       cereal::make_nvp("mimalloc_peak_rss_bytes", r.mi_peak_rss),
       cereal::make_nvp("mimalloc_committed_bytes", r.mi_current_commit),
       cereal::make_nvp("mimalloc_peak_committed_bytes", r.mi_peak_commit),
       cereal::make_nvp("mimalloc_page_faults", r.mi_page_faults),
       cereal::make_nvp("sampled_live_bytes", r.sampled_live_bytes));
  }
};

}  // namespace

std::string workers_json(const std::vector<WorkerView>& workers) {
  // cereal always writes an object at the root; the array is written around the objects.
  std::string out = "[";
  for (std::size_t i = 0; i < workers.size(); ++i) {
    std::ostringstream one;
    {
      cereal::JSONOutputArchive ar(one, cereal::JSONOutputArchive::Options::NoIndent());
      WorkerJson{workers[i]}.save(ar);
    }
    if (i > 0) out += ",";
    out += one.str();
  }
  out += "]\n";
  return out;
}

std::string alloc_json(const AllocReport& report) {
  std::ostringstream out;
  {
    cereal::JSONOutputArchive ar(out, cereal::JSONOutputArchive::Options::NoIndent());
    const_cast<AllocReport&>(report).serialize(ar);
  }
  return out.str() + "\n";
}

}  // namespace ruvio::supervisor
