// The script-visible API: libraries, redis.*, math.random, the error handler, the sandbox.
#include "worker/script/lua_api.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "worker/engine/command_table.hpp"
#include "worker/script/functions.hpp"
#include "worker/script/lua_convert.hpp"
#include "worker/script/lua_engine.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

// Debian's lua-cjson-dev and lua-bitop-dev.
int luaopen_cjson(lua_State*);
int luaopen_bit(lua_State*);
}

namespace ruvio::worker::script {
namespace {

constexpr const char* kHandlerKey = "__redis__err__handler";
constexpr int kLogDebug = 0, kLogWarning = 3;
constexpr int kReplAof = 1, kReplReplica = 2;

Engine& engine_of(lua_State* lua) {
  return *static_cast<Engine*>(lua_touserdata(lua, lua_upvalueindex(1)));
}

int raise(lua_State* lua, std::string_view text) {
  push_error_table(lua, text);
  return lua_error(lua);
}

// Lua arguments → command arguments: strings as they are, numbers as "%.17g" (Lua's own
// formatting loses precision). False when one is neither.
bool command_args(lua_State* lua, std::vector<std::string_view>& args,
                  std::vector<std::string>& numbers) {
  const int argc = lua_gettop(lua);
  args.clear();
  if (numbers.size() < static_cast<std::size_t>(argc))
    numbers.resize(static_cast<std::size_t>(argc));
  for (int j = 1; j <= argc; ++j) {
    if (lua_type(lua, j) == LUA_TNUMBER) {
      char buf[64];
      const int n = std::snprintf(buf, sizeof(buf), "%.17g", lua_tonumber(lua, j));
      std::string& s = numbers[static_cast<std::size_t>(j - 1)];
      s.assign(buf, static_cast<std::size_t>(n));
      args.emplace_back(s);
      continue;
    }
    std::size_t len = 0;
    const char* s = lua_tolstring(lua, j, &len);
    if (s == nullptr) return false;
    args.emplace_back(s, len);
  }
  return true;
}

// The argument vectors are reused from call to call: a script's hot loop does not allocate.
std::vector<std::string_view> g_args;
std::vector<std::string> g_numbers;

int generic_call(lua_State* lua, bool raise_error) {
  Engine& e = engine_of(lua);
  if (!e.running())
    return raise(lua, "redis.call/pcall can only be called inside a script invocation");
  if (lua_gettop(lua) == 0) {
    push_error_table(lua, "Please specify at least one argument for this redis lib call");
    return raise_error ? lua_error(lua) : 1;
  }
  if (!command_args(lua, g_args, g_numbers)) {
    lua_settop(lua, 0);
    push_error_table(lua, "Lua redis lib command arguments must be strings or integers");
    return raise_error ? lua_error(lua) : 1;
  }
  bool failed;
  const bool ran = e.call(g_args);
  // As Redis: the arguments leave the stack before the reply is pushed, so a call with as
  // many arguments as the stack holds (unpack of 7,999) still has room for its reply.
  lua_settop(lua, 0);
  if (!ran) {
    push_error_table(lua, e.error());
    lua_pushstring(lua, "ignore_error_stats_update");
    lua_pushboolean(lua, 1);
    lua_settable(lua, -3);
    failed = true;
  } else {
    failed = push_reply(lua, e.reply());
  }
  return raise_error && failed ? lua_error(lua) : 1;
}

int redis_call(lua_State* lua) {
  return generic_call(lua, true);
}
int redis_pcall(lua_State* lua) {
  return generic_call(lua, false);
}

// Redis 7's pcall: an error raised as a table {err=…} (redis.call's) is caught as its text.
int lua_pcall_compat(lua_State* lua) {
  const int argc = lua_gettop(lua);
  lua_pushboolean(lua, 1);
  lua_insert(lua, 1);
  if (lua_pcall(lua, argc - 1, LUA_MULTRET, 0)) {
    lua_remove(lua, 1);
    if (lua_istable(lua, -1)) {
      lua_getfield(lua, -1, "err");
      if (lua_isstring(lua, -1)) lua_replace(lua, -2);
    }
    lua_pushboolean(lua, 0);
    lua_insert(lua, 1);
  }
  return lua_gettop(lua);
}

int redis_sha1hex(lua_State* lua) {
  if (lua_gettop(lua) != 1) return raise(lua, "wrong number of arguments");
  std::size_t len = 0;
  const char* s = lua_tolstring(lua, 1, &len);
  char digest[40];
  sha1_hex(s == nullptr ? std::string_view{} : std::string_view{s, len}, digest);
  lua_pushlstring(lua, digest, 40);
  return 1;
}

int redis_error_reply(lua_State* lua) {
  if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
    push_error_table(lua, "wrong number or type of arguments");
    return 1;
  }
  std::size_t len = 0;
  const char* s = lua_tolstring(lua, -1, &len);
  std::string text;
  if (len == 0 || s[0] != '-') text = "-";
  text.append(s, len);
  push_error_table(lua, text);
  return 1;
}

int redis_status_reply(lua_State* lua) {
  if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
    push_error_table(lua, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(lua);
  lua_pushstring(lua, "ok");
  lua_pushvalue(lua, -3);
  lua_settable(lua, -3);
  return 1;
}

int redis_set_repl(lua_State* lua) {
  if (!engine_of(lua).running()) {
    return raise(lua, "redis.set_repl can only be called inside a script invocation");
  }
  if (lua_gettop(lua) != 1) return raise(lua, "redis.set_repl() requires two arguments.");
  const int flags = static_cast<int>(lua_tonumber(lua, -1));
  if ((flags & ~(kReplAof | kReplReplica)) != 0) {
    return raise(lua,
                 "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  // REPL_AOF is the WAL's part (there is no replica stream yet to leave a write out of).
  engine_of(lua).set_journaled((flags & kReplAof) != 0);
  return 0;
}

int redis_true(lua_State* lua) {
  lua_pushboolean(lua, 1);
  return 1;
}
int redis_false(lua_State* lua) {
  lua_pushboolean(lua, 0);
  return 1;
}
int redis_nothing(lua_State*) {
  return 0;
}

int redis_log(lua_State* lua) {
  const int argc = lua_gettop(lua);
  if (argc < 2) return raise(lua, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(lua, -argc)) return raise(lua, "First argument must be a number (log level).");
  const int level = static_cast<int>(lua_tonumber(lua, -argc));
  if (level < kLogDebug || level > kLogWarning) return raise(lua, "Invalid debug level.");
  std::string line;
  for (int j = 1; j < argc; ++j) {
    std::size_t len = 0;
    const char* s = lua_tolstring(lua, -argc + j, &len);
    if (s == nullptr) continue;
    if (j != 1) line.push_back(' ');
    line.append(s, len);
  }
  static constexpr spdlog::level::level_enum kLevels[] = {
      spdlog::level::debug, spdlog::level::debug, spdlog::level::info, spdlog::level::warn};
  spdlog::log(kLevels[level], "{}", line);
  return 0;
}

int redis_setresp(lua_State* lua) {
  Engine& e = engine_of(lua);
  if (!e.running())
    return raise(lua, "redis.setresp can only be called inside a script invocation");
  const int argc = lua_gettop(lua);
  if (argc != 1) return raise(lua, "redis.setresp() requires one argument.");
  const int resp = static_cast<int>(lua_tonumber(lua, -argc));
  if (resp != 2 && resp != 3) return raise(lua, "RESP version must be 2 or 3.");
  e.set_resp(resp);
  return 0;
}

int redis_acl_check_cmd(lua_State* lua) {
  if (!engine_of(lua).running()) {
    return raise(lua, "redis.acl_check_cmd can only be called inside a script invocation");
  }
  if (lua_gettop(lua) == 0) {
    return raise(lua, "Please specify at least one argument for this redis lib call");
  }
  if (!command_args(lua, g_args, g_numbers)) {
    lua_settop(lua, 0);
    return raise(lua, "Lua redis lib command arguments must be strings or integers");
  }
  const CommandDef* def = command_table().find(g_args[0]);
  if (def != nullptr && !def->subcommands.empty() && g_args.size() >= 2) {
    def = CommandTable::find_sub(*def, g_args[1]);
  }
  const bool allowed = def != nullptr && engine_of(lua).may_run(*def, g_args);
  lua_settop(lua, 0);
  if (def == nullptr) return raise(lua, "Invalid command passed to redis.acl_check_cmd()");
  // As Redis: the caller's permissions, no arity check, nothing logged.
  lua_pushboolean(lua, allowed ? 1 : 0);
  return 1;
}

// Lua's own math.random with rand() replaced by Redis's lrand48.
int math_random(lua_State* lua) {
  Engine& e = engine_of(lua);
  if (!e.running())
    return luaL_error(lua, "math.random can only be called inside a script invocation");
  constexpr std::int32_t kMax = 2147483647;
  const lua_Number r = static_cast<lua_Number>(e.lrand48() % kMax) / static_cast<lua_Number>(kMax);
  switch (lua_gettop(lua)) {
    case 0:
      lua_pushnumber(lua, r);
      break;
    case 1: {
      const int u = luaL_checkint(lua, 1);
      luaL_argcheck(lua, 1 <= u, 1, "interval is empty");
      lua_pushnumber(lua, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(lua, 1);
      const int u = luaL_checkint(lua, 2);
      luaL_argcheck(lua, l <= u, 2, "interval is empty");
      lua_pushnumber(lua, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(lua, "wrong number of arguments");
  }
  return 1;
}

int math_randomseed(lua_State* lua) {
  Engine& e = engine_of(lua);
  if (!e.running()) {
    return luaL_error(lua, "math.randomseed can only be called inside a script invocation");
  }
  e.srand48(luaL_checkint(lua, 1));
  return 0;
}

int nonexistent_global(lua_State* lua) {
  const char* name = lua_tostring(lua, -1);
  return luaL_error(lua, "Script attempted to access nonexistent global variable '%s'",
                    name == nullptr ? "?" : name);
}

int readonly_table(lua_State* lua) {
  return luaL_error(lua, "Attempt to modify a readonly table");
}

constexpr const char* kProtectedKey = "__ruvio_readonly_metatables";
// What getmetatable answers for a read-only proxy (the proxy → its face; none: nil) and for
// a string (kStringFaceKey).
constexpr const char* kFacesKey = "__ruvio_metatable_faces";
constexpr const char* kStringFaceKey = "__ruvio_string_metatable_face";

// True when the table at `idx` is one of the read-only proxies (its metatable is registered).
bool is_protected(lua_State* lua, int idx) {
  if (!lua_istable(lua, idx) || !lua_getmetatable(lua, idx)) return false;
  lua_getfield(lua, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushvalue(lua, -2);
  lua_rawget(lua, -2);
  const bool yes = lua_toboolean(lua, -1) != 0;
  lua_pop(lua, 3);
  return yes;
}

// The wrappers' common end: the wrapped original (upvalue 1) called with the arguments on
// the stack, all its results returned.
int call_original(lua_State* lua) {
  lua_pushvalue(lua, lua_upvalueindex(1));
  lua_insert(lua, 1);
  lua_call(lua, lua_gettop(lua) - 1, LUA_MULTRET);
  return lua_gettop(lua);
}

// setmetatable, rawset and table.insert refuse the read-only tables, as Redis's patched VM
// does; the error carries no position there (it is raised inside the C function), so none
// here either.
int guarded(lua_State* lua) {
  if (is_protected(lua, 1)) {
    lua_pushstring(lua, "Attempt to modify a readonly table");
    return lua_error(lua);
  }
  return call_original(lua);
}

// next, rawget and table.foreach read a read-only proxy's table, as Redis's read-only tables
// read as any table (pairs(_G) lists the globals). Only what the real table holds comes out,
// never the real table itself.
int see_through(lua_State* lua) {
  if (is_protected(lua, 1)) {
    lua_getmetatable(lua, 1);
    lua_getfield(lua, -1, "__index");
    lua_replace(lua, 1);
    lua_pop(lua, 1);
  }
  return call_original(lua);
}

// pairs as Lua's own (luaB_pairs), its iterator the see-through next, its state the proxy.
int pairs_through(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  lua_pushvalue(lua, lua_upvalueindex(1));
  lua_pushvalue(lua, 1);
  lua_pushnil(lua);
  return 3;
}

// getmetatable: a proxy shows its face (nil for the library tables, which have no metatable
// in Redis; a read-only view of the globals' metatable for _G), a string the read-only view
// of the string metatable (Redis protects the basic types' metatables).
int getmetatable_face(lua_State* lua) {
  luaL_checkany(lua, 1);
  if (lua_type(lua, 1) == LUA_TSTRING) {
    lua_getfield(lua, LUA_REGISTRYINDEX, kStringFaceKey);
    return 1;
  }
  if (is_protected(lua, 1)) {
    lua_getfield(lua, LUA_REGISTRYINDEX, kFacesKey);
    lua_pushvalue(lua, 1);
    lua_rawget(lua, -2);
    return 1;
  }
  return call_original(lua);
}

// Replaces `fn` in the table at the top (a global or a library's field) by `wrapper` with
// the original as its upvalue.
void wrap_field(lua_State* lua, const char* fn, lua_CFunction wrapper) {
  lua_getfield(lua, -1, fn);
  lua_pushcclosure(lua, wrapper, 1);
  lua_setfield(lua, -2, fn);
}

// A chunk is always text, as in Redis's Lua (its parser never undumps): a precompiled chunk
// (LUA_SIGNATURE) gets a leading space, so Lua's own parser refuses it with Redis's error
// ("unexpected symbol near 'char(27)'") under the chunk's own name.
bool binary_chunk(lua_State* lua, int idx) {
  std::size_t len = 0;
  const char* s = lua_type(lua, idx) == LUA_TSTRING ? lua_tolstring(lua, idx, &len) : nullptr;
  return s != nullptr && len > 0 && s[0] == LUA_SIGNATURE[0];
}

int loadstring_text(lua_State* lua) {
  if (binary_chunk(lua, 1)) {
    if (lua_isnoneornil(lua, 2)) {  // the default name stays the chunk itself
      lua_settop(lua, 1);
      lua_pushvalue(lua, 1);
    }
    lua_pushstring(lua, " ");
    lua_pushvalue(lua, 1);
    lua_concat(lua, 2);
    lua_replace(lua, 1);
  }
  return call_original(lua);
}

// load's reader, between Lua's load and the script's reader (upvalue 1): its first piece,
// when binary, comes after a space (upvalue 2 holds it meanwhile; upvalue 3: first piece
// seen).
int text_piece(lua_State* lua) {
  if (!lua_isnil(lua, lua_upvalueindex(2))) {
    lua_pushvalue(lua, lua_upvalueindex(2));
    lua_pushnil(lua);
    lua_replace(lua, lua_upvalueindex(2));
    return 1;
  }
  lua_pushvalue(lua, lua_upvalueindex(1));
  lua_call(lua, 0, 1);
  if (lua_toboolean(lua, lua_upvalueindex(3))) return 1;
  lua_pushboolean(lua, 1);
  lua_replace(lua, lua_upvalueindex(3));
  if (!binary_chunk(lua, -1)) return 1;
  lua_replace(lua, lua_upvalueindex(2));
  lua_pushstring(lua, " ");
  return 1;
}

int load_text(lua_State* lua) {
  if (lua_type(lua, 1) == LUA_TFUNCTION) {
    lua_pushvalue(lua, 1);
    lua_pushnil(lua);
    lua_pushboolean(lua, 0);
    lua_pushcclosure(lua, text_piece, 3);
    lua_replace(lua, 1);
  }
  return call_original(lua);
}

// Makes a metatable for a read-only proxy over the table at the top (left in place) and
// registers it; the metatable is pushed.
void push_readonly_metatable(lua_State* lua) {
  lua_newtable(lua);
  lua_pushvalue(lua, -2);
  lua_setfield(lua, -2, "__index");
  lua_pushcfunction(lua, readonly_table);
  lua_setfield(lua, -2, "__newindex");
  // Lua's own getmetatable/setmetatable would stop at this (ours never reach it).
  lua_pushboolean(lua, 0);
  lua_setfield(lua, -2, "__metatable");
  lua_getfield(lua, LUA_REGISTRYINDEX, kProtectedKey);
  lua_pushvalue(lua, -2);
  lua_pushboolean(lua, 1);
  lua_rawset(lua, -3);
  lua_pop(lua, 1);
}

void set_fn(lua_State* lua, const char* name, lua_CFunction fn, Engine* engine) {
  lua_pushstring(lua, name);
  if (engine != nullptr) {
    lua_pushlightuserdata(lua, engine);
    lua_pushcclosure(lua, fn, 1);
  } else {
    lua_pushcfunction(lua, fn);
  }
  lua_settable(lua, -3);
}

void set_number(lua_State* lua, const char* name, lua_Number v) {
  lua_pushstring(lua, name);
  lua_pushnumber(lua, v);
  lua_settable(lua, -3);
}

void open_lib(lua_State* lua, const char* name, lua_CFunction open) {
  lua_pushcfunction(lua, open);
  lua_pushstring(lua, name);
  lua_call(lua, 1, 1);
  // Debian builds cjson without its global; bit registers its own. Either way: a global.
  if (lua_istable(lua, -1) && *name != '\0') {
    lua_setglobal(lua, name);
  } else {
    lua_pop(lua, 1);
  }
}

// Replaces the table on top of the stack by a read-only proxy over it.
void to_readonly_proxy(lua_State* lua) {
  push_readonly_metatable(lua);
  lua_newtable(lua);
  lua_insert(lua, -2);
  lua_setmetatable(lua, -2);
  lua_remove(lua, -2);
}

// Replaces global `name` (a table) by an empty proxy that reads through to it and refuses
// writes: Redis 7's read-only library tables.
void protect_table(lua_State* lua, const char* name) {
  lua_getglobal(lua, name);
  if (!lua_istable(lua, -1)) {
    lua_pop(lua, 1);
    return;
  }
  to_readonly_proxy(lua);
  lua_setglobal(lua, name);
}

// Registers the table on top (popped) as what getmetatable shows for the proxy at `proxy`.
void set_face(lua_State* lua, int proxy) {
  proxy = proxy < 0 ? lua_gettop(lua) + proxy + 1 : proxy;
  lua_getfield(lua, LUA_REGISTRYINDEX, kFacesKey);
  lua_pushvalue(lua, proxy);
  lua_pushvalue(lua, -3);
  lua_rawset(lua, -3);
  lua_pop(lua, 2);
}

// The error handler every script runs under (as Redis 7's __redis__err__handler): a plain
// error becomes {err="ERR …"}, and the place of the error — the caller of a C function such
// as redis.call — is added as source and line.
constexpr const char* kHandlerCode =
    "local dbg = debug\n"
    "local function handler(err)\n"
    "  local i = dbg.getinfo(2,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(3,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}\n"
    "  end\n"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end\n"
    "  return err\n"
    "end\n"
    "return handler\n";

// redis.register_function: only while FUNCTION LOAD runs a library (the load sandbox is the
// only place it is reachable at all; the check stays for a callback kept and called later).
int redis_register_function(lua_State* lua) {
  auto* f = static_cast<Functions*>(lua_touserdata(lua, lua_upvalueindex(1)));
  std::string err;
  if (!f->register_function(lua, err)) return raise(lua, err);
  return 0;
}

}  // namespace

int install_load_api(lua_State* lua, Functions* functions) {
  lua_newtable(lua);  // the load-time globals
  lua_newtable(lua);
  lua_pushcfunction(lua, nonexistent_global);
  lua_setfield(lua, -2, "__index");
  lua_setmetatable(lua, -2);
  lua_pushstring(lua, "redis");
  lua_newtable(lua);
  lua_pushstring(lua, "register_function");
  lua_pushlightuserdata(lua, functions);
  lua_pushcclosure(lua, redis_register_function, 1);
  lua_settable(lua, -3);
  set_fn(lua, "log", redis_log, nullptr);
  set_number(lua, "LOG_DEBUG", 0);
  set_number(lua, "LOG_VERBOSE", 1);
  set_number(lua, "LOG_NOTICE", 2);
  set_number(lua, "LOG_WARNING", 3);
  lua_pushstring(lua, "REDIS_VERSION_NUM");
  lua_pushnumber(lua, 0x0007000f);  // 7.0.15
  lua_settable(lua, -3);
  lua_pushstring(lua, "REDIS_VERSION");
  lua_pushstring(lua, "7.0.15");
  lua_settable(lua, -3);
  // A miss on this `redis` is an error too (redis.call: "nonexistent global variable 'call'").
  lua_newtable(lua);
  lua_pushcfunction(lua, nonexistent_global);
  lua_setfield(lua, -2, "__index");
  lua_setmetatable(lua, -2);
  to_readonly_proxy(lua);
  lua_rawset(lua, -3);
  return luaL_ref(lua, LUA_REGISTRYINDEX);
}

void set_globals_view(lua_State* lua, int ref) {
  lua_getmetatable(lua, LUA_GLOBALSINDEX);  // the proxy's metatable (raw: __metatable aside)
  lua_rawgeti(lua, LUA_REGISTRYINDEX, ref);
  lua_setfield(lua, -2, "__index");
  lua_pop(lua, 1);
}

int install_api(lua_State* lua, Engine* engine, bool eval) {
  open_lib(lua, "", luaopen_base);
  open_lib(lua, LUA_TABLIBNAME, luaopen_table);
  open_lib(lua, LUA_STRLIBNAME, luaopen_string);
  open_lib(lua, LUA_MATHLIBNAME, luaopen_math);
  open_lib(lua, LUA_DBLIBNAME, luaopen_debug);
  open_lib(lua, "cjson", luaopen_cjson);
  open_lib(lua, "struct", open_struct);
  open_lib(lua, "cmsgpack", open_cmsgpack);
  open_lib(lua, "bit", luaopen_bit);
  // Redis's deny list, and what 7.0.15 (as Debian ships it, with the 2025 Lua fixes) also
  // leaves out: getfenv/setfenv would reach the real globals (a C function's environment,
  // a function's own) and newproxy makes userdata with metatables.
  for (const char* denied : {"dofile", "loadfile", "print", "newproxy", "getfenv", "setfenv"}) {
    lua_pushnil(lua);
    lua_setglobal(lua, denied);
  }
  lua_pushcfunction(lua, lua_pcall_compat);
  lua_setglobal(lua, "pcall");

  lua_newtable(lua);
  set_fn(lua, "call", redis_call, engine);
  set_fn(lua, "pcall", redis_pcall, engine);
  set_fn(lua, "log", redis_log, nullptr);
  set_number(lua, "LOG_DEBUG", 0);
  set_number(lua, "LOG_VERBOSE", 1);
  set_number(lua, "LOG_NOTICE", 2);
  set_number(lua, "LOG_WARNING", 3);
  lua_pushstring(lua, "REDIS_VERSION_NUM");
  lua_pushnumber(lua, 0x0007000f);  // 7.0.15
  lua_settable(lua, -3);
  lua_pushstring(lua, "REDIS_VERSION");
  lua_pushstring(lua, "7.0.15");
  lua_settable(lua, -3);
  set_fn(lua, "setresp", redis_setresp, engine);
  set_fn(lua, "sha1hex", redis_sha1hex, nullptr);
  set_fn(lua, "error_reply", redis_error_reply, nullptr);
  set_fn(lua, "status_reply", redis_status_reply, nullptr);
  set_fn(lua, "set_repl", redis_set_repl, engine);
  set_number(lua, "REPL_NONE", 0);
  set_number(lua, "REPL_AOF", kReplAof);
  set_number(lua, "REPL_SLAVE", kReplReplica);
  set_number(lua, "REPL_REPLICA", kReplReplica);
  set_number(lua, "REPL_ALL", kReplAof | kReplReplica);
  set_fn(lua, "acl_check_cmd", redis_acl_check_cmd, engine);
  if (eval) {  // EVAL's own (eval.c); functions have none of them
    set_fn(lua, "breakpoint", redis_false, nullptr);  // no debugger session: always false
    set_fn(lua, "debug", redis_nothing, nullptr);
    set_fn(lua, "replicate_commands", redis_true, nullptr);
  }
  lua_setglobal(lua, "redis");

  lua_getglobal(lua, "math");
  set_fn(lua, "random", math_random, engine);
  set_fn(lua, "randomseed", math_randomseed, engine);
  lua_pop(lua, 1);

  luaL_loadbuffer(lua, kHandlerCode, std::strlen(kHandlerCode), "@err_handler_def");
  lua_call(lua, 0, 1);
  // EVAL's handler is a global too; a function's is only in the registry, as Redis's.
  if (eval) {
    lua_pushvalue(lua, -1);
    lua_setglobal(lua, kHandlerKey);
  }
  lua_setfield(lua, LUA_REGISTRYINDEX, kHandlerKey);
  lua_pushnil(lua);
  lua_setglobal(lua, "debug");  // only the handler keeps it

  lua_newtable(lua);
  lua_setfield(lua, LUA_REGISTRYINDEX, kProtectedKey);
  lua_newtable(lua);
  lua_setfield(lua, LUA_REGISTRYINDEX, kFacesKey);
  lua_pushvalue(lua, LUA_GLOBALSINDEX);
  wrap_field(lua, "setmetatable", guarded);
  wrap_field(lua, "rawset", guarded);
  wrap_field(lua, "rawget", see_through);
  wrap_field(lua, "next", see_through);
  lua_getfield(lua, -1, "next");
  lua_pushcclosure(lua, pairs_through, 1);
  lua_setfield(lua, -2, "pairs");
  wrap_field(lua, "getmetatable", getmetatable_face);
  wrap_field(lua, "loadstring", loadstring_text);
  wrap_field(lua, "load", load_text);
  lua_getfield(lua, -1, "table");
  wrap_field(lua, "insert", guarded);
  wrap_field(lua, "foreach", see_through);
  lua_pop(lua, 2);
  for (const char* lib :
       {"string", "math", "table", "cjson", "bit", "struct", "cmsgpack", "coroutine", "redis"}) {
    protect_table(lua, lib);
  }
  // Strings index the proxy too, so ("x").upper reads string.upper; getmetatable("") shows
  // a read-only view of their metatable.
  lua_pushstring(lua, "");
  lua_getmetatable(lua, -1);
  lua_getglobal(lua, "string");
  lua_setfield(lua, -2, "__index");
  to_readonly_proxy(lua);
  lua_setfield(lua, LUA_REGISTRYINDEX, kStringFaceKey);
  lua_pop(lua, 1);
  // The real globals: a miss is an error. The thread's globals become an empty proxy over
  // them that refuses writes, so `x = 1`, `_G.x = 1` and loadstring'd code all hit it;
  // getmetatable(_G) shows a read-only view of the real globals' metatable.
  lua_pushvalue(lua, LUA_GLOBALSINDEX);
  lua_newtable(lua);
  lua_pushcfunction(lua, nonexistent_global);
  lua_setfield(lua, -2, "__index");
  lua_pushvalue(lua, -1);
  lua_setmetatable(lua, -3);
  to_readonly_proxy(lua);  // real, the face
  lua_pushvalue(lua, -2);
  to_readonly_proxy(lua);  // real, face, the globals proxy
  lua_insert(lua, -2);     // real, proxy, face
  set_face(lua, -2);       // real, proxy
  lua_pushstring(lua, "_G");
  lua_pushvalue(lua, -2);
  lua_rawset(lua, -4);  // real._G = proxy
  lua_replace(lua, LUA_GLOBALSINDEX);
  return luaL_ref(lua, LUA_REGISTRYINDEX);  // pops the real globals
}

void push_error_handler(lua_State* lua) {
  lua_getfield(lua, LUA_REGISTRYINDEX, kHandlerKey);
}

void write_run_error(lua_State* lua, proto::ReplyWriter& out, std::string_view sha) {
  if (!lua_istable(lua, -1)) {
    const char* msg = lua_isstring(lua, -1) ? lua_tostring(lua, -1) : "execution failure";
    std::string text = "ERR Error running script ";
    text.append(sha).append(", ").append(std::string_view(msg).substr(0, 100));
    out.error(text);
    return;
  }
  std::string text;
  lua_getfield(lua, -1, "err");
  if (lua_isstring(lua, -1)) text = lua_tostring(lua, -1);
  lua_pop(lua, 1);
  lua_getfield(lua, -1, "source");
  const bool has_source = lua_isstring(lua, -1);
  std::string source = has_source ? lua_tostring(lua, -1) : "";
  lua_pop(lua, 1);
  lua_getfield(lua, -1, "line");
  const bool has_line = lua_isstring(lua, -1);
  std::string line = has_line ? lua_tostring(lua, -1) : "";
  lua_pop(lua, 1);
  if (has_source && has_line) {
    text.append(" script: ")
        .append(sha)
        .append(", on ")
        .append(source)
        .append(":")
        .append(line)
        .append(".");
  }
  out.error(text);
}

}  // namespace ruvio::worker::script
