#include "shared/proc_stats.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string>

namespace ruvio {
namespace {

// Whole small /proc file into `out`; false when it cannot be opened.
bool slurp(const std::string& path, std::string& out) {
  out.clear();
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  return true;
}

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr == text.data()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::uint64_t> proc_kb_field(std::string_view text, std::string_view key) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':') {
      continue;
    }
    std::string_view rest = line.substr(key.size() + 1);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    const auto kb = parse_u64(rest);
    if (!kb) return std::nullopt;
    return *kb * 1024;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> stat_cpu_ticks(std::string_view line) {
  const auto close = line.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  // After ") ": field 3 (state) is the first; utime is field 14, stime field 15.
  std::string_view rest = line.substr(close + 1);
  int field = 2;
  std::uint64_t total = 0;
  std::size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && rest[pos] == ' ') ++pos;
    const std::size_t end = rest.find(' ', pos);
    const std::string_view word =
        rest.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    ++field;
    if (field == 14 || field == 15) {
      const auto v = parse_u64(word);
      if (!v) return std::nullopt;
      total += *v;
      if (field == 15) return total;
    }
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return std::nullopt;
}

std::optional<ProcStats> read_proc_stats(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/";
  std::string text;
  ProcStats s;
  if (!slurp(dir + "status", text)) return std::nullopt;
  s.rss_bytes = proc_kb_field(text, "VmRSS").value_or(0);
  s.rss_anon_bytes = proc_kb_field(text, "RssAnon").value_or(0);
  // smaps_rollup exists since Linux 4.14; without it PSS stays 0 rather than failing all.
  if (slurp(dir + "smaps_rollup", text)) {
    s.pss_bytes = proc_kb_field(text, "Pss").value_or(0);
    s.private_dirty_bytes = proc_kb_field(text, "Private_Dirty").value_or(0);
  }
  if (slurp(dir + "stat", text)) s.cpu_ticks = stat_cpu_ticks(text).value_or(0);
  return s;
}

}  // namespace ruvio
