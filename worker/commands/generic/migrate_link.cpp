#include "worker/commands/generic/migrate_link.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace ruvio::worker {

MigrateLink::~MigrateLink() {
  if (fd_ >= 0) ::close(fd_);
}

bool MigrateLink::wait(short events, int timeout_ms) {
  pollfd p{fd_, events, 0};
  for (;;) {
    const int n = ::poll(&p, 1, timeout_ms);
    if (n > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (n == 0 || errno != EINTR) return false;
  }
}

bool MigrateLink::connect(const std::string& host, const std::string& port, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return false;
  bool ok = false;
  for (addrinfo* a = res; a != nullptr && !ok; a = a->ai_next) {
    fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ < 0) continue;
    if (::connect(fd_, a->ai_addr, a->ai_addrlen) == 0) {
      ok = true;
    } else if (errno == EINPROGRESS) {
      ok = wait(POLLOUT, timeout_ms);  // ready with an error: the write reports it
    }
    if (!ok) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ::freeaddrinfo(res);
  return ok;
}

bool MigrateLink::write_all(std::string_view data, int timeout_ms) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return false;
    } else if (!wait(POLLOUT, timeout_ms)) {
      return false;
    }
  }
  return true;
}

bool MigrateLink::read_line(std::string& line, int timeout_ms) {
  for (;;) {
    const std::size_t nl = in_.find('\n');
    if (nl != std::string::npos) {
      line.assign(in_, 0, nl > 0 && in_[nl - 1] == '\r' ? nl - 1 : nl);
      in_.erase(0, nl + 1);
      return true;
    }
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
      in_.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      return false;
    } else if (!wait(POLLIN, timeout_ms)) {
      return false;
    }
  }
}

}  // namespace ruvio::worker
