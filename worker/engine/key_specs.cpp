// for_each_key and the legacy range: Redis 7.0's getKeysUsingKeySpecs and
// populateCommandLegacyRangeSpec (src/db.c, src/server.c) over CommandDecl::keys; a command
// with a getkeys procedure (SORT) finds its keys itself, as Redis falls back to its proc.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"

namespace ruvio::worker {
namespace {

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::string_view tip_name(Tip tip) {
  switch (tip) {
    case Tip::kNondeterministicOutput:
      return "nondeterministic_output";
    case Tip::kNondeterministicOutputOrder:
      return "nondeterministic_output_order";
    case Tip::kRequestAllNodes:
      return "request_policy:all_nodes";
    case Tip::kRequestAllShards:
      return "request_policy:all_shards";
    case Tip::kRequestMultiShard:
      return "request_policy:multi_shard";
    case Tip::kRequestSpecial:
      return "request_policy:special";
    case Tip::kResponseOneSucceeded:
      return "response_policy:one_succeeded";
    case Tip::kResponseAllSucceeded:
      return "response_policy:all_succeeded";
    case Tip::kResponseAggLogicalAnd:
      return "response_policy:agg_logical_and";
    case Tip::kResponseAggLogicalOr:
      return "response_policy:agg_logical_or";
    case Tip::kResponseAggMin:
      return "response_policy:agg_min";
    case Tip::kResponseAggMax:
      return "response_policy:agg_max";
    case Tip::kResponseAggSum:
      return "response_policy:agg_sum";
    case Tip::kResponseSpecial:
      return "response_policy:special";
  }
  return "";
}

KeysFound walk_keys(const CommandDef& def, std::span<const std::string_view> args,
                    std::uint8_t options, KeyVisitor visit) {
  if (def.getkeys != nullptr) return def.getkeys(def, args, visit);
  const long argc = static_cast<long>(args.size());
  bool incomplete = false;
  for (const KeySpec& spec : def.decl->keys) {
    if ((spec.flags & kKeyNotKey) && !(options & kKeysIncludeNotKeys)) continue;
    if (spec.begin.type == BeginSearch::kUnknown || spec.find.type == FindKeys::kUnknown) {
      incomplete = true;
      continue;
    }
    long first = 0;
    if (spec.begin.type == BeginSearch::kIndex) {
      first = spec.begin.pos;
    } else {
      const long start = spec.begin.pos > 0 ? spec.begin.pos : argc + spec.begin.pos;
      const long end = spec.begin.pos > 0 ? argc - 1 : 1;
      for (long i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (iequal(args[static_cast<std::size_t>(i)], spec.begin.keyword)) {
          first = i + 1;
          break;
        }
      }
      if (first == 0) continue;  // keyword absent: this spec has no keys
    }
    long last = 0;
    long step = 1;
    if (spec.find.type == FindKeys::kRange) {
      step = spec.find.b;
      if (spec.find.a >= 0) {
        last = first + spec.find.a;
      } else if (spec.find.c == 0) {
        last = argc + spec.find.a;
      } else {
        last = first + ((argc - first) / spec.find.c + spec.find.a);
      }
    } else {
      step = spec.find.c;
      const long idx = first + spec.find.a;
      const auto numkeys =
          idx < argc ? parse_int64(args[static_cast<std::size_t>(idx)]) : std::nullopt;
      // numkeys 0 is an invalid spec too, as in Redis (last < first): no key of the command
      // counts (ZUNIONSTORE d 0 a has none, not d), and EVAL s 0 has no keys.
      if (!numkeys || *numkeys <= 0 || *numkeys > argc) return KeysFound::kInvalid;
      first += spec.find.b;
      last = first + static_cast<long>(*numkeys) - 1;
    }
    if (last >= argc || last < first || first >= argc || step <= 0) return KeysFound::kInvalid;
    for (long i = first; i <= last; i += step) {
      visit.fn(visit.context, static_cast<std::size_t>(i), spec);
    }
    incomplete |= (spec.flags & kKeyIncomplete) != 0;
  }
  return incomplete ? KeysFound::kIncomplete : KeysFound::kOk;
}

LegacyRange legacy_range(const CommandDecl& decl) {
  LegacyRange out;
  const auto& specs = decl.keys;
  if (specs.empty()) return out;
  auto plain = [](const KeySpec& s) {
    return s.begin.type == BeginSearch::kIndex && s.find.type == FindKeys::kRange;
  };
  auto absolute_last = [](const KeySpec& s) {
    return s.find.a >= 0 ? s.begin.pos + s.find.a : s.find.a;
  };
  if (specs.size() == 1 && plain(specs[0])) {
    out.first = specs[0].begin.pos;
    out.last = absolute_last(specs[0]);
    out.step = specs[0].find.b;
    out.movable = (specs[0].flags & kKeyIncomplete) != 0;
    return out;
  }
  int first = INT_MAX;
  int last = 0;
  int prev_last = 0;
  for (const KeySpec& s : specs) {
    if (!plain(s) || s.find.b != 1 || (prev_last != 0 && prev_last != s.begin.pos - 1)) {
      out.movable = true;
      continue;
    }
    out.movable |= (s.flags & kKeyIncomplete) != 0;
    first = std::min(first, s.begin.pos);
    // Unsigned, as Redis compares: a negative (from the end) last wins over any index.
    const int abs_last = absolute_last(s);
    if (static_cast<unsigned>(abs_last) > static_cast<unsigned>(last)) last = abs_last;
    prev_last = last;
  }
  if (first == INT_MAX) {
    out.movable = true;
    return out;
  }
  out.first = first;
  out.last = last;
  out.step = 1;
  return out;
}

}  // namespace ruvio::worker
