// The router's fan-out: a command every worker (or every key owner) answers, its parts sent
// over the mesh and merged (reply_merge.hpp), and the proxy's SCAN, whose cursor names the
// worker it is at.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>

#include "proto/reply_scan.hpp"
#include "shared/slots.hpp"
#include "worker/engine/acl_check.hpp"
#include "worker/engine/blocking.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/debug_digest.hpp"
#include "worker/engine/executor.hpp"
#include "worker/route/acl_log_merge.hpp"
#include "worker/route/info_merge.hpp"
#include "worker/route/latency_merge.hpp"
#include "worker/route/reply_merge.hpp"
#include "worker/route/router.hpp"

namespace ruvio::worker {

void Router::fan_out(RoutedClient& c, Merge how, std::span<const std::string_view> args) {
  MergeFn merge;
  switch (how) {
    case Merge::kRandom:
      merge = [start = static_cast<std::size_t>(std::rand())](std::vector<std::string>& parts,
                                                              std::string& out) {
        for (std::size_t i = 0; i < parts.size(); ++i) {
          const std::string& p = parts[(start + i) % parts.size()];
          if (reply_is_error(p) || p[0] == '$' || p[0] == '+') {
            if (p != "$-1\r\n") {
              out = p;
              return;
            }
          }
        }
        out = parts[0];  // every worker is empty: its null, in the client's protocol
      };
      break;
    case Merge::kInfo: {
      bool per_worker = args.size() == 1;
      for (std::size_t i = 1; i < args.size(); ++i) {
        per_worker |= iequals(args[i], "all") || iequals(args[i], "everything") ||
                      iequals(args[i], "default") || iequals(args[i], "workers");
      }
      // A worker that is down (its part is an error) shows as down; INFO still answers.
      // With latencystats asked, parts workers_.. are the workers' histograms: the
      // percentiles come from their sum, as one server holding every sample prints them.
      const bool latency = info_wants_latencystats(args);
      merge = [per_worker, self = self_, resp = c.info().resp, latency,
               percentiles = latency ? executor_.shard().config().latency_tracking_percentiles
                                     : std::vector<double>()](std::vector<std::string>& parts,
                                                              std::string& out) {
        std::map<std::string, std::string, std::less<>> lines;
        if (latency) {
          const auto half = static_cast<long>(parts.size() / 2);
          lines = merged_percentile_lines({parts.begin() + half, parts.end()}, percentiles);
          parts.resize(parts.size() / 2);
        }
        std::string text = merge_info(parts, static_cast<std::size_t>(self), per_worker,
                                      latency ? &lines : nullptr);
        std::string reply;
        proto::ReplyWriter w(reply, resp);
        w.verbatim(text);
        out = std::move(reply);
      };
      if (!latency) break;
      // The histograms go first: a worker answers them before its INFO runs, so INFO's own
      // call is not in them yet (Redis records a command after it ran).
      std::uint64_t seq = c.reserve(static_cast<std::uint32_t>(workers_ * 2), std::move(merge));
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(workers_ + w), MeshKind::kHistograms, args);
      }
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kCommand, args);
      }
      return;
    }
    case Merge::kSlowlog: {
      // Each worker answered its own newest entries (up to the count asked): the client gets
      // the newest of all of them, as one server's slow log would read.
      std::int64_t count = 10;
      if (args.size() == 3) count = parse_int64(args[2]).value_or(10);
      merge = [count](std::vector<std::string>& parts, std::string& out) {
        if (const std::string* e = first_error(parts)) {
          out = *e;
          return;
        }
        std::vector<std::pair<std::int64_t, std::string_view>> all;
        for (const std::string& p : parts) {
          std::vector<std::string_view> entries;
          elements(p, entries);
          for (std::string_view e : entries) {
            std::vector<std::string_view> fields;
            elements(e, fields);
            all.emplace_back(fields.size() > 1 ? reply_integer(fields[1]).value_or(0) : 0, e);
          }
        }
        std::stable_sort(all.begin(), all.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        if (count >= 0 && static_cast<std::size_t>(count) < all.size()) {
          all.resize(static_cast<std::size_t>(count));
        }
        out = "*" + std::to_string(all.size()) + "\r\n";
        for (const auto& [t, e] : all) out.append(e);
      };
      break;
    }
    case Merge::kAclLog: {
      // RESET clears every worker's log; a count reads every worker's entries as one log.
      // A wrong argument gets this worker's answer (the error one server would give).
      if (args.size() == 3 && iequals(args[2], "reset")) {
        merge = merge_of(Merge::kFirstError);
        break;
      }
      const std::optional<std::int64_t> n =
          args.size() == 3 ? parse_int64(args[2]) : std::optional<std::int64_t>(10);
      if (args.size() > 3 || !n) {
        executor_.execute(c.info(), args, c.local_writer());
        return;
      }
      const std::size_t count = *n < 0 ? 0 : static_cast<std::size_t>(*n);
      std::uint64_t seq =
          c.reserve(static_cast<std::uint32_t>(workers_),
                    [count, max_len = executor_.shard().acl().log_max_len, resp = c.info().resp](
                        std::vector<std::string>& parts, std::string& out) {
                      merge_acl_log(parts, count, max_len, resp, out);
                    });
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kAclLog, args);
      }
      return;
    }
    case Merge::kLatency: {
      const std::string sub(args.size() > 1 ? args[1] : "");
      if (iequals(sub, "doctor") || iequals(sub, "graph")) {
        // Rendered here from every worker's series, with this worker's settings.
        std::uint64_t seq =
            c.reserve(static_cast<std::uint32_t>(workers_),
                      [sub, event = std::string(args.size() > 2 ? args[2] : ""),
                       report = make_latency_report(executor_.shard().config()),
                       resp = c.info().resp](std::vector<std::string>& parts, std::string& out) {
                        merge_latency_report(sub, event, parts, report, resp, out);
                      });
        for (int w = 0; w < workers_; ++w) {
          send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kLatencyEvents, args);
        }
        return;
      }
      merge = [sub, resp = c.info().resp](std::vector<std::string>& parts, std::string& out) {
        merge_latency(sub, parts, resp, out);
      };
      break;
    }
    case Merge::kText:
      merge = [resp = c.info().resp](std::vector<std::string>& parts, std::string& out) {
        if (const std::string* e = first_error(parts)) {
          out = *e;
          return;
        }
        std::string text;
        for (const std::string& p : parts) text.append(reply_string(p).value_or(""));
        std::string reply;
        proto::ReplyWriter w(reply, resp);
        w.verbatim(text);
        out = std::move(reply);
      };
      break;
    case Merge::kNumpat: {
      // Redis counts distinct patterns: ask every worker for its list and unite them.
      std::uint64_t seq = c.reserve(
          static_cast<std::uint32_t>(workers_),
          [](std::vector<std::string>& parts, std::string& out) {
            std::string all;
            merge_union(parts, all);
            auto h = reply_aggregate(all);
            out = reply_is_error(all) ? all : ":" + std::to_string(h ? h->count : 0) + "\r\n";
          });
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kPatterns, args);
      }
      return;
    }
    default:
      merge = merge_of(how);
      break;
  }
  std::uint64_t seq = c.reserve(static_cast<std::uint32_t>(workers_), std::move(merge));
  for (int w = 0; w < workers_; ++w) {
    send_part(c, w, seq, static_cast<std::uint32_t>(w), MeshKind::kCommand, args);
  }
}

// The proxy's SCAN cursor: low 8 bits name the worker, the rest is that worker's own
// cursor. A worker's scan that ends moves on to the next worker, so a full iteration visits
// every worker's table once and keeps Redis's guarantee for each.
void Router::scan(RoutedClient& c, std::span<const std::string_view> args) {
  auto cursor = parse_scan_cursor(args[1]);
  if (!cursor) {
    c.local_writer().error("ERR invalid cursor");
    return;
  }
  auto w = static_cast<int>(*cursor & 0xff);
  std::uint64_t inner = *cursor >> 8;
  if (w >= workers_) {
    proto::ReplyWriter& out = c.local_writer();
    out.array(2);
    out.bulk("0");
    out.array(0);
    return;
  }
  std::vector<std::string_view> a(args.begin(), args.end());
  std::string inner_text = std::to_string(inner);
  a[1] = inner_text;
  int workers = workers_;
  MergeFn fix = [w, workers](std::vector<std::string>& parts, std::string& out) {
    std::string& p = parts[0];
    auto h = reply_aggregate(p);
    if (reply_is_error(p) || !h || h->count != 2) {
      out = p;
      return;
    }
    std::size_t first = reply_length(std::string_view(p).substr(h->body));
    auto next_text = reply_string(std::string_view(p).substr(h->body, first));
    std::uint64_t next = 0;
    if (next_text) std::from_chars(next_text->data(), next_text->data() + next_text->size(), next);
    std::uint64_t cursor = next != 0 ? (next << 8) | static_cast<std::uint64_t>(w)
                                     : (w + 1 < workers ? static_cast<std::uint64_t>(w + 1) : 0);
    std::string c = std::to_string(cursor);
    out = "*2\r\n$" + std::to_string(c.size()) + "\r\n" + c + "\r\n";
    out.append(p, h->body + first, std::string::npos);
  };
  std::uint64_t seq = c.reserve(1, std::move(fix));
  send_part(c, w, seq, 0, MeshKind::kCommand, a);
}

bool Router::serve(MeshKind kind, ClientInfo& client, std::span<const std::string_view> args,
                   proto::ReplyWriter& out, bool may_park) {
  switch (kind) {
    case MeshKind::kCommand:
      if (may_park && (executor_.parks(client, args) || executor_.blocks(client, args))) {
        return false;
      }
      executor_.execute(client, args, out);
      return true;
    case MeshKind::kTracked: {
      if (may_park && (executor_.parks(client, args) || executor_.blocks(client, args))) {
        return false;
      }
      Shard& shard = executor_.shard();
      shard.tracking.begin_remote_read();
      executor_.execute(client, args, out);
      shard.tracking.end_remote_read();
      shard.update_listener();
      return true;
    }
    case MeshKind::kTracking: {
      Shard& shard = executor_.shard();
      if (args.size() == 2 && args[0] == "exists") {  // Router::redirect_known's question
        const auto id = parse_int64(args[1]);
        const ClientInfo* info = nullptr;
        const bool found = id && shard.tracking.writer &&
                           shard.tracking.writer(static_cast<std::uint64_t>(*id), &info) != nullptr;
        out.integer(found ? 1 : 0);
        return true;
      }
      shard.tracking.on_peer_message(client.origin, args);
      shard.update_listener();
      out.ok();
      return true;
    }
    case MeshKind::kAclLog:
      write_acl_log_raw(executor_.shard(), out);
      return true;
    case MeshKind::kHistograms:
      write_histograms(executor_.command_stats(), executor_.shard().config().latency_tracking, out);
      return true;
    case MeshKind::kLatencyEvents:
      write_latency_events(executor_.latency(), out);
      return true;
    case MeshKind::kPatterns: {
      std::vector<std::string> patterns = executor_.shard().pubsub->pattern_list();
      out.array(patterns.size());
      for (const std::string& p : patterns) out.bulk(p);
      return true;
    }
    case MeshKind::kExec: {
      // EXEC n1 args… n2 args… (see Router::exec)
      std::vector<std::vector<std::string_view>> commands;
      std::size_t i = 1;
      while (i < args.size()) {
        std::size_t n = 0;
        std::from_chars(args[i].data(), args[i].data() + args[i].size(), n);
        if (n == 0 || i + 1 + n > args.size()) {
          out.error("ERR malformed mesh transaction");
          return true;
        }
        commands.emplace_back(args.begin() + static_cast<long>(i + 1),
                              args.begin() + static_cast<long>(i + 1 + n));
        i += 1 + n;
      }
      if (may_park && executor_.parks(commands)) return false;
      executor_.run_transaction(client, commands, out);
      return true;
    }
    case MeshKind::kAsUser: {
      if (args.size() < 3 || (args[1] != "0" && args[1] != "2" && args[1] != "5")) {
        out.error("ERR malformed mesh request");
        return true;
      }
      std::shared_ptr<acl::User> user = executor_.shard().acl().find(args[0]);
      if (user == nullptr) {  // deleted meanwhile: its client is being closed at its worker
        out.error("NOPERM the user of this request no longer exists");
        return true;
      }
      std::shared_ptr<acl::User> mesh_user = std::move(client.user);
      client.user = std::move(user);
      const MeshKind inner = args[1] == "2"   ? MeshKind::kExec
                             : args[1] == "5" ? MeshKind::kTracked
                                              : MeshKind::kCommand;
      const bool done = serve(inner, client, args.subspan(2), out, may_park);
      client.user = std::move(mesh_user);
      return done;
    }
    case MeshKind::kDigest: {
      const std::vector<std::optional<Digest>> parts = digest_parts(executor_.shard());
      out.array(parts.size());
      for (const std::optional<Digest>& x : parts) out.bulk(x ? digest_hex(*x) : std::string());
      return true;
    }
    case MeshKind::kPause: {
      const auto end = args.size() == 2 ? parse_int64(args[1]) : std::nullopt;
      if (!end || (args[0] != "ALL" && args[0] != "WRITE")) {
        out.error("ERR malformed mesh request");
        return true;
      }
      // As CLIENT PAUSE: never weakens a pause in force here.
      ClientPause& pause = executor_.shard().client_pause;
      pause.expire(executor_.shard().now_ms());
      pause.pause(args[0] == "ALL" ? ClientPause::Mode::kAll : ClientPause::Mode::kWrite, *end);
      out.ok();
      return true;
    }
    case MeshKind::kMonitor: {
      Monitors& monitors = executor_.shard().monitors;
      if (args.size() == 2 && args[0] == "line") {
        monitors.deliver(args[1]);
      } else if (args.size() == 1 && (args[0] == "on" || args[0] == "off")) {
        monitors.set_peer(client.origin, args[0] == "on");
      } else {
        out.error("ERR malformed mesh request");
        return true;
      }
      out.ok();
      return true;
    }
    default:
      out.error("ERR unsupported mesh request");
      return true;
  }
}

}  // namespace ruvio::worker
