// ACL LOG's proxy merge (see acl_log_merge.hpp).
#include "worker/route/acl_log_merge.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <string_view>

#include "proto/reply_scan.hpp"
#include "proto/resp_writer.hpp"
#include "worker/engine/acl.hpp"
#include "worker/engine/acl_check.hpp"

namespace ruvio::worker {
namespace {

// The elements of the aggregate `reply` (views into it); false when it is none.
bool split(std::string_view reply, std::vector<std::string_view>& out) {
  const auto h = reply_aggregate(reply);
  if (!h) return false;
  std::size_t pos = h->body;
  for (std::int64_t i = 0; i < h->count; ++i) {
    const std::size_t len = reply_length(reply.substr(pos));
    if (len == 0) return false;
    out.push_back(reply.substr(pos, len));
    pos += len;
  }
  return true;
}

// One raw entry [count reason context object username ctime-ms client-info].
bool decode(std::string_view raw, acl::LogEntry& e) {
  std::vector<std::string_view> f;
  if (!split(raw, f) || f.size() != 7) return false;
  const auto count = reply_integer(f[0]);
  const auto reason = reply_integer(f[1]);
  const auto context = reply_integer(f[2]);
  const auto object = reply_string(f[3]);
  const auto username = reply_string(f[4]);
  const auto ctime = reply_integer(f[5]);
  const auto info = reply_string(f[6]);
  if (!count || !reason || !context || !object || !username || !ctime || !info) return false;
  e.count = static_cast<std::uint64_t>(*count);
  e.reason = static_cast<acl::Denied>(*reason);
  e.context = static_cast<acl::LogContext>(*context);
  e.object = std::string(*object);
  e.username = std::string(*username);
  e.ctime_ms = *ctime;
  e.client_info = std::string(*info);
  return true;
}

}  // namespace

void merge_acl_log(const std::vector<std::string>& parts, std::size_t count, std::size_t max_len,
                   int resp, std::string& out) {
  // A worker that is down (restarting: its log is gone with it) adds nothing; when none
  // answers, the first error is the reply.
  if (std::all_of(parts.begin(), parts.end(),
                  [](const std::string& p) { return reply_is_error(p); })) {
    out = parts.empty() ? std::string("*0\r\n") : parts[0];
    return;
  }
  std::vector<acl::LogEntry> all;
  for (const std::string& p : parts) {
    if (reply_is_error(p)) continue;
    std::vector<std::string_view> entries;
    split(p, entries);
    // Newest first in each part: read backwards so that equal times keep their order.
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      acl::LogEntry e;
      if (decode(*it, e)) all.push_back(std::move(e));
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const acl::LogEntry& a, const acl::LogEntry& b) {
    return a.ctime_ms < b.ctime_ms;
  });
  std::deque<acl::LogEntry> log;
  for (acl::LogEntry& e : all) acl::log_insert(log, std::move(e), max_len);
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  out.clear();
  proto::ReplyWriter w(out, resp);
  write_acl_log(w, log, std::min(count, log.size()), now);
}

}  // namespace ruvio::worker
