// Function libraries (FUNCTION LOAD / FCALL): Redis 7.0's functions.c and function_lua.c.
//
// A library is the code sent to FUNCTION LOAD, starting with its `#!lua name=<lib>` header;
// running it once registers its functions with redis.register_function. The libraries live
// in a Lua interpreter of their own (as Redis keeps functions apart from EVAL's, so SCRIPT
// FLUSH does not touch them), with the same libraries and `redis` API as EVAL's plus the
// load-time sandbox: while a library loads, the globals are swapped for a table holding only
// `redis` = {register_function, log, LOG_*, REDIS_VERSION, REDIS_VERSION_NUM}, so
// redis.call, string, error … are "nonexistent global variable"s then, exactly as 7.0.
//
// Names: library and function names are [A-Za-z0-9_]+; libraries are found by exact name,
// functions (FCALL, collisions between libraries) without regard to case, as Redis's dicts.
// A registry is what Redis calls a functionsLibCtx: FUNCTION RESTORE builds one aside and
// joins it to the live one, so a failed restore changes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct lua_State;

namespace ruvio::worker::script {

class Engine;

struct Function {
  std::string name;
  std::string desc;
  bool has_desc = false;
  std::uint32_t flags = 0;  // ScriptFlag bits (no kCompat)
  int ref = 0;              // the callback in the Lua registry
};

struct Library {
  std::string name;
  std::string code;
  std::vector<Function> functions;  // in registration order
};

enum class RestorePolicy : std::uint8_t { kAppend, kReplace, kFlush };

class Functions {
 public:
  explicit Functions(Engine& engine);
  ~Functions();
  Functions(const Functions&) = delete;
  Functions& operator=(const Functions&) = delete;

  // FUNCTION LOAD [REPLACE]: true with the library's name in `result`, or false with
  // Redis's error text (without the leading "ERR "). `timeout`: FUNCTION LOAD's 500 ms
  // limit (off when replaying what was already accepted).
  bool load(std::string_view code, bool replace, bool timeout, std::string& result);
  // FUNCTION DELETE: false when there is no such library.
  bool remove(std::string_view library);
  // FUNCTION FLUSH.
  void flush();
  // FUNCTION DUMP / RESTORE (function_payload.hpp holds the bytes).
  std::string dump() const;
  bool restore(std::string_view payload, RestorePolicy policy, std::string& err);

  const Function* find(std::string_view name) const;
  const std::map<std::string, std::unique_ptr<Library>, std::less<>>& libraries() const {
    return live_.libs;
  }
  std::size_t function_count() const { return live_.funcs.size(); }
  std::size_t library_count() const { return live_.libs.size(); }
  std::size_t vm_memory() const;        // INFO used_memory_vm_functions
  std::size_t overhead_memory() const;  // INFO used_memory_functions
  lua_State* lua() const { return lua_; }

  // redis.register_function (lua_api.cpp calls it with the table or positional arguments on
  // the stack): false with the error text when the arguments are refused.
  bool register_function(lua_State* lua, std::string& err);
  // The FUNCTION LOAD timeout check of the load hook.
  bool load_timed_out() const;

 private:
  struct Registry {
    std::map<std::string, std::unique_ptr<Library>, std::less<>> libs;
    std::unordered_map<std::string, const Function*> funcs;  // lower-cased name
    std::size_t bytes = 0;                                   // names, codes, descriptions
  };
  bool create(std::string_view code, bool replace, bool timeout, Registry& into,
              std::string& result);
  void link(Registry& r, std::unique_ptr<Library> lib);
  std::unique_ptr<Library> unlink(Registry& r, std::string_view name);
  void release(Library& lib);
  void clear(Registry& r);

  Engine& engine_;
  lua_State* lua_ = nullptr;
  int load_env_ref_ = 0;  // the load-time globals
  int globals_ref_ = 0;   // the run-time globals
  Registry live_;
  Library* loading_ = nullptr;  // the library FUNCTION LOAD is running, else null
  std::int64_t load_start_us_ = 0;
  bool load_timeout_ = false;
};

// Lower-cased copy (function names compare without regard to case).
std::string lower(std::string_view s);

}  // namespace ruvio::worker::script
