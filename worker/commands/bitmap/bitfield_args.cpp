// BITFIELD argument parsing; the grammar is in bitfield_args.hpp.
#include "worker/commands/bitmap/bitfield_args.hpp"

#include "worker/engine/common.hpp"

namespace ruvio::worker::bitfield {

std::optional<std::uint64_t> parse_offset(std::string_view s, bool hash, unsigned bits) {
  const bool use_hash = hash && bits > 0 && !s.empty() && s[0] == '#';
  auto v = parse_int64(use_hash ? s.substr(1) : s);
  if (!v) return std::nullopt;
  std::int64_t off = *v;
  if (use_hash) {
    off = static_cast<std::int64_t>(static_cast<std::uint64_t>(off) * bits);
  }
  if (off < 0 || (static_cast<std::uint64_t>(off) >> 3) >= kMaxBytes) return std::nullopt;
  return static_cast<std::uint64_t>(off);
}

namespace {

// getBitfieldTypeFromArgument. The width is read as C's strlen sees it: up to a NUL byte.
bool parse_type(std::string_view s, Op& op) {
  if (s.empty() || (s[0] != 'i' && s[0] != 'u')) return false;
  op.sign = s[0] == 'i';
  std::string_view digits = s.substr(1);
  if (auto nul = digits.find('\0'); nul != std::string_view::npos) digits = digits.substr(0, nul);
  auto bits = parse_int64(digits);
  if (!bits || *bits < 1 || (op.sign && *bits > 64) || (!op.sign && *bits > 63)) return false;
  op.bits = static_cast<unsigned>(*bits);
  return true;
}

// strcasecmp compares C strings: an argument with a NUL byte matches up to it.
bool is_word(std::string_view arg, std::string_view word) {
  if (auto nul = arg.find('\0'); nul != std::string_view::npos) arg = arg.substr(0, nul);
  return iequals(arg, word);
}

}  // namespace

Parsed parse(std::span<const std::string_view> args, std::vector<Op>& ops) {
  Parsed out;
  auto overflow = types::bitmap::Overflow::kWrap;
  for (std::size_t j = 0; j < args.size(); ++j) {
    const std::size_t rem = args.size() - j - 1;
    std::string_view sub = args[j];
    Op op;
    if (is_word(sub, "get") && rem >= 2) {
      op.kind = Kind::kGet;
    } else if (is_word(sub, "set") && rem >= 3) {
      op.kind = Kind::kSet;
    } else if (is_word(sub, "incrby") && rem >= 3) {
      op.kind = Kind::kIncrBy;
    } else if (is_word(sub, "overflow") && rem >= 1) {
      std::string_view t = args[++j];
      if (is_word(t, "wrap")) {
        overflow = types::bitmap::Overflow::kWrap;
      } else if (is_word(t, "sat")) {
        overflow = types::bitmap::Overflow::kSat;
      } else if (is_word(t, "fail")) {
        overflow = types::bitmap::Overflow::kFail;
      } else {
        out.error = "ERR Invalid OVERFLOW type specified";
        return out;
      }
      continue;
    } else {
      out.error = err::kSyntax;
      return out;
    }
    if (!parse_type(args[j + 1], op)) {
      out.error = kTypeErr;
      return out;
    }
    auto offset = parse_offset(args[j + 2], true, op.bits);
    if (!offset) {
      out.error = kOffsetErr;
      return out;
    }
    op.offset = *offset;
    if (op.kind != Kind::kGet) {
      out.writes = true;
      const std::uint64_t last = op.offset + op.bits - 1;
      if (last > out.highest_write) out.highest_write = last;
      if (op.offset < out.lowest_write) out.lowest_write = op.offset;
      auto v = parse_int64(args[j + 3]);
      if (!v) {
        out.error = err::kNotInt;
        return out;
      }
      op.value = *v;
    }
    op.overflow = overflow;
    ops.push_back(op);
    j += op.kind == Kind::kGet ? 2 : 3;
  }
  return out;
}

}  // namespace ruvio::worker::bitfield
