// A stream node: one listpack (worker/containers/listpack.hpp) holding a run of entries. The master
// entry and its field deduplication are Redis 7.0's; the entries are packed tighter than
// Redis's (its flags, ms-diff, seq-diff and lp-count elements cost 8 bytes of every small
// entry), which is what brings 1,000,000 two-field entries under 0.8x Redis's memory.
//
//   node = listpack [master entry][entry][entry]...
//   master entry (the fields of the node's first entry, kept once for all the node):
//     +-------+---------+------------+---------+-----+---------+---+
//     | count | deleted | num-fields | field-1 | ... | field-N | 0 |
//     +-------+---------+------------+---------+-----+---------+---+
//     count    live entries in the node     deleted  entries flagged deleted (tombstones)
//   entry, when its fields are the master's (flags bit 1, SAMEFIELDS):
//     +------+-----+---------+-----+---------+
//     | head | seq | value-1 | ... | value-N |
//     +------+-----+---------+-----+---------+
//   entry, otherwise:
//     +------+-----+------------+---------+---------+-----+
//     | head | seq | num-fields | field-1 | value-1 | ... |
//     +------+-----+------------+---------+---------+-----+
//     head   bits 0-1 flags: bit 0 DELETED (XDEL/XTRIM tombstone), bit 1 SAMEFIELDS
//            bit 2 packed: bits 3-4 hold `s`, bits 5.. hold d, and there is no seq element
//            else bits 3.. hold d, and `s` is the seq element after the head
//       d >= 1   the ID is relative to the previous entry's (tombstones included; the first
//                entry's "previous" is the master ID): ms = prev.ms + d - 1, and
//                seq = prev.seq + s when d == 1 (same millisecond), else s itself; packed
//                when s < 4 (XADD * makes s 0 or 1: one head byte for the whole ID)
//       d == 0   (unpacked) escape: two elements follow, the absolute ms and seq (as
//                int64), for a jump of 2^60 ms or more, or an ID below the previous one
//                (possible after XSETID below a deleted top)
//   Every number is a listpack integer: an entry of XADD * costs 2 bytes (head + backlen)
//   for its ID and flags where Redis spends 8 (flags, ms-diff, seq-diff, lp-count). Flags
//   change in place: head | 1 keeps the integer's width (every class ends at an odd value),
//   so positions after it do not move.
//   Example: XADD s 5-1 a 1 b 2, then 5-2 a 3 b 4, into a new node (master 5-1):
//     [2][0][2]["a"]["b"][0] | [38][1][2] | [46][3][4]
//     38 = SAMEFIELDS | packed | s 0 << 3 | d 1 << 5: the master's ID; 46: s 1, one past it
//
// There is no lp-count: a reverse walk reads the node forward and steps back through what it
// saw (a node holds stream-node-max-entries entries, 100 by default).
//
// The decoder (validate) reads outside bytes (snapshots): tests/fuzz/fuzz_stream_node.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "worker/containers/listpack.hpp"
#include "worker/containers/stream_id.hpp"
#include "worker/memory/heap.hpp"

namespace ruvio::types::stream_node {

using Pos = Listpack::Pos;

inline constexpr std::int64_t kFlagDeleted = 1;
inline constexpr std::int64_t kFlagSameFields = 2;

struct Header {
  std::int64_t count = 0;    // live entries
  std::int64_t deleted = 0;  // tombstones
  std::int64_t nfields = 0;  // master fields
  Pos first_field = Listpack::kNone;
  Pos first_entry = Listpack::kNone;  // the first entry's head; kNone when none
};

struct EntryView {
  Pos head_pos = Listpack::kNone;
  std::int64_t flags = 0;
  StreamID id;
  std::int64_t nfields = 0;
  Pos fields = Listpack::kNone;  // SAMEFIELDS: the first value; else the first field
  Pos next = Listpack::kNone;    // the next entry's head; kNone at the end
  bool deleted() const { return flags & kFlagDeleted; }
  bool same_fields() const { return flags & kFlagSameFields; }
};

// What the first entry of a node is relative to.
constexpr StreamID first_prev(const StreamID& master) {
  return master;
}

// A node whose master entry holds the fields of `fv` (field, value, field, value...), with
// no entry yet.
Listpack create(store::Heap& heap, std::span<const std::string_view> fv);
// Appends the entry `id` (fields and values `fv`) after the entry `prev` (first_prev(master)
// for a node's first) and bumps the master count. Returns redis_entry_extra for it.
std::int64_t append(store::Heap& heap, Listpack& lp, const StreamID& master, const StreamID& prev,
                    const StreamID& id, std::span<const std::string_view> fv);

// How many more bytes Redis 7.0's layout spends on this entry than this one does. A node is
// closed where Redis would close it (stream-node-max-bytes counts Redis's bytes), so XINFO's
// radix-tree-keys stays Redis's.
std::int64_t redis_entry_extra(const StreamID& master, const StreamID& prev, const StreamID& id,
                               bool same_fields, std::int64_t nfields);
// The same summed over a node's entries (after a snapshot load).
std::int64_t redis_extra(const Listpack& lp, const StreamID& master);

Header header(const Listpack& lp);
// Reads the entry whose head is at `at`; `prev` is the ID of the entry before it.
EntryView read(const Listpack& lp, const Header& h, const StreamID& prev, Pos at);
// Flags `e` deleted and moves one from count to deleted. The node must keep a live entry
// (a node whose last entry goes is freed by the stream instead).
void mark_deleted(store::Heap& heap, Listpack& lp, const EntryView& e);

// Calls f(field, value) (Listpack::Entry each) for every pair of `e`.
template <class F>
void for_each_pair(const Listpack& lp, const Header& h, const EntryView& e, F&& f) {
  Pos fp = e.same_fields() ? h.first_field : e.fields;
  Pos vp = e.same_fields() ? e.fields : lp.next(e.fields);
  for (std::int64_t i = 0; i < e.nfields; ++i) {
    f(lp.get(fp), lp.get(vp));
    if (e.same_fields()) {
      fp = lp.next(fp);
      vp = lp.next(vp);
    } else {
      fp = lp.next(vp);
      vp = fp == Listpack::kNone ? Listpack::kNone : lp.next(fp);
    }
  }
}

// The deep check of untrusted node bytes: a valid listpack, a master entry, every entry
// well formed, the counts in the master equal to what is there. `first`/`last` (optional)
// receive the first and last entry IDs (from `master`), tombstones included.
bool validate(std::span<const std::uint8_t> bytes, const StreamID& master, StreamID* first,
              StreamID* last);

}  // namespace ruvio::types::stream_node
