#include "supervisor/bpf/alloc_tracer.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <set>
#include <unordered_map>

#include "supervisor/bpf/alloc_trace_maps.h"
#include "supervisor/bpf/symbolizer.hpp"

// The generated skeleton is C written for C and C++; it trips pedantic warnings that are
// not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#include "alloc_trace.skel.h"
#pragma GCC diagnostic pop

namespace ruvio::supervisor {
namespace {

// The last libbpf warning, so load() can say what the kernel refused.
std::string g_libbpf_last;

int libbpf_log(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char buf[512];
  const int n = std::vsnprintf(buf, sizeof(buf), format, args);
  if (n > 0) {
    std::string line(buf);
    while (!line.empty() && line.back() == '\n') line.pop_back();
    g_libbpf_last = line;
    spdlog::debug("libbpf: {}", line);
  }
  return 0;
}

// The mimalloc library a worker maps (mimalloc's override: malloc is mi_malloc there).
std::string mimalloc_path(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(in, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    if (path.find("libmimalloc") != std::string::npos) return path;
  }
  return {};
}

template <class Key>
void delete_pid_entries(int map_fd, pid_t pid) {
  Key key{};
  Key next{};
  std::vector<Key> doomed;
  const void* prev = nullptr;
  while (bpf_map_get_next_key(map_fd, prev, &next) == 0) {
    if (static_cast<pid_t>(next.pid) == pid) doomed.push_back(next);
    key = next;
    prev = &key;
  }
  for (const auto& k : doomed) bpf_map_delete_elem(map_fd, &k);
}

}  // namespace

AllocTracer::AllocTracer() = default;

AllocTracer::~AllocTracer() {
  if (detacher_.joinable()) detacher_.join();
  for (auto& [id, a] : attached_) {
    for (auto* link : a.links) bpf_link__destroy(link);
  }
  for (auto* link : full_links_) bpf_link__destroy(link);
  if (skel_ != nullptr) alloc_trace::destroy(skel_);
}

bool AllocTracer::load() {
  libbpf_set_print(libbpf_log);
  g_libbpf_last.clear();
  errno = 0;
  alloc_trace* skel = alloc_trace::open_and_load();
  if (skel == nullptr) {
    const int err = errno;
    reason_ = std::string("the kernel refused the BPF program: ") +
              (err != 0 ? std::strerror(err) : "unknown error");
    if (err == EPERM || err == EACCES) {
      reason_ += " (needs root or CAP_BPF+CAP_PERFMON, and no kernel lockdown)";
    }
    if (!g_libbpf_last.empty()) reason_ += "; libbpf: " + g_libbpf_last;
    return false;
  }
  skel_ = skel;
  reason_.clear();
  return true;
}

std::string AllocTracer::attach_worker(int id, pid_t pid, const std::string& worker_bin) {
  if (skel_ == nullptr) return reason_;
  detach_worker(id);
  Attached a;
  a.pid = pid;
  for (auto [prog, name] : {std::pair{skel_->progs.on_alloc_sample, "alloc_sample"},
                            std::pair{skel_->progs.on_free_sample, "free_sample"}}) {
    bpf_link* link =
        bpf_program__attach_usdt(prog, pid, worker_bin.c_str(), "ruvio", name, nullptr);
    if (link == nullptr) {
      const int err = errno;
      for (auto* l : a.links) bpf_link__destroy(l);
      return std::string("cannot attach USDT ruvio:") + name + " in " + worker_bin + ": " +
             std::strerror(err);
    }
    a.links.push_back(link);
  }
  attached_[id] = std::move(a);
  return {};
}

void AllocTracer::forget_pid(pid_t pid) {
  if (skel_ == nullptr) return;
  delete_pid_entries<ptr_key>(bpf_map__fd(skel_->maps.sampled_ptrs), pid);
  delete_pid_entries<class_key>(bpf_map__fd(skel_->maps.class_live), pid);
  delete_pid_entries<stack_key>(bpf_map__fd(skel_->maps.stack_live), pid);
}

void AllocTracer::detach_worker(int id) {
  const auto it = attached_.find(id);
  if (it == attached_.end()) return;
  for (auto* link : it->second.links) bpf_link__destroy(link);
  forget_pid(it->second.pid);
  if (full_pid_ == it->second.pid) full_finish(id, 0);
  attached_.erase(it);
}

std::vector<std::string> AllocTracer::stack_frames(int stack_id, pid_t pid) {
  std::vector<std::string> frames;
  if (stack_id < 0) {
    frames.emplace_back("[stack not captured]");
    return frames;
  }
  std::uint64_t ips[RUVIO_STACK_DEPTH] = {};
  const std::uint32_t key = static_cast<std::uint32_t>(stack_id);
  if (bpf_map_lookup_elem(bpf_map__fd(skel_->maps.stacks), &key, ips) != 0) {
    frames.emplace_back("[stack evicted]");
    return frames;
  }
  static Symbolizer symbolizer;
  static pid_t loaded_for = 0;
  if (loaded_for != pid) {
    symbolizer.load_maps(pid);
    loaded_for = pid;
  }
  for (std::uint64_t ip : ips) {
    if (ip == 0) break;
    frames.push_back(symbolizer.symbolize(ip));
  }
  return frames;
}

namespace {

struct Agg {
  std::int64_t bytes = 0;
  std::int64_t count = 0;
};

void finish(AllocWorker& w, const std::map<std::uint64_t, Agg>& classes,
            std::vector<std::pair<int, Agg>>& stacks) {
  for (const auto& [size, agg] : classes) {
    if (agg.count <= 0) continue;
    w.by_size_class.push_back({size, agg.bytes, agg.count});
    w.live_bytes += agg.bytes;
    w.live_count += agg.count;
  }
  std::sort(w.by_size_class.begin(), w.by_size_class.end(),
            [](const AllocSizeClass& a, const AllocSizeClass& b) { return a.bytes > b.bytes; });
  std::sort(stacks.begin(), stacks.end(),
            [](const auto& a, const auto& b) { return a.second.bytes > b.second.bytes; });
}

}  // namespace

AllocWorker AllocTracer::sampled(int id, pid_t pid, std::size_t top_stacks) {
  AllocWorker w;
  w.id = id;
  w.pid = pid;
  if (skel_ == nullptr || attached_.count(id) == 0) return w;
  w.traced = true;
  std::map<std::uint64_t, Agg> classes;
  {
    const int fd = bpf_map__fd(skel_->maps.class_live);
    class_key key{}, next{};
    const void* prev = nullptr;
    while (bpf_map_get_next_key(fd, prev, &next) == 0) {
      live_val v{};
      if (static_cast<pid_t>(next.pid) == pid && bpf_map_lookup_elem(fd, &next, &v) == 0) {
        classes[next.size_class].bytes += v.bytes;
        classes[next.size_class].count += v.count;
      }
      key = next;
      prev = &key;
    }
  }
  std::vector<std::pair<int, Agg>> stacks;
  {
    const int fd = bpf_map__fd(skel_->maps.stack_live);
    stack_key key{}, next{};
    const void* prev = nullptr;
    while (bpf_map_get_next_key(fd, prev, &next) == 0) {
      live_val v{};
      if (static_cast<pid_t>(next.pid) == pid && bpf_map_lookup_elem(fd, &next, &v) == 0 &&
          v.count > 0) {
        stacks.push_back({next.stack, {v.bytes, v.count}});
      }
      key = next;
      prev = &key;
    }
  }
  finish(w, classes, stacks);
  for (std::size_t i = 0; i < stacks.size() && i < top_stacks; ++i) {
    w.top_stacks.push_back(
        {stacks[i].second.bytes, stacks[i].second.count, stack_frames(stacks[i].first, pid)});
  }
  return w;
}

std::string AllocTracer::full_start(pid_t pid) {
  if (skel_ == nullptr) return reason_;
  if (full_pid_ != 0) return "a full trace is already running";
  if (detaching_->load()) {
    return "the previous full trace's probes are still being detached; try again in a few "
           "seconds";
  }
  if (detacher_.joinable()) detacher_.join();  // finished: returns at once
  const std::string lib = mimalloc_path(pid);
  if (lib.empty()) return "worker pid " + std::to_string(pid) + " maps no libmimalloc";
  // Entry points by kind. Aliases (malloc = mi_malloc, operator new = mi_new) share an
  // address; attaching one name per address keeps each call counted once.
  struct Probe {
    const char* name;
    bpf_program* prog;
  };
  const Probe probes[] = {
      {"mi_malloc", skel_->progs.full_malloc},
      {"mi_zalloc", skel_->progs.full_malloc},
      {"mi_malloc_aligned", skel_->progs.full_malloc},
      {"mi_malloc_aligned_at", skel_->progs.full_malloc},
      {"mi_zalloc_aligned", skel_->progs.full_malloc},
      {"mi_zalloc_aligned_at", skel_->progs.full_malloc},
      {"mi_new", skel_->progs.full_malloc},
      {"mi_new_aligned", skel_->progs.full_malloc},
      {"mi_new_nothrow", skel_->progs.full_malloc},
      {"mi_new_aligned_nothrow", skel_->progs.full_malloc},
      {"mi_calloc", skel_->progs.full_calloc},
      {"mi_mallocn", skel_->progs.full_calloc},
      {"mi_new_n", skel_->progs.full_calloc},
      {"mi_calloc_aligned", skel_->progs.full_calloc},
      {"mi_realloc", skel_->progs.full_realloc},
      {"mi_new_realloc", skel_->progs.full_realloc},
      {"mi_realloc_aligned", skel_->progs.full_realloc},
      {"mi_free", skel_->progs.full_free},
      {"mi_free_size", skel_->progs.full_free},
      {"mi_free_aligned", skel_->progs.full_free},
  };
  full_pid_ = pid;
  // Offsets resolved once here: libbpf's by-name lookup re-reads the ELF file per probe.
  std::vector<std::string> names;
  for (const Probe& p : probes) names.emplace_back(p.name);
  Symbolizer elf_reader;
  const auto offsets = elf_reader.function_offsets(lib, names);
  std::set<std::uint64_t> done;
  for (const Probe& p : probes) {
    const auto it = offsets.find(p.name);
    if (it == offsets.end() || !done.insert(it->second).second) continue;
    const auto offset = static_cast<std::size_t>(it->second);
    bpf_link* link = bpf_program__attach_uprobe_opts(p.prog, pid, lib.c_str(), offset, nullptr);
    if (link == nullptr) {
      spdlog::debug("full alloc trace: no uprobe on {} in {}: {}", p.name, lib, strerror(errno));
      continue;
    }
    full_links_.push_back(link);
    if (p.prog == skel_->progs.full_free) continue;
    LIBBPF_OPTS(bpf_uprobe_opts, ret_opts, .retprobe = true);
    link = bpf_program__attach_uprobe_opts(skel_->progs.full_return, pid, lib.c_str(), offset,
                                           &ret_opts);
    if (link != nullptr) full_links_.push_back(link);
  }
  if (full_links_.empty()) {
    full_pid_ = 0;
    return "cannot attach any uprobe to " + lib;
  }
  skel_->bss->full_on = 1;
  return {};
}

AllocWorker AllocTracer::full_finish(int id, std::size_t top_stacks) {
  AllocWorker w;
  w.id = id;
  w.pid = full_pid_;
  if (skel_ == nullptr) return w;
  w.traced = true;
  skel_->bss->full_on = 0;
  // Unregistering a uprobe waits for the kernel (RCU) once per probe: seconds for all of
  // them. The probes are already quiet, so that wait happens on a thread of its own.
  if (detacher_.joinable()) detacher_.join();
  detaching_->store(true);
  detacher_ = std::thread([links = std::move(full_links_), flag = detaching_] {
    for (auto* link : links) bpf_link__destroy(link);
    flag->store(false);
  });
  full_links_.clear();
  std::map<std::uint64_t, Agg> classes;
  std::unordered_map<int, Agg> by_stack;
  const int fd = bpf_map__fd(skel_->maps.full_ptrs);
  ptr_key key{}, next{};
  const void* prev = nullptr;
  std::vector<ptr_key> seen;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    ptr_info info{};
    if (bpf_map_lookup_elem(fd, &next, &info) == 0 && static_cast<pid_t>(next.pid) == full_pid_) {
      auto& c = classes[info.size];
      c.bytes += static_cast<std::int64_t>(info.size);
      c.count += 1;
      auto& s = by_stack[info.stack];
      s.bytes += static_cast<std::int64_t>(info.size);
      s.count += 1;
    }
    seen.push_back(next);
    key = next;
    prev = &key;
  }
  std::vector<std::pair<int, Agg>> stacks(by_stack.begin(), by_stack.end());
  finish(w, classes, stacks);
  for (std::size_t i = 0; i < stacks.size() && i < top_stacks; ++i) {
    w.top_stacks.push_back(
        {stacks[i].second.bytes, stacks[i].second.count, stack_frames(stacks[i].first, full_pid_)});
  }
  for (const auto& k : seen) bpf_map_delete_elem(fd, &k);
  // Calls in flight when the probes went away never return through them.
  const int pfd = bpf_map__fd(skel_->maps.pending);
  std::uint64_t pk = 0, pnext = 0;
  std::vector<std::uint64_t> pending;
  const void* pprev = nullptr;
  while (bpf_map_get_next_key(pfd, pprev, &pnext) == 0) {
    pending.push_back(pnext);
    pk = pnext;
    pprev = &pk;
  }
  for (auto k : pending) bpf_map_delete_elem(pfd, &k);
  full_pid_ = 0;
  return w;
}

}  // namespace ruvio::supervisor
