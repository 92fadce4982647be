// The operations family: SLOWLOG, LATENCY, ROLE, WAIT, WAITAOF, REPLICAOF/SLAVEOF, LOLWUT, MONITOR
// — what an operator or a client library asks a standalone redis-server without replicas. The
// figures come from the executor's CommandStats / SlowLog / LatencyMonitor (command_stats.hpp).
#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <ctime>
#include <string>

#include "worker/commands/server/lolwut.hpp"
#include "worker/commands/server/ops_decls.hpp"
#include "worker/commands/server/ops_extra_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/subcommand.hpp"
#include "worker/persist/service.hpp"

namespace ruvio::worker {
namespace {

constexpr std::string_view kVersionLine = "Redis ver. 7.0.15\n";

Executor& executor(Context& ctx) {
  return *ctx.shard.executor;
}

// ---- SLOWLOG --------------------------------------------------------------------------------

void slowlog_get(Context& ctx) {
  std::int64_t count = 10;
  if (ctx.argc() > 3) {
    // addReplySubcommandSyntaxError: the subcommand as sent, cut at 128 bytes.
    std::string msg = "ERR unknown subcommand or wrong number of arguments for '";
    msg.append(ctx.args[1].substr(0, 128)).append("'. Try SLOWLOG HELP.");
    ctx.out.error(msg);
    return;
  }
  if (ctx.argc() == 3) {
    // getRangeLongFromObjectOrReply with its own message: for a non-number too.
    const auto n = parse_int64(ctx.args[2]);
    if (!n || *n < -1) {
      ctx.out.error("ERR count should be greater than or equal to -1");
      return;
    }
    count = *n;
  }
  const auto& entries = executor(ctx).slowlog().entries();
  std::size_t n = entries.size();
  if (count >= 0 && static_cast<std::uint64_t>(count) < n) n = static_cast<std::size_t>(count);
  ctx.out.array(n);
  for (std::size_t i = 0; i < n; ++i) {
    const SlowLog::Entry& e = entries[i];
    ctx.out.array(6);
    ctx.out.integer(static_cast<std::int64_t>(e.id));
    ctx.out.integer(e.time);
    ctx.out.integer(e.usec);
    ctx.out.array(e.args.size());
    for (const std::string& a : e.args) ctx.out.bulk(a);
    ctx.out.bulk(e.addr);
    ctx.out.bulk(e.name);
  }
}

void slowlog_len(Context& ctx) {
  ctx.out.integer(static_cast<std::int64_t>(executor(ctx).slowlog().entries().size()));
}

void slowlog_reset(Context& ctx) {
  executor(ctx).slowlog().reset();
  ctx.out.ok();
}

void slowlog_help(Context& ctx) {
  reply_help(ctx, "SLOWLOG",
             {"GET [<count>]",
              "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
              "    Entries are made of:",
              "    id, timestamp, time in microseconds, arguments array, client IP and port,",
              "    client name", "LEN", "    Return the length of the slowlog.", "RESET",
              "    Reset the slowlog."});
}

// ---- LATENCY --------------------------------------------------------------------------------

void latency_latest(Context& ctx) {
  const auto& series = executor(ctx).latency().series();
  ctx.out.array(series.size());
  for (const LatencyMonitor::Series& s : series) {
    ctx.out.array(4);
    ctx.out.bulk(s.event);
    ctx.out.integer(s.samples.empty() ? 0 : s.samples.back().time);
    ctx.out.integer(s.samples.empty() ? 0 : s.samples.back().latency);
    ctx.out.integer(s.max);
  }
}

void latency_history(Context& ctx) {
  const LatencyMonitor::Series* s = executor(ctx).latency().find(ctx.args[2]);
  if (s == nullptr) {
    ctx.out.array(0);
    return;
  }
  ctx.out.array(s->samples.size());
  for (const LatencyMonitor::Sample& x : s->samples) {
    ctx.out.array(2);
    ctx.out.integer(x.time);
    ctx.out.integer(x.latency);
  }
}

void latency_reset(Context& ctx) {
  const std::size_t n = executor(ctx).latency().reset(ctx.args.subspan(2));
  ctx.out.integer(static_cast<std::int64_t>(n));
}

std::int64_t unix_now() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

void latency_graph(Context& ctx) {
  const LatencyMonitor::Series* s = executor(ctx).latency().find(ctx.args[2]);
  if (s == nullptr) {
    std::string msg = "ERR No samples available for event '";
    msg.append(ctx.args[2]).append("'");
    ctx.out.error(msg);
    return;
  }
  ctx.out.verbatim(latency_graph(*s, unix_now()));
}

void latency_doctor(Context& ctx) {
  ctx.out.verbatim(make_latency_report(ctx.shard.config()).render(executor(ctx).latency()));
}

// fillCommandCDF: {calls, histogram_usec: {µs: cumulative count}} from the HDR histogram's
// log walk (first level 1024 ns, base 2), a bucket only where the cumulative count grew. The
// µs are the slot's highest equivalent value / 1000 (1, 2, 4, ..., 32, 65, 131, ...).
void reply_histogram(Context& ctx, const CommandDef& def, const LatencyHistogram& h) {
  std::int64_t previous = 0;
  std::size_t steps = 0;
  h.for_each_log_step(1024, 2, [&](std::int64_t, std::uint64_t cumulative) {
    steps += static_cast<std::int64_t>(cumulative) > previous;
    previous = static_cast<std::int64_t>(cumulative);
  });
  ctx.out.bulk(def.name);
  ctx.out.map(2);
  ctx.out.bulk("calls");
  ctx.out.integer(static_cast<std::int64_t>(h.total()));
  ctx.out.bulk("histogram_usec");
  ctx.out.map(steps);
  previous = 0;
  h.for_each_log_step(1024, 2, [&](std::int64_t highest, std::uint64_t cumulative) {
    if (static_cast<std::int64_t>(cumulative) > previous) {
      ctx.out.integer(highest / 1000);
      ctx.out.integer(static_cast<std::int64_t>(cumulative));
    }
    previous = static_cast<std::int64_t>(cumulative);
  });
}

// Every command with a histogram; or those named (a container adds its subcommands', and a
// name given twice is answered twice, as latencySpecificCommandsFillCDF does).
void latency_histogram(Context& ctx) {
  const CommandStats& stats = executor(ctx).command_stats();
  const CommandTable& table = command_table();
  std::vector<const CommandDef*> shown;
  auto add = [&](const CommandDef* def) {
    if (stats.histogram(def->id) != nullptr) shown.push_back(def);
  };
  if (ctx.argc() == 2) {
    for (std::size_t id = 0; id < table.ids(); ++id) add(table.by_id(id));
  } else {
    for (std::size_t i = 2; i < ctx.argc(); ++i) {
      // "config|get" names a subcommand, as Redis's lookupCommandBySds.
      const std::string_view name = ctx.args[i];
      const std::size_t bar = name.find('|');
      const CommandDef* def = table.find(name.substr(0, bar));
      if (def != nullptr && bar != std::string_view::npos) {
        def = CommandTable::find_sub(*def, name.substr(bar + 1));
      }
      if (def == nullptr) continue;
      add(def);
      if (bar == std::string_view::npos) {
        for (const CommandDef& sub : def->subcommands) add(&sub);
      }
    }
  }
  ctx.out.map(shown.size());
  for (const CommandDef* def : shown) reply_histogram(ctx, *def, *stats.histogram(def->id));
}

void latency_help(Context& ctx) {
  reply_help(ctx, "LATENCY",
             {"DOCTOR", "    Return a human readable latency analysis report.", "GRAPH <event>",
              "    Return an ASCII latency graph for the <event> class.", "HISTORY <event>",
              "    Return time-latency samples for the <event> class.", "LATEST",
              "    Return the latest latency samples for all events.", "RESET [<event> ...]",
              "    Reset latency data of one or more <event> classes.",
              "    (default: reset all data for all event classes)", "HISTOGRAM [COMMAND ...]",
              "    Return a cumulative distribution of latencies in the format of a histogram "
              "for the specified command names.",
              "    If no commands are specified then all histograms are replied."});
}

// ---- replication answers of a server without replicas ------------------------------------------

void cmd_role(Context& ctx) {
  ctx.out.array(3);
  ctx.out.bulk("master");
  ctx.out.integer(0);
  ctx.out.array(0);
}

// WAIT's and WAITAOF's millisecond timeout, checked as Redis's getTimeoutFromObjectOrReply.
// Nothing is waited for (no replicas), so only its validity matters.
bool valid_timeout(Context& ctx, std::string_view arg) {
  const auto timeout = parse_int64(arg);
  if (!timeout) {
    ctx.out.error("ERR timeout is not an integer or out of range");
    return false;
  }
  if (*timeout < 0) {
    ctx.out.error("ERR timeout is negative");
    return false;
  }
  return true;
}

void cmd_wait(Context& ctx) {
  if (!parse_int64(ctx.args[1])) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (!valid_timeout(ctx, ctx.args[2])) return;
  ctx.out.integer(0);
}

// Redis 7.2's WAITAOF numlocal numreplicas timeout: [local fsynced, replicas]. With the WAL
// on (everysec/always) the worker fsyncs what it logged before answering 1.
void cmd_waitaof(Context& ctx) {
  const auto numlocal = parse_int64(ctx.args[1]);
  const auto numreplicas = parse_int64(ctx.args[2]);
  if (!numlocal || !numreplicas) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (!valid_timeout(ctx, ctx.args[3])) return;
  const bool wal = ctx.shard.config().durability != Durability::kMemory;
  if (*numlocal != 0 && !wal) {
    ctx.out.error("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.");
    return;
  }
  bool synced = false;
  if (wal && ctx.shard.persistence != nullptr) synced = ctx.shard.persistence->sync_now();
  ctx.out.array(2);
  ctx.out.integer(synced ? 1 : 0);
  ctx.out.integer(0);
}

// REPLICAOF NO ONE: already a master. Ruvio does not replicate from a redis-server.
void cmd_replicaof(Context& ctx) {
  if (iequals(ctx.args[1], "no") && iequals(ctx.args[2], "one")) {
    ctx.out.ok();
    return;
  }
  const auto port = parse_int64(ctx.args[2]);
  if (!port || *port < 0 || *port > 65535) {
    ctx.out.error("ERR Invalid master port");
    return;
  }
  ctx.out.error("ERR REPLICAOF host port is not supported by Ruvio: only REPLICAOF NO ONE");
}

// LOLWUT [VERSION v]: redis-server 7.0 draws for versions 5 (Schotter) and 6 (the skyline,
// lolwut.hpp); every other version (its own default among them) answers the version line.
void cmd_lolwut(Context& ctx) {
  std::span<const std::string_view> args = ctx.args;
  std::uint32_t version = 7;
  if (args.size() >= 3 && iequals(args[1], "version")) {
    const auto v = parse_int64(args[2]);
    if (!v) {
      ctx.out.error(err::kNotInt);
      return;
    }
    version = static_cast<std::uint32_t>(*v);  // Redis prints it with %u
    args = args.subspan(2);  // the drawing's own arguments follow, as after Redis's shift
  }
  if (version == 6) {
    long size[2] = {80, 20};  // columns, rows
    for (std::size_t i = 1; i < args.size() && i <= 2; ++i) {
      const auto n = parse_int64(args[i]);
      if (!n) {
        ctx.out.error(err::kNotInt);
        return;
      }
      size[i - 1] = std::clamp<long>(static_cast<long>(*n), 1, 1000);
    }
    ctx.out.verbatim(lolwut_skyline(size[0], size[1]));
    return;
  }
  if (version != 5) {
    ctx.out.verbatim(kVersionLine);
    return;
  }
  long params[3] = {66, 8, 12};  // columns, squares per row, squares per column
  constexpr long kMax[3] = {1000, 200, 200};
  for (std::size_t i = 1; i < args.size() && i <= 3; ++i) {
    const auto n = parse_int64(args[i]);
    if (!n) {
      ctx.out.error(err::kNotInt);
      return;
    }
    params[i - 1] = std::clamp<long>(static_cast<long>(*n), 1, kMax[i - 1]);
  }
  ctx.out.verbatim(lolwut_schotter(params[0], params[1], params[2]));
}

// MONITOR: +OK, then the client receives every command as a line (monitor.hpp) until RESET or
// QUIT. A client already monitoring gets no answer at all, and inside EXEC it is refused, as
// Redis refuses a CLIENT_DENY_BLOCKING client.
void cmd_monitor(Context& ctx) {
  if (executor(ctx).in_exec()) {
    ctx.out.error("ERR MONITOR isn't allowed for DENY BLOCKING client");
    return;
  }
  if (ctx.client.monitor) return;
  ctx.shard.monitors.add(ctx.client);
  ctx.out.ok();
}

// Subcommands in redis-server 7.0's order (COMMAND INFO lists them so).
const CommandDef kSlowlogSubs[] = {
    {&decl::slowlog_reset, slowlog_reset},
    {&decl::slowlog_len, slowlog_len},
    {&decl::slowlog_help, slowlog_help},
    {.decl = &decl::slowlog_get,
     .handler = slowlog_get,
     .routing = {Where::kAllWorkers, Merge::kSlowlog}},
};

const CommandDef kLatencySubs[] = {
    {.decl = &decl::latency_histogram,
     .handler = latency_histogram,
     .routing = {Where::kAllWorkers, Merge::kLatency}},
    {.decl = &decl::latency_doctor,
     .handler = latency_doctor,
     .routing = {Where::kAllWorkers, Merge::kLatency}},
    {.decl = &decl::latency_reset,
     .handler = latency_reset,
     .routing = {Where::kAllWorkers, Merge::kLatency}},
    {.decl = &decl::latency_graph,
     .handler = latency_graph,
     .routing = {Where::kAllWorkers, Merge::kLatency}},
    {&decl::latency_help, latency_help},
    {.decl = &decl::latency_latest,
     .handler = latency_latest,
     .routing = {Where::kAllWorkers, Merge::kLatency}},
    {.decl = &decl::latency_history,
     .handler = latency_history,
     .routing = {Where::kAllWorkers, Merge::kLatency}},
};

const CommandDef kOpsCommands[] = {
    {.decl = &decl::slowlog, .handler = nullptr, .subcommands = kSlowlogSubs},
    {.decl = &decl::latency, .handler = nullptr, .subcommands = kLatencySubs},
    {&decl::role, cmd_role},
    {&decl::wait, cmd_wait},
    {&decl::replicaof, cmd_replicaof},
    {&decl::slaveof, cmd_replicaof},
    {&decl::lolwut, cmd_lolwut},
    {&decl::monitor, cmd_monitor},
    // WAITAOF is Redis 7.2's: redis-server 7.0 has no declaration to generate it from.
    {.decl = &decl::waitaof,
     .handler = cmd_waitaof,
     .routing = {Where::kAllWorkers, Merge::kFirstError}},
};

}  // namespace

std::span<const CommandDef> ops_commands() {
  return kOpsCommands;
}

}  // namespace ruvio::worker
