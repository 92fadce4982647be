// INFO [section ...]: Redis 7.0's text format ("# Section" headers, "field:value" lines,
// "\r\n" endings, a blank line between sections, sections always in Redis's order) with
// Redis's field names, so redis_exporter, redis-cli --stat and client libraries parse it.
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "shared/config_table.hpp"
#include "worker/commands/server/server_family.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/memory_figures.hpp"
#include "worker/persist/service.hpp"
#include "worker/script/functions.hpp"
#include "worker/script/lua_engine.hpp"

namespace ruvio::worker::srvfam {
namespace {

constexpr std::string_view kRedisVersion = "7.0.15";
constexpr std::string_view kRuvioVersion = "0.1.0";

enum Section : unsigned {
  kServer = 1u << 0,
  kClients = 1u << 1,
  kMemory = 1u << 2,
  kPersistence = 1u << 3,
  kStats = 1u << 4,
  kReplication = 1u << 5,
  kCpu = 1u << 6,
  kModules = 1u << 7,
  kCommandstats = 1u << 8,
  kErrorstats = 1u << 9,
  kLatencystats = 1u << 10,
  kCluster = 1u << 11,
  kKeyspace = 1u << 12,
};
constexpr unsigned kDefault = kServer | kClients | kMemory | kPersistence | kStats | kReplication |
                              kCpu | kModules | kErrorstats | kCluster | kKeyspace;
constexpr unsigned kAll = kDefault | kCommandstats | kLatencystats;

struct SectionName {
  std::string_view name;
  unsigned bit;
};
constexpr SectionName kSectionNames[] = {
    {"server", kServer},
    {"clients", kClients},
    {"memory", kMemory},
    {"persistence", kPersistence},
    {"stats", kStats},
    {"replication", kReplication},
    {"cpu", kCpu},
    {"modules", kModules},
    {"commandstats", kCommandstats},
    {"errorstats", kErrorstats},
    {"latencystats", kLatencystats},
    {"cluster", kCluster},
    {"keyspace", kKeyspace},
};

class Text {
 public:
  explicit Text(std::string& s) : s_(s) {}
  void header(std::string_view title) {
    if (!s_.empty()) s_.append("\r\n");
    s_.append("# ").append(title).append("\r\n");
  }
  void field(std::string_view name, std::string_view value) {
    s_.append(name).append(":").append(value).append("\r\n");
  }
  void field(std::string_view name, std::int64_t v) {
    char buf[24];
    field(name, format_int64(v, buf));
  }
  void field_u(std::string_view name, std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%" PRIu64, v);
    field(name, buf);
  }
  void field_f(std::string_view name, double v, const char* fmt = "%.2f") {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    field(name, buf);
  }

 private:
  std::string& s_;
};

// An INFO field that shows a parameter: its CONFIG GET text, from the parameter table.
std::string config_text(Shard& shard, std::string_view name) {
  return param_get(*find_param(name, kConfig), shard.config());
}

// Redis's bytesToHuman.
std::string human(std::uint64_t n) {
  char buf[64];
  const double d = static_cast<double>(n);
  if (n < 1024) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 "B", n);
  } else if (n < 1024ull * 1024) {
    std::snprintf(buf, sizeof buf, "%.2fK", d / 1024);
  } else if (n < 1024ull * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.2fM", d / (1024.0 * 1024));
  } else if (n < 1024ull * 1024 * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.2fG", d / (1024.0 * 1024 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.2fT", d / (1024.0 * 1024 * 1024 * 1024));
  }
  return buf;
}

const std::string& run_id() {
  static const std::string id = [] {
    std::random_device rd;
    std::string s;
    for (int i = 0; i < 40; ++i) s.push_back("0123456789abcdef"[rd() % 16]);
    return s;
  }();
  return id;
}

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

void server_section(Text& t, Shard& shard) {
  t.header("Server");
  t.field("redis_version", kRedisVersion);
  t.field("ruvio_version", kRuvioVersion);
  t.field("redis_git_sha1", "00000000");
  t.field("redis_git_dirty", 0);
  t.field("redis_build_id", "ruvio-0.1.0");  // a label (Redis: a hex digest), never a number
  t.field("redis_mode", "standalone");
  utsname u{};
  uname(&u);
  std::string os = u.sysname;
  os.append(" ").append(u.release).append(" ").append(u.machine);
  t.field("os", os);
  t.field("arch_bits", static_cast<std::int64_t>(sizeof(void*) * 8));
  t.field("monotonic_clock", "POSIX clock_gettime");
  t.field("multiplexing_api", "epoll");
  t.field("atomicvar_api", "c11-builtin");
  char gcc[32];
  std::snprintf(gcc, sizeof gcc, "%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
  t.field("gcc_version", gcc);
  t.field("process_id", static_cast<std::int64_t>(getpid()));
  t.field("process_supervised", shard.config().process_supervised);
  t.field("run_id", run_id());
  t.field("tcp_port", shard.tcp_port());
  timeval tv{};
  gettimeofday(&tv, nullptr);
  t.field("server_time_usec", static_cast<std::int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec);
  const std::int64_t uptime = (shard.now_ms() - shard.start_ms()) / 1000;
  t.field("uptime_in_seconds", uptime);
  t.field("uptime_in_days", uptime / 86400);
  t.field("hz", shard.config().hz);
  t.field("configured_hz", config_text(shard, "hz"));
  t.field("lru_clock", (shard.now_ms() / 1000) & ((1 << 24) - 1));
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  t.field("executable", n > 0 ? std::string_view(exe, static_cast<std::size_t>(n)) : "");
  t.field("config_file", shard.config().config_file);
  t.field("io_threads_active", 0);
  t.field("worker_id", shard.worker_id());
}

void clients_section(Text& t, Shard& shard) {
  t.header("Clients");
  t.field_u("connected_clients", shard.connected_clients);
  t.field("cluster_connections", 0);
  t.field("maxclients", config_text(shard, "maxclients"));
  t.field("client_recent_max_input_buffer", 0);
  t.field_u("client_recent_max_output_buffer", shard.client_recent_max_output);
  t.field_u("blocked_clients", shard.blocked_clients);
  t.field_u("tracking_clients", shard.tracking.clients());
  t.field_u("clients_in_timeout_table", shard.blocking().with_deadline());
}

void memory_section(Text& t, Shard& shard) {
  const MemoryFigures m = measure_memory(shard);
  const std::uint64_t used = m.used, rss = m.rss, peak = m.peak;
  const std::uint64_t maxmemory = shard.config().maxmemory;
  t.header("Memory");
  t.field_u("used_memory", used);
  t.field("used_memory_human", human(used));
  t.field_u("used_memory_rss", rss);
  t.field("used_memory_rss_human", human(rss));
  t.field_u("used_memory_peak", peak);
  t.field("used_memory_peak_human", human(peak));
  char perc[32];
  std::snprintf(perc, sizeof perc, "%.2f%%", 100.0 * memory_ratio(used, peak));
  t.field("used_memory_peak_perc", perc);
  t.field_u("used_memory_overhead", m.overhead);
  t.field_u("used_memory_startup", m.startup);
  t.field_u("used_memory_dataset", used - m.overhead);
  std::snprintf(perc, sizeof perc, "%.2f%%",
                100.0 * memory_ratio(used - m.overhead, used - m.startup));
  t.field("used_memory_dataset_perc", perc);
  // mimalloc's view as Redis reports jemalloc's: what the heap accounting holds (allocated),
  // what mimalloc has committed for it (active), and of that what is resident (at most the
  // process's RSS); the rest of the RSS is the process's own (code, stacks, buffers).
  t.field_u("allocator_allocated", used);
  t.field_u("allocator_active", m.active);
  t.field_u("allocator_resident", m.resident);
  const auto total = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                     static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  t.field_u("total_system_memory", total);
  t.field("total_system_memory_human", human(total));
  // Scripting (worker/script/): the interpreters start with the first script or library, so
  // a worker that ran none reports 0.
  const script::Engine* lua =
      shard.executor != nullptr ? script::started_engine(*shard.executor) : nullptr;
  const script::Functions* fn = lua != nullptr ? lua->functions_if_started() : nullptr;
  const std::uint64_t fn_vm = fn != nullptr ? fn->vm_memory() : 0;
  const std::uint64_t fn_mem = fn != nullptr ? fn->overhead_memory() : 0;
  const std::uint64_t lua_mem = lua != nullptr ? lua->lua_memory() : 0;
  const std::uint64_t scripts_mem = lua != nullptr ? lua->scripts_memory() : 0;
  t.field_u("used_memory_lua", lua_mem);
  t.field_u("used_memory_vm_eval", lua_mem);
  t.field("used_memory_lua_human", human(lua_mem));
  t.field_u("used_memory_scripts_eval", scripts_mem);
  t.field_u("number_of_cached_scripts", lua != nullptr ? lua->cached_scripts() : 0);
  t.field_u("number_of_functions", fn != nullptr ? fn->function_count() : 0);
  t.field_u("number_of_libraries", fn != nullptr ? fn->library_count() : 0);
  t.field_u("used_memory_vm_functions", fn_vm);
  t.field_u("used_memory_vm_total", lua_mem + fn_vm);
  t.field("used_memory_vm_total_human", human(lua_mem + fn_vm));
  t.field_u("used_memory_functions", fn_mem);
  t.field_u("used_memory_scripts", scripts_mem + fn_mem);
  t.field("used_memory_scripts_human", human(scripts_mem + fn_mem));
  t.field_u("maxmemory", maxmemory);
  t.field("maxmemory_human", human(maxmemory));
  t.field("maxmemory_policy", config_text(shard, "maxmemory-policy"));
  // Redis's ratios and differences of those figures (the differences may be negative).
  t.field_f("allocator_frag_ratio", memory_ratio(m.active, used));
  t.field("allocator_frag_bytes", memory_difference(m.active, used));
  t.field_f("allocator_rss_ratio", memory_ratio(m.resident, m.active));
  t.field("allocator_rss_bytes", memory_difference(m.resident, m.active));
  t.field_f("rss_overhead_ratio", memory_ratio(rss, m.resident));
  t.field("rss_overhead_bytes", memory_difference(rss, m.resident));
  t.field_f("mem_fragmentation_ratio", memory_ratio(rss, used));
  t.field("mem_fragmentation_bytes", memory_difference(rss, used));
  // No replicas, no replication backlog, no AOF rewrite buffer, no cluster bus: Redis's
  // replica-less standalone answers 0.
  t.field_u("mem_not_counted_for_evict", 0);
  t.field_u("mem_replication_backlog", 0);
  t.field_u("mem_total_replication_buffers", 0);
  t.field_u("mem_clients_slaves", 0);
  t.field_u("mem_clients_normal", m.clients);
  t.field_u("mem_cluster_links", 0);
  t.field_u("mem_aof_buffer", 0);
  t.field("mem_allocator", "mimalloc-2.0.9");
  t.field("active_defrag_running", 0);
  t.field_u("lazyfree_pending_objects", shard.lazyfree_pending());
  std::uint64_t lazyfreed = 0;
  for (int i = 0; i < shard.databases(); ++i) lazyfreed += shard.db(i).lazyfreed_total();
  t.field_u("lazyfreed_objects", lazyfreed);
  // Every worker's memory as the supervisor measured it last second (issue 5), one line per
  // worker in the db0:keys=... style so INFO parsers split it into fields.
  for (const auto& w : shard.worker_memory) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "pid=%d,up=%d,used_memory=%" PRIu64 ",rss=%" PRIu64 ",rss_anon=%" PRIu64
                  ",pss=%" PRIu64 ",private_dirty=%" PRIu64 ",keys=%" PRIu64,
                  w.pid, w.up ? 1 : 0, w.used_memory, w.rss, w.rss_anon, w.pss, w.private_dirty,
                  w.keys);
    t.field("worker" + std::to_string(w.id), line);
  }
}

void persistence_section(Text& t, Shard& shard) {
  t.header("Persistence");
  if (shard.persistence != nullptr) {
    shard.persistence->info([&](std::string_view k, std::string_view v) { t.field(k, v); });
    return;
  }
  // --durability memory: what redis-server answers with save "" and appendonly no.
  t.field("loading", 0);
  t.field("async_loading", 0);
  t.field("current_cow_peak", 0);
  t.field("current_cow_size", 0);
  t.field("current_cow_size_age", 0);
  t.field("current_fork_perc", "0.00");
  t.field("current_save_keys_processed", 0);
  t.field("current_save_keys_total", 0);
  t.field("rdb_changes_since_last_save", 0);
  t.field("rdb_bgsave_in_progress", 0);
  t.field("rdb_last_save_time", shard.start_ms() / 1000);
  t.field("rdb_last_bgsave_status", "ok");
  t.field("rdb_last_bgsave_time_sec", -1);
  t.field("rdb_current_bgsave_time_sec", -1);
  t.field("rdb_saves", 0);
  t.field("rdb_last_cow_size", 0);
  t.field("rdb_last_load_keys_expired", 0);
  t.field("rdb_last_load_keys_loaded", 0);
  t.field("aof_enabled", config_text(shard, "appendonly") == "yes" ? "1" : "0");
  t.field("aof_rewrite_in_progress", 0);
  t.field("aof_rewrite_scheduled", 0);
  t.field("aof_last_rewrite_time_sec", -1);
  t.field("aof_current_rewrite_time_sec", -1);
  t.field("aof_last_bgrewrite_status", "ok");
  t.field("aof_rewrites", 0);
  t.field("aof_rewrites_consecutive_failures", 0);
  t.field("aof_last_write_status", "ok");
  t.field("aof_last_cow_size", 0);
  t.field("module_fork_in_progress", 0);
  t.field("module_fork_last_cow_size", 0);
}

void stats_section(Text& t, Shard& shard) {
  const Stats& s = shard.stats();
  std::uint64_t expired = 0;
  for (int i = 0; i < shard.databases(); ++i) expired += shard.db(i).expired_total();
  t.header("Stats");
  t.field_u("total_connections_received", s.connections_received);
  t.field_u("total_commands_processed", s.commands_processed);
  t.field_u("instantaneous_ops_per_sec", s.instantaneous_ops_per_sec);
  t.field_u("total_net_input_bytes", s.net_input_bytes);
  t.field_u("total_net_output_bytes", s.net_output_bytes);
  t.field("total_net_repl_input_bytes", 0);
  t.field("total_net_repl_output_bytes", 0);
  t.field_f("instantaneous_input_kbps", s.instantaneous_input_kbps);
  t.field_f("instantaneous_output_kbps", s.instantaneous_output_kbps);
  t.field("instantaneous_input_repl_kbps", "0.00");
  t.field("instantaneous_output_repl_kbps", "0.00");
  t.field_u("rejected_connections", s.rejected_connections);
  t.field("sync_full", 0);
  t.field("sync_partial_ok", 0);
  t.field("sync_partial_err", 0);
  t.field_u("expired_keys", expired);
  t.field_f("expired_stale_perc", s.expired_stale_perc * 100);
  t.field_u("expired_time_cap_reached_count", s.expired_time_cap_reached_count);
  t.field_u("expire_cycle_cpu_milliseconds", s.expire_cycle_cpu_us / 1000);
  t.field_u("evicted_keys", s.evicted_keys);
  t.field_u("evicted_clients", s.evicted_clients);
  // Redis's eviction exceeded times, ms: the span going on counts in the total too.
  const std::uint64_t exceeding =
      s.eviction_exceeded_since_us != 0 ? Stats::steady_us() - s.eviction_exceeded_since_us : 0;
  t.field_u("total_eviction_exceeded_time", (s.total_eviction_exceeded_us + exceeding) / 1000);
  t.field_u("current_eviction_exceeded_time", exceeding / 1000);
  t.field_u("keyspace_hits", s.keyspace_hits);
  t.field_u("keyspace_misses", s.keyspace_misses);
  t.field("pubsub_channels", shard.pubsub != nullptr ? shard.pubsub->channel_count(false) : 0);
  t.field("pubsub_patterns", shard.pubsub != nullptr ? shard.pubsub->patterns() : 0);
  t.field("pubsubshard_channels", shard.pubsub != nullptr ? shard.pubsub->channel_count(true) : 0);
  t.field_u("latest_fork_usec", s.latest_fork_usec);
  t.field_u("total_forks", s.total_forks);
  t.field("migrate_cached_sockets", 0);
  t.field("slave_expires_tracked_keys", 0);
  t.field("active_defrag_hits", 0);
  t.field("active_defrag_misses", 0);
  t.field("active_defrag_key_hits", 0);
  t.field("active_defrag_key_misses", 0);
  t.field("total_active_defrag_time", 0);
  t.field("current_active_defrag_time", 0);
  t.field_u("tracking_total_keys", shard.tracking.keys());
  t.field_u("tracking_total_items", shard.tracking.items());
  t.field_u("tracking_total_prefixes", shard.tracking.prefixes());
  t.field_u("unexpected_error_replies", s.unexpected_error_replies);
  t.field_u("total_error_replies",
            shard.executor != nullptr ? shard.executor->command_stats().total_errors() : 0);
  t.field_u("dump_payload_sanitizations", s.dump_payload_sanitizations);
  t.field_u("total_reads_processed", s.reads_processed);
  t.field_u("total_writes_processed", s.writes_processed);
  t.field("io_threaded_reads_processed", 0);
  t.field("io_threaded_writes_processed", 0);
  t.field("reply_buffer_shrinks", 0);
  t.field("reply_buffer_expands", 0);
}

void replication_section(Text& t, Shard& shard) {
  t.header("Replication");
  t.field("role", "master");
  t.field("connected_slaves", 0);
  t.field("master_failover_state", "no-failover");
  t.field("master_replid", shard.repl_id());
  t.field("master_replid2", "0000000000000000000000000000000000000000");
  t.field("master_repl_offset", 0);
  t.field("second_repl_offset", -1);
  t.field("repl_backlog_active", 0);
  t.field("repl_backlog_size", 1048576);
  t.field("repl_backlog_first_byte_offset", 0);
  t.field("repl_backlog_histlen", 0);
}

void cpu_section(Text& t) {
  rusage self{};
  rusage children{};
  rusage thread{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);
  t.header("CPU");
  t.field_f("used_cpu_sys", seconds(self.ru_stime), "%.6f");
  t.field_f("used_cpu_user", seconds(self.ru_utime), "%.6f");
  t.field_f("used_cpu_sys_children", seconds(children.ru_stime), "%.6f");
  t.field_f("used_cpu_user_children", seconds(children.ru_utime), "%.6f");
  t.field_f("used_cpu_sys_main_thread", seconds(thread.ru_stime), "%.6f");
  t.field_f("used_cpu_user_main_thread", seconds(thread.ru_utime), "%.6f");
}

// cmdstat_<name>: every command and subcommand that ran or was refused, by name.
void commandstats_section(Text& t, Shard& shard) {
  t.header("Commandstats");
  if (shard.executor == nullptr) return;
  const CommandStats& stats = shard.executor->command_stats();
  const CommandTable& table = command_table();
  std::vector<const CommandDef*> shown;
  for (std::size_t id = 0; id < stats.size(); ++id) {
    const CommandCounters& c = stats.at(id);
    if (c.calls != 0 || c.failed_calls != 0 || c.rejected_calls != 0) {
      shown.push_back(table.by_id(id));
    }
  }
  std::sort(shown.begin(), shown.end(),
            [](const CommandDef* a, const CommandDef* b) { return a->name < b->name; });
  for (const CommandDef* def : shown) {
    const CommandCounters& c = stats.at(def->id);
    char value[192];
    std::snprintf(value, sizeof value,
                  "calls=%" PRIu64 ",usec=%" PRIu64 ",usec_per_call=%.2f,rejected_calls=%" PRIu64
                  ",failed_calls=%" PRIu64,
                  c.calls, c.usec,
                  c.calls == 0 ? 0.0 : static_cast<double>(c.usec) / static_cast<double>(c.calls),
                  c.rejected_calls, c.failed_calls);
    t.field("cmdstat_" + std::string(def->name), value);
  }
}

// errorstat_<CODE>: error replies by their first word, in Redis's (sorted) order.
void errorstats_section(Text& t, Shard& shard) {
  t.header("Errorstats");
  if (shard.executor == nullptr) return;
  auto errors = shard.executor->command_stats().errors();
  std::sort(errors.begin(), errors.end());
  for (const auto& [code, count] : errors) {
    t.field("errorstat_" + code, "count=" + std::to_string(count));
  }
}

// latency_percentiles_usec_<name>: the latency-tracking-info-percentiles of each command's
// HDR histogram (hdr_histogram.hpp), in µs with 3 decimals, as fillPercentileDistributionLatencies.
void latencystats_section(Text& t, Shard& shard) {
  t.header("Latencystats");
  // With latency-tracking off Redis shows the header alone (LATENCY HISTOGRAM still answers).
  if (shard.executor == nullptr || !shard.config().latency_tracking) return;
  const CommandStats& stats = shard.executor->command_stats();
  const CommandTable& table = command_table();
  std::vector<const CommandDef*> shown;
  for (std::size_t id = 0; id < table.ids(); ++id) {
    if (stats.histogram(id) != nullptr) shown.push_back(table.by_id(id));
  }
  std::sort(shown.begin(), shown.end(),
            [](const CommandDef* a, const CommandDef* b) { return a->name < b->name; });
  const std::vector<double>& percentiles = shard.config().latency_tracking_percentiles;
  for (const CommandDef* def : shown) {
    t.field("latency_percentiles_usec_" + std::string(def->name),
            latency_percentiles_value(*stats.histogram(def->id), percentiles));
  }
}

void keyspace_section(Text& t, Shard& shard) {
  t.header("Keyspace");
  for (int i = 0; i < shard.databases(); ++i) {
    store::Db& db = shard.db(i);
    if (db.size() == 0) continue;
    char name[16];
    std::snprintf(name, sizeof name, "db%d", i);
    char value[96];
    std::snprintf(value, sizeof value, "keys=%zu,expires=%zu,avg_ttl=0", db.size(),
                  db.expires_size());
    t.field(name, value);
  }
}

}  // namespace

void cmd_info(Context& ctx) {
  unsigned sections = 0;
  if (ctx.argc() == 1) sections = kDefault;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    const std::string_view a = ctx.args[i];
    if (iequals(a, "default")) {
      sections |= kDefault;
    } else if (iequals(a, "all")) {
      sections |= kAll;
    } else if (iequals(a, "everything")) {
      sections |= kAll;
    } else {
      for (const SectionName& s : kSectionNames) {
        if (iequals(a, s.name)) sections |= s.bit;
      }
    }
  }
  std::string text;
  Text t(text);
  Shard& shard = ctx.shard;
  if (sections & kServer) server_section(t, shard);
  if (sections & kClients) clients_section(t, shard);
  if (sections & kMemory) memory_section(t, shard);
  if (sections & kPersistence) persistence_section(t, shard);
  if (sections & kStats) stats_section(t, shard);
  if (sections & kReplication) replication_section(t, shard);
  if (sections & kCpu) cpu_section(t);
  if (sections & kModules) t.header("Modules");
  if (sections & kCommandstats) commandstats_section(t, shard);
  if (sections & kErrorstats) errorstats_section(t, shard);
  if (sections & kLatencystats) latencystats_section(t, shard);
  if (sections & kCluster) {
    t.header("Cluster");
    t.field("cluster_enabled", ctx.client.cluster_mode ? 1 : 0);
  }
  if (sections & kKeyspace) keyspace_section(t, shard);
  ctx.out.verbatim(text);
}

}  // namespace ruvio::worker::srvfam
