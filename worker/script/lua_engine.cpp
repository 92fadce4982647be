// The Lua engine: interpreter set-up, the script cache, EVAL and redis.call's checks.
#include "worker/script/lua_engine.hpp"

#include <nettle/sha1.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "shared/slots.hpp"
#include "worker/engine/acl_check.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/executor.hpp"
#include "worker/script/functions.hpp"
#include "worker/script/lua_api.hpp"
#include "worker/script/lua_convert.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace ruvio::worker::script {
namespace {

constexpr const char* kEngineKey = "__ruvio_engine";
constexpr int kHookInstructions = 100000;  // as Redis: the hook runs every 100k instructions
constexpr std::string_view kBusyEval =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
constexpr std::string_view kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

std::int64_t monotonic_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr std::string_view kNoScriptError = "NOSCRIPT No matching script. Please use EVAL.";
// Lua's garbage collector gets a step every this many scripts, as Redis does, instead of
// letting a full cycle land inside one script.
constexpr int kGcPeriod = 50;

bool arity_ok(int arity, std::size_t argc) {
  const int n = static_cast<int>(argc);
  return arity >= 0 ? n == arity : n >= -arity;
}

// Redis 7.0's no-script commands that Ruvio does not have (replication, modules, cluster
// reset): a script calling one gets Redis's refusal, after Redis's arity check, not the
// unknown-command error.
constexpr std::pair<std::string_view, int> kForeignNoScript[] = {
    {"cluster|reset", -2}, {"failover", -1},      {"module|list", 2},
    {"module|load", -3},   {"module|loadex", -3}, {"module|unload", 3},
    {"psync", -3},         {"replconf", -1},      {"sync", 1},
};

// The arity of `args` as one of kForeignNoScript, or 0 when it is none of them.
int foreign_noscript_arity(std::span<const std::string_view> args) {
  const std::string name = lower(args[0]);
  const std::string sub = args.size() >= 2 ? name + "|" + lower(args[1]) : std::string();
  for (auto [full, arity] : kForeignNoScript) {
    if (full == name || (!sub.empty() && full == sub)) return arity;
  }
  return 0;
}

// The shebang's flags (Redis's evalExtractShebangFlags); false with the error written.
bool shebang_flags(std::string_view body, std::uint32_t& flags, std::size_t& skip,
                   proto::ReplyWriter& out) {
  flags = kCompat;
  skip = 0;
  if (body.substr(0, 2) != "#!") return true;
  const std::size_t nl = body.find('\n');
  if (nl == std::string_view::npos) {
    out.error("ERR Invalid script shebang");
    return false;
  }
  skip = nl;
  flags = 0;
  std::string_view line = body.substr(0, nl);
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const std::size_t sp = line.find(' ', at);
    // Runs of spaces separate as one space does (sdssplitargs).
    std::string_view part = line.substr(at, sp == std::string_view::npos ? sp : sp - at);
    if (!part.empty()) parts.push_back(part);
    if (sp == std::string_view::npos) break;
    at = sp + 1;
  }
  if (parts[0] != "#!lua") {
    out.error("ERR Unexpected engine in script shebang: " + std::string(parts[0]));
    return false;
  }
  for (std::size_t j = 1; j < parts.size(); ++j) {
    std::string_view p = parts[j];
    if (p.substr(0, 6) != "flags=") {
      out.error("ERR Unknown lua shebang option: " + std::string(p));
      return false;
    }
    p.remove_prefix(6);
    while (!p.empty()) {
      const std::size_t comma = p.find(',');
      std::string_view f = p.substr(0, comma);
      p = comma == std::string_view::npos ? std::string_view{} : p.substr(comma + 1);
      bool known = false;
      for (auto [name, bit] : kScriptFlagNames) {
        if (f == name) {
          flags |= bit;
          known = true;
        }
      }
      if (!known) {
        out.error("ERR Unexpected flag in script shebang: " + std::string(f));
        return false;
      }
    }
  }
  return true;
}

}  // namespace

void sha1_hex(std::string_view data, char* out) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, data.size(), reinterpret_cast<const std::uint8_t*>(data.data()));
  std::uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  for (int j = 0; j < SHA1_DIGEST_SIZE; ++j) {
    out[j * 2] = kHex[digest[j] >> 4];
    out[j * 2 + 1] = kHex[digest[j] & 0xf];
  }
}

// POSIX lrand48 (48-bit LCG, top 31 bits), the generator of Redis's rand.c.
std::int32_t Engine::lrand48() {
  rand_state_ = (rand_state_ * 0x5DEECE66Dull + 0xB) & ((1ull << 48) - 1);
  return static_cast<std::int32_t>(rand_state_ >> 17);
}

void Engine::srand48(std::int32_t seed) {
  rand_state_ = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(seed)) << 16) | 0x330E;
}

Engine::Engine(Executor& executor, Shard& shard) : executor_(executor), shard_(shard) {
  client_.id = 0;
  client_.name = "lua";
  client_.script = true;
  open();
}

Engine::~Engine() {
  close();
}

void Engine::open() {
  lua_ = luaL_newstate();
  globals_ref_ = install_api(lua_, this, true);
  attach(lua_);
}

void Engine::attach(lua_State* lua) {
  lua_pushlightuserdata(lua, this);
  lua_setfield(lua, LUA_REGISTRYINDEX, kEngineKey);
}

Functions& Engine::functions() {
  if (!functions_) functions_ = std::make_unique<Functions>(*this);
  return *functions_;
}

void Engine::flush_functions() {
  if (functions_) functions_->flush();
}

std::int64_t Engine::run_duration_ms() const {
  return (monotonic_us() - start_us_) / 1000;
}

void Engine::count_hook(lua_State* lua, lua_Debug*) {
  lua_getfield(lua, LUA_REGISTRYINDEX, kEngineKey);
  auto* e = static_cast<Engine*>(lua_touserdata(lua, -1));
  lua_pop(lua, 1);
  if (!e->interrupt()) return;
  // As Redis: from now on the hook fires on every line, so a pcall that catches the kill
  // cannot keep the script alive.
  lua_sethook(lua, count_hook, LUA_MASKLINE, 0);
  push_error_table(lua, "Script killed by user with SCRIPT KILL...");
  lua_error(lua);
}

bool Engine::interrupt() {
  if (killed_) return true;
  if (!timed_out_) {
    const std::int64_t elapsed_ms = (monotonic_us() - start_us_) / 1000;
    if (elapsed_ms < shard_.config().busy_reply_threshold) return false;
    spdlog::warn(
        "Slow script detected: still in execution after {} milliseconds. You can try killing "
        "the script using the SCRIPT KILL command.",
        elapsed_ms);
    timed_out_ = true;
  }
  if (shard_.busy_service != nullptr) {
    shard_.busy_error = function_ ? kBusyFunction : kBusyEval;
    shard_.busy_service->serve_while_busy(caller_);
    shard_.busy_error = {};
  }
  // SHUTDOWN NOSAVE arrived: the script stops so the worker can.
  if (shard_.shutdown_requested) killed_ = true;
  if (killed_) spdlog::warn("Lua script killed by user with SCRIPT KILL.");
  return killed_;
}

std::string_view Engine::kill(bool is_eval) {
  if (!running_) return "NOTBUSY No scripts in execution right now.";
  if (wrote_) {
    return "UNKILLABLE Sorry the script already executed write commands against the dataset. "
           "You can either wait the script termination or kill the server in a hard way using "
           "the SHUTDOWN NOSAVE command.";
  }
  // As Redis: SCRIPT KILL does not stop a function, nor FUNCTION KILL an EVAL.
  if (is_eval && function_) return kBusyFunction;
  if (!is_eval && !function_) return kBusyEval;
  killed_ = true;
  return {};
}

void Engine::close() {
  if (lua_ != nullptr) lua_close(lua_);
  lua_ = nullptr;
  scripts_.clear();
  scripts_bytes_ = 0;
}

void Engine::flush() {
  close();
  open();
}

std::size_t Engine::lua_memory() const {
  return static_cast<std::size_t>(lua_gc(lua_, LUA_GCCOUNT, 0)) * 1024;
}

std::size_t Engine::scripts_memory() const {
  // As Redis counts it: the bodies and SHAs, plus a dict entry and script header each.
  return scripts_bytes_ + scripts_.size() * (24 + 16) + scripts_.bucket_count() * 8;
}

bool Engine::exists(std::string_view sha) const {
  return scripts_.find(sha) != scripts_.end();
}

const Engine::Script* Engine::create(std::string_view body, std::string_view sha,
                                     proto::ReplyWriter& out) {
  if (auto it = scripts_.find(sha); it != scripts_.end()) return &it->second;
  std::uint32_t flags = 0;
  std::size_t skip = 0;
  if (!shebang_flags(body, flags, skip, out)) return nullptr;
  // The shebang line is cut but its newline kept, so line numbers stay the script's own.
  std::string_view code = body.substr(skip);
  if (luaL_loadbuffer(lua_, code.data(), code.size(), "@user_script") != 0) {
    std::string msg = "ERR Error compiling script (new function): ";
    std::size_t len = 0;
    const char* e = lua_tolstring(lua_, -1, &len);
    msg.append(e, len);
    out.error(msg);
    lua_pop(lua_, 1);
    return nullptr;
  }
  Script s;
  s.ref = luaL_ref(lua_, LUA_REGISTRYINDEX);
  s.flags = flags;
  s.body = body;
  scripts_bytes_ += body.size() + 40;
  return &scripts_.emplace(std::string(sha), std::move(s)).first->second;
}

void Engine::load(std::string_view body, proto::ReplyWriter& out) {
  char sha[40];
  sha1_hex(body, sha);
  if (create(body, {sha, 40}, out) != nullptr) out.bulk({sha, 40});
}

void Engine::set_array_global(const char* name, std::span<const std::string_view> items) {
  lua_rawgeti(lua_, LUA_REGISTRYINDEX, globals_ref_);
  lua_pushstring(lua_, name);
  lua_newtable(lua_);
  for (std::size_t j = 0; j < items.size(); ++j) {
    lua_pushlstring(lua_, items[j].data(), items[j].size());
    lua_rawseti(lua_, -2, static_cast<int>(j + 1));
  }
  lua_rawset(lua_, -3);
  lua_pop(lua_, 1);
}

void Engine::eval(Context& ctx, bool by_sha, bool read_only) {
  auto args = ctx.args;
  proto::ReplyWriter& out = ctx.out;
  const auto numkeys = parse_int64(args[2]);
  if (!numkeys) {
    out.error(err::kNotInt);
    return;
  }
  if (*numkeys > static_cast<std::int64_t>(args.size()) - 3) {
    out.error("ERR Number of keys can't be greater than number of args");
    return;
  }
  if (*numkeys < 0) {
    out.error("ERR Number of keys can't be negative");
    return;
  }
  char sha[40];
  if (by_sha) {
    if (args[1].size() != 40) {
      out.error(kNoScriptError);
      return;
    }
    for (int j = 0; j < 40; ++j) {
      const char c = args[1][static_cast<std::size_t>(j)];
      sha[j] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
    }
  } else {
    sha1_hex(args[1], sha);
  }
  const std::string_view sha_view{sha, 40};
  const Script* s = nullptr;
  if (auto it = scripts_.find(sha_view); it != scripts_.end()) {
    s = &it->second;
  } else if (by_sha) {
    out.error(kNoScriptError);
    return;
  } else if ((s = create(args[1], sha_view, out)) == nullptr) {
    return;
  }
  // scriptPrepareForRun's refusals.
  if (!(s->flags & kCompat)) {
    if ((s->flags & kNoCluster) && ctx.client.cluster_mode) {
      out.error("ERR Can not run script on cluster, 'no-cluster' flag is set.");
      return;
    }
    if (!(s->flags & kNoWrites) && read_only) {
      out.error("ERR Can not execute a script with write flag using *_ro command.");
      return;
    }
    // Redis 7.0 gives a shebang script that may write and lacks allow-oom the denyoom flag:
    // over the limit it is refused as any denyoom command.
    if (!(s->flags & (kAllowOom | kNoWrites)) && shard_.config().maxmemory != 0 &&
        executor_.oom_at_start()) {
      out.error(err::kOom);
      return;
    }
  }
  allow_oom_ = !(s->flags & kCompat) && (s->flags & kAllowOom);
  const std::size_t nk = static_cast<std::size_t>(*numkeys);
  set_array_global("KEYS", args.subspan(3, nk));
  set_array_global("ARGV", args.subspan(3 + nk));
  push_error_handler(lua_);
  lua_rawgeti(lua_, LUA_REGISTRYINDEX, s->ref);
  run(ctx, lua_, 0, s->flags, read_only, sha_view, false);
}

namespace {
void push_array(lua_State* lua, std::span<const std::string_view> items) {
  lua_createtable(lua, static_cast<int>(items.size()), 0);
  for (std::size_t j = 0; j < items.size(); ++j) {
    lua_pushlstring(lua, items[j].data(), items[j].size());
    lua_rawseti(lua, -2, static_cast<int>(j + 1));
  }
}
}  // namespace

void Engine::fcall(Context& ctx, bool read_only) {
  auto args = ctx.args;
  proto::ReplyWriter& out = ctx.out;
  const Function* f = functions_ != nullptr ? functions_->find(args[1]) : nullptr;
  if (f == nullptr) {
    out.error("ERR Function not found");
    return;
  }
  const auto numkeys = parse_int64(args[2]);
  if (!numkeys) {
    out.error("ERR Bad number of keys provided");
    return;
  }
  if (*numkeys > static_cast<std::int64_t>(args.size()) - 3) {
    out.error("ERR Number of keys can't be greater than number of args");
    return;
  }
  if (*numkeys < 0) {
    out.error("ERR Number of keys can't be negative");
    return;
  }
  // scriptPrepareForRun's refusals.
  if ((f->flags & kNoCluster) && ctx.client.cluster_mode) {
    out.error("ERR Can not run script on cluster, 'no-cluster' flag is set.");
    return;
  }
  if (!(f->flags & kNoWrites) && read_only) {
    out.error("ERR Can not execute a script with write flag using *_ro command.");
    return;
  }
  // As a shebang script: a function that may write and lacks allow-oom is denyoom.
  if (!(f->flags & (kAllowOom | kNoWrites)) && shard_.config().maxmemory != 0 &&
      executor_.oom_at_start()) {
    out.error(err::kOom);
    return;
  }
  allow_oom_ = (f->flags & kAllowOom) != 0;
  const std::size_t nk = static_cast<std::size_t>(*numkeys);
  lua_State* lua = functions_->lua();
  push_error_handler(lua);
  lua_rawgeti(lua, LUA_REGISTRYINDEX, f->ref);
  push_array(lua, args.subspan(3, nk));
  push_array(lua, args.subspan(3 + nk));
  run(ctx, lua, 2, f->flags, read_only, f->name, true);
}

void Engine::run(Context& ctx, lua_State* lua, int nargs, std::uint32_t flags, bool read_only,
                 std::string_view name, bool function) {
  caller_ = &ctx.client;
  caller_args_ = ctx.args;
  client_.user = ctx.client.user;  // redis.call runs with the caller's permissions
  client_.db = ctx.client.db;
  client_.resp = 2;
  caller_cluster_ = ctx.client.cluster_mode;
  client_.origin = ctx.client.origin;
  read_only_ = read_only || (!(flags & kCompat) && (flags & kNoWrites));
  run_flags_ = flags;
  run_name_ = name;
  function_ = function;
  wrote_ = false;
  timed_out_ = false;
  killed_ = false;
  client_.unjournaled = false;  // every script starts as REPL_ALL
  running_ = true;
  start_us_ = monotonic_us();
  const bool hooked = shard_.config().busy_reply_threshold > 0;
  if (hooked) lua_sethook(lua, count_hook, LUA_MASKCOUNT, kHookInstructions);

  executor_.begin_batch();
  const int failed = lua_pcall(lua, nargs, 1, -(nargs + 2));
  executor_.end_batch();
  if (hooked) lua_sethook(lua, nullptr, 0, 0);
  running_ = false;
  caller_ = nullptr;
  caller_args_ = {};
  client_.user = nullptr;

  static int gc_count = 0;
  if (++gc_count == kGcPeriod) {
    lua_gc(lua, LUA_GCSTEP, kGcPeriod);
    gc_count = 0;
  }

  if (failed) {
    write_run_error(lua, ctx.out, name);
    lua_pop(lua, 1);  // the error (write_value pops the result itself)
  } else {
    write_value(lua, ctx.out, client_.resp);
  }
  lua_pop(lua, 1);  // the error handler
}

bool Engine::may_run(const CommandDef& def, std::span<const std::string_view> args) const {
  return client_.user == nullptr || !client_.user->restricted ||
         acl::check(*client_.user, def, args).denied == acl::Denied::kOk;
}

bool Engine::call(std::span<const std::string_view> args) {
  const CommandDef* def = command_table().find(args[0]);
  if (def != nullptr && !def->subcommands.empty() && args.size() >= 2) {
    def = CommandTable::find_sub(*def, args[1]);
  }
  if (def == nullptr) {
    const int arity = foreign_noscript_arity(args);
    error_ = arity == 0 ? "Unknown Redis command called from script"
             : !arity_ok(arity, args.size())
                 ? "Wrong number of args calling Redis command from script"
                 : "This Redis command is not allowed from script";
    return false;
  }
  if (!arity_ok(def->arity, args.size())) {
    error_ = "Wrong number of args calling Redis command from script";
    return false;
  }
  if (def->flags & kNoScript) {
    error_ = "This Redis command is not allowed from script";
    return false;
  }
  if (client_.user != nullptr && client_.user->restricted &&
      acl_refused(shard_, client_, *def, args, AclWhere::kScript, nullptr, &error_, caller_)) {
    return false;
  }
  if (def->flags & kWrite) {
    if (read_only_) {
      error_ = "Write commands are not allowed from read-only scripts.";
      return false;
    }
  }
  // scriptVerifyOOM: over maxmemory at the script's start, its first write may not be a
  // denyoom one (later ones run: a script is not stopped half-way).
  if ((def->flags & kDenyOom) && !allow_oom_ && !wrote_ && shard_.config().maxmemory != 0 &&
      executor_.oom_at_start()) {
    error_ = "-" + std::string(err::kOom);
    return false;
  }
  if (def->flags & kWrite) wrote_ = true;
  // A script runs on one worker: a key owned by another (a key it did not declare, or keys
  // declared over several workers reached through the direct port) cannot be touched here.
  if (shard_.topology != nullptr) {
    const Topology& topo = *shard_.topology;
    std::string_view foreign;
    for_each_key(*def, args, [&](std::size_t pos, const KeySpec&) {
      if (foreign.empty() && topo.worker_of_slot(key_slot(args[pos])) != shard_.worker_id()) {
        foreign = args[pos];
      }
    });
    if (!foreign.empty()) {
      if (caller_cluster_) {
        error_ = "Script attempted to access a non local key in a cluster node";
      } else {
        error_ = "Script attempted to access key '" + std::string(foreign) +
                 "' owned by another worker; a script's keys must live on one worker "
                 "(declare them in KEYS or give them a common {hash tag})";
      }
      return false;
    }
  }
  reply_.clear();
  proto::ReplyWriter w(reply_, client_.resp);
  // client_ is never in cluster mode: ownership was checked above, in the script's words.
  executor_.execute(client_, args, w);
  return true;
}

Engine& engine(Executor& executor) {
  std::unique_ptr<ScriptState>& state = executor.script_state();
  if (!state) state = std::make_unique<Engine>(executor, executor.shard());
  return static_cast<Engine&>(*state);
}

Engine* started_engine(Executor& executor) {
  return static_cast<Engine*>(executor.script_state().get());
}

const Engine* started_engine(const Executor& executor) {
  return static_cast<const Engine*>(executor.script_state());
}

}  // namespace ruvio::worker::script
