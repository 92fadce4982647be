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
#include <utility>

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

// False when the Lua stack cannot take more nesting (the caller frees the zone first, then
// raises: a Lua error leaves by longjmp).
bool push_object(lua_State* lua, const msgpack_object& o) {
  if (!lua_checkstack(lua, 3)) return false;
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
        if (!push_object(lua, o.via.array.ptr[j])) return false;
        lua_rawseti(lua, -2, static_cast<int>(j + 1));
      }
      break;
    case MSGPACK_OBJECT_MAP:
      lua_newtable(lua);
      for (std::uint32_t j = 0; j < o.via.map.size; ++j) {
        if (!push_object(lua, o.via.map.ptr[j].key)) return false;
        if (!push_object(lua, o.via.map.ptr[j].val)) return false;
        // A nil or NaN key cannot index a Lua table (lua_settable would raise with the
        // zone still allocated): the pair is dropped.
        if (lua_isnil(lua, -2) ||
            (lua_type(lua, -2) == LUA_TNUMBER && lua_tonumber(lua, -2) != lua_tonumber(lua, -2))) {
          lua_pop(lua, 2);
          continue;
        }
        lua_settable(lua, -3);
      }
      break;
    default:
      lua_pushnil(lua);
  }
  return true;
}

enum class Scan { kOk, kMissing, kBad };

std::uint64_t read_be(std::string_view s, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

// Walks the one value at `off` without building it: msgpack-c allocates a container's
// elements from its header before it knows the bytes are there, so a 5-byte input could
// ask for gigabytes. Every element takes at least one byte, so a header announcing more
// elements than bytes remain is cut short here, and decoding allocates in proportion to
// the input.
Scan scan(std::string_view s, std::size_t off) {
  std::uint64_t pending = 1;
  std::size_t p = off;
  while (pending > 0) {
    if (p >= s.size() || pending > s.size() - p) return Scan::kMissing;
    const auto b = static_cast<unsigned char>(s[p]);
    --pending;
    std::size_t hdr = 1;      // type byte plus length bytes
    std::uint64_t body = 0;   // payload bytes
    std::uint64_t items = 0;  // elements that follow
    std::size_t len_bytes = 0;
    if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
    } else if ((b & 0xf0) == 0x80) {
      items = 2u * (b & 0x0f);
    } else if ((b & 0xf0) == 0x90) {
      items = b & 0x0f;
    } else if ((b & 0xe0) == 0xa0) {
      body = b & 0x1f;
    } else {
      switch (b) {
        case 0xc1:
          return Scan::kBad;
        case 0xc4:
        case 0xd9:
          len_bytes = 1;
          break;
        case 0xc5:
        case 0xda:
          len_bytes = 2;
          break;
        case 0xc6:
        case 0xdb:
          len_bytes = 4;
          break;
        case 0xc7:
          len_bytes = 1;
          body = 1;
          break;  // ext: + the type byte
        case 0xc8:
          len_bytes = 2;
          body = 1;
          break;
        case 0xc9:
          len_bytes = 4;
          body = 1;
          break;
        case 0xca:
          body = 4;
          break;
        case 0xcb:
          body = 8;
          break;
        case 0xcc:
        case 0xd0:
          body = 1;
          break;
        case 0xcd:
        case 0xd1:
          body = 2;
          break;
        case 0xce:
        case 0xd2:
          body = 4;
          break;
        case 0xcf:
        case 0xd3:
          body = 8;
          break;
        case 0xd4:
          body = 2;
          break;
        case 0xd5:
          body = 3;
          break;
        case 0xd6:
          body = 5;
          break;
        case 0xd7:
          body = 9;
          break;
        case 0xd8:
          body = 17;
          break;
        case 0xdc:
        case 0xde:
          len_bytes = 2;
          break;
        case 0xdd:
        case 0xdf:
          len_bytes = 4;
          break;
        default:
          return Scan::kBad;
      }
      if (p + 1 + len_bytes > s.size()) return Scan::kMissing;
      hdr += len_bytes;
      if (len_bytes > 0) {
        const std::uint64_t n = read_be(s, p + 1, len_bytes);
        if (b == 0xdc || b == 0xdd) {
          items = n;
        } else if (b == 0xde || b == 0xdf) {
          items = 2 * n;
        } else {
          body += n;
        }
      }
    }
    if (body > s.size() - p - hdr) return Scan::kMissing;
    p += hdr + body;
    pending += items;
  }
  return Scan::kOk;
}

// Decodes up to `limit` values (0: all) from `offset`; pushes them; returns how many and sets
// `offset` to where decoding stopped.
int decode(lua_State* lua, std::string_view s, int limit, std::size_t& offset) {
  msgpack_unpacked result;
  msgpack_unpacked_init(&result);
  int count = 0;
  while (offset < s.size() && (limit == 0 || count < limit)) {
    const Scan checked = scan(s, offset);
    if (checked != Scan::kOk) {
      msgpack_unpacked_destroy(&result);
      return luaL_error(
          lua, checked == Scan::kMissing ? "Missing bytes in input." : "Bad data format in input.");
    }
    const msgpack_unpack_return r = msgpack_unpack_next(&result, s.data(), s.size(), &offset);
    if (r == MSGPACK_UNPACK_CONTINUE) {
      msgpack_unpacked_destroy(&result);
      return luaL_error(lua, "Missing bytes in input.");
    }
    if (r != MSGPACK_UNPACK_SUCCESS && r != MSGPACK_UNPACK_EXTRA_BYTES) {
      msgpack_unpacked_destroy(&result);
      return luaL_error(lua, "Bad data format in input.");
    }
    if (!push_object(lua, result.data)) {
      msgpack_unpacked_destroy(&result);
      return luaL_error(lua, "too many nested values");
    }
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
  // The library's fields as Redis's lua_cmsgpack.c sets them.
  for (auto [field, text] :
       {std::pair{"_NAME", "cmsgpack"}, std::pair{"_VERSION", "lua-cmsgpack 0.4.0"},
        std::pair{"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
        std::pair{"_DESCRIPTION", "MessagePack C implementation for Lua"}}) {
    lua_pushstring(lua, text);
    lua_setfield(lua, -2, field);
  }
  return 1;
}

}  // namespace ruvio::worker::script
