// libFuzzer target: untrusted bytes given to the scripts' decoders — cmsgpack.unpack (and a
// pack of what it decoded), cmsgpack.unpack_one / unpack_limit at an offset, and
// struct.unpack with a format and data both from the input. Any Lua error is fine; a crash,
// an out-of-bounds read or a leak is not.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. -I/usr/include/lua5.1 \
//       tests/fuzz/fuzz_lua_libs.cpp worker/script/lua_cmsgpack.cpp worker/script/lua_struct.cpp \
//       -llua5.1 -lmsgpackc -o fuzz_lua_libs
//
// Input: byte 0 picks the decoder (mod 4), the rest is its input (for struct: a format up to
// the first NUL byte, then the data).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "worker/script/lua_api.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace {

constexpr const char* kScripts[] = {
    "local s = ... ; local t = {cmsgpack.unpack(s)} ; return cmsgpack.pack(unpack(t))",
    "local s = ... ; return cmsgpack.unpack_one(s, #s % 3)",
    "local s = ... ; return cmsgpack.unpack_limit(s, 2, 1)",
    "local f, d = ... ; return struct.unpack(f, d)",
};

lua_State* state() {
  static lua_State* lua = [] {
    lua_State* l = luaL_newstate();
    lua_pushcfunction(l, luaopen_base);
    lua_call(l, 0, 0);
    lua_pushcfunction(l, ruvio::worker::script::open_cmsgpack);
    lua_call(l, 0, 0);
    lua_pushcfunction(l, ruvio::worker::script::open_struct);
    lua_call(l, 0, 0);
    return l;
  }();
  return lua;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  lua_State* lua = state();
  const int which = data[0] % 4;
  const char* body = reinterpret_cast<const char*>(data + 1);
  const std::size_t len = size - 1;
  if (luaL_loadstring(lua, kScripts[which]) != 0) return 0;
  int nargs = 1;
  if (which == 3) {
    const void* nul = std::memchr(body, '\0', len);
    const std::size_t flen = nul ? static_cast<const char*>(nul) - body : len;
    lua_pushlstring(lua, body, flen);
    lua_pushlstring(lua, body + flen, len - flen);
    nargs = 2;
  } else {
    lua_pushlstring(lua, body, len);
  }
  lua_pcall(lua, nargs, 0, 0);
  lua_settop(lua, 0);
  lua_gc(lua, LUA_GCCOLLECT, 0);
  return 0;
}
