// MONITOR's registry and line format (monitor.hpp).
#include "worker/engine/monitor.hpp"

#include <sys/time.h>

#include <algorithm>
#include <cstdio>

#include "shared/sds_text.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_stats.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

void format_monitor_line(std::string& out, std::int64_t sec, std::int64_t usec, int db,
                         std::string_view who, std::span<const std::string_view> args,
                         std::span<const std::size_t> redacted) {
  char head[64];
  const int n = std::snprintf(head, sizeof head, "%lld.%06lld [%d ", static_cast<long long>(sec),
                              static_cast<long long>(usec), db);
  out.append(head, static_cast<std::size_t>(n));
  out.append(who);
  out += "] ";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i != 0) out += ' ';
    if (std::find(redacted.begin(), redacted.end(), i) != redacted.end()) {
      out += "\"(redacted)\"";
    } else {
      append_repr(out, args[i]);
    }
  }
}

void Monitors::add(ClientInfo& c) {
  c.monitor = true;
  local_.push_back(c.id);
  if (local_.size() == 1 && announce) announce(true);
  update();
}

void Monitors::remove(ClientInfo& c) {
  if (!c.monitor) return;
  c.monitor = false;
  std::erase(local_, c.id);
  if (local_.empty() && announce) announce(false);
  update();
}

void Monitors::set_peer(int worker, bool on) {
  std::erase(peers_, worker);
  if (on) peers_.push_back(worker);
  update();
}

void Monitors::update() {
  on_ = !local_.empty() || !peers_.empty();
}

bool Monitors::skipped(const ClientInfo& c, const CommandDef& def,
                       std::span<const std::string_view> args) const {
  // Fed by the client's own worker (or the router there), never where a mesh request runs;
  // a script's commands are fed where the script runs. WAL replay is never shown.
  if (routed_ > 0 || c.obey || (c.origin >= 0 && !c.script)) return true;
  const CommandDef* judged = &def;
  // A container with its own handler (CLIENT, CONFIG): its subcommand's flags decide, as
  // Redis's c->cmd is the subcommand (CLIENT LIST is admin, CLIENT SETNAME is not).
  if (!def.subcommands.empty() && args.size() >= 2) {
    if (const CommandDef* sub = CommandTable::find_sub(def, args[1])) judged = sub;
  }
  return (judged->flags & (kAdmin | kSkipMonitor)) != 0;
}

void Monitors::feed_forwarded(const ClientInfo& c, int db, std::span<const std::string_view> args,
                              const CommandDef& def) {
  if (!(def.flags & kSkipMonitor)) {
    feed(c, db, args, def);
  } else if (!(def.flags & kAdmin) && c.origin < 0) {
    feed_now(c, db, args, &def);
  }
}

void Monitors::feed_now(const ClientInfo& c, int db, std::span<const std::string_view> args,
                        const CommandDef* def) {
  if (routed_ > 0 || c.obey) return;
  timeval tv{};
  gettimeofday(&tv, nullptr);  // Redis's timestamp: the wall clock, read only while monitored
  line_.clear();
  redacted_.clear();
  redacted_args(def, args, redacted_);  // AUTH, HELLO AUTH, MIGRATE, CONFIG SET passwords
  format_monitor_line(line_, tv.tv_sec, tv.tv_usec, db, c.script ? "lua" : c.addr, args, redacted_);
  deliver(line_);
  if (send_line) {
    for (const int w : peers_) send_line(w, line_);
  }
}

void Monitors::feed_script(const ClientInfo& c, std::span<const std::string_view> args) {
  if (!on_ || (c.origin >= 0 && !c.script)) return;
  feed_now(c, c.db, args);
}

void Monitors::deliver(std::string_view line) {
  if (!writer) return;
  for (const std::uint64_t id : local_) {
    if (proto::ReplyWriter* out = writer(id)) out->simple(line);
  }
}

}  // namespace ruvio::worker
