// List semantics on top of the quicklist encoding (Redis's t_list.c minus the commands):
// pushes, LINSERT, LSET, LREM, LTRIM and LPOS's scan. The command family translates
// arguments and replies; this file knows nothing of RESP.
#pragma once

#include <cstdint>
#include <string_view>

#include "worker/types/list/quicklist.hpp"

namespace ruvio::types {

enum class ListEnd : std::uint8_t { kHead, kTail };

void register_list_type();

// A small list (one node, at most kInlineMax bytes folded) is usually held folded in its
// record: [type id][enc kSmall][1][listpack blob] (value.hpp). Readers take the heap layout
// through this: `o` itself, or `scratch` filled as a one-node view of the folded blob (read
// only, valid while the record is unchanged; writers get a heap copy from the write handle).
const ListObject* list_view(const Object* o, ListObject& scratch);

// Pushes `value` at one end.
void list_push(Quicklist& ql, ListEnd end, std::string_view value);
// LINSERT: inserts `value` before or after the first entry equal to `pivot`; false when no
// entry is.
bool list_insert(Quicklist& ql, Listpack::Where where, std::string_view pivot,
                 std::string_view value);
// LSET: false when `index` is out of range.
bool list_set(Quicklist& ql, std::int64_t index, std::string_view value);
// LREM: removes up to |count| entries equal to `value` (count > 0 from the head, < 0 from the
// tail, 0 all); returns how many went.
std::uint64_t list_remove(Quicklist& ql, std::string_view value, std::int64_t count);
// LTRIM with Redis's index rules (negative from the end, clamped); may empty the list.
void list_trim(Quicklist& ql, std::int64_t start, std::int64_t end);
// LRANGE's clamped range: false when it is empty, else [first, last] as absolute indexes.
bool list_range(std::uint64_t size, std::int64_t start, std::int64_t end, std::uint64_t& first,
                std::uint64_t& last);

// LPOS's scan: calls emit(index) for matches in the order of `rank`'s direction, skipping the
// first |rank| - 1 of them, stopping after `count` (0 = all) and after `maxlen` entries
// compared (0 = all).
template <class F>
void list_positions(const Quicklist& ql, std::string_view value, std::int64_t rank,
                    std::int64_t count, std::int64_t maxlen, F&& emit) {
  const bool forward = rank > 0;
  // Redis negates the rank in a long: INT64_MIN stays negative, so every match from the tail
  // qualifies and no COUNT ever stops the scan (7.0.15 answers that way).
  const bool min_rank = rank == INT64_MIN;
  std::int64_t skip = min_rank ? 0 : (forward ? rank : -rank) - 1;
  if (min_rank) count = 0;
  std::int64_t found = 0;
  std::int64_t seen = 0;
  const auto size = static_cast<std::int64_t>(ql.size());
  ListPos p = forward ? ql.first() : ql.last();
  for (std::int64_t i = 0; p && (maxlen == 0 || seen < maxlen); ++i, ++seen) {
    if (ql.lp(p.node).equals(p.pos, value)) {
      if (skip > 0) {
        --skip;
      } else {
        emit(forward ? i : size - 1 - i);
        if (count != 0 && ++found >= count) return;
      }
    }
    p = forward ? ql.next(p) : ql.prev(p);
  }
}

}  // namespace ruvio::types
