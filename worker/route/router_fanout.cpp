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
namespace {

constexpr std::string_view kMalformed = "ERR malformed mesh request";

// A command or transaction of a restricted client runs on its owner as that client's ACL
// user (scripts' redis.call, EXEC's re-check), the mesh client's own user restored after.
class RunAs {
 public:
  RunAs(acl::Users& users, ClientInfo& client, std::string_view user) : client_(client) {
    if (user.empty()) return;
    std::shared_ptr<acl::User> u = users.find(user);
    if (u == nullptr) {
      ok_ = false;
      return;
    }
    saved_ = std::move(client.user);
    client.user = std::move(u);
    swapped_ = true;
  }
  RunAs(const RunAs&) = delete;
  RunAs& operator=(const RunAs&) = delete;
  ~RunAs() {
    if (swapped_) client_.user = std::move(saved_);
  }
  // The user was deleted meanwhile (its client is being closed at its worker): the error is
  // written and nothing runs.
  bool refused(proto::ReplyWriter& out) const {
    if (ok_) return false;
    out.error("NOPERM the user of this request no longer exists");
    return true;
  }

 private:
  ClientInfo& client_;
  std::shared_ptr<acl::User> saved_;
  bool swapped_ = false;
  bool ok_ = true;
};

}  // namespace

void Router::fan_out(RoutedClient& c, Merge how, const Resolved& r,
                     std::span<const std::string_view> args) {
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
        send_part(c, w, seq, static_cast<std::uint32_t>(workers_ + w), {MeshKind::kHistograms, {}});
      }
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(w), command(r, args));
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
        executor_.execute(c.info(), args, c.local_writer(), r.top);
        return;
      }
      const std::size_t count = *n < 0 ? 0 : static_cast<std::size_t>(*n);
      std::uint64_t seq = c.reserve(static_cast<std::uint32_t>(workers_),
                                    [count, max_len = users_.log_max_len, resp = c.info().resp](
                                        std::vector<std::string>& parts, std::string& out) {
                                      merge_acl_log(parts, count, max_len, resp, out);
                                    });
      for (int w = 0; w < workers_; ++w) {
        send_part(c, w, seq, static_cast<std::uint32_t>(w), {MeshKind::kAclLog, {}});
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
          send_part(c, w, seq, static_cast<std::uint32_t>(w), {MeshKind::kLatencyEvents, {}});
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
        send_part(c, w, seq, static_cast<std::uint32_t>(w), {MeshKind::kPatterns, {}});
      }
      return;
    }
    default:
      merge = merge_of(how);
      break;
  }
  std::uint64_t seq = c.reserve(static_cast<std::uint32_t>(workers_), std::move(merge));
  const MeshMessage m = command(r, args);
  for (int w = 0; w < workers_; ++w) send_part(c, w, seq, static_cast<std::uint32_t>(w), m);
}

// The proxy's SCAN cursor: low 8 bits name the worker, the rest is that worker's own
// cursor. A worker's scan that ends moves on to the next worker, so a full iteration visits
// every worker's table once and keeps Redis's guarantee for each.
void Router::scan(RoutedClient& c, const Resolved& r, std::span<const std::string_view> args) {
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
  send_part(c, w, seq, 0, command(r, a));
}

bool Router::serve(const MeshMessage& m, ClientInfo& client, proto::ReplyWriter& out,
                   bool may_park) {
  switch (m.kind) {
    case MeshKind::kCommand: {
      const auto& cmd = std::get<proto::MeshCommand>(m.payload);
      RunAs as(users_, client, cmd.user);
      if (as.refused(out)) return true;
      // The client's worker resolved the command and checked it: no name lookup here.
      const CommandDef* def = cmd.command < table_.ids() ? table_.by_id(cmd.command) : nullptr;
      if (def == nullptr || def->handler == nullptr) {
        out.error(kMalformed);
        return true;
      }
      const std::span<const std::string_view> args = cmd.args;
      if (may_park &&
          (executor_.parks_resolved(*def) || executor_.blocks_resolved(client, args, *def))) {
        return false;
      }
      if (!cmd.tracked) {
        executor_.execute_resolved(client, args, out, *def);
        return true;
      }
      tracking_.begin_remote_read();
      executor_.execute_resolved(client, args, out, *def);
      tracking_.end_remote_read();
      executor_.shard().update_listener();
      return true;
    }
    case MeshKind::kExec: {
      const auto& exec = std::get<proto::MeshExec>(m.payload);
      RunAs as(users_, client, exec.user);
      if (as.refused(out)) return true;
      std::vector<std::vector<std::string_view>> commands;
      std::vector<const CommandDef*> defs;
      commands.reserve(exec.commands.size());
      defs.reserve(exec.commands.size());
      for (const proto::MeshQueued& q : exec.commands) {
        if (q.command >= table_.ids()) {
          out.error(kMalformed);
          return true;
        }
        commands.emplace_back(q.args.begin(), q.args.end());
        defs.push_back(table_.by_id(q.command));
      }
      if (may_park && executor_.parks(defs)) return false;
      executor_.run_transaction(client, commands, out, defs);
      return true;
    }
    case MeshKind::kClientExists: {  // Router::redirect_known's question
      const std::uint64_t id = std::get<proto::MeshClientExists>(m.payload).client_id;
      const ClientInfo* info = nullptr;
      out.integer(tracking_.writer && tracking_.writer(id, &info) != nullptr ? 1 : 0);
      return true;
    }
    case MeshKind::kTracking: {
      tracking_.on_peer_message(client.origin, std::get<proto::MeshTracking>(m.payload).args);
      executor_.shard().update_listener();
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
    case MeshKind::kDigest: {
      const std::vector<std::optional<Digest>> parts = digest_parts(executor_.shard());
      out.array(parts.size());
      for (const std::optional<Digest>& x : parts) out.bulk(x ? digest_hex(*x) : std::string());
      return true;
    }
    case MeshKind::kPause: {
      const auto& p = std::get<proto::MeshPause>(m.payload);
      // As CLIENT PAUSE: never weakens a pause in force here.
      ClientPause& pause = executor_.shard().client_pause;
      pause.expire(executor_.shard().now_ms());
      pause.pause(
          p.mode == proto::PauseMode::kAll ? ClientPause::Mode::kAll : ClientPause::Mode::kWrite,
          p.end_ms);
      out.ok();
      return true;
    }
    case MeshKind::kMonitor: {
      const auto& mon = std::get<proto::MeshMonitor>(m.payload);
      if (mon.op == proto::MonitorOp::kLine) {
        monitors_.deliver(mon.line);
      } else {
        monitors_.set_peer(client.origin, mon.op == proto::MonitorOp::kOn);
      }
      out.ok();
      return true;
    }
    case MeshKind::kForget:  // the mesh answers it itself
      break;
  }
  out.error("ERR unsupported mesh request");
  return true;
}

}  // namespace ruvio::worker
