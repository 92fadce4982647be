#include "worker/server/client_limits.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace ruvio::worker {

void set_tcp_keepalive(int fd, int interval) {
  if (fd < 0 || interval <= 0) return;
  int yes = 1;
  if (::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof yes) != 0) return;
  int idle = interval;
  int intvl = interval / 3 > 0 ? interval / 3 : 1;
  int count = 3;
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

std::uint64_t fit_open_files(std::uint64_t clients, std::uint64_t reserved) {
  const rlim_t wanted = static_cast<rlim_t>(clients + reserved);
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return clients;
  if (limit.rlim_cur >= wanted) return clients;
  rlimit raised = limit;
  raised.rlim_cur = wanted;
  if (raised.rlim_max < wanted) raised.rlim_max = wanted;
  if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) return clients;
  const int error = errno;
  // As far as the hard limit allows, without privilege.
  raised.rlim_cur = limit.rlim_max;
  raised.rlim_max = limit.rlim_max;
  if (limit.rlim_max > limit.rlim_cur && ::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
    limit.rlim_cur = limit.rlim_max;
  }
  const std::uint64_t have = limit.rlim_cur > reserved ? limit.rlim_cur - reserved : 1;
  spdlog::warn("You requested maxclients of {} requiring at least {} max file descriptors.",
               clients, static_cast<std::uint64_t>(wanted));
  spdlog::warn("Server can't set maximum open files to {} because of OS error: {}.",
               static_cast<std::uint64_t>(wanted), std::strerror(error));
  spdlog::warn(
      "Current maximum open files is {}. maxclients has been reduced to {} to compensate for "
      "low ulimit. If you need higher maxclients increase 'ulimit -n'.",
      static_cast<std::uint64_t>(limit.rlim_cur), have);
  return have;
}

}  // namespace ruvio::worker
