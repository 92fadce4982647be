#include "worker/engine/command_table.hpp"

#include <bit>
#include <cassert>
#include <cstring>
#include <stdexcept>

namespace ruvio::worker {
namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

bool same_name(std::string_view lower_name, std::string_view any_case) {
  if (lower_name.size() != any_case.size()) return false;
  for (std::size_t i = 0; i < any_case.size(); ++i) {
    if (lower_name[i] != lower(any_case[i])) return false;
  }
  return true;
}

// ASCII 'A'..'Z' of each byte of w to lower case, other bytes unchanged (SWAR: the high bit
// of each byte says "in range", shifted down to 0x20).
std::uint64_t fold_word(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  const std::uint64_t low7 = w & ~kHigh;
  const std::uint64_t ge_a = low7 + kOnes * (0x80 - 'A');  // high bit: byte >= 'A'
  const std::uint64_t gt_z = low7 + kOnes * (0x7f - 'Z');  // high bit: byte > 'Z'
  const std::uint64_t upper = ge_a & ~gt_z & ~w & kHigh;   // and the byte is ASCII
  return w | (upper >> 2);
}

// Up to 8 bytes of p as a little-endian word, zero-padded, without reading past p + n:
// overlapping loads put the same byte at the same place twice.
std::uint64_t load_partial(const char* p, std::size_t n) {
  if (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  if (n >= 4) {
    std::uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | (static_cast<std::uint64_t>(hi) << (8 * (n - 4)));
  }
  if (n == 0) return 0;
  const auto b = [&](std::size_t i) {
    return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i]));
  };
  return b(0) | (b(n >> 1) << (8 * (n >> 1))) | (b(n - 1) << (8 * (n - 1)));
}

}  // namespace

// fold and hash run inside find, once per request: inlined there.
[[gnu::always_inline]] inline bool CommandTable::fold(std::string_view name, Folded& out) {
  const std::size_t n = name.size();
  if (n == 0 || n > kMaxName) return false;
  const char* p = name.data();
  out.w[0] = fold_word(load_partial(p, n));
  out.w[1] = n > 8 ? fold_word(load_partial(p + 8, n - 8)) : 0;
  out.w[2] = n > 16 ? fold_word(load_partial(p + 16, n - 16)) : 0;
  return true;
}

[[gnu::always_inline]] inline std::uint64_t CommandTable::hash(const Folded& f, std::size_t len) {
  std::uint64_t h =
      (f.w[0] ^ (f.w[1] * 0x9e3779b97f4a7c15ull) ^ (f.w[2] << 7) ^ len) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}

CommandTable::CommandTable(std::initializer_list<std::span<const CommandDef>> families) {
  for (auto family : families) {
    for (const CommandDef& def : family) all_.push_back(&def);
  }
  for (const CommandDef* def : all_) {
    def->id = static_cast<std::uint16_t>(by_id_.size());
    by_id_.push_back(def);
    for (const CommandDef& sub : def->subcommands) {
      sub.id = static_cast<std::uint16_t>(by_id_.size());
      by_id_.push_back(&sub);
    }
  }
  std::size_t size = std::bit_ceil(all_.size() * 4);
  slots_.assign(size, Slot{});
  mask_ = size - 1;
  for (const CommandDef* def : all_) {
    Folded f;
    if (!fold(def->name, f)) throw std::logic_error("command name longer than kMaxName");
    std::uint64_t i = hash(f, def->name.size()) & mask_;
    while (slots_[i].def != nullptr) {
      assert(slots_[i].def->name != def->name && "command declared twice");
      i = (i + 1) & mask_;
    }
    slots_[i] = Slot{f, static_cast<std::uint32_t>(def->name.size()), def};
  }
}

const CommandDef* CommandTable::find(std::string_view name) const {
  Folded f;
  if (!fold(name, f)) return nullptr;
  for (std::uint64_t i = hash(f, name.size()) & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.def == nullptr) return nullptr;
    // Folding maps only 'A'..'Z': equal words are equal names (the length rules out padding).
    if (slot.len == name.size() && slot.name == f) return slot.def;
  }
}

const CommandDef* CommandTable::find_sub(const CommandDef& parent, std::string_view sub) {
  for (const CommandDef& def : parent.subcommands) {
    // Subcommands are declared as "client|list": compare the part after the bar.
    std::string_view n = def.name;
    if (auto bar = n.find('|'); bar != std::string_view::npos) n = n.substr(bar + 1);
    if (same_name(n, sub)) return &def;
  }
  return nullptr;
}

}  // namespace ruvio::worker
