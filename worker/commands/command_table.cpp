#include "worker/commands/command_table.hpp"

#include <bit>
#include <cassert>

#include "worker/commands/cluster_commands.hpp"

namespace ruvio::worker {
namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

// FNV-1a over the lower-cased name: names are short, so this beats anything fancier.
std::uint64_t name_hash(std::string_view name) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : name) {
    h ^= static_cast<unsigned char>(lower(c));
    h *= 1099511628211ull;
  }
  return h;
}

bool same_name(std::string_view lower_name, std::string_view any_case) {
  if (lower_name.size() != any_case.size()) return false;
  for (std::size_t i = 0; i < any_case.size(); ++i) {
    if (lower_name[i] != lower(any_case[i])) return false;
  }
  return true;
}

}  // namespace

CommandTable::CommandTable() {
  for (auto family : {
           connection_commands(), string_commands(),  key_commands(),    server_commands(),
           persist_commands(),    cluster_commands(), pubsub_commands(), transaction_commands(),
           zset_commands(),       set_commands(),     hash_commands(),   hash_ttl_commands(),
           list_commands(),       sort_commands(),    geo_commands(),    bitmap_commands(),
           hll_commands(),        stream_commands(),  script_commands(), dump_commands(),
           debug_commands(),
       }) {
    for (const CommandDef& def : family) all_.push_back(&def);
  }
  std::size_t size = std::bit_ceil(all_.size() * 4);
  slots_.assign(size, nullptr);
  mask_ = size - 1;
  for (const CommandDef* def : all_) {
    std::uint64_t i = name_hash(def->name) & mask_;
    while (slots_[i] != nullptr) {
      assert(slots_[i]->name != def->name && "command declared twice");
      i = (i + 1) & mask_;
    }
    slots_[i] = def;
  }
}

const CommandDef* CommandTable::find(std::string_view name) const {
  for (std::uint64_t i = name_hash(name) & mask_;; i = (i + 1) & mask_) {
    const CommandDef* def = slots_[i];
    if (def == nullptr) return nullptr;
    if (same_name(def->name, name)) return def;
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

const CommandTable& command_table() {
  static const CommandTable table;
  return table;
}

}  // namespace ruvio::worker
