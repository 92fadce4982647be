// What a script sees: Redis's libraries, the `redis` table and the protected globals
// (lua_engine.hpp explains the proxy), set up on a fresh Lua state.
#pragma once

#include <string_view>

#include "proto/resp_writer.hpp"

struct lua_State;

namespace ruvio::worker::script {

class Engine;
class Functions;

// Loads the libraries and the API on `lua` (functions that need the engine carry it as an
// upvalue) and locks the globals. Returns the registry reference of the real globals table,
// where the engine sets KEYS and ARGV.
int install_api(lua_State* lua, Engine* engine, bool eval);

// FUNCTION LOAD's sandbox on a state install_api set up: the load-time globals table
// (functions.hpp says what it holds), as a registry reference.
int install_load_api(lua_State* lua, Functions* functions);
// Points the thread's globals proxy at the table referenced by `ref`: the load sandbox while
// a library loads, the real globals (install_api's reference) otherwise.
void set_globals_view(lua_State* lua, int ref);

// Pushes the error handler EVAL calls the script under (it adds the source and line).
void push_error_handler(lua_State* lua);

// Writes the error a failed script run left on top of the stack (not popped), in Redis's
// words: "<err> script: <sha>, on <source>:<line>.".
void write_run_error(lua_State* lua, proto::ReplyWriter& out, std::string_view sha);

// Redis's extra libraries, written here (Debian ships cjson and bit, not these two).
int open_cmsgpack(lua_State* lua);
int open_struct(lua_State* lua);

}  // namespace ruvio::worker::script
