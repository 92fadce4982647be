// The Lua engine of one worker (one interpreter per worker, as Redis has one per process).
//
// It holds the Lua 5.1 state with Redis's libraries (base, table, string, math, cjson, bit,
// cmsgpack, struct; no os/io/loadfile/dofile/print/getfenv/setfenv/newproxy/debug, and
// loadstring/load refuse precompiled chunks as Redis's Lua does), the script cache
// (SHA1 → compiled function + shebang flags) and runs EVAL-family calls. A script's redis.call goes
// through the worker's Executor with a client of the engine's own (Redis's "fake client"), so a
// command from a script is checked, run and journaled exactly as one from a connection.
//
// Globals are protected as Redis 7 does: reading a global that does not exist and writing any
// global or any library table are errors with Redis's texts. Debian's stock Lua has no
// read-only tables (Redis patches its own copy), so the thread's globals are an empty proxy
// whose __index is the real table and whose __newindex refuses; each library table is
// proxied the same way. rawset/setmetatable/table.insert refuse the proxies, next/pairs/
// rawget read through them, and getmetatable shows Redis's metatables (none for a library,
// read-only views for _G and strings), never a proxy's own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "worker/engine/executor.hpp"
#include "worker/engine/shard.hpp"

struct lua_State;
struct lua_Debug;

namespace ruvio::worker {

class Executor;
struct Context;
struct CommandDef;

namespace script {

// Shebang flags (Redis's scripts_flags_def); kCompat: no shebang (EVAL's old rules).
enum ScriptFlag : std::uint32_t {
  kNoWrites = 1u << 0,
  kAllowOom = 1u << 1,
  kAllowStale = 1u << 2,
  kNoCluster = 1u << 3,
  kAllowCrossSlot = 1u << 4,
  kCompat = 1u << 5,
};

// The flag names, in Redis's order (scripts_flags_def): shebangs, redis.register_function's
// flags and FUNCTION LIST's reply use them.
inline constexpr std::pair<std::string_view, std::uint32_t> kScriptFlagNames[] = {
    {"no-writes", kNoWrites},
    {"allow-oom", kAllowOom},
    {"allow-stale", kAllowStale},
    {"no-cluster", kNoCluster},
    {"allow-cross-slot-keys", kAllowCrossSlot},
};

class Functions;

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class Engine : public ScriptState {
 public:
  Engine(Executor& executor, Shard& shard);
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // EVAL / EVALSHA / EVAL_RO / EVALSHA_RO: ctx.args as sent.
  void eval(Context& ctx, bool by_sha, bool read_only);
  // FCALL / FCALL_RO: ctx.args as sent.
  void fcall(Context& ctx, bool read_only);
  // The function libraries (functions.hpp), started on first use; SCRIPT FLUSH leaves them.
  Functions& functions();
  Functions* functions_if_started() const { return functions_.get(); }
  // FUNCTION FLUSH: every library dropped, a fresh interpreter for them.
  void flush_functions();
  // Makes `lua` find this engine from its hooks (the functions' interpreter calls it).
  void attach(lua_State* lua);
  // SCRIPT LOAD: compiles and caches `body`; writes the SHA or the compile error.
  void load(std::string_view body, proto::ReplyWriter& out);
  bool exists(std::string_view sha) const;
  // SCRIPT FLUSH: drops every cached script and starts a fresh interpreter, as Redis.
  void flush();

  std::size_t cached_scripts() const { return scripts_.size(); }
  // Every cached script's body (a worker that restarted is sent them again: SCRIPT LOAD
  // reached every worker, and its cache came back empty).
  template <class F>
  void for_each_script(F&& fn) const {
    for (const auto& [sha, s] : scripts_) fn(std::string_view(s.body));
  }
  std::size_t lua_memory() const;      // INFO used_memory_lua
  std::size_t scripts_memory() const;  // INFO used_memory_scripts

  // Called by redis.call / redis.pcall (lua_engine.cpp): runs one command for the running
  // script and leaves its reply (RESP bytes) in reply(); false with error() set when the
  // script may not run it (the texts are Redis's).
  bool call(std::span<const std::string_view> args);
  const std::string& reply() const { return reply_; }
  // redis.acl_check_cmd: true when the running script's caller may run `def` with `args`.
  bool may_run(const CommandDef& def, std::span<const std::string_view> args) const;
  const std::string& error() const { return error_; }
  void set_resp(int resp) { client_.resp = resp; }
  int resp() const { return client_.resp; }
  bool running() const { return running_; }
  // redis.set_repl: whether the running script's writes go to the WAL from now on.
  void set_journaled(bool on) { client_.unjournaled = !on; }
  // SCRIPT KILL (is_eval) / FUNCTION KILL: empty when the running script will stop, else
  // the error to answer (NOTBUSY, UNKILLABLE once it wrote, BUSY for the wrong kind).
  std::string_view kill(bool is_eval);
  // FUNCTION STATS: what runs now (only meaningful while running()).
  bool running_function() const { return running_ && function_; }
  std::string_view running_name() const { return run_name_; }
  std::span<const std::string_view> caller_args() const { return caller_args_; }
  std::int64_t run_duration_ms() const;
  // redis.log's target and math.random's generator (Redis's own lrand48, so the sequence
  // is the same on every platform and as Redis's).
  std::int32_t lrand48();
  void srand48(std::int32_t seed);

 private:
  struct Script {
    int ref = 0;  // the compiled function in the Lua registry
    std::uint32_t flags = 0;
    std::string body;  // kept, as Redis keeps it (scripts_memory counts it)
  };
  void open();
  void close();
  // Compiles `body` (after its shebang) into the cache; nullptr with the error written.
  const Script* create(std::string_view body, std::string_view sha, proto::ReplyWriter& out);
  void set_array_global(const char* name, std::span<const std::string_view> items);
  // Runs the function on top of `lua` (the error handler under it, its `nargs` arguments
  // above it) for ctx's client and writes its reply: EVAL's and FCALL's common path.
  void run(Context& ctx, lua_State* lua, int nargs, std::uint32_t flags, bool read_only,
           std::string_view name, bool function);
  // The count hook's work: past the threshold, serve the other clients; true = stop the
  // script (SCRIPT KILL, SHUTDOWN).
  bool interrupt();
  static void count_hook(lua_State* lua, lua_Debug* ar);

  Executor& executor_;
  Shard& shard_;
  lua_State* lua_ = nullptr;
  int globals_ref_ = 0;  // the real globals table (the proxy's __index)
  std::unordered_map<std::string, Script, StringHash, std::equal_to<>> scripts_;
  std::size_t scripts_bytes_ = 0;

  // The running script's state.
  ClientInfo client_;  // the engine's own client: db and RESP version of the running script
  const ClientInfo* caller_ = nullptr;
  bool caller_cluster_ = false;  // the caller came through a direct (cluster) port
  bool running_ = false;
  bool read_only_ = false;
  bool wrote_ = false;
  bool allow_oom_ = false;  // the running script declared allow-oom
  bool timed_out_ = false;
  bool killed_ = false;
  bool function_ = false;  // the running script is a function (FCALL)
  std::uint32_t run_flags_ = 0;
  std::string_view run_name_;
  std::span<const std::string_view> caller_args_;
  std::unique_ptr<Functions> functions_;
  std::int64_t start_us_ = 0;
  std::string reply_;
  std::string error_;
  std::uint64_t rand_state_ = 0x1234ABCD330Eull;
};

// SHA1 of `data` as 40 lower-case hex digits into `out` (at least 40 bytes).
void sha1_hex(std::string_view data, char* out);

// The executor's Lua engine, started on the first use (executor.script_state() holds it).
Engine& engine(Executor& executor);
// Null until a script ran: INFO and the like read the engine's figures only when there is one.
Engine* started_engine(Executor& executor);
const Engine* started_engine(const Executor& executor);

}  // namespace script
}  // namespace ruvio::worker
