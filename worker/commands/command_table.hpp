// The merged command table of every family, looked up by name on the hot path.
//
// Lookup is a flat open-addressing array keyed by a case-folded hash of the name: one hash,
// usually one compare, no allocation, no std::map<std::string>.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "worker/commands/command.hpp"

namespace ruvio::worker {

class CommandTable {
 public:
  CommandTable();

  // Case-insensitive. nullptr when unknown.
  const CommandDef* find(std::string_view name) const;
  // A container's subcommand ("client" + "list"), case-insensitive; nullptr when unknown.
  static const CommandDef* find_sub(const CommandDef& parent, std::string_view sub);

  const std::vector<const CommandDef*>& all() const { return all_; }
  // Every command and subcommand by CommandDef::id (0 .. ids()-1).
  std::size_t ids() const { return by_id_.size(); }
  const CommandDef* by_id(std::size_t id) const { return by_id_[id]; }

 private:
  std::vector<const CommandDef*> all_;
  std::vector<const CommandDef*> by_id_;
  std::vector<const CommandDef*> slots_;  // power-of-two open addressing
  std::uint64_t mask_ = 0;
};

// The one table of this process.
const CommandTable& command_table();

}  // namespace ruvio::worker
