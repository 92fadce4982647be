// LATENCY's proxy merge (see latency_merge.hpp).
#include "worker/route/latency_merge.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include "proto/reply_scan.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"

namespace ruvio::worker {
namespace {

// The elements of the aggregate `reply`; a RESP3 map's count is of pairs.
std::vector<std::string_view> split(std::string_view reply) {
  std::vector<std::string_view> out;
  const auto h = reply_aggregate(reply);
  if (!h) return out;
  const std::int64_t n = reply[0] == '%' ? h->count * 2 : h->count;
  std::size_t pos = h->body;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::size_t len = reply_length(reply.substr(pos));
    if (len == 0) return {};
    out.push_back(reply.substr(pos, len));
    pos += len;
  }
  return out;
}

std::int64_t integer(std::string_view v) {
  return reply_integer(v).value_or(0);
}

void merge_latest(const std::vector<std::string>& parts, proto::ReplyWriter& w) {
  struct Latest {
    std::string event;
    std::int64_t time = 0, latency = 0, max = 0;
  };
  std::vector<Latest> all;
  for (const std::string& p : parts) {
    for (std::string_view entry : split(p)) {
      const auto f = split(entry);
      if (f.size() != 4) continue;
      const std::string event(reply_string(f[0]).value_or(""));
      auto it =
          std::find_if(all.begin(), all.end(), [&](const Latest& l) { return l.event == event; });
      if (it == all.end()) {
        all.push_back(Latest{event, 0, 0, 0});
        it = all.end() - 1;
      }
      const std::int64_t time = integer(f[1]), latency = integer(f[2]);
      if (time > it->time || (time == it->time && latency > it->latency)) {
        it->time = time;
        it->latency = latency;
      }
      it->max = std::max(it->max, integer(f[3]));
    }
  }
  w.array(all.size());
  for (const Latest& l : all) {
    w.array(4);
    w.bulk(l.event);
    w.integer(l.time);
    w.integer(l.latency);
    w.integer(l.max);
  }
}

void merge_history(const std::vector<std::string>& parts, proto::ReplyWriter& w) {
  constexpr std::size_t kSamples = 160;  // LATENCY_TS_LEN
  std::map<std::int64_t, std::int64_t> by_time;
  for (const std::string& p : parts) {
    for (std::string_view sample : split(p)) {
      const auto f = split(sample);
      if (f.size() != 2) continue;
      std::int64_t& latency = by_time[integer(f[0])];
      latency = std::max(latency, integer(f[1]));
    }
  }
  while (by_time.size() > kSamples) by_time.erase(by_time.begin());
  w.array(by_time.size());
  for (const auto& [time, latency] : by_time) {
    w.array(2);
    w.integer(time);
    w.integer(latency);
  }
}

void merge_histogram(const std::vector<std::string>& parts, proto::ReplyWriter& w) {
  struct Command {
    std::string name;
    std::size_t occurrence = 0;  // a name asked twice is answered twice
    std::int64_t calls = 0;
    std::map<std::int64_t, std::int64_t> cumulative;  // µs label -> count, summed
  };
  std::vector<Command> all;
  for (const std::string& p : parts) {
    const auto f = split(p);
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i + 1 < f.size(); i += 2) {
      const std::string name(reply_string(f[i]).value_or(""));
      const std::size_t occurrence = seen[name]++;
      auto it = std::find_if(all.begin(), all.end(), [&](const Command& c) {
        return c.name == name && c.occurrence == occurrence;
      });
      if (it == all.end()) {
        all.push_back(Command{name, occurrence, 0, {}});
        it = all.end() - 1;
      }
      const auto body = split(f[i + 1]);  // calls n histogram_usec {label: count}
      if (body.size() != 4) continue;
      it->calls += integer(body[1]);
      const auto steps = split(body[3]);
      // This worker's cumulative count at every label of the merged set so far and its own.
      std::vector<std::pair<std::int64_t, std::int64_t>> mine;
      for (std::size_t s = 0; s + 1 < steps.size(); s += 2) {
        mine.emplace_back(integer(steps[s]), integer(steps[s + 1]));
      }
      std::map<std::int64_t, std::int64_t> merged = it->cumulative;
      for (const auto& [label, count] : mine) merged.emplace(label, 0);
      // Carry forward: a label this worker did not answer holds its previous count; a label
      // the others did not answer holds theirs.
      std::int64_t other = 0, own = 0;
      std::size_t next = 0;
      for (auto& [label, total] : merged) {
        auto prev = it->cumulative.find(label);
        if (prev != it->cumulative.end()) other = prev->second;
        while (next < mine.size() && mine[next].first <= label) own = mine[next++].second;
        total = other + own;
      }
      it->cumulative = std::move(merged);
    }
  }
  w.map(all.size());
  for (const Command& c : all) {
    w.bulk(c.name);
    w.map(2);
    w.bulk("calls");
    w.integer(c.calls);
    w.bulk("histogram_usec");
    std::vector<std::pair<std::int64_t, std::int64_t>> grew;
    std::int64_t previous = 0;
    for (const auto& [label, count] : c.cumulative) {
      if (count > previous) grew.emplace_back(label, count);
      previous = count;
    }
    w.map(grew.size());
    for (const auto& [label, count] : grew) {
      w.integer(label);
      w.integer(count);
    }
  }
}

}  // namespace

void write_histograms(const CommandStats& stats, bool tracking, proto::ReplyWriter& out) {
  const CommandTable& table = command_table();
  std::vector<std::size_t> ids;
  if (tracking) {
    for (std::size_t id = 0; id < table.ids(); ++id) {
      if (stats.histogram(id) != nullptr) ids.push_back(id);
    }
  }
  out.array(ids.size() * 2);
  for (std::size_t id : ids) {
    const LatencyHistogram& h = *stats.histogram(id);
    std::size_t used = 0;
    for (int i = 0; i < LatencyHistogram::kCountsLen; ++i) used += h.count_at_index(i) != 0;
    out.bulk(table.by_id(id)->name);
    out.array(used * 2);
    for (int i = 0; i < LatencyHistogram::kCountsLen; ++i) {
      if (h.count_at_index(i) == 0) continue;
      out.integer(i);
      out.integer(static_cast<std::int64_t>(h.count_at_index(i)));
    }
  }
}

void write_latency_events(const LatencyMonitor& monitor, proto::ReplyWriter& out) {
  out.array(monitor.series().size());
  for (const LatencyMonitor::Series& s : monitor.series()) {
    out.array(3);
    out.bulk(s.event);
    out.integer(s.max);
    out.array(s.samples.size() * 2);
    for (const LatencyMonitor::Sample& x : s.samples) {
      out.integer(x.time);
      out.integer(x.latency);
    }
  }
}

std::map<std::string, std::string, std::less<>> merged_percentile_lines(
    const std::vector<std::string>& parts, const std::vector<double>& percentiles) {
  // 24 KiB per command that ran, for the time of one INFO: the merge is exact only on the
  // whole slot array.
  std::map<std::string, std::unique_ptr<LatencyHistogram>, std::less<>> sums;
  for (const std::string& p : parts) {
    if (reply_is_error(p)) continue;
    const auto f = split(p);
    for (std::size_t i = 0; i + 1 < f.size(); i += 2) {
      const auto name = reply_string(f[i]);
      if (!name) continue;
      std::unique_ptr<LatencyHistogram>& h = sums[std::string(*name)];
      if (h == nullptr) h = std::make_unique<LatencyHistogram>();
      const auto slots = split(f[i + 1]);
      for (std::size_t s = 0; s + 1 < slots.size(); s += 2) {
        const std::int64_t count = integer(slots[s + 1]);
        if (count > 0) h->add_at_index(integer(slots[s]), static_cast<std::uint64_t>(count));
      }
    }
  }
  std::map<std::string, std::string, std::less<>> lines;
  for (const auto& [name, h] : sums) {
    std::string key = "latency_percentiles_usec_" + name;
    std::string line = key + ":" + latency_percentiles_value(*h, percentiles);
    lines.emplace(std::move(key), std::move(line));
  }
  return lines;
}

void merge_latency_report(std::string_view sub, std::string_view event,
                          const std::vector<std::string>& parts, const LatencyReport& report,
                          int resp, std::string& out) {
  if (const auto e = std::find_if(parts.begin(), parts.end(), reply_is_error); e != parts.end()) {
    out = *e;
    return;
  }
  struct Found {
    std::string_view event;
    std::uint32_t max = 0;
    std::vector<LatencyMonitor::Sample> samples;
  };
  std::vector<Found> all;
  for (const std::string& p : parts) {
    for (std::string_view entry : split(p)) {
      const auto f = split(entry);
      if (f.size() != 3) continue;
      Found x{reply_string(f[0]).value_or(""), static_cast<std::uint32_t>(integer(f[1])), {}};
      const auto samples = split(f[2]);
      for (std::size_t s = 0; s + 1 < samples.size(); s += 2) {
        x.samples.push_back(LatencyMonitor::Sample{
            integer(samples[s]), static_cast<std::uint32_t>(integer(samples[s + 1]))});
      }
      all.push_back(std::move(x));
    }
  }
  // One monitor lists its events in the order they first happened: the merged one by each
  // event's oldest sample still held (an event without samples last).
  const auto oldest = [](const Found& x) {
    return x.samples.empty() ? INT64_MAX : x.samples.front().time;
  };
  std::stable_sort(all.begin(), all.end(),
                   [&](const Found& a, const Found& b) { return oldest(a) < oldest(b); });
  LatencyMonitor merged;
  for (const Found& x : all) merged.absorb(x.event, x.max, x.samples);
  out.clear();
  proto::ReplyWriter w(out, resp);
  if (iequals(sub, "doctor")) {
    w.verbatim(report.render(merged));
    return;
  }
  const LatencyMonitor::Series* s = merged.find(event);
  if (s == nullptr) {
    std::string msg = "ERR No samples available for event '";
    msg.append(event).append("'");
    w.error(msg);
    return;
  }
  w.verbatim(latency_graph(*s, report.now));
}

void merge_latency(std::string_view sub, const std::vector<std::string>& parts, int resp,
                   std::string& out) {
  for (const std::string& p : parts) {
    if (reply_is_error(p)) {
      out = p;
      return;
    }
  }
  out.clear();
  proto::ReplyWriter w(out, resp);
  if (iequals(sub, "latest")) {
    merge_latest(parts, w);
  } else if (iequals(sub, "history")) {
    merge_history(parts, w);
  } else if (iequals(sub, "histogram")) {
    merge_histogram(parts, w);
  } else {  // reset
    std::int64_t n = 0;
    for (const std::string& p : parts) n = std::max(n, integer(p));
    w.integer(n);
  }
}

}  // namespace ruvio::worker
