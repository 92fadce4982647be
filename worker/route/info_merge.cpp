#include "worker/route/info_merge.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/reply_scan.hpp"
#include "worker/engine/common.hpp"

namespace ruvio::worker {
namespace {

// Fields that describe the whole service when summed over the workers.
const std::set<std::string_view, std::less<>> kSummed = {
    "connected_clients",
    "blocked_clients",
    "total_connections_received",
    "total_commands_processed",
    "instantaneous_ops_per_sec",
    "total_net_input_bytes",
    "total_net_output_bytes",
    "rejected_connections",
    "expired_keys",
    "evicted_keys",
    "evicted_clients",
    "keyspace_hits",
    "keyspace_misses",
    "used_memory",
    "used_memory_rss",
    "used_memory_dataset",
    "used_memory_peak",
    "lazyfree_pending_objects",
    "lazyfreed_objects",
    "pubsub_channels",
    "pubsub_patterns",
    "pubsubshard_channels",
    "clients_in_timeout_table",
    "expired_time_cap_reached_count",
    "expire_cycle_cpu_milliseconds",
    "total_eviction_exceeded_time",
    "total_forks",
    "dump_payload_sanitizations",
    "tracking_clients",
    "tracking_total_keys",
    "tracking_total_items",
    "tracking_total_prefixes",
    "total_error_replies",
    "unexpected_error_replies",
    "total_reads_processed",
    "total_writes_processed",
    "allocator_allocated",
    "allocator_active",
    "allocator_resident",
};

// The same for the rates INFO prints with two decimals.
const std::set<std::string_view, std::less<>> kSummedDecimal = {
    "instantaneous_input_kbps",
    "instantaneous_output_kbps",
};

struct Db {
  std::int64_t keys = 0, expires = 0, avg_ttl = 0;
};

std::int64_t to_int(std::string_view s) {
  std::int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// "keys=1,expires=0,avg_ttl=0"
Db parse_db(std::string_view v) {
  Db db;
  while (!v.empty()) {
    std::size_t comma = v.find(',');
    std::string_view kv = v.substr(0, comma);
    std::size_t eq = kv.find('=');
    if (eq != std::string_view::npos) {
      std::string_view k = kv.substr(0, eq);
      std::int64_t n = to_int(kv.substr(eq + 1));
      if (k == "keys") db.keys = n;
      if (k == "expires") db.expires = n;
      if (k == "avg_ttl") db.avg_ttl = n;
    }
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return db;
}

template <class Fn>
void for_each_line(std::string_view text, Fn fn) {
  while (!text.empty()) {
    std::size_t end = text.find("\r\n");
    fn(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 2);
  }
}

// Per-command and per-error lines ("cmdstat_get:calls=3,usec=9,usec_per_call=3.00,…",
// "errorstat_ERR:count=2"): every worker's counters added field by field; usec_per_call is
// recomputed from the sums.
class CounterLines {
 public:
  static bool wanted(std::string_view key) {
    return key.starts_with("cmdstat_") || key.starts_with("errorstat_");
  }
  void add(std::string_view key, std::string_view value) {
    auto& fields = lines_[std::string(key)];
    while (!value.empty()) {
      const std::size_t comma = value.find(',');
      const std::string_view kv = value.substr(0, comma);
      const std::size_t eq = kv.find('=');
      if (eq != std::string_view::npos) {
        const std::string_view k = kv.substr(0, eq);
        auto it =
            std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == k; });
        if (it == fields.end()) {
          fields.emplace_back(std::string(k), 0);
          it = fields.end() - 1;
        }
        it->second += to_int(kv.substr(eq + 1));
      }
      if (comma == std::string_view::npos) break;
      value.remove_prefix(comma + 1);
    }
  }
  // The lines of one section (by key prefix), sorted by name.
  void write(std::string& out, std::string_view prefix) const {
    for (const auto& [key, fields] : lines_) {
      if (!std::string_view(key).starts_with(prefix)) continue;
      out.append(key).append(":");
      std::int64_t calls = 0, usec = 0;
      for (const auto& [k, v] : fields) {
        if (k == "calls") calls = v;
        if (k == "usec") usec = v;
      }
      bool first = true;
      for (const auto& [k, v] : fields) {
        if (!first) out.append(",");
        first = false;
        out.append(k).append("=");
        if (k == "usec_per_call") {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.2f",
                        calls == 0 ? 0.0 : static_cast<double>(usec) / static_cast<double>(calls));
          out.append(buf);
        } else {
          out.append(std::to_string(v));
        }
      }
      out.append("\r\n");
    }
  }

 private:
  std::map<std::string, std::vector<std::pair<std::string, std::int64_t>>, std::less<>> lines_;
};

}  // namespace

bool info_wants_latencystats(std::span<const std::string_view> args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (iequals(args[i], "latencystats") || iequals(args[i], "all") ||
        iequals(args[i], "everything")) {
      return true;
    }
  }
  return false;
}

std::string merge_info(const std::vector<std::string>& parts, std::size_t self, bool per_worker,
                       const std::map<std::string, std::string, std::less<>>* merged) {
  std::vector<std::string_view> texts;
  for (const std::string& p : parts) texts.push_back(reply_string(p).value_or(""));
  std::map<std::string, std::int64_t, std::less<>> sums;
  std::map<std::string, double, std::less<>> decimal_sums;
  std::map<int, Db> keyspace;
  CounterLines counters;
  // latency_percentiles_usec_<name> of every worker: percentiles do not add up, so a command
  // that ran on several workers shows the line of the first worker that has it (this one
  // first); one that ran on one worker only shows that worker's exact line.
  std::map<std::string, std::string, std::less<>> percentiles;
  std::vector<std::size_t> order(texts.size());
  for (std::size_t w = 0; w < order.size(); ++w) order[w] = w;
  if (self < order.size()) std::swap(order[0], order[self]);
  for (std::size_t w : order) {
    if (merged != nullptr) break;
    for_each_line(texts[w], [&](std::string_view line) {
      if (!line.starts_with("latency_percentiles_usec_")) return;
      const std::size_t colon = line.find(':');
      percentiles.emplace(std::string(line.substr(0, colon)), std::string(line));
    });
  }
  std::vector<std::int64_t> worker_keys(texts.size(), 0);
  std::vector<std::int64_t> worker_memory(texts.size(), 0);
  std::vector<std::int64_t> worker_clients(texts.size(), 0);
  std::vector<std::int64_t> worker_pid(texts.size(), 0);
  for (std::size_t w = 0; w < texts.size(); ++w) {
    for_each_line(texts[w], [&](std::string_view line) {
      std::size_t colon = line.find(':');
      if (colon == std::string_view::npos) return;
      std::string_view key = line.substr(0, colon), value = line.substr(colon + 1);
      if (kSummed.count(key)) sums[std::string(key)] += to_int(value);
      if (kSummedDecimal.count(key)) {
        double v = 0;
        std::from_chars(value.data(), value.data() + value.size(), v);
        decimal_sums[std::string(key)] += v;
      }
      if (CounterLines::wanted(key)) counters.add(key, value);
      if (key == "used_memory") worker_memory[w] = to_int(value);
      if (key == "connected_clients") worker_clients[w] = to_int(value);
      if (key == "process_id") worker_pid[w] = to_int(value);
      if (key.size() > 2 && key.substr(0, 2) == "db") {
        Db d = parse_db(value);
        Db& total = keyspace[static_cast<int>(to_int(key.substr(2)))];
        total.keys += d.keys;
        total.expires += d.expires;
        worker_keys[w] += d.keys;
      }
    });
  }
  std::string out;
  bool in_keyspace = false;
  for_each_line(texts[self < texts.size() ? self : 0], [&](std::string_view line) {
    if (line == "# Keyspace") {
      in_keyspace = true;
      out.append(line).append("\r\n");
      for (auto& [db, d] : keyspace) {
        out += "db" + std::to_string(db) + ":keys=" + std::to_string(d.keys) +
               ",expires=" + std::to_string(d.expires) + ",avg_ttl=0\r\n";
      }
      return;
    }
    if (!line.empty() && line[0] == '#') in_keyspace = false;
    if (in_keyspace && line.substr(0, 2) == "db") return;
    std::size_t colon = line.find(':');
    if (colon != std::string_view::npos && CounterLines::wanted(line.substr(0, colon))) return;
    if (line.starts_with("latency_percentiles_usec_")) return;
    if (line == "# Latencystats") {
      out.append(line).append("\r\n");
      for (const auto& [key, text] : merged != nullptr ? *merged : percentiles) {
        out.append(text).append("\r\n");
      }
      return;
    }
    if (line == "# Commandstats" || line == "# Errorstats") {
      out.append(line).append("\r\n");
      counters.write(out, line == "# Commandstats" ? "cmdstat_" : "errorstat_");
      return;
    }
    if (colon != std::string_view::npos) {
      auto it = sums.find(line.substr(0, colon));
      if (it != sums.end()) {
        out.append(line.substr(0, colon + 1)).append(std::to_string(it->second)).append("\r\n");
        return;
      }
      if (auto d = decimal_sums.find(line.substr(0, colon)); d != decimal_sums.end()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.2f", d->second);
        out.append(line.substr(0, colon + 1)).append(buf).append("\r\n");
        return;
      }
    }
    out.append(line).append("\r\n");
  });
  // The worker texts end with an empty line; keep one blank line between sections.
  while (out.size() >= 4 && out.compare(out.size() - 4, 4, "\r\n\r\n") == 0)
    out.resize(out.size() - 2);
  if (per_worker) {
    if (!out.empty()) out += "\r\n";
    out += "# Workers\r\n";
    for (std::size_t w = 0; w < texts.size(); ++w) {
      out += "worker" + std::to_string(w) + ":status=" + (texts[w].empty() ? "down" : "up") +
             ",pid=" + std::to_string(worker_pid[w]) + ",keys=" + std::to_string(worker_keys[w]) +
             ",used_memory=" + std::to_string(worker_memory[w]) +
             ",connected_clients=" + std::to_string(worker_clients[w]) + "\r\n";
    }
  }
  return out;
}

}  // namespace ruvio::worker
