// A stream node: one listpack (worker/types/listpack) holding a run of entries, laid out as
// Redis 7.0's t_stream.c does, so the RDB codec can pass nodes through as they are.
//
//   node = listpack [master entry][entry][entry]...
//   master entry (the fields of the node's first entry, kept once for all the node):
//     +-------+---------+------------+---------+-----+---------+---+
//     | count | deleted | num-fields | field-1 | ... | field-N | 0 |
//     +-------+---------+------------+---------+-----+---------+---+
//     count    live entries in the node     deleted  entries flagged deleted (tombstones)
//     0        the master terminator: reading right to left, "no entry before this"
//   entry, when its fields are the master's (flags bit 1, SAMEFIELDS):
//     +-------+---------+----------+---------+-----+---------+----------+
//     | flags | ms-diff | seq-diff | value-1 | ... | value-N | lp-count |
//     +-------+---------+----------+---------+-----+---------+----------+
//   entry, otherwise:
//     +-------+---------+----------+------------+---------+---------+-----+----------+
//     | flags | ms-diff | seq-diff | num-fields | field-1 | value-1 | ... | lp-count |
//     +-------+---------+----------+------------+---------+---------+-----+----------+
//     flags     bit 0 DELETED (XDEL/XTRIM leave a tombstone), bit 1 SAMEFIELDS
//     ms-diff   id.ms - master.ms, seq-diff id.seq - master.seq: unsigned 64-bit
//               differences stored as int64 (they wrap; reading adds them back modulo 2^64)
//     lp-count  the listpack elements of the entry before lp-count (3 + N, or 4 + 2N), so
//               a reader at the end steps back to the entry's flags
//   The master ID is not in the listpack: it is the node's key in the stream's node index
//   (stream.hpp). Every integer is a listpack integer (1 byte up to 127, 2 up to 4095).
//   Example: XADD s 5-1 a 1 b 2 into a new node (master 5-1):
//     [1][0][2]["a"]["b"][0] | [2][0][0][1][2][5]      33 bytes with header and end,
//     byte for byte what redis-server 7.0 DUMPs for the same XADD
//
// The decoder (validate) reads outside bytes (snapshots, RESTORE): tests/fuzz/fuzz_stream_node.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "worker/store/heap.hpp"
#include "worker/types/listpack/listpack.hpp"
#include "worker/types/stream/stream_id.hpp"

namespace ruvio::types::stream_node {

using Pos = Listpack::Pos;

inline constexpr std::int64_t kFlagDeleted = 1;
inline constexpr std::int64_t kFlagSameFields = 2;

struct Header {
  std::int64_t count = 0;    // live entries
  std::int64_t deleted = 0;  // tombstones
  std::int64_t nfields = 0;  // master fields
  Pos first_field = Listpack::kNone;
  Pos first_entry = Listpack::kNone;  // flags of the first entry; kNone when none
};

struct EntryView {
  Pos flags_pos = Listpack::kNone;
  std::int64_t flags = 0;
  StreamID id;
  std::int64_t nfields = 0;
  Pos fields = Listpack::kNone;  // SAMEFIELDS: the first value; else the first field
  Pos lp_count = Listpack::kNone;
  bool deleted() const { return flags & kFlagDeleted; }
  bool same_fields() const { return flags & kFlagSameFields; }
};

// A node whose master entry holds the fields of `fv` (field, value, field, value...), with
// no entry yet.
Listpack create(store::Heap& heap, std::span<const std::string_view> fv);
// Appends the entry `id` (fields and values `fv`) and bumps the master count.
void append(store::Heap& heap, Listpack& lp, const StreamID& master, const StreamID& id,
            std::span<const std::string_view> fv);

Header header(const Listpack& lp);
// Reads the entry whose flags are at `at`.
EntryView read(const Listpack& lp, const Header& h, const StreamID& master, Pos at);
// The flags of the entry after / before `e`; kNone at the end / start.
Pos next(const Listpack& lp, const EntryView& e);
Pos prev(const Listpack& lp, Pos flags_pos);
// The flags of the last entry; kNone when the node has none.
Pos last_entry(const Listpack& lp);
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

// streamValidateListpackIntegrity's deep check of untrusted node bytes: a valid listpack, a
// master entry, every entry well formed with the right lp-count, the counts in the master
// equal to what is there. `first`/`last` (optional) receive the first and last entry IDs
// (from `master`), tombstones included.
bool validate(std::span<const std::uint8_t> bytes, const StreamID& master, StreamID* first,
              StreamID* last);

}  // namespace ruvio::types::stream_node
