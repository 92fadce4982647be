// ACL users as Redis 7.0 keeps them (src/acl.c): each user has flags, SHA-256 password hashes
// and a list of selectors, the first one the "root" selector of the user line. A selector is
// a command bitmap indexed by command id (subcommands have ids of their own; the last bit of
// the bitmap stands for "commands added in the future", set only by +@all), the first
// arguments allowed for commands otherwise denied (+select|0), key patterns with R/W flags
// and channel patterns.
//
// The command ids and each command's category mask are computed once from the command
// declarations (CommandDef::acl), so the categories of every command are Redis's own.
//
// A check costs nothing for an unrestricted user (User::restricted is false: its root
// selector has allkeys, allchannels and allcommands) and, for a restricted one, one id lookup,
// one bit test and a glob per key against the patterns (shared/glob).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "worker/engine/command.hpp"

namespace ruvio::worker::acl {

// Redis's ACLCommandCategories, in its order (ACL CAT lists them so; GETUSER picks the best
// fitting category in this order): bit j of an AclCategory set is kCategories[j].
inline constexpr const auto& kCategories = kAclCategoryNames;

// 0 when `name` is no category (case-insensitive).
std::uint32_t category_flag(std::string_view name);

inline constexpr std::size_t kCommandBits = 1024;
inline constexpr std::size_t kFutureBit = kCommandBits - 1;  // only +@all sets it

// Every declared command and subcommand with its id, in the command table's order.
struct CommandIds {
  std::vector<const CommandDef*> defs;     // id → declaration
  std::vector<std::uint32_t> cats;         // id → category flags
  std::vector<int> parent;                 // id → parent id, -1 for a top-level command
  std::vector<std::vector<int>> subs;      // id → its subcommands' ids
  std::vector<int> top;                    // top-level ids in table order
  std::vector<std::string> fullname;       // "config|get"
  int id_of(const CommandDef* def) const;  // -1 when unknown

 private:
  friend const CommandIds& command_ids();
  std::vector<const CommandDef*> slots_;  // open addressing by pointer
  std::vector<int> slot_ids_;
};
const CommandIds& command_ids();

enum KeyPerm : std::uint8_t { kPermRead = 1, kPermWrite = 2, kPermAll = 3 };
// How a key pattern is matched, decided when the rule is set: most patterns are a literal
// prefix and one '*' ("app:*"), or a literal, so the check is a compare, not a glob.
enum class PatternShape : std::uint8_t { kGlob, kPrefix, kExact };
struct KeyPattern {
  std::string pattern;
  std::uint8_t flags = kPermAll;
  PatternShape shape = PatternShape::kGlob;
};

enum SelectorFlag : std::uint32_t {
  kRoot = 1u << 0,
  kAllKeys = 1u << 1,
  kAllCommands = 1u << 2,
  kAllChannels = 1u << 3,
};

struct Selector {
  std::uint32_t flags = 0;
  std::array<std::uint64_t, kCommandBits / 64> allowed{};
  std::map<int, std::vector<std::string>> firstargs;  // id → allowed first arguments
  std::vector<KeyPattern> patterns;
  std::vector<std::string> channels;

  bool bit(std::size_t id) const { return (allowed[id / 64] >> (id % 64)) & 1u; }
  void set_bit(std::size_t id, bool on);
};

enum UserFlag : std::uint32_t {
  kOn = 1u << 0,
  kOff = 1u << 1,
  kNoPass = 1u << 2,
  kSkipSanitize = 1u << 3,
  kSanitize = 1u << 4,
};

struct User {
  std::string name;
  std::uint32_t flags = kOff;
  std::vector<std::string> passwords;  // lower-case hex SHA-256
  std::vector<Selector> selectors;     // [0] is the root selector
  // False only when the root selector allows every command, key and channel: the executor
  // then skips the check with this one test.
  bool restricted = true;
  void refresh() {
    const std::uint32_t all = kAllKeys | kAllCommands | kAllChannels;
    restricted = (selectors[0].flags & all) != all;
  }
};

// Why a rule was refused (Redis's errno values in ACLSetUser, in ACLSetUserStringError's words).
enum class RuleError : std::uint8_t {
  kOk,
  kUnknown,      // ENOENT
  kSyntax,       // EINVAL
  kKeysAll,      // EEXIST
  kChannelsAll,  // EISDIR
  kNoPassword,   // ENODEV
  kBadHash,      // EBADMSG
  kDuplicate,    // EALREADY
  kFirstArgSub,  // ECHILD
};
std::string_view rule_error_text(RuleError e);

User make_user(std::string_view name);
RuleError set_user(User& u, std::string_view op);
// SETUSER's arguments with "(…)" selectors that were split over several words joined back;
// nullopt (with the index of the opening word) when a parenthesis is left open.
std::optional<std::vector<std::string>> merge_selector_args(std::span<const std::string_view> args,
                                                            std::size_t& invalid_idx);

std::string describe_user(const User& u);  // ACL LIST's text after "user <name> "
std::string describe_commands(const Selector& s);
std::string describe_keys(const Selector& s);      // GETUSER "keys"
std::string describe_channels(const Selector& s);  // GETUSER "channels"

std::string hash_password(std::string_view pass);

enum class Denied : std::uint8_t { kOk = 0, kCommand = 1, kKey = 2, kAuth = 3, kChannel = 4 };
struct Verdict {
  Denied denied = Denied::kOk;
  std::size_t pos = 0;  // the argument refused (a key or channel)
};
// ACLCheckAllUserCommandPerm: `def` is what runs (the subcommand), `args` the whole line.
Verdict check(const User& u, const CommandDef& def, std::span<const std::string_view> args);
// SORT's BY/GET patterns: some selector runs the command with read access to every key.
bool full_key_access(const User& u, const CommandDef& def, std::span<const std::string_view> args);

// The keys of `args` and their flags as Redis's getKeysFromCommandWithSpecs finds them: the key
// specs' (SORT's own finder's), refined where Redis's getkeys procedures refine them (SET … GET,
// BITFIELD), as the key permission check sees them; nullopt when the specs cannot be followed.
struct KeyAndFlags {
  std::size_t pos;
  std::uint16_t flags;  // KeyFlag
};
std::optional<std::vector<KeyAndFlags>> keys_and_flags(const CommandDef& def,
                                                       std::span<const std::string_view> args);

// ACL LOG entries (newest first), grouped as Redis does.
enum class LogContext : std::uint8_t { kToplevel, kMulti, kLua };
struct LogEntry {
  std::uint64_t count = 1;
  Denied reason = Denied::kCommand;
  LogContext context = LogContext::kToplevel;
  std::string object;
  std::string username;
  std::int64_t ctime_ms = 0;
  std::string client_info;
};

// Redis's addACLLogEntry on `log` (newest first): `entry` joins a recent like entry (its count
// added) or goes in front; the log keeps at most `max_len` entries.
void log_insert(std::deque<LogEntry>& log, LogEntry entry, std::size_t max_len);

// The aclfile's bytes, or nullopt with Redis's "Error loading ACLs, opening file" text.
std::optional<std::string> read_acl_file(const std::string& path, std::string& error);

// This worker's users and log. Every worker holds the same users: the ACL commands that
// change them run on every worker (their routing), the files are read by each at start.
class Users {
 public:
  Users();
  std::shared_ptr<User> find(std::string_view name) const;
  std::shared_ptr<User> default_user() const { return default_; }
  const std::map<std::string, std::shared_ptr<User>, std::less<>>& all() const { return users_; }
  // ACL SETUSER: empty on success, else the error text (without "ERR ").
  std::string setuser(std::string_view name, std::span<const std::string_view> rules);
  bool erase(std::string_view name);
  // Credentials as ACLCheckUserCredentials: the user on success, null otherwise.
  std::shared_ptr<User> authenticate(std::string_view name, std::string_view pass) const;
  // requirepass: resetpass then >pass (nopass when empty).
  void set_default_password(std::string_view pass);
  // The default user needs no AUTH (nopass and on).
  bool default_open() const {
    return (default_->flags & kNoPass) != 0 && (default_->flags & kOff) == 0;
  }
  // ACL LOAD / the aclfile at start: empty on success (the users are replaced, the default
  // user object kept), else Redis's error text and nothing changed. `removed` gets the users
  // that no longer exist (their clients are to be closed).
  std::string load(std::string_view text, std::string_view filename,
                   std::vector<std::shared_ptr<User>>* removed);
  // `user` lines of the config file (each: name then rules): empty or the error.
  std::string load_config_lines(const std::vector<std::vector<std::string>>& lines);
  // ACLLoadUsersAtStartup: the config file's `user` lines, then the aclfile. Empty, or what
  // Redis logs before it exits (the server then refuses to start).
  std::string load_at_startup(const std::vector<std::vector<std::string>>& lines,
                              const std::string& aclfile);
  std::string save_text() const;

  void log(LogEntry entry);
  const std::deque<LogEntry>& log_entries() const { return log_; }
  void log_reset() { log_.clear(); }
  std::size_t log_max_len = 128;

 private:
  std::map<std::string, std::shared_ptr<User>, std::less<>> users_;
  std::shared_ptr<User> default_;
  std::deque<LogEntry> log_;
};

}  // namespace ruvio::worker::acl
