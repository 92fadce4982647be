// Topology: building (default or from the topology file), validation, and node ids.
#include "shared/topology.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace ruvio {
namespace {

std::string range_text(int first, int last) {
  return first == last ? "slot " + std::to_string(first)
                       : "slots " + std::to_string(first) + "-" + std::to_string(last);
}

std::string endpoint(const ClusterNode& n) {
  return n.host + ":" + std::to_string(n.port);
}

std::optional<int> parse_number(std::string_view text, int lo, int hi) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < lo || value > hi) {
    return std::nullopt;
  }
  return value;
}

// "a-b" or "a", both within 0..16383, a <= b.
std::optional<SlotRange> parse_range(std::string_view text) {
  const auto dash = text.find('-');
  const auto first = parse_number(text.substr(0, dash), 0, kSlotCount - 1);
  auto last = first;
  if (dash != std::string_view::npos) last = parse_number(text.substr(dash + 1), 0, kSlotCount - 1);
  if (!first || !last || *last < *first) return std::nullopt;
  return SlotRange{static_cast<std::uint16_t>(*first), static_cast<std::uint16_t>(*last)};
}

// "host:port", "[v6]:port". The host must be a numeric address: clients dial it as given.
bool parse_endpoint(std::string_view text, std::string& host, int& port) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::string_view h = text.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  const auto p = parse_number(text.substr(colon + 1), 1, 65535);
  if (h.empty() || !p) return false;
  std::array<unsigned char, sizeof(in6_addr)> buf{};
  const std::string hs(h);
  if (inet_pton(AF_INET, hs.c_str(), buf.data()) != 1 &&
      inet_pton(AF_INET6, hs.c_str(), buf.data()) != 1) {
    return false;
  }
  host = hs;
  port = *p;
  return true;
}

// Canonical text of a numeric address, so "127.000.0.1"-style spellings cannot hide a match.
std::string canonical(const std::string& host) {
  std::array<unsigned char, sizeof(in6_addr)> buf{};
  std::array<char, INET6_ADDRSTRLEN> out{};
  if (inet_pton(AF_INET, host.c_str(), buf.data()) == 1) {
    return inet_ntop(AF_INET, buf.data(), out.data(), out.size()) ? out.data() : host;
  }
  if (inet_pton(AF_INET6, host.c_str(), buf.data()) == 1) {
    return inet_ntop(AF_INET6, buf.data(), out.data(), out.size()) ? out.data() : host;
  }
  return host;
}

bool wildcard(const std::string& bind) {
  return bind == "0.0.0.0" || canonical(bind) == "::";
}

// With a wildcard bind, a file entry is ours when its host is one of this machine's
// addresses (or loopback).
bool is_local_address(const std::string& host) {
  const std::string want = canonical(host);
  if (want == "127.0.0.1" || want == "::1") return true;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* a = list; a != nullptr && !found; a = a->ifa_next) {
    if (a->ifa_addr == nullptr) continue;
    std::array<char, INET6_ADDRSTRLEN> out{};
    const void* raw = nullptr;
    if (a->ifa_addr->sa_family == AF_INET) {
      raw = &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr;
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      raw = &reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr;
    } else {
      continue;
    }
    if (inet_ntop(a->ifa_addr->sa_family, raw, out.data(), out.size()) != nullptr) {
      found = want == out.data();
    }
  }
  freeifaddrs(list);
  return found;
}

// The address advertised for local workers when none is written down: the bind address,
// or loopback for a wildcard bind (a topology file names real addresses).
std::string advertised_host(const std::string& bind) {
  if (bind == "0.0.0.0") return "127.0.0.1";
  if (canonical(bind) == "::") return "::1";
  return bind;
}

std::string hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 15]);
  }
  return out;
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64 finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

// ---- Topology --------------------------------------------------------------------------------

std::size_t Topology::slot_count(int node) const {
  std::size_t n = 0;
  for (const SlotRange& r : nodes[static_cast<std::size_t>(node)].slots) {
    n += static_cast<std::size_t>(r.last - r.first + 1);
  }
  return n;
}

SlotRange Topology::worker_span(int worker) const {
  const auto& slots =
      nodes[static_cast<std::size_t>(workers[static_cast<std::size_t>(worker)])].slots;
  if (slots.empty()) return SlotRange{};
  return SlotRange{slots.front().first, slots.back().last};
}

std::optional<std::string> Topology::rebuild_index() {
  owner_.assign(kSlotCount, -1);
  local_worker_.assign(nodes.size(), -1);
  for (std::size_t w = 0; w < workers.size(); ++w) {
    const int node = workers[w];
    if (node >= 0 && static_cast<std::size_t>(node) < nodes.size()) {
      local_worker_[static_cast<std::size_t>(node)] = static_cast<std::int32_t>(w);
    }
  }
  std::optional<std::string> error;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    for (const SlotRange& r : nodes[n].slots) {
      for (int s = r.first; s <= r.last; ++s) {
        auto& owner = owner_[static_cast<std::size_t>(s)];
        if (owner >= 0 && !error) {
          error = "slot " + std::to_string(s) + " is assigned to both " +
                  endpoint(nodes[static_cast<std::size_t>(owner)]) + " and " + endpoint(nodes[n]);
        }
        if (owner < 0) owner = static_cast<std::int16_t>(n);
      }
    }
  }
  if (error) return error;
  for (int s = 0; s < kSlotCount; ++s) {
    if (owner_[static_cast<std::size_t>(s)] >= 0) continue;
    int e = s;
    while (e + 1 < kSlotCount && owner_[static_cast<std::size_t>(e + 1)] < 0) ++e;
    return range_text(s, e) + (s == e ? " is" : " are") + " not assigned to any node";
  }
  return std::nullopt;
}

// ---- node ids --------------------------------------------------------------------------------

bool valid_node_id(std::string_view id) {
  if (id.size() != 40) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string random_node_id() {
  std::array<unsigned char, 20> bytes{};
  std::random_device rd;  // /dev/urandom on Linux
  for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  return hex(bytes.data(), bytes.size());
}

std::string derived_node_id(std::string_view host, int port) {
  // FNV-1a of "host:port", then splitmix rounds: stable on every build and machine.
  std::string key(host);
  key += ':';
  key += std::to_string(port);
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  std::array<unsigned char, 24> bytes{};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::uint64_t v = mix(h + 0x9e3779b97f4a7c15ULL * (i + 1));
    for (std::size_t b = 0; b < 8; ++b) bytes[i * 8 + b] = static_cast<unsigned char>(v >> (8 * b));
  }
  return hex(bytes.data(), 20);
}

// ---- building --------------------------------------------------------------------------------

std::optional<std::string> parse_topology(std::string_view text, const std::string& path,
                                          const Config& config, Topology& out) {
  Topology topo;
  const std::string file = "ruvio: cluster config " + path;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    std::vector<std::string_view> words;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      const std::size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
      if (i > start) words.push_back(line.substr(start, i - start));
    }
    if (words.empty()) continue;
    const std::string where = file + " line " + std::to_string(line_no) + ": ";
    if (words[0] != "node") {
      return where + "unknown keyword '" + std::string(words[0]) +
             "' (want: node <host>:<port> <first>-<last> ...)";
    }
    ClusterNode node;
    if (words.size() < 2 || !parse_endpoint(words[1], node.host, node.port)) {
      return where + "want 'node <ip>:<port>' with a numeric IPv4/IPv6 address and a port 1..65535";
    }
    for (std::size_t i = 2; i < words.size(); ++i) {
      const std::string_view w = words[i];
      if (w.starts_with("id=")) {
        node.id = std::string(w.substr(3));
        if (!valid_node_id(node.id)) return where + "the node id must be 40 lower-case hex digits";
        continue;
      }
      const auto range = parse_range(w);
      if (!range) {
        return where + "bad slot range '" + std::string(w) +
               "' (want FIRST-LAST or SLOT, within 0-16383)";
      }
      node.slots.push_back(*range);
    }
    if (node.slots.empty()) return where + "node " + endpoint(node) + " lists no slots";
    std::sort(node.slots.begin(), node.slots.end(),
              [](const SlotRange& a, const SlotRange& b) { return a.first < b.first; });
    for (const ClusterNode& other : topo.nodes) {
      if (canonical(other.host) == canonical(node.host) && other.port == node.port) {
        return where + "node " + endpoint(node) + " is listed twice";
      }
    }
    if (node.id.empty()) node.id = derived_node_id(canonical(node.host), node.port);
    for (const ClusterNode& other : topo.nodes) {
      if (other.id == node.id) return where + "node id " + node.id + " is used twice";
    }
    topo.nodes.push_back(std::move(node));
  }
  if (topo.nodes.empty()) return file + ": lists no nodes";
  if (topo.nodes.size() > 16384) return file + ": more than 16384 nodes";

  if (config.worker_base_port == 0) {
    return file + ": needs the direct ports (--worker-base-port is 0)";
  }
  const bool any_host = wildcard(config.bind);
  const std::string bind = canonical(config.bind);
  for (int i = 0; i < config.workers; ++i) {
    const int port = config.worker_base_port + i;
    int found = -1;
    for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
      const ClusterNode& node = topo.nodes[n];
      if (node.port != port) continue;
      const std::string host = canonical(node.host);
      if (host == bind || (any_host && is_local_address(host))) {
        found = static_cast<int>(n);
        break;
      }
    }
    if (found < 0) {
      return file + ": lists no node for worker " + std::to_string(i) + " (" +
             advertised_host(config.bind) + ":" + std::to_string(port) + ")";
    }
    topo.workers.push_back(found);
  }
  if (auto error = topo.rebuild_index()) return file + ": " + *error;
  out = std::move(topo);
  return std::nullopt;
}

std::optional<std::string> build_topology(const Config& config, Topology& out) {
  if (!config.cluster_config.empty()) {
    std::ifstream in(config.cluster_config, std::ios::binary);
    if (!in) {
      return "ruvio: cannot read cluster config '" + config.cluster_config +
             "': " + std::strerror(errno);
    }
    std::stringstream text;
    text << in.rdbuf();
    return parse_topology(text.str(), config.cluster_config, config, out);
  }
  Topology topo;
  for (int i = 0; i < config.workers; ++i) {
    ClusterNode node;
    node.host = advertised_host(config.bind);
    node.port = config.worker_base_port == 0 ? 0 : config.worker_base_port + i;
    node.slots.push_back(slot_range(i, config.workers));
    topo.nodes.push_back(std::move(node));
    topo.workers.push_back(i);
  }
  if (auto error = topo.rebuild_index()) return "ruvio: " + *error;
  out = std::move(topo);
  return std::nullopt;
}

std::optional<std::string> assign_stored_ids(Topology& topology, const std::string& dir) {
  std::optional<std::string> warning;
  for (std::size_t w = 0; w < topology.workers.size(); ++w) {
    ClusterNode& node = topology.nodes[static_cast<std::size_t>(topology.workers[w])];
    if (!node.id.empty()) continue;
    const std::filesystem::path wdir = std::filesystem::path(dir) / ("worker-" + std::to_string(w));
    const std::filesystem::path file = wdir / "node-id";
    {
      std::ifstream in(file);
      std::string id;
      if (in >> id && valid_node_id(id)) {
        node.id = id;
        continue;
      }
    }
    node.id = random_node_id();
    std::error_code ec;
    std::filesystem::create_directories(wdir, ec);
    // Written to a temporary name and renamed, so a crash never leaves half an id behind.
    const std::filesystem::path tmp = wdir / "node-id.tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << node.id << "\n";
      out.flush();
      if (!out) ec = std::make_error_code(std::errc::io_error);
    }
    if (!ec) std::filesystem::rename(tmp, file, ec);
    if (ec && !warning) {
      warning = "cannot store the node id in " + file.string() + ": " + ec.message() +
                "; it will change at the next start";
    }
  }
  return warning;
}

}  // namespace ruvio
