// What the rest of the command layer asks of ACL: the executor's permission check (with
// Redis's -NOPERM texts and ACL LOG entries), AUTH/HELLO's credential check, and the one
// CLIENT LIST line a log entry carries.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "proto/resp_writer.hpp"
#include "worker/engine/acl.hpp"
#include "worker/engine/shard.hpp"

namespace ruvio::worker {

struct Context;

// Where a refused command was: its -NOPERM text and its log context differ.
enum class AclWhere : std::uint8_t { kToplevel, kQueued, kExec, kScript };

// The check for one command (`def` is the subcommand that runs). Writes the error and logs
// when refused. Callers test client.user->restricted first: an unrestricted user never
// gets here. `error` (kScript) receives the script's error text instead of a reply;
// `log_as` is the client the log entry shows (a script's caller).
bool acl_refused(Shard& shard, ClientInfo& client, const CommandDef& def,
                 std::span<const std::string_view> args, AclWhere where, proto::ReplyWriter* out,
                 std::string* error = nullptr, const ClientInfo* log_as = nullptr);

// AUTH / HELLO AUTH: true when `user`/`pass` are valid (the client is then that user);
// otherwise an "auth" entry is logged.
bool acl_authenticate(Context& ctx, std::string_view user, std::string_view pass);

// The client's user name as CLIENT LIST shows it.
std::string_view acl_user_name(const ClientInfo& client);

// ACL LOG's reply: the first `n` entries of `log` (newest first), ages taken at `now_ms`.
void write_acl_log(proto::ReplyWriter& out, const std::deque<acl::LogEntry>& log, std::size_t n,
                   std::int64_t now_ms);
// The proxy's ACL LOG (MeshKind::kAclLog): every entry of this worker's log, newest first,
// each [count reason context object username ctime-ms client-info] with reason and context
// as their enum values.
void write_acl_log_raw(Shard& shard, proto::ReplyWriter& out);

}  // namespace ruvio::worker
