// ruvio-worker: started by the supervisor, never by hand. Reads its WorkerInit from the
// control socket, then serves its shard on the sockets it inherited.
#include <mimalloc.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cxxopts.hpp>
#include <string>

#include "shared/control.hpp"
#include "shared/log.hpp"
#include "worker/server/orphan_watchdog.hpp"
#include "worker/server/server.hpp"

namespace {

// Blocks until the first control frame arrives (the supervisor sends it right after fork).
std::optional<ruvio::control::WorkerInit> read_init(int fd) {
  std::string in;
  char buf[4096];
  for (;;) {
    std::size_t used = 0;
    bool bad = false;
    auto msg = ruvio::control::decode(in, used, bad);
    if (bad) return std::nullopt;
    if (msg) {
      if (auto* init = std::get_if<ruvio::control::WorkerInit>(&*msg)) return *init;
      return std::nullopt;
    }
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    in.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

int main(int argc, char** argv) {
  // mimalloc 2.0 keeps freed pages committed for a delay measured from when they were freed
  // and purges them only on a later allocator call: an idle worker then holds memory it no
  // longer uses (a FLUSHALL after a load kept ~24 MB resident). Purge at once instead.
  mi_option_set(mi_option_decommit_delay, 0);
  mi_option_set(mi_option_segment_decommit_delay, 0);
  cxxopts::Options options("ruvio-worker", "Ruvio shard worker (started by ruvio)");
  options.add_options()("id", "worker id", cxxopts::value<int>())("control-fd", "control socket",
                                                                  cxxopts::value<int>())(
      "listen-fd", "proxy port socket", cxxopts::value<int>()->default_value("-1"))(
      "direct-fd", "direct port socket", cxxopts::value<int>()->default_value("-1"));
  int control_fd = -1;
  int listen_fd = -1;
  int direct_fd = -1;
  try {
    auto parsed = options.parse(argc, argv);
    control_fd = parsed["control-fd"].as<int>();
    listen_fd = parsed["listen-fd"].as<int>();
    direct_fd = parsed["direct-fd"].as<int>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ruvio-worker: %s (this program is started by ruvio)\n", e.what());
    return 2;
  }
  auto init = read_init(control_fd);
  if (!init) {
    std::fprintf(stderr, "ruvio-worker: no valid WorkerInit on fd %d\n", control_fd);
    return 2;
  }
  ruvio::setup_logging(init->config.log_level, "worker " + std::to_string(init->id));
  // RUVIO_ORPHAN_GRACE_S shortens the grace for the test that proves the watchdog.
  const char* grace = std::getenv("RUVIO_ORPHAN_GRACE_S");
  ruvio::worker::start_orphan_watchdog(grace != nullptr ? std::atoi(grace) : 30);
  ruvio::worker::Server server(*init, control_fd);
  return server.run(listen_fd, direct_fd);
}
