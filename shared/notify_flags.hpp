// notify-keyspace-events: the event classes of Redis's keyspace notifications (notify.c) as
// bits, and the two conversions between them and the config's letters. Shared because the
// supervisor parses the flag at start and a worker's CONFIG SET parses it at run time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ruvio {

// Redis 7.0's NOTIFY_* values, so a flags word means the same thing as in server.h.
enum NotifyClass : std::uint32_t {
  kNotifyKeyspace = 1u << 0,  // K
  kNotifyKeyevent = 1u << 1,  // E
  kNotifyGeneric = 1u << 2,   // g
  kNotifyString = 1u << 3,    // $
  kNotifyList = 1u << 4,      // l
  kNotifySet = 1u << 5,       // s
  kNotifyHash = 1u << 6,      // h
  kNotifyZset = 1u << 7,      // z
  kNotifyExpired = 1u << 8,   // x
  kNotifyEvicted = 1u << 9,   // e
  kNotifyStream = 1u << 10,   // t
  kNotifyKeyMiss = 1u << 11,  // m (not part of A)
  kNotifyLoaded = 1u << 12,   // module key loaded (no letter)
  kNotifyModule = 1u << 13,   // d
  kNotifyNew = 1u << 14,      // n (not part of A)
  kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet | kNotifyHash |
               kNotifyZset | kNotifyExpired | kNotifyEvicted | kNotifyStream | kNotifyModule,
};

// Letters to flags (keyspaceEventsStringToFlags); nullopt on any other character.
std::optional<std::uint32_t> parse_notify_flags(std::string_view letters);
// Flags to letters in Redis's canonical order (keyspaceEventsFlagsToString): "A" for every
// class of A (then 'n' is not shown, as Redis 7.0), then K, E, m.
std::string format_notify_flags(std::uint32_t flags);
// True when the flags publish anything: a class and at least one of K / E.
constexpr bool notify_publishes(std::uint32_t flags) {
  return (flags & (kNotifyKeyspace | kNotifyKeyevent)) != 0 &&
         (flags & ~(kNotifyKeyspace | kNotifyKeyevent)) != 0;
}

}  // namespace ruvio
