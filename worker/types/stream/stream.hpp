// Streams: the value object and its entry semantics (Redis 7.0's t_stream.c, below the
// commands): append with ID generation, ranges in both directions, XDEL's tombstones,
// trimming by MAXLEN/MINID (exact or whole nodes only), the 7.0 counters (first ID, largest
// deleted ID, entries ever added). Consumer groups live in stream_group.hpp; node bytes in
// stream_node.hpp. No RESP: worker/commands/stream/stream_commands.cpp turns arguments into calls.
//
//   Stream object (96 bytes, one heap block):
//     off 0   u8 type id (kTypeStream), u8 enc (0: the only encoding, "stream"), 6 pad
//     off 8   HeapVec<NodeRef> nodes   sorted by master ID, 48 bytes per node: { StreamID
//                                       master, last; u8* listpack; i64 redis_extra }
//     off 24  u64 length               live entries
//     off 32  StreamID last_id         the top ID ever added (or set by XSETID)
//     off 48  StreamID first_id        7.0's recorded-first-entry-id
//     off 64  StreamID max_deleted_id  the largest ID XDEL removed (7.0)
//     off 80  u64 entries_added        entries ever appended (7.0)
//     off 88  StreamGroups* groups     null until the first XGROUP CREATE
//
// The node index is a sorted array, not Redis's rax: appends go to the last node, a lookup
// is a binary search over the masters (the node holding X is the last one whose master is
// <= X), and a node that loses its last live entry is removed from it. 1,000,000 entries in
// nodes of 100 cost a 480 KB index (0.5 B per entry); rax allocates per node instead.
//
// A node is closed (a new one started) as 7.0 decides it: when its listpack — counted in
// Redis's bytes — plus the new entry's field and value bytes reach stream-node-max-bytes, or
// it holds (live + deleted) stream-node-max-entries entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "worker/containers/heap_vec.hpp"
#include "worker/containers/listpack.hpp"
#include "worker/containers/stream_id.hpp"
#include "worker/containers/stream_node.hpp"
#include "worker/memory/heap.hpp"
#include "worker/types/value.hpp"

namespace ruvio::types {

struct StreamGroups;  // stream_group.hpp

struct StreamNodeRef {
  StreamID master;
  StreamID last;  // the node's last entry (tombstones too): what the next entry is coded from
  std::uint8_t* lp;
  std::int64_t redis_extra;  // Redis's bytes for this node minus ours (stream_node.hpp)
};

struct Stream : Object {
  std::uint8_t pad[6];
  HeapVec<StreamNodeRef> nodes;
  std::uint64_t length;
  StreamID last_id;
  StreamID first_id;
  StreamID max_deleted_id;
  std::uint64_t entries_added;
  StreamGroups* groups;
};
static_assert(sizeof(Stream) == 96);

struct StreamLimits {
  std::size_t node_max_bytes = 4096;    // stream-node-max-bytes (0: no limit but 1 GiB)
  std::int64_t node_max_entries = 100;  // stream-node-max-entries (0: no limit)
};

Stream* stream_create(store::Heap& heap);
void stream_destroy(store::Heap& heap, Stream* s);
Stream* stream_copy(store::Heap& heap, const Stream* s);
std::size_t stream_memory(const Stream* s);

enum class StreamAppend : std::uint8_t { kOk, kIdTooSmall, kTooLarge };
// streamAppendItem. `use_id` null: the ID comes from `now_ms` (streamNextID).
StreamAppend stream_append(store::Heap& heap, Stream* s, const ParsedStreamId* use_id,
                           std::span<const std::string_view> fv, const StreamLimits& lim,
                           std::int64_t now_ms, StreamID* added);

struct StreamTrim {
  enum Strategy : std::uint8_t { kNone, kMaxLen, kMinId } strategy = kNone;
  std::int64_t maxlen = 0;
  StreamID minid;
  bool approx = false;
  std::int64_t limit = 0;  // 0: no limit
};
// streamTrim: the entries removed.
std::int64_t stream_trim(store::Heap& heap, Stream* s, const StreamTrim& t);

// streamDeleteItem (no counters but length): true when `id` was a live entry.
bool stream_delete(store::Heap& heap, Stream* s, const StreamID& id);
// streamGetEdgeID: the first (or last) entry's ID; with no entry the maximum (first) or 0-0.
StreamID stream_edge_id(const Stream* s, bool first);
// XDEL's follow-up: first_id after deletions.
void stream_refresh_first_id(Stream* s);

// streamIterator over [start, end] (inclusive), forward or reverse, live entries only.
// Valid until the stream is written.
class StreamIter {
 public:
  StreamIter(const Stream* s, const StreamID& start, const StreamID& end, bool rev);
  StreamIter(const StreamIter&) = delete;
  StreamIter& operator=(const StreamIter&) = delete;
  // Steps to the next entry in range; false when there is none.
  bool next();
  const StreamID& id() const { return cur_.id; }
  std::int64_t num_fields() const { return cur_.nfields; }
  // Where the current entry is (streamIteratorRemoveEntry's use).
  std::size_t node_index() const { return node_; }
  const stream_node::EntryView& entry() const { return cur_; }
  template <class F>
  void for_each_pair(F&& f) const {
    stream_node::for_each_pair(lp_, hdr_, cur_, f);
  }

 private:
  // An entry seen by the forward read of a node that a reverse walk steps back through.
  struct Seen {
    Listpack::Pos pos;
    StreamID prev;
  };
  static constexpr std::size_t kInlineSeen = 128;  // stream-node-max-entries 100 fits

  void enter(std::size_t node);

  const Stream* s_;
  StreamID start_, end_;
  bool rev_;
  bool done_ = false;
  std::size_t node_ = 0;
  Listpack lp_;
  stream_node::Header hdr_;
  Listpack::Pos pos_ = Listpack::kNone;  // forward: the next entry's head
  StreamID prev_;                        // forward: the ID before it
  std::size_t left_ = 0;                 // reverse: entries of the node not yet stepped back over
  Seen* seen_ = nullptr;
  Seen inline_[kInlineSeen];
  std::vector<Seen> more_;  // a node of more than kInlineSeen entries (a raised max-entries)
  stream_node::EntryView cur_;
};

// The index of the node that may hold `id` (the last whose master is <= id); SIZE_MAX when
// every master is above it.
std::size_t stream_node_for(const Stream* s, const StreamID& id);

// XINFO STREAM's radix-tree-nodes: the nodes Redis's rax would have for these masters as
// keys (16 bytes each, ms then seq, big-endian), counted on the canonical compressed trie —
// what rax builds by inserts (stream_rax.cpp).
std::size_t stream_rax_nodes(const Stream* s);

// Snapshot bytes (drawn in stream_codec.cpp) and the ValueOps table.
void stream_save(const Stream* s, std::string& out);
Stream* stream_load(store::Heap& heap, std::string_view bytes);
extern const ValueOps kStreamOps;

}  // namespace ruvio::types
