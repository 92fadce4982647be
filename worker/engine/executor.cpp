// Command execution; the order of the checks is drawn in executor.hpp.
#include "worker/engine/executor.hpp"

#include <string>

#include "worker/engine/acl_check.hpp"
#include "worker/engine/blocking.hpp"
#include "worker/engine/cluster_check.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/keyspace_notify.hpp"
#include "worker/engine/subcommand.hpp"

namespace ruvio::worker {
namespace {

// Redis's exact text: the name cut at 128 bytes, then the arguments quoted one by one while
// that list is shorter than 128 bytes, each cut to what is left; newlines become spaces.
void unknown_command(proto::ReplyWriter& out, std::span<const std::string_view> args) {
  // printf's %s stops at a NUL byte, and so does Redis's text.
  auto c_str = [](std::string_view s) { return s.substr(0, s.find('\0')); };
  std::string list;
  for (std::size_t i = 1; i < args.size() && list.size() < 128; ++i) {
    std::size_t room = 128 - list.size();
    list.append("'");
    list.append(c_str(args[i]).substr(0, room));
    list.append("' ");
  }
  std::string msg = "ERR unknown command '";
  msg.append(c_str(args[0]).substr(0, 128));
  msg.append("', with args beginning with: ");
  msg.append(list);
  for (char& c : msg) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  out.error(msg);
}

bool arity_ok(const CommandDef& d, std::size_t argc) {
  int n = static_cast<int>(argc);
  return d.arity >= 0 ? n == d.arity : n >= -d.arity;
}

// The declaration that runs for `args` (a container's subcommand), or null when the
// command is refused for being unknown or of the wrong arity.
const CommandDef* resolve(std::span<const std::string_view> args) {
  const CommandDef* def = command_table().find(args[0]);
  if (def == nullptr || !arity_ok(*def, args.size())) return nullptr;
  if (def->handler == nullptr && !def->subcommands.empty()) {
    const CommandDef* sub = CommandTable::find_sub(*def, args[1]);
    if (sub == nullptr || !arity_ok(*sub, args.size())) return nullptr;
    def = sub;
  }
  return def;
}

// What ACL judges: a container's subcommand even when the container has its own handler
// (CONFIG, OBJECT); null for an unknown subcommand, which the handler answers first.
const CommandDef* acl_target(const CommandDef* def, std::span<const std::string_view> args) {
  if (def == nullptr || def->subcommands.empty() || args.size() < 2) return def;
  return CommandTable::find_sub(*def, args[1]);
}

template <typename Commands>
bool any_may_replicate(const Commands& commands) {
  for (const auto& cmd : commands) {
    if (cmd.empty()) continue;
    std::vector<std::string_view> views(cmd.begin(), cmd.end());
    const CommandDef* def = resolve(views);
    if (def != nullptr && (def->flags & (kWrite | kMayReplicate))) return true;
  }
  return false;
}

template <typename Commands>
bool any_denyoom(const Commands& commands, std::span<const CommandDef* const> resolved) {
  if (!resolved.empty()) {
    for (const CommandDef* def : resolved) {
      if (def->flags & kDenyOom) return true;
    }
    return false;
  }
  for (const auto& cmd : commands) {
    if (cmd.empty()) continue;
    std::vector<std::string_view> views(cmd.begin(), cmd.end());
    const CommandDef* def = resolve(views);
    if (def != nullptr && (def->flags & kDenyOom)) return true;
  }
  return false;
}

}  // namespace

void Executor::rejected(const CommandDef& def) {
  stats_.of(def).rejected_calls++;
  stats_.errors_since_last_check();
}

// Inline in execute(): one counter line per command, touched once; the slow log and the
// latency monitor are reached only for a command slower than their thresholds.
inline void Executor::account(const CommandDef& def, ClientInfo& client,
                              std::span<const std::string_view> args, std::int64_t usec) {
  // A container that dispatches in its own handler (CONFIG, CLIENT): the subcommand counts.
  const CommandDef* counted = &def;
  if (!def.subcommands.empty() && args.size() >= 2) [[unlikely]] {
    if (const CommandDef* sub = CommandTable::find_sub(def, args[1])) counted = sub;
  }
  CommandCounters& c = stats_.of(*counted);
  c.calls++;
  c.usec += static_cast<std::uint64_t>(usec);
  if (stats_.errors_since_last_check()) [[unlikely]]
    c.failed_calls++;
  const Config& config = shard_.config();
  if (config.latency_tracking) stats_.record_latency(*counted, usec);
  // The latency test is a looser bound (µs against a threshold in ms): account_slow decides.
  if ((usec >= config.slowlog_log_slower_than && config.slowlog_log_slower_than >= 0) ||
      (config.latency_monitor_threshold > 0 && usec >= config.latency_monitor_threshold))
      [[unlikely]] {
    account_slow(def, client, args, usec);
  }
}

void Executor::account_slow(const CommandDef& def, ClientInfo& client,
                            std::span<const std::string_view> args, std::int64_t usec) {
  const Config& config = shard_.config();
  if (!(def.flags & kSkipSlowlog) && usec >= config.slowlog_log_slower_than &&
      config.slowlog_log_slower_than >= 0) {
    slowlog_.maybe_add(config.slowlog_log_slower_than, config.slowlog_max_len, def, args, usec,
                       client.addr, client.name);
  }
  // The event is named after the command that ran (a container's subcommand), as real_cmd.
  const CommandDef* ran = &def;
  if (!def.subcommands.empty() && args.size() >= 2) {
    if (const CommandDef* sub = CommandTable::find_sub(def, args[1])) ran = sub;
  }
  latency_.add_if_needed(config.latency_monitor_threshold,
                         (ran->flags & kFast) ? "fast-command" : "command", usec / 1000);
}

Executor::Executor(Shard& shard) : shard_(shard) {
  shard_.executor = this;
}

Executor::~Executor() = default;

bool Executor::parks_paused(const ClientInfo& client,
                            std::span<const std::string_view> args) const {
  const ClientPause::Mode mode = shard_.client_pause.mode(shard_.now_ms());
  if (mode == ClientPause::Mode::kNone || args.empty()) return false;
  const CommandDef* named = command_table().find(args[0]);
  if (named == nullptr || (!client.authenticated && !(named->flags & kNoAuth))) return false;
  const CommandDef* def = resolve(args);
  if (def == nullptr || acl_denies(client, *def, args)) return false;
  if (client.resp == 2 && client.subscribed() && !(def->flags & kSubscribedOk)) return false;
  if (client.cluster_mode && shard_.topology != nullptr &&
      cluster_check(*shard_.topology, shard_.self_node, *def, args)) {
    return false;
  }
  if (mode == ClientPause::Mode::kAll) return true;
  // EXEC inside MULTI writes when its queue does (a write was queued before the pause).
  if (client.in_multi && (def->flags & kTxExec)) return any_may_replicate(client.queued);
  return may_replicate(*def);
}

bool Executor::parks(std::span<const CommandDef* const> resolved) const {
  const ClientPause::Mode mode = shard_.client_pause.mode(shard_.now_ms());
  if (mode == ClientPause::Mode::kNone) return false;
  if (mode == ClientPause::Mode::kAll) return true;
  for (const CommandDef* def : resolved) {
    if (may_replicate(*def)) return true;
  }
  return false;
}

bool Executor::blocks(const ClientInfo& client, std::span<const std::string_view> args) const {
  if (args.empty()) return false;
  return blocks(client, args, command_table().find(args[0]));
}

bool Executor::blocks_here(const ClientInfo& client, std::span<const std::string_view> args,
                           const CommandDef& named) const {
  if (!client.authenticated && !(named.flags & kNoAuth)) return false;
  const CommandDef* def = resolve(args);
  if (def == nullptr || acl_denies(client, *def, args)) return false;
  if (client.resp == 2 && client.subscribed() && !(def->flags & kSubscribedOk)) return false;
  if (client.cluster_mode && shard_.topology != nullptr &&
      cluster_check(*shard_.topology, shard_.self_node, *def, args)) {
    return false;
  }
  return waits(client, args, *def);
}

bool Executor::waits(const ClientInfo& client, std::span<const std::string_view> args,
                     const CommandDef& resolved) const {
  const CommandDef* def = &resolved;
  const BlockingSpec* spec = def->blocking;
  if (spec == nullptr || def->decl->keys.empty()) return false;
  const std::uint64_t token = shard_.watcher_of(client);
  // The handler answers whatever is wrong with the arguments, at once.
  std::size_t at = spec->timeout_arg > 0
                       ? static_cast<std::size_t>(spec->timeout_arg)
                       : args.size() - static_cast<std::size_t>(-spec->timeout_arg);
  if (spec->timeout_at != nullptr) {
    at = spec->timeout_at(args);  // 0: no BLOCK option, the command never waits
    if (at == 0) at = args.size();
  }
  const std::int64_t now = shard_.now_ms();
  auto timeout = [&](std::string_view arg) {
    return spec->timeout_ms ? parse_timeout_ms(arg, now) : parse_timeout(arg, now);
  };
  std::vector<std::string_view> keys;
  const KeySpec* first = &def->decl->keys[0];
  const KeysFound found = for_each_key(*def, args, [&](std::size_t pos, const KeySpec& ks) {
    if (&ks == first) keys.push_back(args[pos]);
  });
  if (found == KeysFound::kInvalid || at >= args.size() || keys.empty() ||
      !timeout(args[at]).error.empty() || (spec->args_ok != nullptr && !spec->args_ok(args))) {
    shard_.unblock(token);
    return false;
  }
  // Data (or a key of another type, which the handler refuses) on any key: run now — unless
  // a client that blocked earlier waits on that key: the data is its first (FIFO).
  store::Db& db = shard_.db(client.db);
  const Blocking::Waiter* w = shard_.blocking().find(token);
  std::string memo_now;  // BlockingSpec::memo, taken when the client first blocks
  if (w == nullptr && spec->memo != nullptr) memo_now = spec->memo(db, args);
  const std::string_view memo = w != nullptr ? std::string_view(w->memo) : memo_now;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string_view k = keys[i];
    const store::Entry e = db.find(k, now);
    // A key that became another type while the client waited does not end the wait (its
    // deadline answers the timeout reply), except where the spec says so (XREADGROUP).
    if (w != nullptr && e && e.type() != spec->type && !spec->ends_when_not_type) continue;
    if (spec->serves != nullptr) {
      const BlockingSpec::Serve sv = spec->serves(e ? &e : nullptr, args, i, memo);
      if (sv == BlockingSpec::Serve::kNo) continue;
      if (sv == BlockingSpec::Serve::kFifo &&
          shard_.blocking().earlier_waiter(token, client.db, k, spec->type)) {
        continue;
      }
    } else {
      if (!e) continue;
      if (e.type() == spec->type &&
          shard_.blocking().earlier_waiter(token, client.db, k, spec->type)) {
        continue;
      }
    }
    shard_.unblock(token);
    return false;
  }
  if (w == nullptr) {
    shard_.block(token, client.db, keys, timeout(args[at]).deadline_ms, spec->type,
                 spec->ends_when_not_type);
    if (!memo_now.empty()) shard_.blocking().set_memo(token, std::move(memo_now));
    return true;
  }
  if (w->deadline_ms != 0 && now >= w->deadline_ms) {
    const bool error = w->error;
    shard_.unblock(token);
    shard_.blocking().set_timed_out(token, error);
    return false;
  }
  return true;
}

bool Executor::refuses_busy(const CommandDef& def, std::span<const std::string_view> args,
                            proto::ReplyWriter& out) const {
  if (shard_.busy_error.empty()) return false;
  // A container with its own handler (SCRIPT, CLIENT) is judged by its subcommand.
  const CommandDef* judged = &def;
  if (!def.subcommands.empty() && args.size() >= 2) {
    if (const CommandDef* sub = CommandTable::find_sub(def, args[1])) judged = sub;
  }
  if (judged->flags & kAllowBusy) return false;
  if (def.flags & kTxExec) {
    out.error("EXECABORT Transaction discarded because of: " + std::string(shard_.busy_error));
  } else {
    out.error(shard_.busy_error);
  }
  return true;
}

void Executor::execute(ClientInfo& client, std::span<const std::string_view> args,
                       proto::ReplyWriter& out) {
  execute(client, args, out, command_table().find(args[0]));
}

void Executor::execute(ClientInfo& client, std::span<const std::string_view> args,
                       proto::ReplyWriter& out, const CommandDef* def) {
  out.set_error_sink(&stats_);
  // A script's call belongs to its caller's command for tracking: its CACHING flag, its
  // NOLOOP identity and its messages held until its reply.
  const bool script_call = client.script && caller_ != nullptr;
  if (shard_.tracking.enabled() && client.origin < 0 && !script_call) [[unlikely]]
    shard_.tracking.before_command(client.id);
  if (def == nullptr) {
    unknown_command(out, args);
    stats_.errors_since_last_check();
    return;
  }
  if (!client.authenticated && !(def->flags & kNoAuth)) {
    out.error(err::kNoAuth);
    rejected(*def);
    return;
  }
  if (!arity_ok(*def, args.size())) {
    out.error("ERR wrong number of arguments for '" + std::string(def->name) + "' command");
    rejected(*def);
    return;
  }
  // A container command without its own handler dispatches on its subcommand here.
  if (def->handler == nullptr && !def->subcommands.empty()) {
    const CommandDef* sub = CommandTable::find_sub(*def, args[1]);
    if (sub == nullptr) {
      out.error(unknown_subcommand(def->name, args[1]));
      stats_.errors_since_last_check();
      return;
    }
    if (!arity_ok(*sub, args.size())) {
      out.error("ERR wrong number of arguments for '" + std::string(sub->name) + "' command");
      rejected(*sub);
      return;
    }
    def = sub;
  }
  // ACL: one test for an unrestricted user (the default one, a mesh request).
  if (client.user != nullptr && client.user->restricted) {
    const CommandDef* judged = acl_target(def, args);
    if (judged != nullptr && acl_refused(shard_, client, *judged, args,
                                         in_exec_ ? AclWhere::kExec : AclWhere::kToplevel, &out)) {
      rejected(*def);
      return;
    }
  }
  run(client, args, out, *def);
}

void Executor::execute_resolved(ClientInfo& client, std::span<const std::string_view> args,
                                proto::ReplyWriter& out, const CommandDef& def) {
  out.set_error_sink(&stats_);
  if (shard_.tracking.enabled() && client.origin < 0) [[unlikely]]
    shard_.tracking.before_command(client.id);
  run(client, args, out, def);
}

void Executor::run(ClientInfo& client, std::span<const std::string_view> args,
                   proto::ReplyWriter& out, const CommandDef& resolved) {
  const CommandDef* def = &resolved;
  const bool script_call = client.script && caller_ != nullptr;  // as in execute()
  // RESP2 subscribed mode admits only the commands declared kSubscribedOk (Redis's list).
  if (client.resp == 2 && client.subscribed() && !(def->flags & kSubscribedOk)) {
    std::string why = "Can't execute '" + std::string(def->name) +
                      "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                      "allowed in this context";
    // Redis answers a refused EXEC in its abort form.
    out.error(((def->flags & kTxExec) ? "EXECABORT Transaction discarded because of: " : "ERR ") +
              why);
    rejected(*def);
    return;
  }
  // A MONITOR client may not touch the keyspace (Redis's check for a replica's commands).
  if (client.monitor && (def->flags & (kWrite | kMayReplicate | kReadonly))) [[unlikely]] {
    out.error("ERR Replica can't interact with the keyspace");
    rejected(*def);
    return;
  }
  if (client.cluster_mode && shard_.topology != nullptr) {
    // Direct port: MOVED / CROSSSLOT before anything runs.
    if (auto e = cluster_check(*shard_.topology, shard_.self_node, *def, args)) {
      out.error(*e);
      rejected(*def);
      return;
    }
  }
  if (!shard_.busy_error.empty() && refuses_busy(*def, args, out)) {
    rejected(*def);
    return;
  }
  // maxmemory: one predictable test when no limit is set (Redis's processCommand order: after
  // the busy check, before the command runs).
  if (shard_.config().maxmemory != 0 && depth_ == 0) [[unlikely]] {
    if (!admit(client, *def, out)) return;
  }
  // CLIENT NO-TOUCH holds for the client's command and what it runs (EXEC, a script), but
  // TOUCH itself touches, as Redis 7.2.
  if ((client.no_touch || shard_.no_touch()) && depth_ == 0) [[unlikely]] {
    shard_.set_no_touch(client.no_touch && !(def->flags & kTouchAlways));
  }
  out.set_protocol(client.resp);
  Context ctx{args, out, client, shard_, def};
  client.last_command = def->name;
  // validate → log → apply: a write the WAL cannot take is refused before it runs.
  Journal* journal = (def->flags & kWrite) && !client.unjournaled ? journal_ : nullptr;
  if (journal != nullptr && !journal->before_write(args, out)) {
    rejected(*def);
    return;
  }
  const int db = client.db;
  store::KeyspaceEvents& events = shard_.events();
  Tracking& tracking = shard_.tracking;
  if (tracking.enabled() && !script_call) [[unlikely]]
    tracking.set_current(client);
  const ClientInfo* const outer = caller_;
  const CommandDef* const outer_def = caller_def_;
  const std::span<const std::string_view> outer_args = caller_args_;
  if (!client.script) {
    caller_ = &client;
    caller_def_ = def;
    caller_args_ = args;
  }
  // Redis's two ustime() reads around the handler (TickClock: the TSC where the kernel trusts it).
  const std::uint64_t start = clock_.now();
  ++depth_;
  if (events.notifier != nullptr) [[unlikely]] {
    const store::KeyspaceEvent outer = events.command;  // EXEC's, a script's: nested commands
    events.command = declared_event(*def);
    def->handler(ctx);
    events.command = outer;
  } else {
    def->handler(ctx);
  }
  --depth_;
  account(*def, client, args, clock_.micros(start, clock_.now()));
  // MONITOR: after the command, with the database it left selected (SELECT shows its new one).
  if (shard_.monitors.on()) [[unlikely]]
    shard_.monitors.feed(client, client.db, args, *def);
  caller_ = outer;
  caller_def_ = outer_def;
  caller_args_ = outer_args;
  if (tracking.enabled()) [[unlikely]] {
    const std::size_t max_keys = shard_.config().tracking_table_max_keys;
    if (!script_call) {
      tracking.after_command(client, *def, args, max_keys);
      tracking.end_command();
    } else if ((def->flags & kReadonly) && !(def->flags & kPubsub)) {
      tracking.after_script_read(*caller_, *caller_def_, caller_args_, max_keys);
    }
  }
  if (journal != nullptr) journal->after_write(db, args);
  out.set_protocol(client.resp);  // HELLO may have changed it; later replies use the new one
  shard_.stats().commands_processed++;
}

void Executor::run_transaction(ClientInfo& client,
                               const std::vector<std::vector<std::string_view>>& commands,
                               proto::ReplyWriter& out,
                               std::span<const CommandDef* const> resolved) {
  std::uint64_t watcher = shard_.watcher_of(client);
  // EXEC over the limit: evicts first (before the WATCH check, as Redis's processCommand), and
  // refuses the whole transaction when a queued command is denyoom and memory could not be
  // freed, in execCommandAbort's words.
  if (shard_.config().maxmemory != 0 && depth_ == 0 && !client.obey) [[unlikely]] {
    const bool oom = !perform_evictions();
    oom_at_start_ = oom;
    if (oom && any_denyoom(commands, resolved)) {
      shard_.unwatch(watcher);
      out.error("EXECABORT Transaction discarded because of: " + std::string(err::kOom));
      return;
    }
  }
  // A transaction forwarded to this worker while its script is past busy-reply-threshold:
  // EXEC is not allowed then, so the whole of it is refused, as Redis refuses EXEC.
  if (!shard_.busy_error.empty()) [[unlikely]] {
    shard_.unwatch(watcher);
    out.error("EXECABORT Transaction discarded because of: " + std::string(shard_.busy_error));
    return;
  }
  if (client.no_touch || shard_.no_touch()) [[unlikely]]
    shard_.set_no_touch(client.no_touch);
  const bool aborted = shard_.watch_dirty(watcher);
  shard_.unwatch(watcher);
  if (aborted) {
    out.null_array();
    return;
  }
  out.array(commands.size());
  if (journal_ != nullptr) journal_->begin_batch();
  in_exec_ = true;  // ACL is checked again: the rules may have changed since queueing
  ++depth_;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const CommandDef* def = resolved.empty() ? nullptr : resolved[i];
    // A container queued with a subcommand it lacks came as its own row: the full path
    // answers it as for a client of this worker.
    if (def == nullptr || def->handler == nullptr) {
      execute(client, commands[i], out);
      continue;
    }
    // Queueing checked NOAUTH and arity at the client's worker; ACL is judged again now.
    out.set_error_sink(&stats_);
    if (client.user != nullptr && client.user->restricted) {
      const CommandDef* judged = acl_target(def, commands[i]);
      if (judged != nullptr &&
          acl_refused(shard_, client, *judged, commands[i], AclWhere::kExec, &out)) {
        rejected(*def);
        continue;
      }
    }
    run(client, commands[i], out, *def);
  }
  --depth_;
  in_exec_ = false;
  if (journal_ != nullptr) journal_->end_batch();
}

bool Executor::acl_denies(const ClientInfo& client, const CommandDef& def,
                          std::span<const std::string_view> args) const {
  if (client.user == nullptr || !client.user->restricted) return false;
  const CommandDef* judged = acl_target(&def, args);
  return judged != nullptr && acl::check(*client.user, *judged, args).denied != acl::Denied::kOk;
}

bool Executor::acl_refuses(ClientInfo& client, std::span<const std::string_view> args,
                           proto::ReplyWriter& out, bool queued) {
  const CommandDef* def = acl_target(resolve(args), args);
  if (def == nullptr) return false;  // execute() answers what is wrong
  return acl_refuses(client, *def, args, out, queued);
}

bool Executor::acl_refuses(ClientInfo& client, const CommandDef& judged,
                           std::span<const std::string_view> args, proto::ReplyWriter& out,
                           bool queued) {
  return acl_refused(shard_, client, judged, args, queued ? AclWhere::kQueued : AclWhere::kToplevel,
                     &out);
}

}  // namespace ruvio::worker
