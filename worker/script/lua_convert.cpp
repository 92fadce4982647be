// RESP ↔ Lua conversions; the rules are drawn in lua_convert.hpp.
#include "worker/script/lua_convert.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace ruvio::worker::script {
namespace {

// A reader over a reply the executor produced: well-formed by construction, so the parser
// only guards against running off the end.
struct Reader {
  std::string_view s;
  std::size_t pos = 0;

  std::string_view line() {
    std::size_t end = s.find("\r\n", pos);
    if (end == std::string_view::npos) end = s.size();
    std::string_view l = s.substr(pos, end - pos);
    pos = end + 2 > s.size() ? s.size() : end + 2;
    return l;
  }
  std::int64_t number(std::string_view l) {
    std::int64_t v = 0;
    std::from_chars(l.data(), l.data() + l.size(), v);
    return v;
  }
  std::string_view bytes(std::int64_t n) {
    std::size_t len = static_cast<std::size_t>(n);
    if (pos + len > s.size()) len = s.size() - pos;
    std::string_view b = s.substr(pos, len);
    pos += len + 2;
    if (pos > s.size()) pos = s.size();
    return b;
  }
};

void ensure_stack(lua_State* lua, int n) {
  // As Redis: a reply nested past what the Lua stack can hold is a fatal condition there;
  // here the script gets a Lua error instead of the worker stopping.
  if (!lua_checkstack(lua, n))
    luaL_error(lua, "lua stack limit reach when parsing redis.call reply");
}

void push_tagged(lua_State* lua, const char* tag) {
  lua_newtable(lua);
  lua_pushstring(lua, tag);
}

// Pushes one value (lua == nullptr: skips it, for attributes).
void parse(lua_State* lua, Reader& r) {
  if (r.pos >= r.s.size()) {
    if (lua) lua_pushnil(lua);
    return;
  }
  const char type = r.s[r.pos++];
  std::string_view l = r.line();
  if (lua) ensure_stack(lua, 5);
  switch (type) {
    case ':':
      if (lua) lua_pushnumber(lua, static_cast<lua_Number>(r.number(l)));
      return;
    case '$': {
      std::int64_t n = r.number(l);
      if (n < 0) {
        if (lua) lua_pushboolean(lua, 0);
        return;
      }
      std::string_view b = r.bytes(n);
      if (lua) lua_pushlstring(lua, b.data(), b.size());
      return;
    }
    case '+':
      if (lua) {
        push_tagged(lua, "ok");
        lua_pushlstring(lua, l.data(), l.size());
        lua_settable(lua, -3);
      }
      return;
    case '-':
      if (lua) {
        std::string text = "-";
        text.append(l);
        push_error_table(lua, text);
        lua_pushstring(lua, "ignore_error_stats_update");
        lua_pushboolean(lua, 1);
        lua_settable(lua, -3);
      }
      return;
    case '*':
    case '>': {
      std::int64_t n = r.number(l);
      if (n < 0) {
        if (lua) lua_pushboolean(lua, 0);
        return;
      }
      // Not presized, as Redis builds it: the length (#) of an array holding nils depends on
      // how the table grew, and scripts see that.
      if (lua) lua_newtable(lua);
      for (std::int64_t j = 0; j < n; ++j) {
        parse(lua, r);
        if (lua) lua_rawseti(lua, -2, static_cast<int>(j + 1));
      }
      return;
    }
    case '%': {
      std::int64_t n = r.number(l);
      if (lua) {
        push_tagged(lua, "map");
        lua_newtable(lua);
      }
      for (std::int64_t j = 0; j < n; ++j) {
        parse(lua, r);
        parse(lua, r);
        if (lua) lua_settable(lua, -3);
      }
      if (lua) lua_settable(lua, -3);
      return;
    }
    case '~': {
      std::int64_t n = r.number(l);
      if (lua) {
        push_tagged(lua, "set");
        lua_newtable(lua);
      }
      for (std::int64_t j = 0; j < n; ++j) {
        parse(lua, r);
        if (lua) {
          ensure_stack(lua, 1);
          lua_pushboolean(lua, 1);
          lua_settable(lua, -3);
        }
      }
      if (lua) lua_settable(lua, -3);
      return;
    }
    case '|': {
      std::int64_t n = r.number(l);
      for (std::int64_t j = 0; j < 2 * n; ++j) parse(nullptr, r);
      parse(lua, r);
      return;
    }
    case '_':
      if (lua) lua_pushnil(lua);
      return;
    case '#':
      if (lua) lua_pushboolean(lua, !l.empty() && l[0] == 't');
      return;
    case ',':
      if (lua) {
        push_tagged(lua, "double");
        std::string d(l);
        lua_pushnumber(lua, std::strtod(d.c_str(), nullptr));
        lua_settable(lua, -3);
      }
      return;
    case '(':
      if (lua) {
        push_tagged(lua, "big_number");
        lua_pushlstring(lua, l.data(), l.size());
        lua_settable(lua, -3);
      }
      return;
    case '=': {
      std::string_view b = r.bytes(r.number(l));
      if (lua) {
        std::string_view format = b.substr(0, 3);
        std::string_view str = b.size() > 4 ? b.substr(4) : std::string_view{};
        push_tagged(lua, "verbatim_string");
        lua_newtable(lua);
        lua_pushstring(lua, "string");
        lua_pushlstring(lua, str.data(), str.size());
        lua_settable(lua, -3);
        lua_pushstring(lua, "format");
        lua_pushlstring(lua, format.data(), format.size());
        lua_settable(lua, -3);
        lua_settable(lua, -3);
      }
      return;
    }
    default:
      if (lua) lua_pushnil(lua);
  }
}

// t[field] of the table on top, pushed; its Lua type returned.
int field(lua_State* lua, const char* name) {
  lua_pushstring(lua, name);
  lua_rawget(lua, -2);
  return lua_type(lua, -1);
}

std::string_view to_view(lua_State* lua, int idx) {
  std::size_t len = 0;
  const char* s = lua_tolstring(lua, idx, &len);
  return {s, len};
}

void write_table(lua_State* lua, proto::ReplyWriter& out, int script_resp) {
  if (field(lua, "err") == LUA_TSTRING) {
    out.error(to_view(lua, -1));
    lua_pop(lua, 1);
    return;
  }
  lua_pop(lua, 1);
  if (field(lua, "ok") == LUA_TSTRING) {
    out.simple(to_view(lua, -1));
    lua_pop(lua, 1);
    return;
  }
  lua_pop(lua, 1);
  if (field(lua, "double") == LUA_TNUMBER) {
    out.double_value(lua_tonumber(lua, -1));
    lua_pop(lua, 1);
    return;
  }
  lua_pop(lua, 1);
  if (field(lua, "big_number") == LUA_TSTRING) {
    std::string n(to_view(lua, -1));
    for (char& c : n) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    if (out.protocol() >= 3) {
      out.buffer().append("(").append(n).append("\r\n");
    } else {
      out.bulk(n);
    }
    lua_pop(lua, 1);
    return;
  }
  lua_pop(lua, 1);
  if (field(lua, "verbatim_string") == LUA_TTABLE) {
    if (field(lua, "format") == LUA_TSTRING) {
      lua_pushstring(lua, "string");
      lua_rawget(lua, -3);
      if (lua_type(lua, -1) == LUA_TSTRING) {
        out.verbatim(to_view(lua, -1), to_view(lua, -2));
        lua_pop(lua, 3);
        return;
      }
      lua_pop(lua, 1);
    }
    lua_pop(lua, 1);
  }
  lua_pop(lua, 1);
  if (field(lua, "map") == LUA_TTABLE) {
    std::size_t n = 0;
    lua_pushnil(lua);
    while (lua_next(lua, -2)) {
      lua_pop(lua, 1);
      ++n;
    }
    out.map(n);
    lua_pushnil(lua);
    while (lua_next(lua, -2)) {
      lua_pushvalue(lua, -2);
      write_value(lua, out, script_resp);  // the key
      write_value(lua, out, script_resp);  // the value
    }
    lua_pop(lua, 1);
    return;
  }
  lua_pop(lua, 1);
  if (field(lua, "set") == LUA_TTABLE) {
    std::size_t n = 0;
    lua_pushnil(lua);
    while (lua_next(lua, -2)) {
      lua_pop(lua, 1);
      ++n;
    }
    out.set(n);
    lua_pushnil(lua);
    while (lua_next(lua, -2)) {
      lua_pop(lua, 1);
      lua_pushvalue(lua, -1);
      write_value(lua, out, script_resp);
    }
    lua_pop(lua, 1);
    return;
  }
  lua_pop(lua, 1);
  std::size_t n = 0;
  for (;;) {
    lua_rawgeti(lua, -1, static_cast<int>(n + 1));
    const bool nil = lua_isnil(lua, -1);
    lua_pop(lua, 1);
    if (nil) break;
    ++n;
  }
  out.array(n);
  for (std::size_t j = 1; j <= n; ++j) {
    lua_rawgeti(lua, -1, static_cast<int>(j));
    write_value(lua, out, script_resp);
  }
}

}  // namespace

bool push_reply(lua_State* lua, std::string_view reply) {
  Reader r{reply};
  parse(lua, r);
  return !reply.empty() && reply[0] == '-';
}

void push_error_table(lua_State* lua, std::string_view text) {
  std::string msg;
  if (!text.empty() && text[0] == '-') {
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos) {
      msg = "ERR ";
      msg.append(text.substr(1));
    } else {
      msg.append(text.substr(1, space - 1)).append(" ").append(text.substr(space + 1));
    }
  } else {
    msg = "ERR ";
    msg.append(text);
  }
  while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n')) msg.pop_back();
  lua_newtable(lua);
  lua_pushstring(lua, "err");
  lua_pushlstring(lua, msg.data(), msg.size());
  lua_settable(lua, -3);
}

void write_value(lua_State* lua, proto::ReplyWriter& out, int script_resp) {
  if (!lua_checkstack(lua, 4)) {
    out.error("ERR reached lua stack limit");
    lua_pop(lua, 1);
    return;
  }
  switch (lua_type(lua, -1)) {
    case LUA_TSTRING:
      out.bulk(to_view(lua, -1));
      break;
    case LUA_TBOOLEAN:
      if (script_resp == 2) {
        if (lua_toboolean(lua, -1)) {
          out.integer(1);
        } else {
          out.null();
        }
      } else {
        out.boolean(lua_toboolean(lua, -1) != 0);
      }
      break;
    case LUA_TNUMBER:
      out.integer(static_cast<std::int64_t>(lua_tonumber(lua, -1)));
      break;
    case LUA_TTABLE:
      write_table(lua, out, script_resp);
      break;
    default:
      out.null();
  }
  lua_pop(lua, 1);
}

}  // namespace ruvio::worker::script
