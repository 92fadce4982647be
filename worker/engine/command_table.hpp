// The merged command table of every family, looked up by name on the hot path.
//
// Lookup is a flat open-addressing array keyed by a case-folded hash of the name: one hash,
// usually one compare, no allocation, no std::map<std::string>. A name of up to 24 bytes (all
// of Redis's) is folded 8 bytes at a time into three words, which are both the hash input and
// the compare: about 40 instructions a lookup instead of a byte loop hashing and comparing.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "worker/engine/command.hpp"

namespace ruvio::worker {

class CommandTable {
 public:
  // The rows of every family, in order; each row gets its dense id.
  explicit CommandTable(std::initializer_list<std::span<const CommandDef>> families);

  // Case-insensitive. nullptr when unknown.
  const CommandDef* find(std::string_view name) const;
  // A container's subcommand ("client" + "list"), case-insensitive; nullptr when unknown.
  static const CommandDef* find_sub(const CommandDef& parent, std::string_view sub);

  const std::vector<const CommandDef*>& all() const { return all_; }
  // Every command and subcommand by CommandDef::id (0 .. ids()-1).
  std::size_t ids() const { return by_id_.size(); }
  const CommandDef* by_id(std::size_t id) const { return by_id_[id]; }

  static constexpr std::size_t kMaxName = 24;  // longer names are never commands

 private:
  // A name lower-cased and zero-padded to 24 bytes, as three words.
  struct Folded {
    std::uint64_t w[3];
    friend bool operator==(const Folded&, const Folded&) = default;
  };
  struct Slot {
    Folded name{};
    std::uint32_t len = 0;
    const CommandDef* def = nullptr;
  };
  static bool fold(std::string_view name, Folded& out);
  static std::uint64_t hash(const Folded& f, std::size_t len);

  std::vector<const CommandDef*> all_;
  std::vector<const CommandDef*> by_id_;
  std::vector<Slot> slots_;  // power-of-two open addressing
  std::uint64_t mask_ = 0;
};

// The one table of this process, built from every family (worker/commands/command_table.cpp).
const CommandTable& command_table();

}  // namespace ruvio::worker
