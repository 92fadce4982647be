#include "supervisor/ops.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>

#include "shared/log.hpp"
#include "supervisor/sd_notify.hpp"

namespace ruvio::supervisor {
namespace {

constexpr std::uint64_t kTickMs = 1000;
// A worker whose last StatsReport is older than this has a stale heartbeat: the watchdog
// stops being fed, so systemd restarts a service that has stopped answering.
constexpr std::uint64_t kHeartbeatFreshNs = 3'000'000'000ULL;
constexpr std::size_t kTopStacks = 10;
constexpr long kMaxFullSeconds = 300;

std::vector<std::string>& command_line() {
  static std::vector<std::string> args;
  return args;
}

std::optional<long> parse_long(const std::string& text, long lo, long hi) {
  long v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

HttpResponse json(int status, std::string body) {
  return {status, "application/json", std::move(body)};
}

HttpResponse json_error(int status, const std::string& message) {
  std::string escaped;
  for (char c : message) {
    if (c == '"' || c == '\\') escaped += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) escaped += c;
  }
  return json(status, "{\"error\":\"" + escaped + "\"}\n");
}

}  // namespace

void set_command_line(int argc, char** argv) {
  command_line().assign(argv, argv + argc);
}

Ops::Ops(uv_loop_t* loop, Config& config, std::string worker_bin, Hooks hooks)
    : loop_(loop), config_(config), worker_bin_(std::move(worker_bin)), hooks_(std::move(hooks)) {
  slots_.resize(static_cast<std::size_t>(config_.workers));
  const long hz = sysconf(_SC_CLK_TCK);
  if (hz > 0) ticks_per_second_ = hz;
}

Ops::~Ops() = default;

std::string Ops::start() {
  if (config_.admin_port != 0) {
    admin_ = std::make_unique<AdminHttp>(
        loop_, [this](const HttpRequest& req, HttpReply reply) { handle(req, std::move(reply)); });
    admin_->set_token(config_.admin_token);
    int port = config_.admin_port;
    if (auto error = admin_->listen(config_.bind, port); !error.empty()) {
      return "ruvio: cannot listen on the admin port " + config_.bind + ":" +
             std::to_string(config_.admin_port) + ": " + error;
    }
    spdlog::info("admin HTTP on {}:{} (/metrics, /workers, /alloc)", config_.bind, port);
  }
  if (!config_.alloc_trace) {
    tracer_.set_off("disabled by --alloc-trace off");
  } else if (tracer_.load()) {
    spdlog::info("eBPF allocation tracing on (sampled, one sample per {} bytes allocated)",
                 512 * 1024);
  } else {
    spdlog::warn("eBPF allocation tracing off: {}", tracer_.reason());
  }
  uv_timer_init(loop_, &tick_timer_);
  tick_timer_.data = this;
  uv_timer_start(
      &tick_timer_, [](uv_timer_t* t) { static_cast<Ops*>(t->data)->tick(); }, kTickMs, kTickMs);
  uv_timer_init(loop_, &full_timer_);
  full_timer_.data = this;

  // systemd's watchdog: WATCHDOG_USEC set (and WATCHDOG_PID, when set, naming us).
  const char* usec = std::getenv("WATCHDOG_USEC");
  const char* wpid = std::getenv("WATCHDOG_PID");
  if (usec != nullptr && (wpid == nullptr || std::to_string(getpid()) == wpid)) {
    if (auto v = parse_long(usec, 1, 1L << 62)) watchdog_usec_ = static_cast<std::uint64_t>(*v);
  }
  uv_timer_init(loop_, &watchdog_timer_);
  watchdog_timer_.data = this;
  if (watchdog_usec_ != 0) {
    const std::uint64_t period_ms = std::max<std::uint64_t>(watchdog_usec_ / 2000, 1);
    uv_timer_start(
        &watchdog_timer_, [](uv_timer_t* t) { static_cast<Ops*>(t->data)->watchdog(); }, period_ms,
        period_ms);
    spdlog::info("systemd watchdog: WATCHDOG=1 every {} ms while every worker is healthy",
                 period_ms);
  }
  return {};
}

void Ops::on_worker_started(int id, pid_t pid) {
  Slot& s = slots_[static_cast<std::size_t>(id)];
  s = Slot{};
  s.pid = pid;
  s.started_ns = uv_hrtime();
  s.prev_ns = s.started_ns;
  s.last_heartbeat_ns = s.started_ns;
}

void Ops::on_worker_exited(int id) {
  Slot& s = slots_[static_cast<std::size_t>(id)];
  if (full_worker_ == id && full_reply_) {
    uv_timer_stop(&full_timer_);
    tracer_.full_finish(id, 0);
    full_reply_(json_error(409, "worker " + std::to_string(id) + " exited during the trace"));
    full_reply_ = nullptr;
    full_worker_ = -1;
  }
  tracer_.detach_worker(id);
  s.pid = 0;
  s.have_report = false;
}

bool Ops::on_message(int id, const control::Message& msg) {
  const auto* report = std::get_if<control::StatsReport>(&msg);
  if (report == nullptr) return false;
  Slot& s = slots_[static_cast<std::size_t>(id)];
  if (!s.have_report && tracer_.on()) {
    // The first report proves the worker runs its own image (after exec): attach now and
    // let it replay what it sampled before.
    if (auto error = tracer_.attach_worker(id, s.pid, worker_bin_); !error.empty()) {
      spdlog::warn("worker {}: allocation tracing not attached: {}", id, error);
    } else {
      hooks_.send(id, control::AllocTraceAttached{});
    }
  }
  s.report = *report;
  s.have_report = true;
  s.last_heartbeat_ns = uv_hrtime();
  return true;
}

void Ops::tick() {
  const std::uint64_t now = uv_hrtime();
  const auto base = hooks_.workers();
  control::WorkerFigures figures;
  int up = 0;
  for (const auto& w : base) {
    Slot& s = slots_[static_cast<std::size_t>(w.id)];
    if (w.up) ++up;
    if (s.pid > 0) {
      if (auto proc = read_proc_stats(s.pid)) {
        const double dt = static_cast<double>(now - s.prev_ns) / 1e9;
        const double used =
            static_cast<double>(proc->cpu_ticks - std::min(proc->cpu_ticks, s.prev_ticks)) /
            static_cast<double>(ticks_per_second_);
        s.cpu_percent = dt > 0 ? 100.0 * used / dt : 0;
        s.prev_ticks = proc->cpu_ticks;
        s.prev_ns = now;
        s.proc = *proc;
      }
      hooks_.send(w.id, control::StatsRequest{++seq_});
    }
    control::WorkerMemory m;
    m.id = w.id;
    m.pid = s.pid;
    m.up = w.up;
    m.used_memory = s.report.used_memory;
    m.rss = s.proc.rss_bytes;
    m.rss_anon = s.proc.rss_anon_bytes;
    m.pss = s.proc.pss_bytes;
    m.private_dirty = s.proc.private_dirty_bytes;
    m.keys = total_keys(s.report);
    figures.workers.push_back(m);
  }
  const control::Message msg = figures;
  for (const auto& w : base) {
    if (slots_[static_cast<std::size_t>(w.id)].pid > 0) hooks_.send(w.id, msg);
  }
  if (up < static_cast<int>(base.size())) {
    // Start-up or a restart in progress: tell systemctl status how far along we are.
    for (const auto& w : base) {
      if (!w.up) {
        sd_notify_send("STATUS=worker " + std::to_string(w.id + 1) + "/" +
                       std::to_string(base.size()) + " loading (" + std::to_string(up) + "/" +
                       std::to_string(base.size()) + " ready)");
        break;
      }
    }
  }
}

void Ops::watchdog() {
  const std::uint64_t now = uv_hrtime();
  for (const auto& w : hooks_.workers()) {
    const Slot& s = slots_[static_cast<std::size_t>(w.id)];
    if (!w.up || s.pid <= 0 || now - s.last_heartbeat_ns > kHeartbeatFreshNs) {
      spdlog::debug("watchdog not fed: worker {} heartbeat is stale", w.id);
      return;
    }
  }
  sd_notify_send("WATCHDOG=1");
}

std::vector<WorkerView> Ops::views() {
  auto list = hooks_.workers();
  for (auto& w : list) {
    const Slot& s = slots_[static_cast<std::size_t>(w.id)];
    if (s.pid <= 0) continue;
    w.proc = s.proc;
    w.cpu_percent = s.cpu_percent;
    w.cpu_seconds = static_cast<double>(s.proc.cpu_ticks) / static_cast<double>(ticks_per_second_);
    w.have_report = s.have_report;
    w.report = s.report;
  }
  return list;
}

AllocReport Ops::alloc_report(int only_worker) {
  AllocReport r;
  r.state = tracer_.on() ? "on" : "off";
  r.reason = tracer_.on() ? "" : tracer_.reason();
  r.sample_interval_bytes = tracer_.on() ? 512 * 1024 : 0;
  if (!tracer_.on()) return r;
  for (const auto& w : hooks_.workers()) {
    if (only_worker >= 0 && w.id != only_worker) continue;
    const Slot& s = slots_[static_cast<std::size_t>(w.id)];
    if (s.pid <= 0) continue;
    r.workers.push_back(tracer_.sampled(w.id, s.pid, kTopStacks));
  }
  return r;
}

void Ops::handle(const HttpRequest& req, HttpReply reply) {
  if (req.method != "GET") {
    reply({405, "text/plain; charset=utf-8", "only GET is served here\n"});
    return;
  }
  if (req.path == "/metrics") {
    const AllocReport alloc = alloc_report(-1);
    reply({200, "text/plain; version=0.0.4; charset=utf-8", prometheus_text(views(), &alloc)});
  } else if (req.path == "/workers") {
    reply(json(200, workers_json(views())));
  } else if (req.path == "/alloc") {
    handle_alloc(req, std::move(reply));
  } else {
    reply({404, "text/plain; charset=utf-8", "not found; try /metrics, /workers or /alloc\n"});
  }
}

void Ops::handle_alloc(const HttpRequest& req, HttpReply reply) {
  int worker = -1;
  const std::string worker_arg = AdminHttp::query_param(req.query, "worker");
  const std::string seconds_arg = AdminHttp::query_param(req.query, "seconds");
  if (!worker_arg.empty()) {
    const auto v = parse_long(worker_arg, 0, config_.workers - 1);
    if (!v) {
      reply(json_error(400, "worker must be 0.." + std::to_string(config_.workers - 1)));
      return;
    }
    worker = static_cast<int>(*v);
  }
  if (seconds_arg.empty()) {
    reply(json(200, alloc_json(alloc_report(worker))));
    return;
  }
  // Full mode: uprobes on one worker's allocator for S seconds, answered when they end.
  const auto seconds = parse_long(seconds_arg, 1, kMaxFullSeconds);
  if (!seconds) {
    reply(json_error(400, "seconds must be 1.." + std::to_string(kMaxFullSeconds)));
    return;
  }
  if (worker < 0) worker = 0;
  if (!tracer_.on()) {
    AllocReport off = alloc_report(worker);
    off.mode = "full";
    reply(json(503, alloc_json(off)));
    return;
  }
  if (full_reply_) {
    reply(json_error(409, "a full trace is already running"));
    return;
  }
  const Slot& s = slots_[static_cast<std::size_t>(worker)];
  if (s.pid <= 0) {
    reply(json_error(503, "worker " + std::to_string(worker) + " is down"));
    return;
  }
  if (auto error = tracer_.full_start(s.pid); !error.empty()) {
    reply(json_error(503, error));
    return;
  }
  spdlog::info("worker {}: full allocation trace for {} s", worker, *seconds);
  full_reply_ = std::move(reply);
  full_worker_ = worker;
  full_seconds_ = static_cast<double>(*seconds);
  uv_update_time(loop_);  // attaching took a while: count the S seconds from now
  uv_timer_start(
      &full_timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<Ops*>(t->data);
        AllocReport r;
        r.state = "on";
        r.mode = "full";
        r.seconds = self->full_seconds_;
        r.workers.push_back(self->tracer_.full_finish(self->full_worker_, kTopStacks));
        spdlog::info("worker {}: full allocation trace done: {} live bytes in {} blocks",
                     self->full_worker_, r.workers.back().live_bytes, r.workers.back().live_count);
        auto done = std::move(self->full_reply_);
        self->full_reply_ = nullptr;
        self->full_worker_ = -1;
        done(json(200, alloc_json(r)));
      },
      static_cast<std::uint64_t>(*seconds) * 1000, 0);
}

void Ops::reload() {
  sd_notify_send("RELOADING=1\nSTATUS=reloading configuration\nMONOTONIC_USEC=" +
                 std::to_string(uv_hrtime() / 1000));
  const auto done = [this] { sd_notify_send("READY=1\nSTATUS=ready: " + hooks_.summary()); };
  if (config_.config_file.empty()) {
    spdlog::warn("SIGHUP: no --config file was given; nothing to reload");
    done();
    return;
  }
  std::vector<std::string> args = command_line();
  if (args.empty()) args = {"ruvio", "--config", config_.config_file};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  Config fresh;
  if (auto error = parse_config(static_cast<int>(args.size()), argv.data(), fresh)) {
    spdlog::error("SIGHUP: reload failed, keeping the running configuration: {}", error->message);
    done();
    return;
  }
  // Settings that need new sockets or processes: reported, not applied.
  const auto needs_restart = [](const char* name, const auto& old_value, const auto& new_value) {
    if (old_value != new_value) {
      spdlog::warn("SIGHUP: '{}' changed ({} -> {}); it needs a restart and is not applied", name,
                   old_value, new_value);
    }
  };
  needs_restart("bind", config_.bind, fresh.bind);
  needs_restart("port", config_.port, fresh.port);
  needs_restart("workers", config_.workers, fresh.workers);
  needs_restart("worker-base-port", config_.worker_base_port, fresh.worker_base_port);
  needs_restart("admin-port", config_.admin_port, fresh.admin_port);
  needs_restart("dir", config_.dir, fresh.dir);
  needs_restart("databases", config_.databases, fresh.databases);
  needs_restart("sync-interval-ms", config_.sync_interval_ms, fresh.sync_interval_ms);
  needs_restart("durability", static_cast<int>(config_.durability),
                static_cast<int>(fresh.durability));
  needs_restart("alloc-trace", config_.alloc_trace ? "on" : "off",
                fresh.alloc_trace ? "on" : "off");

  std::vector<std::string> applied;
  if (fresh.log_level != config_.log_level) {
    applied.push_back("log-level " + config_.log_level + " -> " + fresh.log_level);
    config_.log_level = fresh.log_level;
    if (auto level = parse_log_level(fresh.log_level)) spdlog::set_level(*level);
  }
  if (fresh.maxmemory != config_.maxmemory) {
    applied.push_back("maxmemory " + std::to_string(config_.maxmemory) + " -> " +
                      std::to_string(fresh.maxmemory));
    config_.maxmemory = fresh.maxmemory;
  }
  if (fresh.maxmemory_policy != config_.maxmemory_policy) {
    applied.push_back("maxmemory-policy " + config_.maxmemory_policy + " -> " +
                      fresh.maxmemory_policy);
    config_.maxmemory_policy = fresh.maxmemory_policy;
  }
  if (fresh.requirepass != config_.requirepass) {
    applied.push_back("requirepass (changed)");
    config_.requirepass = fresh.requirepass;
  }
  if (applied.empty()) {
    spdlog::info("SIGHUP: configuration reloaded from {}; nothing changed", config_.config_file);
  } else {
    std::string list;
    for (const auto& a : applied) list += (list.empty() ? "" : ", ") + a;
    spdlog::info("SIGHUP: configuration reloaded from {}: {}", config_.config_file, list);
    control::ConfigUpdate update;
    update.log_level = config_.log_level;
    update.maxmemory = config_.maxmemory;
    update.maxmemory_policy = config_.maxmemory_policy;
    update.requirepass = config_.requirepass;
    const control::Message msg = update;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].pid > 0) hooks_.send(static_cast<int>(i), msg);
    }
  }
  done();
}

}  // namespace ruvio::supervisor
