// Supervisor loop (libuv, one thread). Per worker i it keeps:
//
//   listen_fd  bind:port, SO_REUSEPORT — one per worker, the kernel spreads connections
//   direct_fd  bind:(worker_base_port+i), or -1 — the worker's cluster-mode port
//   control    a uv_pipe on our end of a fresh socketpair per incarnation
//
// The listening sockets live here, not in the worker, so a crashed worker's port never
// closes: connections queue in the backlog until its replacement (started with the same
// fds) accepts them. Each incarnation gets a fresh control socketpair, because the old one
// may hold half a frame.
#include "supervisor/supervisor.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "shared/control.hpp"
#include "shared/slots.hpp"
#include "shared/topology.hpp"
#include "supervisor/ops.hpp"
#include "supervisor/sd_notify.hpp"

extern char** environ;

namespace ruvio::supervisor {
namespace {

constexpr int kBacklog = 511;  // Redis's tcp-backlog default
// A worker that ran this long before dying is restarted at once; one that keeps dying
// sooner waits 100 ms, 200 ms, 400 ms ... up to 5 s, so a crash loop does not spin a core.
constexpr std::uint64_t kStableRunNs = 10'000'000'000ULL;
constexpr std::uint64_t kFirstBackoffMs = 100;
constexpr std::uint64_t kMaxBackoffMs = 5000;
constexpr std::uint64_t kStopTimeoutMs = 10'000;

std::string host_port(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

// ---------------------------------------------------------------------------------------
// Listening sockets

struct Endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
  int family = AF_INET;
};

Endpoint endpoint(const std::string& host, int port) {
  Endpoint ep;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ep.addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ep.addr);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(port));
    ep.len = sizeof(sockaddr_in);
  } else {
    // Config validated the address: it is IPv6 if it is not IPv4.
    inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(port));
    ep.len = sizeof(sockaddr_in6);
    ep.family = AF_INET6;
  }
  return ep;
}

// Returns the fd, or -1 with `error` set. `port` 0 binds an ephemeral port, written back.
int open_listener(const std::string& host, int& port, bool reuseport, std::string& error) {
  const Endpoint ep = endpoint(host, port);
  const int fd = socket(ep.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = "ruvio: cannot create a socket for " + host_port(host, port) + ": " + strerror(errno);
    return -1;
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (reuseport) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<const sockaddr*>(&ep.addr), ep.len) != 0 ||
      listen(fd, kBacklog) != 0) {
    error = "ruvio: cannot listen on " + host_port(host, port) + ": " + strerror(errno);
    close(fd);
    return -1;
  }
  if (port == 0) {
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    port = ntohs(ep.family == AF_INET ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                      : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  }
  return fd;
}

// SO_REUSEPORT lets a second ruvio of the same user join our port group and silently take
// half the connections. A plain bind first makes "port in use" an error, as for Redis.
bool port_is_free(const std::string& host, int port, std::string& error) {
  const Endpoint ep = endpoint(host, port);
  const int fd = socket(ep.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;  // let the real bind report the problem
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  const bool free = bind(fd, reinterpret_cast<const sockaddr*>(&ep.addr), ep.len) == 0;
  if (!free) error = "ruvio: cannot listen on " + host_port(host, port) + ": " + strerror(errno);
  close(fd);
  return free;
}

// ---------------------------------------------------------------------------------------
// Workers

enum class State { kStarting, kReady, kWaitingRestart, kExited };

class Supervisor;

struct Worker {
  Supervisor* owner = nullptr;
  int id = 0;
  int cpu = 0;
  int listen_fd = -1;
  int direct_fd = -1;
  int direct_port = 0;
  pid_t pid = -1;
  State state = State::kExited;
  uv_pipe_t* control = nullptr;  // heap: freed in its close callback
  std::string inbox;             // bytes of a partial control frame
  std::uint64_t started_ns = 0;
  int fast_failures = 0;
  int restarts = 0;
  uv_timer_t restart_timer{};
};

struct WriteRequest {
  uv_write_t req{};
  std::string bytes;
};

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigdescr_np(sig);
    return "was killed by signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")" +
           (WCOREDUMP(status) ? ", core dumped" : "");
  }
  return "stopped (status " + std::to_string(status) + ")";
}

class Supervisor {
 public:
  Supervisor(const Config& config, std::string worker_bin)
      : config_(config), worker_bin_(std::move(worker_bin)) {}

  int run(std::vector<int> proxy_fds, std::vector<int> direct_fds, int proxy_port);

  Topology topology;  // the direct ports' cluster topology, built before the workers start

 private:
  void spawn(Worker& w);
  void schedule_restart(Worker& w);
  void close_control(Worker& w);
  void send(Worker& w, const control::Message& msg);
  void on_read(Worker& w, ssize_t nread, const uv_buf_t* buf);
  void on_message(Worker& w, const control::Message& msg);
  void on_sigchld();
  void on_worker_exit(Worker& w, int status);
  // `from_signal`: a second SIGTERM/SIGINT while stopping kills the workers at once (an
  // impatient Ctrl-C); a second SHUTDOWN from a client is ignored.
  void begin_shutdown(const std::string& reason, bool from_signal);
  void kill_all(const char* why);
  void maybe_finish();
  std::string summary() const;

  Config config_;
  std::string worker_bin_;
  int proxy_port_ = 0;
  uv_loop_t loop_{};
  std::vector<std::unique_ptr<Worker>> workers_;
  uv_signal_t sigchld_{}, sigterm_{}, sigint_{}, sighup_{};
  uv_timer_t stop_timer_{};
  bool stopping_ = false;
  bool announced_ready_ = false;
  int exit_code_ = 0;
  // The users a worker last reported: a restarted worker starts with them (see AclState).
  std::string acl_state_;
  std::vector<std::string> env_storage_;
  std::vector<char*> envp_;
  char read_buffer_[64 * 1024];
  std::unique_ptr<Ops> ops_;  // admin HTTP, figures, tracer, watchdog, reload (ops.hpp)
};

std::string Supervisor::summary() const {
  const int n = config_.workers;
  std::string text = std::to_string(n) + (n == 1 ? " worker on " : " workers on ") +
                     host_port(config_.bind, proxy_port_);
  if (config_.worker_base_port != 0) {
    text += ", direct ports " + std::to_string(workers_.front()->direct_port) + ".." +
            std::to_string(workers_.back()->direct_port);
  }
  text += ", cpus ";
  for (int i = 0; i < n; ++i) {
    if (i > 0) text += ',';
    text += std::to_string(config_.cpus[static_cast<std::size_t>(i)]);
  }
  return text;
}

// Everything the child needs is prepared before fork(): between fork and exec only
// async-signal-safe calls are allowed (no allocation, no logging).
void Supervisor::spawn(Worker& w) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    spdlog::error("worker {}: socketpair failed: {}", w.id, strerror(errno));
    schedule_restart(w);
    return;
  }
  const int ours = pair[0];
  const int theirs = pair[1];
  std::vector<std::string> args = {"ruvio-worker",
                                   "--id",
                                   std::to_string(w.id),
                                   "--control-fd",
                                   std::to_string(theirs),
                                   "--listen-fd",
                                   std::to_string(w.listen_fd),
                                   "--direct-fd",
                                   std::to_string(w.direct_fd)};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const std::string pin_failed = "ruvio: worker " + std::to_string(w.id) + ": cannot pin to cpu " +
                                 std::to_string(w.cpu) + "; running unpinned\n";
  const std::string exec_failed =
      "ruvio: worker " + std::to_string(w.id) + ": cannot run " + worker_bin_ + "\n";
  const int keep[3] = {theirs, w.listen_fd, w.direct_fd};
  const pid_t parent = getpid();

  // Block every signal across fork so libuv's handlers cannot run in the child (they would
  // write into the loop's signal pipe, which the child shares with us).
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = fork();
  if (pid == 0) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
      // SIGPIPE stays ignored across exec on purpose: a worker must never die on a write
      // to a client that went away.
      if (sig != SIGPIPE) sigaction(sig, &dfl, nullptr);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // Own process group: a terminal's Ctrl-C reaches only the supervisor, which then stops
    // the workers in order. If the supervisor dies, the kernel sends SIGTERM.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w.cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
      (void)!write(STDERR_FILENO, pin_failed.data(), pin_failed.size());
    }
    // Only stdio and the three fds named in argv survive exec, whatever we inherited.
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    for (int fd : keep) {
      if (fd >= 0) fcntl(fd, F_SETFD, 0);
    }
    execve(worker_bin_.c_str(), argv.data(), envp_.data());
    (void)!write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
    _exit(127);
  }
  const int fork_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(theirs);
  if (pid < 0) {
    close(ours);
    spdlog::error("worker {}: fork failed: {}", w.id, strerror(fork_errno));
    schedule_restart(w);
    return;
  }

  w.pid = pid;
  w.state = State::kStarting;
  w.started_ns = uv_hrtime();
  w.inbox.clear();
  w.control = new uv_pipe_t;
  uv_pipe_init(&loop_, w.control, 0);
  w.control->data = &w;
  uv_pipe_open(w.control, ours);
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(w.control),
      [](uv_handle_t* handle, std::size_t, uv_buf_t* buf) {
        auto* worker = static_cast<Worker*>(handle->data);
        *buf = uv_buf_init(worker->owner->read_buffer_, sizeof(worker->owner->read_buffer_));
      },
      [](uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
        auto* worker = static_cast<Worker*>(stream->data);
        worker->owner->on_read(*worker, nread, buf);
      });

  control::WorkerInit init;
  init.id = w.id;
  init.worker_count = config_.workers;
  const SlotRange slots = topology.worker_span(w.id);
  init.topology = topology;
  init.self = topology.workers[static_cast<std::size_t>(w.id)];
  init.slot_first = slots.first;
  init.slot_last = slots.last;
  init.config = config_;
  init.mesh_name = "ruvio." + std::to_string(::getpid()) + "." + std::to_string(config_.port);
  init.acl_state = acl_state_;
  send(w, init);
  spdlog::info("worker {} started: pid {}, cpu {}, slots {}-{}", w.id, pid, w.cpu, slots.first,
               slots.last);
  if (ops_) ops_->on_worker_started(w.id, pid);
}

void Supervisor::send(Worker& w, const control::Message& msg) {
  if (w.control == nullptr) return;
  auto* request = new WriteRequest;
  control::encode(msg, request->bytes);
  uv_buf_t buf = uv_buf_init(request->bytes.data(), static_cast<unsigned>(request->bytes.size()));
  request->req.data = request;
  const int rc =
      uv_write(&request->req, reinterpret_cast<uv_stream_t*>(w.control), &buf, 1,
               [](uv_write_t* req, int) { delete static_cast<WriteRequest*>(req->data); });
  if (rc != 0) {
    spdlog::warn("worker {}: control write failed: {}", w.id, uv_strerror(rc));
    delete request;
  }
}

void Supervisor::close_control(Worker& w) {
  if (w.control == nullptr) return;
  uv_close(reinterpret_cast<uv_handle_t*>(w.control),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_pipe_t*>(handle); });
  w.control = nullptr;
  w.inbox.clear();
}

void Supervisor::on_read(Worker& w, ssize_t nread, const uv_buf_t* buf) {
  if (nread < 0) {
    // EOF while the process lives is unusual; its exit (SIGCHLD) drives the restart.
    // EOF/ECONNRESET: the worker exited or was killed; SIGCHLD follows with the details.
    if (nread != UV_EOF && nread != UV_ECONNRESET) {
      spdlog::warn("worker {}: control read: {}", w.id, uv_strerror(static_cast<int>(nread)));
    }
    close_control(w);
    return;
  }
  w.inbox.append(buf->base, static_cast<std::size_t>(nread));
  std::size_t offset = 0;
  while (true) {
    std::size_t consumed = 0;
    bool error = false;
    auto msg = control::decode(std::string_view(w.inbox).substr(offset), consumed, error);
    if (error) {
      spdlog::error("worker {}: malformed control frame; killing pid {}", w.id, w.pid);
      close_control(w);
      if (w.pid > 0) kill(w.pid, SIGKILL);
      return;
    }
    if (!msg) break;
    offset += consumed;
    on_message(w, *msg);
    if (w.control == nullptr) return;  // the message handler closed the channel
  }
  w.inbox.erase(0, offset);
}

void Supervisor::on_message(Worker& w, const control::Message& msg) {
  if (std::holds_alternative<control::WorkerReady>(msg)) {
    if (w.state != State::kStarting) return;
    w.state = State::kReady;
    if (announced_ready_) {
      spdlog::info("worker {} ready again (pid {}, restart {})", w.id, w.pid, w.restarts);
      sd_notify_send("STATUS=ready: " + summary());
      return;
    }
    const bool all_ready = std::all_of(workers_.begin(), workers_.end(), [](const auto& other) {
      return other->state == State::kReady;
    });
    if (all_ready && !stopping_) {
      announced_ready_ = true;
      spdlog::info("ready: {}", summary());
      sd_notify_send("READY=1\nSTATUS=ready: " + summary());
    }
  } else if (const auto* acl = std::get_if<control::AclState>(&msg)) {
    acl_state_ = acl->users;
  } else if (std::holds_alternative<control::ShutdownRequest>(msg)) {
    begin_shutdown("SHUTDOWN from a client of worker " + std::to_string(w.id), false);
  } else if (ops_ && ops_->on_message(w.id, msg)) {
    // stats, handled by the operations hub
  } else {
    spdlog::warn("worker {}: unexpected control message (index {})", w.id, msg.index());
  }
}

void Supervisor::on_sigchld() {
  int status = 0;
  pid_t pid = 0;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (auto& w : workers_) {
      if (w->pid == pid) {
        on_worker_exit(*w, status);
        break;
      }
    }
  }
}

void Supervisor::on_worker_exit(Worker& w, int status) {
  const double lived_s = static_cast<double>(uv_hrtime() - w.started_ns) / 1e9;
  const pid_t pid = w.pid;
  w.pid = -1;
  close_control(w);
  if (ops_) ops_->on_worker_exited(w.id);
  if (stopping_) {
    w.state = State::kExited;
    spdlog::info("worker {} (pid {}) {}", w.id, pid, describe_exit(status));
    maybe_finish();
    return;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == control::kExitAclError) {
    // The worker logged why (Redis's words); Redis would not have started either.
    spdlog::critical("worker {} (pid {}) cannot load its ACL users; stopping", w.id, pid);
    w.state = State::kExited;
    exit_code_ = 1;
    begin_shutdown("ACL users not loaded", false);
    return;
  }
  const bool stable = uv_hrtime() - w.started_ns >= kStableRunNs;
  std::uint64_t delay_ms = 0;
  if (stable) {
    w.fast_failures = 0;
  } else {
    delay_ms = std::min(kFirstBackoffMs << std::min(w.fast_failures, 16), kMaxBackoffMs);
    ++w.fast_failures;
  }
  spdlog::warn("worker {} (pid {}) {} after {:.1f} s; restarting in {} ms", w.id, pid,
               describe_exit(status), lived_s, delay_ms);
  sd_notify_send("STATUS=worker " + std::to_string(w.id) + " restarting");
  w.state = State::kWaitingRestart;
  uv_timer_start(
      &w.restart_timer,
      [](uv_timer_t* timer) {
        auto* worker = static_cast<Worker*>(timer->data);
        ++worker->restarts;
        worker->owner->spawn(*worker);
      },
      delay_ms, 0);
}

// For spawn failures (socketpair/fork): same back-off as a fast crash.
void Supervisor::schedule_restart(Worker& w) {
  if (stopping_) {
    w.state = State::kExited;
    maybe_finish();
    return;
  }
  const std::uint64_t delay_ms =
      std::min(kFirstBackoffMs << std::min(w.fast_failures, 16), kMaxBackoffMs);
  ++w.fast_failures;
  w.state = State::kWaitingRestart;
  uv_timer_start(
      &w.restart_timer,
      [](uv_timer_t* timer) {
        auto* worker = static_cast<Worker*>(timer->data);
        worker->owner->spawn(*worker);
      },
      delay_ms, 0);
}

void Supervisor::begin_shutdown(const std::string& reason, bool from_signal) {
  if (stopping_) {
    if (from_signal) kill_all("second stop signal");
    return;
  }
  stopping_ = true;
  spdlog::info("shutting down ({}): stopping {} worker(s)", reason, workers_.size());
  sd_notify_send("STOPPING=1\nSTATUS=stopping");
  for (auto& w : workers_) {
    uv_timer_stop(&w->restart_timer);
    if (w->pid > 0) {
      send(*w, control::Shutdown{});
    } else {
      w->state = State::kExited;
    }
  }
  uv_timer_start(
      &stop_timer_,
      [](uv_timer_t* timer) { static_cast<Supervisor*>(timer->data)->kill_all("stop timeout"); },
      kStopTimeoutMs, 0);
  maybe_finish();
}

void Supervisor::kill_all(const char* why) {
  for (auto& w : workers_) {
    if (w->pid > 0) {
      spdlog::warn("{}: killing worker {} (pid {})", why, w->id, w->pid);
      kill(w->pid, SIGKILL);
    }
  }
}

void Supervisor::maybe_finish() {
  if (!stopping_) return;
  const bool all_gone =
      std::all_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->pid <= 0; });
  if (!all_gone) return;
  spdlog::info("all workers stopped; bye");
  // Closing every handle lets uv_run return.
  uv_walk(
      &loop_,
      [](uv_handle_t* handle, void*) {
        if (uv_is_closing(handle) == 0) uv_close(handle, nullptr);
      },
      nullptr);
}

int Supervisor::run(std::vector<int> proxy_fds, std::vector<int> direct_fds, int proxy_port) {
  proxy_port_ = proxy_port;
  // The worker inherits our environment minus NOTIFY_SOCKET: readiness is ours to report.
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "NOTIFY_SOCKET=", 14) != 0) env_storage_.emplace_back(*e);
  }
  if (const char* sock = std::getenv("NOTIFY_SOCKET"); sock != nullptr && *sock != '\0') {
    config_.process_supervised = "systemd";
  }
  for (auto& e : env_storage_) envp_.push_back(e.data());
  envp_.push_back(nullptr);

  uv_loop_init(&loop_);
  uv_timer_init(&loop_, &stop_timer_);
  stop_timer_.data = this;

  const auto on_signal = [](uv_signal_t* handle, int signum) {
    auto* self = static_cast<Supervisor*>(handle->data);
    if (signum == SIGCHLD) {
      self->on_sigchld();
    } else if (signum == SIGHUP) {
      if (self->ops_) self->ops_->reload();
    } else {
      self->begin_shutdown(signum == SIGTERM ? "SIGTERM" : "SIGINT", true);
    }
  };
  for (auto [handle, signum] : {std::pair{&sigchld_, SIGCHLD}, std::pair{&sigterm_, SIGTERM},
                                std::pair{&sigint_, SIGINT}, std::pair{&sighup_, SIGHUP}}) {
    uv_signal_init(&loop_, handle);
    handle->data = this;
    uv_signal_start(handle, on_signal, signum);
  }

  for (int i = 0; i < config_.workers; ++i) {
    auto w = std::make_unique<Worker>();
    w->owner = this;
    w->id = i;
    w->cpu = config_.cpus[static_cast<std::size_t>(i)];
    w->listen_fd = proxy_fds[static_cast<std::size_t>(i)];
    w->direct_fd = direct_fds[static_cast<std::size_t>(i)];
    w->direct_port = config_.worker_base_port == 0 ? 0 : config_.worker_base_port + i;
    uv_timer_init(&loop_, &w->restart_timer);
    w->restart_timer.data = w.get();
    workers_.push_back(std::move(w));
  }
  Ops::Hooks hooks;
  hooks.workers = [this] {
    std::vector<WorkerView> list;
    const std::uint64_t now = uv_hrtime();
    for (const auto& w : workers_) {
      WorkerView v;
      v.id = w->id;
      v.pid = w->pid > 0 ? w->pid : 0;
      v.cpu = w->cpu;
      v.port = w->direct_port;
      v.up = w->state == State::kReady;
      v.restarts = w->restarts;
      v.uptime_seconds = w->pid > 0 ? static_cast<double>(now - w->started_ns) / 1e9 : 0;
      list.push_back(v);
    }
    return list;
  };
  hooks.send = [this](int id, const control::Message& msg) {
    send(*workers_[static_cast<std::size_t>(id)], msg);
  };
  hooks.summary = [this] { return summary(); };
  ops_ = std::make_unique<Ops>(&loop_, config_, worker_bin_, std::move(hooks));
  if (auto error = ops_->start(); !error.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  sd_notify_send("STATUS=starting " + std::to_string(config_.workers) + " worker(s)");
  for (auto& w : workers_) spawn(*w);

  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
  for (int fd : proxy_fds) close(fd);
  for (int fd : direct_fds) {
    if (fd >= 0) close(fd);
  }
  return exit_code_;
}

std::string find_worker_binary(std::string& error) {
  if (const char* env = std::getenv("RUVIO_WORKER_BIN"); env != nullptr && env[0] != '\0') {
    if (access(env, X_OK) == 0) return env;
    error =
        std::string("ruvio: RUVIO_WORKER_BIN=") + env + " is not executable: " + strerror(errno);
    return {};
  }
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    error = "ruvio: cannot find my own binary (/proc/self/exe): " + ec.message() +
            "; set RUVIO_WORKER_BIN";
    return {};
  }
  // Build tree: build/supervisor/ruvio + build/worker/ruvio-worker. Installed: side by side.
  const std::filesystem::path candidates[] = {
      (self.parent_path() / ".." / "worker" / "ruvio-worker").lexically_normal(),
      self.parent_path() / "ruvio-worker"};
  for (const auto& path : candidates) {
    if (access(path.c_str(), X_OK) == 0) return path.string();
  }
  error = "ruvio: worker binary not found (tried " + candidates[0].string() + " and " +
          candidates[1].string() + "); set RUVIO_WORKER_BIN";
  return {};
}

}  // namespace

int run(const Config& config) {
  std::string error;
  const std::string worker_bin = find_worker_binary(error);
  if (worker_bin.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  if (config.durability != Durability::kMemory) {
    std::error_code ec;
    std::filesystem::create_directories(config.dir, ec);
    if (ec) {
      std::fprintf(stderr, "ruvio: cannot create data directory '%s': %s\n", config.dir.c_str(),
                   ec.message().c_str());
      return 1;
    }
  }
  // A write to a worker's control socket after it died must be an error, not our death.
  signal(SIGPIPE, SIG_IGN);

  std::vector<int> proxy_fds;
  std::vector<int> direct_fds;
  const auto fail = [&] {
    std::fprintf(stderr, "%s\n", error.c_str());
    for (int fd : proxy_fds) close(fd);
    for (int fd : direct_fds) {
      if (fd >= 0) close(fd);
    }
    return 1;
  };
  int proxy_port = config.port;
  if (proxy_port != 0 && !port_is_free(config.bind, proxy_port, error)) return fail();
  for (int i = 0; i < config.workers; ++i) {
    // With port 0 the first bind picks the port and the others join it.
    const int fd = open_listener(config.bind, proxy_port, true, error);
    if (fd < 0) return fail();
    proxy_fds.push_back(fd);
  }
  for (int i = 0; i < config.workers; ++i) {
    if (config.worker_base_port == 0) {
      direct_fds.push_back(-1);
      continue;
    }
    int port = config.worker_base_port + i;
    const int fd = open_listener(config.bind, port, false, error);
    if (fd < 0) return fail();
    direct_fds.push_back(fd);
  }

  Config resolved = config;
  resolved.port = proxy_port;  // the real port when 0 was asked for
  auto supervisor = std::make_unique<Supervisor>(resolved, worker_bin);
  if (auto failed = build_topology(resolved, supervisor->topology)) {
    error = *failed;
    return fail();
  }
  if (auto warning = assign_stored_ids(supervisor->topology, resolved.dir)) {
    spdlog::warn("{}", *warning);
  }
  return supervisor->run(std::move(proxy_fds), std::move(direct_fds), proxy_port);
}

}  // namespace ruvio::supervisor
