#include "shared/notify_flags.hpp"

namespace ruvio {

std::optional<std::uint32_t> parse_notify_flags(std::string_view letters) {
  std::uint32_t flags = 0;
  for (char c : letters) {
    switch (c) {
      case 'A':
        flags |= kNotifyAll;
        break;
      case 'g':
        flags |= kNotifyGeneric;
        break;
      case '$':
        flags |= kNotifyString;
        break;
      case 'l':
        flags |= kNotifyList;
        break;
      case 's':
        flags |= kNotifySet;
        break;
      case 'h':
        flags |= kNotifyHash;
        break;
      case 'z':
        flags |= kNotifyZset;
        break;
      case 'x':
        flags |= kNotifyExpired;
        break;
      case 'e':
        flags |= kNotifyEvicted;
        break;
      case 'K':
        flags |= kNotifyKeyspace;
        break;
      case 'E':
        flags |= kNotifyKeyevent;
        break;
      case 't':
        flags |= kNotifyStream;
        break;
      case 'm':
        flags |= kNotifyKeyMiss;
        break;
      case 'd':
        flags |= kNotifyModule;
        break;
      case 'n':
        flags |= kNotifyNew;
        break;
      default:
        return std::nullopt;
    }
  }
  return flags;
}

std::string format_notify_flags(std::uint32_t flags) {
  std::string out;
  if ((flags & kNotifyAll) == kNotifyAll) {
    out += 'A';
  } else {
    static constexpr struct {
      std::uint32_t bit;
      char letter;
    } kOrder[] = {{kNotifyGeneric, 'g'}, {kNotifyString, '$'},  {kNotifyList, 'l'},
                  {kNotifySet, 's'},     {kNotifyHash, 'h'},    {kNotifyZset, 'z'},
                  {kNotifyExpired, 'x'}, {kNotifyEvicted, 'e'}, {kNotifyStream, 't'},
                  {kNotifyModule, 'd'},  {kNotifyNew, 'n'}};
    for (const auto& o : kOrder) {
      if (flags & o.bit) out += o.letter;
    }
  }
  if (flags & kNotifyKeyspace) out += 'K';
  if (flags & kNotifyKeyevent) out += 'E';
  if (flags & kNotifyKeyMiss) out += 'm';
  return out;
}

}  // namespace ruvio
