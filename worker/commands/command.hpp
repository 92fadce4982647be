// Declarative command table entries (after Redis's commands/*.json and Dragonfly's
// CommandRegistry). A family file declares its commands in one table; the router and
// COMMAND INFO/GETKEYS read key positions from `keys`, nothing parses them by hand.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ruvio::worker {

struct Context;

enum CommandFlag : std::uint32_t {
  kWrite = 1u << 0,
  kReadonly = 1u << 1,
  kFast = 1u << 2,
  kAdmin = 1u << 3,
  kPubsub = 1u << 4,
  kNoScript = 1u << 5,
  kLoading = 1u << 6,  // allowed while loading
  kStale = 1u << 7,
  kNoAuth = 1u << 8,   // allowed before AUTH (AUTH, HELLO, QUIT, RESET)
  kDenyOom = 1u << 9,  // may grow memory: refused with -OOM over maxmemory
  kBlocking = 1u << 10,
  kSkipMonitor = 1u << 11,
  kSkipSlowlog = 1u << 12,
  kSentinel = 1u << 13,
  kNoMulti = 1u << 14,
  kMayReplicate = 1u << 15,
  kAllowBusy = 1u << 16,
  kNoAsyncLoading = 1u << 17,  // refused during an async (diskless replica) load
};

// Legacy (first, last, step) key positions, 1-based; last = -1 means "to the end",
// -2 "all but the last" (Redis's convention). first = 0: no keys.
struct KeySpec {
  int first = 0;
  int last = 0;
  int step = 0;
  bool incomplete = false;  // e.g. keys hidden behind a keyword
};

using Handler = void (*)(Context&);

struct CommandDef {
  std::string_view name;  // lower case
  int arity;              // Redis arity: exact n, or -n for "at least n" (name counts)
  std::uint32_t flags;
  KeySpec keys;
  Handler handler;         // nullptr on a container command that only has subcommands
  std::string_view group;  // "string", "generic", "connection", "server", ...
  std::string_view summary;
  std::string_view since;
  std::string_view complexity;
  std::string_view acl;  // space-separated ACL categories without '@': "write string fast"
  std::span<const CommandDef> subcommands = {};  // CLIENT, CONFIG, OBJECT, COMMAND, MEMORY
};

// One function per family, each returning that family's declaration table.
std::span<const CommandDef> connection_commands();
std::span<const CommandDef> string_commands();
std::span<const CommandDef> pubsub_commands();
std::span<const CommandDef> transaction_commands();
std::span<const CommandDef> key_commands();
std::span<const CommandDef> server_commands();
std::span<const CommandDef> persist_commands();

}  // namespace ruvio::worker
