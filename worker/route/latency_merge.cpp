// LATENCY's proxy merge (see latency_merge.hpp).
#include "worker/route/latency_merge.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "proto/reply_scan.hpp"
#include "proto/resp_writer.hpp"
#include "worker/commands/common.hpp"

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
