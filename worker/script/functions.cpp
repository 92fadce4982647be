// Function libraries: FUNCTION LOAD's header and sandbox, redis.register_function, the
// registries and their joins (functions.hpp explains the rules).
#include "worker/script/functions.hpp"

#include <chrono>
#include <cstring>

#include "shared/sds_text.hpp"
#include "worker/script/function_payload.hpp"
#include "worker/script/lua_api.hpp"
#include "worker/script/lua_convert.hpp"
#include "worker/script/lua_engine.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace ruvio::worker::script {
namespace {

constexpr const char* kFunctionsKey = "__ruvio_functions";
constexpr std::int64_t kLoadTimeoutUs = 500 * 1000;  // Redis's LOAD_TIMEOUT_MS
constexpr const char* kBadName =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least "
    "one character long";

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && lower(a) == lower(b);
}

// functionsVerifyName: [A-Za-z0-9_]+.
bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// functionExtractLibMetaData: the header's engine and name; `body` is the code after the
// header line, its newline kept so line numbers stay the library's own.
bool parse_header(std::string_view code, std::string& engine, std::string& name,
                  std::string_view& body, std::string& err) {
  if (code.substr(0, 2) != "#!") {
    err = "Missing library metadata";
    return false;
  }
  const std::size_t nl = code.find('\n');
  // The header is read as a C string: a NUL ends it (and hides a later newline).
  const std::size_t nul = code.find('\0');
  if (nl == std::string_view::npos || (nul != std::string_view::npos && nul < nl)) {
    err = "Invalid library metadata";
    return false;
  }
  const auto words = split_args(code.substr(0, nl));
  if (!words || words->empty()) {
    err = "Invalid library metadata";
    return false;
  }
  const std::vector<std::string>& parts = *words;
  engine = parts[0].size() > 2 ? parts[0].substr(2) : std::string();
  bool have_name = false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].size() >= 5 && iequal(std::string_view(parts[i]).substr(0, 5), "name=")) {
      if (have_name) {
        err = "Invalid metadata value, name argument was given multiple times";
        return false;
      }
      name = parts[i].substr(5);
      have_name = true;
      continue;
    }
    err = "Invalid metadata value given: " + parts[i];
    return false;
  }
  if (!have_name) {
    err = "Library name was not given";
    return false;
  }
  body = code.substr(nl);
  return true;
}

// luaGetStringSds: a string or a number (Lua converts it), else nothing.
bool get_string(lua_State* lua, int idx, std::string& out) {
  if (!lua_isstring(lua, idx)) return false;
  std::size_t len = 0;
  const char* s = lua_tolstring(lua, idx, &len);
  out.assign(s, len);
  return true;
}

void load_hook(lua_State* lua, lua_Debug*) {
  lua_getfield(lua, LUA_REGISTRYINDEX, kFunctionsKey);
  auto* f = static_cast<Functions*>(lua_touserdata(lua, -1));
  lua_pop(lua, 1);
  if (f == nullptr || !f->load_timed_out()) return;
  lua_sethook(lua, load_hook, LUA_MASKLINE, 0);
  push_error_table(lua, "FUNCTION LOAD timeout");
  lua_error(lua);
}

}  // namespace

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

Functions::Functions(Engine& engine) : engine_(engine) {
  lua_ = luaL_newstate();
  globals_ref_ = install_api(lua_, &engine_, false);
  engine_.attach(lua_);
  lua_pushlightuserdata(lua_, this);
  lua_setfield(lua_, LUA_REGISTRYINDEX, kFunctionsKey);
  load_env_ref_ = install_load_api(lua_, this);
}

Functions::~Functions() {
  lua_close(lua_);
}

bool Functions::load_timed_out() const {
  return load_timeout_ && now_us() - load_start_us_ > kLoadTimeoutUs;
}

void Functions::flush() {
  // As Redis: the libraries go and a fresh interpreter takes their place.
  live_ = Registry{};
  lua_close(lua_);
  lua_ = luaL_newstate();
  globals_ref_ = install_api(lua_, &engine_, false);
  engine_.attach(lua_);
  lua_pushlightuserdata(lua_, this);
  lua_setfield(lua_, LUA_REGISTRYINDEX, kFunctionsKey);
  load_env_ref_ = install_load_api(lua_, this);
}

const Function* Functions::find(std::string_view name) const {
  auto it = live_.funcs.find(lower(name));
  return it == live_.funcs.end() ? nullptr : it->second;
}

void Functions::release(Library& lib) {
  for (Function& f : lib.functions) luaL_unref(lua_, LUA_REGISTRYINDEX, f.ref);
  lib.functions.clear();
}

void Functions::clear(Registry& r) {
  for (auto& [name, lib] : r.libs) release(*lib);
  r = Registry{};
}

void Functions::link(Registry& r, std::unique_ptr<Library> lib) {
  for (const Function& f : lib->functions) {
    r.funcs.emplace(lower(f.name), &f);  // a same-library case twin keeps the first, as Redis
    r.bytes += f.name.size() + f.desc.size();
  }
  r.bytes += lib->name.size() + lib->code.size();
  std::string name = lib->name;
  r.libs.emplace(std::move(name), std::move(lib));
}

std::unique_ptr<Library> Functions::unlink(Registry& r, std::string_view name) {
  auto it = r.libs.find(name);
  std::unique_ptr<Library> lib = std::move(it->second);
  r.libs.erase(it);
  for (const Function& f : lib->functions) {
    auto at = r.funcs.find(lower(f.name));
    if (at != r.funcs.end() && at->second == &f) r.funcs.erase(at);
    r.bytes -= f.name.size() + f.desc.size();
  }
  r.bytes -= lib->name.size() + lib->code.size();
  return lib;
}

bool Functions::create(std::string_view code, bool replace, bool timeout, Registry& into,
                       std::string& result) {
  std::string engine, name;
  std::string_view body;
  if (!parse_header(code, engine, name, body, result)) return false;
  if (!valid_name(name)) {
    result = kBadName;
    return false;
  }
  if (!iequal(engine, "lua")) {
    result = "Engine '" + engine + "' not found";
    return false;
  }
  std::unique_ptr<Library> old;
  if (into.libs.find(name) != into.libs.end()) {
    if (!replace) {
      result = "Library '" + name + "' already exists";
      return false;
    }
    old = unlink(into, name);
  }
  auto lib = std::make_unique<Library>();
  lib->name = name;
  lib->code.assign(code);
  auto fail = [&](std::string why) {
    release(*lib);
    if (old) link(into, std::move(old));
    result = std::move(why);
    return false;
  };
  if (luaL_loadbuffer(lua_, body.data(), body.size(), "@user_function") != 0) {
    std::string why = "Error compiling function: ";
    why += lua_tostring(lua_, -1);
    lua_pop(lua_, 1);
    return fail(std::move(why));
  }
  // Run the library in the sandbox so that it registers its functions.
  set_globals_view(lua_, load_env_ref_);
  loading_ = lib.get();
  load_timeout_ = timeout;
  load_start_us_ = now_us();
  lua_sethook(lua_, load_hook, LUA_MASKCOUNT, 100000);
  const int failed = lua_pcall(lua_, 0, 0, 0);
  lua_sethook(lua_, nullptr, 0, 0);
  loading_ = nullptr;
  set_globals_view(lua_, globals_ref_);
  if (failed) {
    std::string why = "Error registering functions: ";
    if (lua_isstring(lua_, -1)) {
      why += "ERR ";
      why += lua_tostring(lua_, -1);
    } else if (lua_istable(lua_, -1)) {
      lua_getfield(lua_, -1, "err");
      if (lua_isstring(lua_, -1)) why += lua_tostring(lua_, -1);
      lua_pop(lua_, 1);
    }
    lua_pop(lua_, 1);
    return fail(std::move(why));
  }
  if (lib->functions.empty()) return fail("No functions registered");
  for (const Function& f : lib->functions) {
    if (into.funcs.count(lower(f.name)) != 0) return fail("Function " + f.name + " already exists");
  }
  link(into, std::move(lib));
  if (old) release(*old);
  result = name;
  return true;
}

bool Functions::load(std::string_view code, bool replace, bool timeout, std::string& result) {
  return create(code, replace, timeout, live_, result);
}

bool Functions::remove(std::string_view library) {
  if (live_.libs.find(library) == live_.libs.end()) return false;
  std::unique_ptr<Library> lib = unlink(live_, library);
  release(*lib);
  return true;
}

std::string Functions::dump() const {
  std::vector<std::string_view> codes;
  codes.reserve(live_.libs.size());
  for (const auto& [name, lib] : live_.libs) codes.emplace_back(lib->code);
  return dump_functions(codes);
}

bool Functions::restore(std::string_view payload, RestorePolicy policy, std::string& err) {
  Registry aside;
  // Redis loads a payload without the 500 ms limit; a library that loops forever would hang
  // the worker, so the limit stays on here.
  const bool parsed = parse_functions(
      payload,
      [&](const std::string& code, std::string& why) {
        return create(code, false, true, aside, why);
      },
      err);
  if (!parsed) {
    clear(aside);
    return false;
  }
  if (policy == RestorePolicy::kFlush) {
    clear(live_);
    live_ = std::move(aside);
    return true;
  }
  // libraryJoin: collisions first (nothing changes on an error), then the move.
  std::vector<std::unique_ptr<Library>> replaced;
  auto revert = [&](std::string why) {
    for (auto& lib : replaced) link(live_, std::move(lib));
    clear(aside);
    err = std::move(why);
    return false;
  };
  for (const auto& [name, lib] : aside.libs) {
    if (live_.libs.find(name) == live_.libs.end()) continue;
    if (policy != RestorePolicy::kReplace) return revert("Library " + name + " already exists");
    replaced.push_back(unlink(live_, name));
  }
  for (const auto& [name, lib] : aside.libs) {
    for (const Function& f : lib->functions) {
      if (live_.funcs.count(lower(f.name)) != 0)
        return revert("Function " + f.name + " already exists");
    }
  }
  while (!aside.libs.empty()) {
    std::string name = aside.libs.begin()->first;
    link(live_, unlink(aside, name));
  }
  for (auto& lib : replaced) release(*lib);
  return true;
}

bool Functions::register_function(lua_State* lua, std::string& err) {
  if (loading_ == nullptr) {
    err = "redis.register_function can only be called on FUNCTION LOAD command";
    return false;
  }
  const int argc = lua_gettop(lua);
  if (argc < 1 || argc > 2) {
    err = "wrong number of arguments to redis.register_function";
    return false;
  }
  Function f;
  bool have_name = false, have_callback = false;
  auto fail = [&](const char* why) {
    if (have_callback) luaL_unref(lua, LUA_REGISTRYINDEX, f.ref);
    err = why;
    return false;
  };
  if (argc == 2) {
    if (!get_string(lua, 1, f.name))
      return fail("first argument to redis.register_function must be a string");
    if (!lua_isfunction(lua, 2))
      return fail("second argument to redis.register_function must be a function");
    f.ref = luaL_ref(lua, LUA_REGISTRYINDEX);
    have_callback = true;
    have_name = true;
  } else {
    if (!lua_istable(lua, 1)) {
      return fail(
          "calling redis.register_function with a single argument is only applicable to Lua "
          "table (representing named arguments).");
    }
    lua_pushnil(lua);
    while (lua_next(lua, 1) != 0) {
      if (!lua_isstring(lua, -2))
        return fail("named argument key given to redis.register_function is not a string");
      // A copy of the key is read, so a number key is not turned into a string under next().
      lua_pushvalue(lua, -2);
      std::string key = lower(lua_tostring(lua, -1));
      lua_pop(lua, 1);
      if (key == "function_name") {
        if (!get_string(lua, -1, f.name))
          return fail("function_name argument given to redis.register_function must be a string");
        have_name = true;
      } else if (key == "description") {
        if (!get_string(lua, -1, f.desc))
          return fail("description argument given to redis.register_function must be a string");
        f.has_desc = true;
      } else if (key == "callback") {
        if (!lua_isfunction(lua, -1))
          return fail("callback argument given to redis.register_function must be a function");
        if (have_callback) luaL_unref(lua, LUA_REGISTRYINDEX, f.ref);
        f.ref = luaL_ref(lua, LUA_REGISTRYINDEX);  // pops the value
        have_callback = true;
        continue;
      } else if (key == "flags") {
        if (!lua_istable(lua, -1))
          return fail(
              "flags argument to redis.register_function must be a table representing function "
              "flags");
        std::uint32_t flags = 0;
        for (int j = 1;; ++j) {
          lua_rawgeti(lua, -1, j);
          if (lua_isnil(lua, -1)) {
            lua_pop(lua, 1);
            break;
          }
          bool found = false;
          if (lua_isstring(lua, -1)) {
            const std::string name = lower(lua_tostring(lua, -1));
            for (auto [flag_name, bit] : kScriptFlagNames) {
              if (name == flag_name) {
                flags |= bit;
                found = true;
              }
            }
          }
          lua_pop(lua, 1);
          if (!found) return fail("unknown flag given");
        }
        f.flags = flags;
      } else {
        return fail("unknown argument given to redis.register_function");
      }
      lua_pop(lua, 1);
    }
    if (!have_name) return fail("redis.register_function must get a function name argument");
    if (!have_callback) return fail("redis.register_function must get a callback argument");
  }
  if (!valid_name(f.name)) return fail(kBadName);
  for (const Function& other : loading_->functions) {
    if (other.name == f.name) return fail("Function already exists in the library");
  }
  loading_->functions.push_back(std::move(f));
  return true;
}

std::size_t Functions::vm_memory() const {
  return static_cast<std::size_t>(lua_gc(lua_, LUA_GCCOUNT, 0)) * 1024;
}

std::size_t Functions::overhead_memory() const {
  // As functionsMemoryEngine counts: the engine and its dicts, a header per library and per
  // function (with its Lua reference), and the names, codes and descriptions themselves.
  constexpr std::size_t kEngine = 200, kCtx = 32, kLibrary = 64, kFunction = 72, kEntry = 24;
  return kEngine + kCtx + live_.bytes + live_.libs.size() * kLibrary +
         live_.funcs.size() * (kFunction + kEntry) + live_.funcs.bucket_count() * 8;
}

}  // namespace ruvio::worker::script
