// cmsgpack for scripts (Redis's lua_cmsgpack API) on Debian's msgpack-c.
//
// Encoding, as Redis's cmsgpack 0.4: numbers with an integral value that fits int64 are
// integers in their smallest form (positive: fixint/uint8..64, negative: fixint/int8..64);
// other numbers float32 when the value survives the round trip, else float64; strings are
// str (fixstr/str8/16/32); a table whose keys are exactly 1..n is an array, any other a map
// (keys in lua_next order); tables nested deeper than 16 are encoded as nil.
//
//   cmsgpack.pack(v1, v2, …)            → one string, the values back to back
//   cmsgpack.unpack(s)                  → every value in s
//   cmsgpack.unpack_one(s [, offset])   → next offset (-1 at the end), value
//   cmsgpack.unpack_limit(s, n [, off]) → next offset, up to n values
#include <msgpack.h>

#include <cmath>
#include <cstdint>

#include "worker/script/lua_api.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace ruvio::worker::script {
namespace {

constexpr int kMaxNesting = 16;

bool int64_equivalent(lua_Number n) {
  return !std::isinf(n) && !std::isnan(n) && n >= -9223372036854775808.0 &&
         n < 9223372036854775808.0 && static_cast<lua_Number>(static_cast<std::int64_t>(n)) == n;
}

void encode(lua_State* lua, msgpack_packer& pk, int level);

bool is_array(lua_State* lua) {
  std::int64_t count = 0;
  lua_Number max = 0;
  lua_pushnil(lua);
  while (lua_next(lua, -2)) {
    lua_pop(lua, 1);
    if (lua_type(lua, -1) != LUA_TNUMBER) {
      lua_pop(lua, 1);
      return false;
    }
    const lua_Number n = lua_tonumber(lua, -1);
    if (n <= 0 || n != std::floor(n)) {
      lua_pop(lua, 1);
      return false;
    }
    if (n > max) max = n;
    ++count;
  }
  return max == static_cast<lua_Number>(count);
}

void encode_table(lua_State* lua, msgpack_packer& pk, int level) {
  if (is_array(lua)) {
    const std::size_t n = lua_objlen(lua, -1);
    msgpack_pack_array(&pk, n);
    for (std::size_t j = 1; j <= n; ++j) {
      lua_rawgeti(lua, -1, static_cast<int>(j));
      encode(lua, pk, level + 1);
    }
    return;
  }
  std::size_t n = 0;
  lua_pushnil(lua);
  while (lua_next(lua, -2)) {
    lua_pop(lua, 1);
    ++n;
  }
  msgpack_pack_map(&pk, n);
  lua_pushnil(lua);
  while (lua_next(lua, -2)) {
    lua_pushvalue(lua, -2);
    encode(lua, pk, level + 1);  // the key
    encode(lua, pk, level + 1);  // the value
  }
}

// Encodes and pops the value on top of the stack.
void encode(lua_State* lua, msgpack_packer& pk, int level) {
  int t = lua_type(lua, -1);
  if (t == LUA_TTABLE && (level == kMaxNesting || !lua_checkstack(lua, 3))) t = LUA_TNIL;
  switch (t) {
    case LUA_TBOOLEAN:
      if (lua_toboolean(lua, -1)) {
        msgpack_pack_true(&pk);
      } else {
        msgpack_pack_false(&pk);
      }
      break;
    case LUA_TNUMBER: {
      const lua_Number n = lua_tonumber(lua, -1);
      if (int64_equivalent(n)) {
        msgpack_pack_int64(&pk, static_cast<std::int64_t>(n));
      } else if (static_cast<double>(static_cast<float>(n)) == n) {
        msgpack_pack_float(&pk, static_cast<float>(n));
      } else {
        msgpack_pack_double(&pk, n);
      }
      break;
    }
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(lua, -1, &len);
      msgpack_pack_str(&pk, len);
      msgpack_pack_str_body(&pk, s, len);
      break;
    }
    case LUA_TTABLE:
      encode_table(lua, pk, level);
      break;
    default:
      msgpack_pack_nil(&pk);
  }
  lua_pop(lua, 1);
}

int pack(lua_State* lua) {
  const int n = lua_gettop(lua);
  if (n == 0) return luaL_argerror(lua, 0, "MessagePack pack needs input.");
  msgpack_sbuffer buf;
  msgpack_sbuffer_init(&buf);
  msgpack_packer pk;
  msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);
  for (int j = 1; j <= n; ++j) {
    lua_pushvalue(lua, j);
    encode(lua, pk, 0);
  }
  lua_pushlstring(lua, buf.data == nullptr ? "" : buf.data, buf.size);
  msgpack_sbuffer_destroy(&buf);
  return 1;
}

void push_object(lua_State* lua, const msgpack_object& o) {
  luaL_checkstack(lua, 3, "too many nested values");
  switch (o.type) {
    case MSGPACK_OBJECT_BOOLEAN:
      lua_pushboolean(lua, o.via.boolean);
      break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
      lua_pushnumber(lua, static_cast<lua_Number>(o.via.u64));
      break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
      lua_pushnumber(lua, static_cast<lua_Number>(o.via.i64));
      break;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
      lua_pushnumber(lua, o.via.f64);
      break;
    case MSGPACK_OBJECT_STR:
      lua_pushlstring(lua, o.via.str.ptr, o.via.str.size);
      break;
    case MSGPACK_OBJECT_BIN:
      lua_pushlstring(lua, o.via.bin.ptr, o.via.bin.size);
      break;
    case MSGPACK_OBJECT_ARRAY:
      lua_newtable(lua);  // not presized: # of an array with nils answers as in Redis
      for (std::uint32_t j = 0; j < o.via.array.size; ++j) {
        push_object(lua, o.via.array.ptr[j]);
        lua_rawseti(lua, -2, static_cast<int>(j + 1));
      }
      break;
    case MSGPACK_OBJECT_MAP:
      lua_newtable(lua);
      for (std::uint32_t j = 0; j < o.via.map.size; ++j) {
        push_object(lua, o.via.map.ptr[j].key);
        push_object(lua, o.via.map.ptr[j].val);
        lua_settable(lua, -3);
      }
      break;
    default:
      lua_pushnil(lua);
  }
}

// Decodes up to `limit` values (0: all) from `offset`; pushes them; returns how many and sets
// `offset` to where decoding stopped.
int decode(lua_State* lua, std::string_view s, int limit, std::size_t& offset) {
  msgpack_unpacked result;
  msgpack_unpacked_init(&result);
  int count = 0;
  while (offset < s.size() && (limit == 0 || count < limit)) {
    const msgpack_unpack_return r = msgpack_unpack_next(&result, s.data(), s.size(), &offset);
    if (r == MSGPACK_UNPACK_CONTINUE) {
      msgpack_unpacked_destroy(&result);
      return luaL_error(lua, "Missing bytes in input.");
    }
    if (r != MSGPACK_UNPACK_SUCCESS && r != MSGPACK_UNPACK_EXTRA_BYTES) {
      msgpack_unpacked_destroy(&result);
      return luaL_error(lua, "Bad data format in input.");
    }
    push_object(lua, result.data);
    ++count;
  }
  msgpack_unpacked_destroy(&result);
  return count;
}

int unpack_generic(lua_State* lua, int limit, int offset_arg) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(lua, 1, &len);
  const lua_Number off = offset_arg > 0 ? luaL_optnumber(lua, offset_arg, 0) : 0;
  if (off < 0 || limit < 0) {
    return luaL_error(lua, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(off), limit);
  }
  if (static_cast<std::size_t>(off) > len) {
    return luaL_error(lua, "Start offset %d greater than input length %d.", static_cast<int>(off),
                      static_cast<int>(len));
  }
  std::size_t offset = static_cast<std::size_t>(off);
  if (offset_arg > 0) lua_pushnil(lua);  // the next offset's place
  const int base = lua_gettop(lua);
  const int n = decode(lua, {s, len}, limit, offset);
  if (offset_arg > 0) {
    lua_pushnumber(lua, offset >= len ? -1 : static_cast<lua_Number>(offset));
    lua_replace(lua, base);
    return n + 1;
  }
  return n;
}

int unpack(lua_State* lua) {
  return unpack_generic(lua, 0, 0);
}
int unpack_one(lua_State* lua) {
  return unpack_generic(lua, 1, 2);
}
int unpack_limit(lua_State* lua) {
  const int limit = static_cast<int>(luaL_checkinteger(lua, 2));
  return unpack_generic(lua, limit, 3);
}

}  // namespace

int open_cmsgpack(lua_State* lua) {
  static const luaL_Reg kFns[] = {{"pack", pack},
                                  {"unpack", unpack},
                                  {"unpack_one", unpack_one},
                                  {"unpack_limit", unpack_limit},
                                  {nullptr, nullptr}};
  luaL_register(lua, "cmsgpack", kFns);
  lua_pushstring(lua, "lua-cmsgpack");
  lua_setfield(lua, -2, "_NAME");
  lua_pushstring(lua, "0.4.0");
  lua_setfield(lua, -2, "_VERSION");
  return 1;
}

}  // namespace ruvio::worker::script
