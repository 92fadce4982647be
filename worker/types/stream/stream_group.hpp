// Consumer groups of a stream (Redis 7.0's streamCG / streamConsumer / streamNACK).
//
//   StreamGroups (16 B)   HeapVec<StreamGroup*>, sorted by name (memcmp, shorter first), so
//                         XINFO GROUPS lists them in rax order
//   StreamGroup           { StreamID last_id; i64 entries_read (-1: unknown);
//                           HeapVec<StreamNack*> pel (sorted by ID, the group's PEL);
//                           HeapVec<StreamConsumer*> consumers (sorted by name);
//                           u32 name_len; name bytes } in one block
//   StreamConsumer        { i64 seen_time; HeapVec<StreamNack*> pel (sorted by ID);
//                           u32 name_len; name bytes } in one block
//   StreamNack (40 B)     { StreamID id; i64 delivery_time; u64 delivery_count;
//                           StreamConsumer* consumer }
//   A NACK is one block shared by the group's PEL and its consumer's PEL, as Redis's
//   streamNACK is shared by two raxes: claiming it moves the pointer between consumers.
//
// The PELs are sorted arrays of pointers: deliveries append (IDs ascend), an ACK is a binary
// search and a memmove of pointers. A PEL of 100,000 entries moves at most 800 KB per ACK of
// its oldest entry, where rax is O(log n): the known cost of this layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "worker/containers/heap_vec.hpp"
#include "worker/memory/heap.hpp"
#include "worker/types/stream/stream.hpp"

namespace ruvio::types {

inline constexpr std::int64_t kEntriesReadInvalid = -1;  // SCG_INVALID_ENTRIES_READ

struct StreamConsumer;

struct StreamNack {
  StreamID id;
  std::int64_t delivery_time;
  std::uint64_t delivery_count;
  StreamConsumer* consumer;
};

struct StreamConsumer {
  std::int64_t seen_time;
  HeapVec<StreamNack*> pel;
  std::uint32_t name_len;
  std::string_view name() const {
    return {reinterpret_cast<const char*>(this) + sizeof(StreamConsumer), name_len};
  }
};

struct StreamGroup {
  StreamID last_id;
  std::int64_t entries_read;
  HeapVec<StreamNack*> pel;
  HeapVec<StreamConsumer*> consumers;
  std::uint32_t name_len;
  std::string_view name() const {
    return {reinterpret_cast<const char*>(this) + sizeof(StreamGroup), name_len};
  }
};

struct StreamGroups {
  HeapVec<StreamGroup*> list;
};

void stream_groups_destroy(store::Heap& heap, StreamGroups* g);
StreamGroups* stream_groups_copy(store::Heap& heap, const StreamGroups* g);
std::size_t stream_groups_memory(const StreamGroups* g);

std::size_t stream_group_count(const Stream* s);
StreamGroup* stream_group_find(const Stream* s, std::string_view name);
// Null when a group of that name exists.
StreamGroup* stream_group_create(store::Heap& heap, Stream* s, std::string_view name,
                                 const StreamID& last_id, std::int64_t entries_read);
bool stream_group_destroy(store::Heap& heap, Stream* s, std::string_view name);

StreamConsumer* stream_consumer_find(const StreamGroup* g, std::string_view name);
// streamCreateConsumer: null when it exists.
StreamConsumer* stream_consumer_create(store::Heap& heap, StreamGroup* g, std::string_view name,
                                       std::int64_t now_ms);
// streamLookupConsumer + create when missing (XREADGROUP, XCLAIM): *created tells which.
StreamConsumer* stream_consumer_get(store::Heap& heap, StreamGroup* g, std::string_view name,
                                    std::int64_t now_ms, bool* created);
// streamDelConsumer: the pending entries it had (they leave the group's PEL too).
std::size_t stream_consumer_delete(store::Heap& heap, StreamGroup* g, StreamConsumer* c);

// The index of the first NACK whose ID is >= id.
std::size_t stream_pel_lower_bound(const HeapVec<StreamNack*>& pel, const StreamID& id);
StreamNack* stream_pel_find(const HeapVec<StreamNack*>& pel, const StreamID& id);
// A new NACK owned by `c`, in both PELs (the ID must not be pending).
StreamNack* stream_nack_add(store::Heap& heap, StreamGroup* g, StreamConsumer* c,
                            const StreamID& id, std::int64_t delivery_time,
                            std::uint64_t delivery_count);
// Moves a NACK to another consumer's PEL.
void stream_nack_move(store::Heap& heap, StreamNack* n, StreamConsumer* to);
// Removes a NACK from both PELs and frees it (XACK, a claim of a deleted entry).
void stream_nack_remove(store::Heap& heap, StreamGroup* g, StreamNack* n);

// streamEstimateDistanceFromFirstEverEntry (7.0): the entries_read an ID stands for, or
// kEntriesReadInvalid.
std::int64_t stream_estimate_distance(const Stream* s, const StreamID& id);
// streamRangeHasTombstones.
bool stream_range_has_tombstones(const Stream* s, const StreamID& start, const StreamID& end);
// The lag of XINFO GROUPS (streamReplyWithCGLag); false when it is unknown (nil).
bool stream_group_lag(const Stream* s, const StreamGroup* g, std::int64_t* lag);
// What delivering `id` (> last_id) to the group does to last_id and entries_read.
void stream_group_advance(const Stream* s, StreamGroup* g, const StreamID& id);

}  // namespace ruvio::types
