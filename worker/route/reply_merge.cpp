#include "worker/route/reply_merge.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>

#include "proto/reply_scan.hpp"
#include "worker/route/acl_log_merge.hpp"
#include "worker/route/info_merge.hpp"
#include "worker/route/latency_merge.hpp"

namespace ruvio::worker {

const std::string* first_error(const std::vector<std::string>& parts) {
  for (const std::string& p : parts) {
    if (reply_is_error(p)) return &p;
  }
  return nullptr;
}

// Splits an aggregate reply into its elements (views into `reply`).
bool elements(std::string_view reply, std::vector<std::string_view>& out) {
  auto h = reply_aggregate(reply);
  if (!h) return false;
  std::size_t pos = h->body;
  for (std::int64_t i = 0; i < h->count; ++i) {
    std::size_t len = reply_length(reply.substr(pos));
    if (len == 0) return false;
    out.push_back(reply.substr(pos, len));
    pos += len;
  }
  return true;
}

// Channel lists: each channel once, whichever workers have subscribers to it.
void merge_union(std::vector<std::string>& parts, std::string& out) {
  if (const std::string* e = first_error(parts)) {
    out = *e;
    return;
  }
  std::vector<std::string_view> seen;
  for (const std::string& p : parts) {
    std::vector<std::string_view> items;
    elements(p, items);
    for (std::string_view item : items) {
      if (std::find(seen.begin(), seen.end(), item) == seen.end()) seen.push_back(item);
    }
  }
  out = "*" + std::to_string(seen.size()) + "\r\n";
  for (std::string_view item : seen) out.append(item);
}

namespace {

void merge_sum(std::vector<std::string>& parts, std::string& out) {
  if (const std::string* e = first_error(parts)) {
    out = *e;
    return;
  }
  std::int64_t total = 0;
  for (const std::string& p : parts) total += reply_integer(p).value_or(0);
  out = ":" + std::to_string(total) + "\r\n";
}

void merge_ok(std::vector<std::string>& parts, std::string& out) {
  const std::string* e = first_error(parts);
  out = e ? *e : parts[0];
}

void merge_concat(std::vector<std::string>& parts, std::string& out) {
  if (const std::string* e = first_error(parts)) {
    out = *e;
    return;
  }
  std::int64_t total = 0;
  std::string body;
  for (const std::string& p : parts) {
    auto h = reply_aggregate(p);
    if (!h) continue;
    total += h->count;
    body.append(p, h->body, std::string::npos);
  }
  out = "*" + std::to_string(total) + "\r\n" + body;
}

// NUMSUB: [channel, count, …] from every worker, counts added position by position.
void merge_numsub(std::vector<std::string>& parts, std::string& out) {
  if (const std::string* e = first_error(parts)) {
    out = *e;
    return;
  }
  std::vector<std::string_view> first;
  elements(parts[0], first);
  std::vector<std::int64_t> counts(first.size() / 2, 0);
  for (const std::string& p : parts) {
    std::vector<std::string_view> items;
    elements(p, items);
    for (std::size_t i = 1; i < items.size() && i / 2 < counts.size(); i += 2) {
      counts[i / 2] += reply_integer(items[i]).value_or(0);
    }
  }
  out = "*" + std::to_string(first.size()) + "\r\n";
  for (std::size_t i = 0; i + 1 < first.size(); i += 2) {
    out.append(first[i]);
    out += ":" + std::to_string(counts[i / 2]) + "\r\n";
  }
}

// agg_min / agg_max / agg_logical_and / agg_logical_or over integer replies.
template <class F>
MergeFn merge_int(F combine) {
  return [combine](std::vector<std::string>& parts, std::string& out) {
    if (const std::string* e = first_error(parts)) {
      out = *e;
      return;
    }
    if (reply_aggregate(parts[0])) {
      // An array of integers (SCRIPT EXISTS) combines element by element, as a cluster
      // client applies the policy.
      std::vector<std::string_view> first;
      elements(parts[0], first);
      std::vector<std::int64_t> acc(first.size());
      for (std::size_t j = 0; j < first.size(); ++j) acc[j] = reply_integer(first[j]).value_or(0);
      for (std::size_t i = 1; i < parts.size(); ++i) {
        std::vector<std::string_view> items;
        elements(parts[i], items);
        for (std::size_t j = 0; j < acc.size() && j < items.size(); ++j) {
          acc[j] = combine(acc[j], reply_integer(items[j]).value_or(0));
        }
      }
      out = "*" + std::to_string(acc.size()) + "\r\n";
      for (std::int64_t v : acc) out += ":" + std::to_string(v) + "\r\n";
      return;
    }
    std::int64_t acc = reply_integer(parts[0]).value_or(0);
    for (std::size_t i = 1; i < parts.size(); ++i) {
      acc = combine(acc, reply_integer(parts[i]).value_or(0));
    }
    out = ":" + std::to_string(acc) + "\r\n";
  };
}

// one_succeeded: the first reply that is not an error, else the first error.
void merge_one_ok(std::vector<std::string>& parts, std::string& out) {
  for (const std::string& p : parts) {
    if (!reply_is_error(p)) {
      out = p;
      return;
    }
  }
  out = parts[0];
}

// CLIENT KILL: the old form answers +OK where the client was and "No such client" on the other
// workers; the filter form answers a count per worker.
void merge_kill(std::vector<std::string>& parts, std::string& out) {
  for (const std::string& p : parts) {
    if (p.starts_with('+')) {
      out = p;
      return;
    }
  }
  if (parts[0].starts_with(':')) {
    merge_sum(parts, out);
  } else {
    out = parts[0];
  }
}

}  // namespace

// The merge of a response policy (or a Ruvio merge that needs no request context).
MergeFn merge_of(Merge how) {
  switch (how) {
    case Merge::kSum:
      return merge_sum;
    case Merge::kMin:
      return merge_int([](std::int64_t a, std::int64_t b) { return std::min(a, b); });
    case Merge::kMax:
      return merge_int([](std::int64_t a, std::int64_t b) { return std::max(a, b); });
    case Merge::kAnd:
      return merge_int([](std::int64_t a, std::int64_t b) -> std::int64_t { return a && b; });
    case Merge::kOr:
      return merge_int([](std::int64_t a, std::int64_t b) -> std::int64_t { return a || b; });
    case Merge::kOneOk:
      return merge_one_ok;
    case Merge::kConcat:
      return merge_concat;
    case Merge::kUnion:
      return merge_union;
    case Merge::kNumsub:
      return merge_numsub;
    case Merge::kKill:
      return merge_kill;
    default:  // all_succeeded, and every worker answering the same
      return merge_ok;
  }
}

}  // namespace ruvio::worker
