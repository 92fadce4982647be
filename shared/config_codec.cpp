// The table's types: how each reads a flag or config-file value, how CONFIG SET reads one
// (Redis 7.0's rules and reasons, config.c), and how CONFIG GET prints it. Two readers on
// purpose: the flags and the file have always accepted what from_chars accepts ("007"), and
// the contract only grows; CONFIG SET follows Redis's string2ll exactly.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "shared/config_table.hpp"

namespace ruvio {
namespace {

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Redis's string2ll: optional '-', no leading zeros, '+', blanks or "-0"; fits in 64 bits.
std::optional<std::int64_t> string2ll(std::string_view s) {
  if (s == "0") return 0;
  const bool negative = !s.empty() && s[0] == '-';
  const std::string_view digits = negative ? s.substr(1) : s;
  if (digits.empty() || digits.size() > 19 || digits[0] < '1' || digits[0] > '9') {
    return std::nullopt;
  }
  std::uint64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');  // 19 digits cannot overflow 64 bits
  }
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (v > kMax + (negative ? 1 : 0)) return std::nullopt;
  return negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
}

bool in_bounds(const Param& p, std::int64_t v) {
  return v >= p.min && (v < 0 || static_cast<std::uint64_t>(v) <= p.max);
}
bool in_bounds(const Param& p, std::uint64_t v) {
  return (p.min <= 0 || v >= static_cast<std::uint64_t>(p.min)) && v <= p.max;
}

std::string between(const Param& p) {
  return "argument must be between " + std::to_string(p.min) + " and " + std::to_string(p.max) +
         " inclusive";
}

// Stores an in-bounds number into the row's member (an int member takes at most INT_MAX:
// maxclients accepts 1..UINT_MAX as Redis does and keeps what an int holds).
void store_number(const Param& p, std::int64_t v, Config& c) {
  if (auto* m = std::get_if<int Config::*>(&p.member)) {
    c.** m = static_cast<int>(std::clamp<std::int64_t>(v, std::numeric_limits<int>::min(),
                                                       std::numeric_limits<int>::max()));
  } else if (auto* m = std::get_if<std::int64_t Config::*>(&p.member)) {
    c.** m = v;
  } else if (auto* m = std::get_if<std::uint64_t Config::*>(&p.member)) {
    c.** m = static_cast<std::uint64_t>(v);
  }
}

std::string join(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out.append(out.empty() ? "" : ", ").append(n);
  return out;
}

// Stores the enum name `value` matches (any case), its index for an enum-typed member.
bool store_enum(const Param& p, std::string_view value, Config& c) {
  for (std::size_t i = 0; i < p.names.size(); ++i) {
    if (!iequal(p.names[i], value)) continue;
    if (auto* m = std::get_if<std::string Config::*>(&p.member)) c.** m = std::string(p.names[i]);
    if (auto* m = std::get_if<Durability Config::*>(&p.member)) c.** m = static_cast<Durability>(i);
    return true;
  }
  return false;
}

std::string type_must(const Param& p) {
  constexpr auto kIntMin = std::numeric_limits<int>::min();
  switch (p.type) {
    case ParamType::kBool:
      return "yes or no";
    case ParamType::kOnOff:
      return "on or off";
    case ParamType::kInt:
      if (p.max < static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
        return "an integer " + std::to_string(p.min) + ".." + std::to_string(p.max);
      }
      if (p.min == kIntMin || p.min == std::numeric_limits<std::int64_t>::min()) {
        return "an integer";
      }
      return "an integer of at least " + std::to_string(p.min);
    case ParamType::kMemory:
      if (p.min > 0) return "a memory size of at least " + std::to_string(p.min) + " bytes";
      return "a memory size such as 1048576, 100mb or 2gb";
    case ParamType::kEnum:
      return "one of " + join(p.names);
    default:
      return "not empty";
  }
}

}  // namespace

std::optional<std::int64_t> parse_whole_int(std::string_view text, std::int64_t lo,
                                            std::int64_t hi) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < lo || value > hi) {
    return std::nullopt;
  }
  return value;
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const Param* find_param(std::string_view name, ParamWhere where) {
  for (const Param& p : config_params()) {
    if ((p.where & where) == 0) continue;
    if (iequal(p.name, name) || (!p.alias.empty() && iequal(p.alias, name))) return &p;
  }
  return nullptr;
}

std::string param_get(const Param& p, const Config& c) {
  if (p.type == ParamType::kFixed) return std::string(p.default_text);
  if (p.type == ParamType::kSpecial) return p.special->get(c);
  return std::visit(
      [&](auto m) -> std::string {
        using M = decltype(m);
        if constexpr (std::is_same_v<M, std::monostate>) {
          return std::string(p.default_text);
        } else if constexpr (std::is_same_v<M, bool Config::*>) {
          if (p.type == ParamType::kOnOff) return c.*m ? "on" : "off";
          return c.*m ? "yes" : "no";
        } else if constexpr (std::is_same_v<M, std::string Config::*>) {
          return c.*m;
        } else if constexpr (std::is_same_v<M, Durability Config::*>) {
          return std::string(p.names[static_cast<std::size_t>(c.*m)]);
        } else {
          return std::to_string(c.*m);
        }
      },
      p.member);
}

std::optional<std::string> param_set(const Param& p, std::string_view value, Config& c) {
  switch (p.type) {
    case ParamType::kBool: {
      const bool yes = iequal(value, "yes");
      if (!yes && !iequal(value, "no")) return "argument must be 'yes' or 'no'";
      c.*std::get<bool Config::*>(p.member) = yes;
      return std::nullopt;
    }
    case ParamType::kInt: {
      const auto n = string2ll(value);
      if (!n) return "argument couldn't be parsed into an integer";
      if (!in_bounds(p, *n)) return between(p);
      store_number(p, *n, c);
      return std::nullopt;
    }
    case ParamType::kMemory: {
      const auto bytes = parse_memory(std::string(value));
      if (!bytes) return "argument must be a memory value";
      if (!in_bounds(p, *bytes)) return between(p);
      c.*std::get<std::uint64_t Config::*>(p.member) = *bytes;
      return std::nullopt;
    }
    case ParamType::kEnum:
      if (!store_enum(p, value, c)) {
        return "argument(s) must be one of the following: " + join(p.names);
      }
      return std::nullopt;
    case ParamType::kString:
      c.*std::get<std::string Config::*>(p.member) = std::string(value);
      return std::nullopt;
    case ParamType::kSpecial:
      return p.special->set(value, c);
    default:
      return "can't set immutable config";
  }
}

std::optional<std::string> param_parse(const Param& p, const std::string& value, Config& c,
                                       Given& given) {
  const std::string must = p.must.empty() ? type_must(p) : std::string(p.must);
  switch (p.type) {
    case ParamType::kBool:
    case ParamType::kOnOff: {
      const std::string flag = ascii_lower(value);
      const bool bool_type = p.type == ParamType::kBool;
      const bool on = flag == (bool_type ? "yes" : "on");
      if (!on && flag != (bool_type ? "no" : "off")) return must;
      c.*std::get<bool Config::*>(p.member) = on;
      return std::nullopt;
    }
    case ParamType::kInt: {
      const auto n = parse_whole_int(value, std::numeric_limits<std::int64_t>::min(),
                                     std::numeric_limits<std::int64_t>::max());
      if (!n || !in_bounds(p, *n)) return must;
      store_number(p, *n, c);
      return std::nullopt;
    }
    case ParamType::kMemory: {
      const auto bytes = parse_memory(value);
      if (!bytes || !in_bounds(p, *bytes)) return must;
      c.*std::get<std::uint64_t Config::*>(p.member) = *bytes;
      return std::nullopt;
    }
    case ParamType::kEnum:
      if (!store_enum(p, value, c)) return must;
      return std::nullopt;
    case ParamType::kString:
      if (p.min > 0 && value.empty()) return must;
      c.*std::get<std::string Config::*>(p.member) = value;
      return std::nullopt;
    case ParamType::kSpecial:
      return p.special->parse(value, c, given);
    default:
      return must;
  }
}

// Every member the table declares starts at its row's default; the members derived from
// others (workers, cpus, the ports) keep their initializers until config.cpp resolves them.
Config::Config() {
  Given ignored;
  for (const Param& p : config_params()) {
    if (p.default_text.empty() && p.type != ParamType::kString) continue;
    if ((p.where & kFlag) == 0 && !p.settable) continue;  // CONFIG-only views of other members
    if (std::holds_alternative<std::monostate>(p.member) && p.type != ParamType::kSpecial) continue;
    param_parse(p, std::string(p.default_text), *this, ignored);
  }
}

}  // namespace ruvio
