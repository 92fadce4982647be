// struct for scripts: Roberto Ierusalimschy's struct library API, as Redis ships it.
//
//   struct.pack(fmt, v1, …) → string     struct.unpack(fmt, s [, pos]) → v1, …, next pos
//   struct.size(fmt) → bytes
// Format: '<' little / '>' big / '=' native endian, '![n]' max alignment (power of 2), 'x'
// one pad byte, 'b'/'B' char, 'h'/'H' short, 'l'/'L' long, 'T' size_t, 'i[n]'/'I[n]' int of
// n bytes (default 4, at most 32), 'f' float, 'd' double, 's' zero-terminated string, 'c[n]'
// n chars (c0: the whole string when packing, the previous value as size when unpacking);
// lower case signed, upper case unsigned; spaces ignored.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

#include "worker/script/lua_api.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace ruvio::worker::script {
namespace {

constexpr int kMaxIntSize = 32;
constexpr std::size_t kMaxAlign = 8;

struct Header {
  bool little = true;  // x86-64 is little endian: '=' means little
  std::size_t align = 1;
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int get_num(const char*& fmt, int def) {
  if (!is_digit(*fmt)) return def;
  int a = 0;
  do {
    a = a * 10 + (*fmt++ - '0');
  } while (is_digit(*fmt) && a <= (2147483647 - 9) / 10);
  return a;
}

std::size_t opt_size(lua_State* lua, char opt, const char*& fmt) {
  switch (opt) {
    case 'B':
    case 'b':
      return 1;
    case 'H':
    case 'h':
      return sizeof(short);
    case 'L':
    case 'l':
      return sizeof(long);
    case 'T':
      return sizeof(std::size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return static_cast<std::size_t>(get_num(fmt, 1));
    case 'i':
    case 'I': {
      const int sz = get_num(fmt, sizeof(int));
      if (sz > kMaxIntSize) {
        luaL_error(lua, "integral size %d is larger than limit of %d", sz, kMaxIntSize);
      }
      return static_cast<std::size_t>(sz);
    }
    default:
      return 0;
  }
}

std::size_t to_align(std::size_t len, const Header& h, char opt, std::size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > h.align) size = h.align;
  return (size - (len & (size - 1))) & (size - 1);
}

// Reads one option; returns it, with its size, after the header options it passed.
void control(lua_State* lua, char opt, const char*& fmt, Header& h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h.little = false;
      return;
    case '<':
    case '=':
      h.little = true;
      return;
    case '!': {
      const int a = get_num(fmt, static_cast<int>(kMaxAlign));
      if (a <= 0 || (a & (a - 1)) != 0) luaL_error(lua, "alignment %d is not a power of 2", a);
      h.align = static_cast<std::size_t>(a);
      return;
    }
    default:
      luaL_argerror(lua, 1, lua_pushfstring(lua, "invalid format option '%c'", opt));
  }
}

bool is_data(char opt) {
  return std::strchr("bBhHlLTiIfdxcs", opt) != nullptr && opt != '\0';
}

// Appends into a Lua buffer, not a std::string: argument errors leave by longjmp, which
// would skip a C++ destructor.
void put_integer(luaL_Buffer& b, lua_Number n, bool little, std::size_t size) {
  std::uint64_t v = n < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(n))
                          : static_cast<std::uint64_t>(n);
  char buff[kMaxIntSize];
  const char fill = n < 0 ? static_cast<char>(0xff) : 0;
  for (std::size_t i = 0; i < size; ++i) {
    const char byte = i < 8 ? static_cast<char>(v & 0xff) : fill;
    if (i < 8) v >>= 8;
    buff[little ? i : size - 1 - i] = byte;
  }
  luaL_addlstring(&b, buff, size);
}

void put_raw(luaL_Buffer& b, char* raw, std::size_t n, bool little) {
  if (!little) std::reverse(raw, raw + n);
  luaL_addlstring(&b, raw, n);
}

int pack(lua_State* lua) {
  const char* fmt = luaL_checkstring(lua, 1);
  Header h;
  int arg = 2;
  std::size_t total = 0;
  luaL_Buffer b;
  luaL_buffinit(lua, &b);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    if (!is_data(opt)) {
      control(lua, opt, fmt, h);
      continue;
    }
    std::size_t size = opt_size(lua, opt, fmt);
    for (std::size_t pad = to_align(total, h, opt, size); pad > 0; --pad, ++total) {
      luaL_addchar(&b, '\0');
    }
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        put_integer(b, luaL_checknumber(lua, arg++), h.little, size);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f': {
        float f = static_cast<float>(luaL_checknumber(lua, arg++));
        char raw[sizeof f];
        std::memcpy(raw, &f, sizeof f);
        put_raw(b, raw, sizeof f, h.little);
        break;
      }
      case 'd': {
        double d = luaL_checknumber(lua, arg++);
        char raw[sizeof d];
        std::memcpy(raw, &d, sizeof d);
        put_raw(b, raw, sizeof d, h.little);
        break;
      }
      case 'c':
      case 's': {
        std::size_t l = 0;
        const char* s = luaL_checklstring(lua, arg++, &l);
        if (size == 0) size = l;
        luaL_argcheck(lua, l >= size, arg - 1, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          size += 1;
        }
        break;
      }
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

lua_Number get_integer(const char* buff, bool little, bool is_signed, std::size_t size) {
  std::uint64_t v = 0;
  const std::size_t n = size > 8 ? 8 : size;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char byte = static_cast<unsigned char>(buff[little ? n - 1 - i : size - n + i]);
    v = (v << 8) | byte;
  }
  if (is_signed && n < 8) {
    const std::uint64_t mask = 1ull << (n * 8 - 1);
    v = (v ^ mask) - mask;  // sign-extend
  }
  return is_signed ? static_cast<lua_Number>(static_cast<std::int64_t>(v))
                   : static_cast<lua_Number>(v);
}

int unpack(lua_State* lua) {
  Header h;
  const char* fmt = luaL_checkstring(lua, 1);
  std::size_t ld = 0;
  const char* data = luaL_checklstring(lua, 2, &ld);
  std::size_t pos = static_cast<std::size_t>(luaL_optinteger(lua, 3, 1)) - 1;
  luaL_argcheck(lua, pos <= ld, 3, "offset must be 1 or greater");
  int n = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    if (!is_data(opt)) {
      control(lua, opt, fmt, h);
      continue;
    }
    std::size_t size = opt_size(lua, opt, fmt);
    pos += to_align(pos, h, opt, size);
    luaL_argcheck(lua, pos + size <= ld, 2, "data string too short");
    luaL_checkstack(lua, 2, "too many results");
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(lua, get_integer(data + pos, h.little, std::islower(opt) != 0, size));
        ++n;
        break;
      case 'x':
        break;
      case 'f': {
        char raw[sizeof(float)];
        std::memcpy(raw, data + pos, sizeof raw);
        if (!h.little) std::reverse(raw, raw + sizeof raw);
        float f;
        std::memcpy(&f, raw, sizeof f);
        lua_pushnumber(lua, f);
        ++n;
        break;
      }
      case 'd': {
        char raw[sizeof(double)];
        std::memcpy(raw, data + pos, sizeof raw);
        if (!h.little) std::reverse(raw, raw + sizeof raw);
        double d;
        std::memcpy(&d, raw, sizeof d);
        lua_pushnumber(lua, d);
        ++n;
        break;
      }
      case 'c':
        if (size == 0) {
          if (n == 0 || !lua_isnumber(lua, -1))
            luaL_error(lua, "format 'c0' needs a previous size");
          // A negative or huge previous number must not wrap pos + size past the check.
          const lua_Number want = lua_tonumber(lua, -1);
          lua_pop(lua, 1);
          --n;
          luaL_argcheck(lua, want >= 0 && want <= static_cast<lua_Number>(ld - pos), 2,
                        "data string too short");
          size = static_cast<std::size_t>(want);
        }
        lua_pushlstring(lua, data + pos, size);
        ++n;
        break;
      case 's': {
        const void* e = std::memchr(data + pos, '\0', ld - pos);
        if (e == nullptr) luaL_error(lua, "unfinished string in data");
        size = static_cast<std::size_t>(static_cast<const char*>(e) - (data + pos));
        lua_pushlstring(lua, data + pos, size);
        ++n;
        size += 1;
        break;
      }
    }
    pos += size;
  }
  lua_pushinteger(lua, static_cast<lua_Integer>(pos + 1));
  return n + 1;
}

int size(lua_State* lua) {
  Header h;
  const char* fmt = luaL_checkstring(lua, 1);
  std::size_t pos = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    if (!is_data(opt)) {
      control(lua, opt, fmt, h);
      continue;
    }
    const std::size_t sz = opt_size(lua, opt, fmt);
    pos += to_align(pos, h, opt, sz);
    if (opt == 's') luaL_argerror(lua, 1, "options 'c0' - 's' have undefined sizes");
    if (opt == 'c' && sz == 0) luaL_argerror(lua, 1, "options 'c0' - 's' have undefined sizes");
    pos += sz;
  }
  lua_pushinteger(lua, static_cast<lua_Integer>(pos));
  return 1;
}

}  // namespace

int open_struct(lua_State* lua) {
  static const luaL_Reg kFns[] = {
      {"pack", pack}, {"unpack", unpack}, {"size", size}, {nullptr, nullptr}};
  luaL_register(lua, "struct", kFns);
  return 1;
}

}  // namespace ruvio::worker::script
