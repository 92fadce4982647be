#include "shared/sd_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ruvio {

bool sd_notify_send(std::string_view state) {
  const char* name = std::getenv("NOTIFY_SOCKET");
  if (name == nullptr || name[0] == '\0') return false;
  const std::size_t name_len = std::strlen(name);
  if (name[0] != '/' && name[0] != '@') return false;  // vsock: etc. are not supported

  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (name_len > sizeof(addr.sun_path)) return false;
  std::memcpy(addr.sun_path, name, name_len);
  socklen_t addr_len = 0;
  if (name[0] == '@') {
    // Abstract socket: the name starts with a NUL byte and is not NUL-terminated; the
    // address length says where it ends.
    addr.sun_path[0] = '\0';
    addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name_len);
  } else {
    if (name_len == sizeof(addr.sun_path)) return false;  // no room for the terminator
    addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name_len + 1);
  }

  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  ssize_t sent = 0;
  do {
    sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                  reinterpret_cast<const sockaddr*>(&addr), addr_len);
  } while (sent < 0 && errno == EINTR);
  close(fd);
  return sent == static_cast<ssize_t>(state.size());
}

}  // namespace ruvio
