// Set values: three encodings behind one object, and the rules that move a set between them
// (Redis 7.2's t_set.c). No RESP, no libuv: worker/commands/set/set_commands.cpp is the bridge.
//
//   SetObject (16 B, one heap block):
//     byte 0     type id  kTypeSet
//     byte 1     enc      kSetIntset | kSetListpack | kSetHashtable
//     bytes 2..7 padding
//     bytes 8..15 data    intset blob (intset.hpp) | listpack blob (listpack.hpp, one entry per
//                         member, integers stored as integers) | SetHash*
//
//   A small intset or listpack set is usually held folded in its record instead
//   ([type][enc][1][blob], value.hpp): readers reach the blob through intset_of/listpack_of,
//   writers get a heap copy from the write handle. Byte 2 (pad[0]) is 0 in a heap object.
//
//   SetHash (one heap block): a HashTable<SetMemberTraits> of member blocks, its heap, and `mem`,
//   the
//     allocator-usable bytes of everything the hashtable encoding owns (this block, the
//     table's arrays, every member), kept exact by measuring the heap around each write.
//
//   SetMember (one heap block per member of a hashtable set):
//     [u8 n][n bytes]                  n < 255
//     [0xFF][u32 n little-endian][n bytes]  otherwise
//     A 5-byte member costs 6 bytes -> a 8 B mimalloc bin; the table slot is 8 more.
//
// Conversions (as Redis 7.2; never back to a smaller encoding):
//   create: intset when the first member is an integer and the size hint fits
//           set-max-intset-entries; else listpack when the hint fits set-max-listpack-entries;
//           else hashtable.
//   intset + integer past set-max-intset-entries                     -> hashtable
//   intset + non-integer: listpack when the result fits the listpack limits (entries and, for
//           the integers already in, their decimal length), else hashtable
//   listpack + member past set-max-listpack-entries / -value          -> hashtable
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "worker/containers/hashtable.hpp"
#include "worker/containers/intset.hpp"
#include "worker/containers/listpack.hpp"
#include "worker/memory/heap.hpp"
#include "worker/types/value.hpp"

namespace ruvio::types {

enum SetEnc : std::uint8_t { kSetIntset = 0, kSetListpack = 1, kSetHashtable = 2 };

// set-max-intset-entries, set-max-listpack-entries, set-max-listpack-value: the caller passes
// its shard's configuration (as ZSetLimits and hash::Limits), there is no process-wide copy.
struct SetLimits {
  std::size_t max_intset_entries = 512;
  std::size_t max_listpack_entries = 128;
  std::size_t max_listpack_value = 64;
};

struct SetMember;
struct SetMemberTraits {
  using Entry = SetMember;
  static std::string_view key(const SetMember* m);
  static std::uint64_t hash(std::string_view k) { return store::hash_key(k); }
  static bool equal(std::string_view a, std::string_view b) { return a == b; }
};
using SetTable = store::HashTable<SetMemberTraits>;

struct SetHash {
  explicit SetHash(store::Heap* h) : table(h), heap(h) {}
  SetTable table;
  // The heap the table's arrays come from: MOVE hands the value (and its bytes of
  // accounting) to another Db's heap, and the next write re-homes the arrays there.
  store::Heap* heap;
  std::size_t mem = 0;
};

struct SetObject : Object {
  std::uint8_t pad[6];
  void* data;
};
static_assert(sizeof(SetObject) == 16);

// One member as a reader sees it: an integer (intset, listpack integer entries) or bytes.
struct SetElem {
  bool is_int = false;
  std::int64_t i = 0;
  std::string_view str;
  // The member's text; integers are formatted into buf.
  std::string_view text(Listpack::IntBuf& buf) const;
};

// Registered in register_builtin_types().
extern const ValueOps kSetOps;

namespace set {

// A new empty set for a first member `first` and about `size_hint` members (setTypeCreate).
SetObject* create(store::Heap& heap, std::string_view first, std::size_t size_hint,
                  const SetLimits& lim);
void destroy(store::Heap& heap, SetObject* s);
SetObject* clone(store::Heap& heap, const SetObject* s);

std::size_t size(const SetObject* s);
bool contains(const SetObject* s, std::string_view member);
// False when already a member. May convert the encoding.
bool add(store::Heap& heap, SetObject* s, std::string_view member, const SetLimits& lim);
// False when not a member. Never converts.
bool remove(store::Heap& heap, SetObject* s, std::string_view member);
std::string_view encoding_name(const SetObject* s);
std::size_t memory_usage(const SetObject* s);

// Calls f(const SetElem&) for every member: intsets ascending, listpacks in insertion order,
// hashtables in slot order. The set must not change meanwhile.
template <class F>
void for_each(const SetObject* s, F&& f);

// A uniformly chosen member of a non-empty set (hashtables: a random non-empty bucket, then a
// random member of it, as Redis's dictGetFairRandomKey samples).
SetElem random(const SetObject* s, std::mt19937_64& rng);

// One SSCAN step on a hashtable set: calls f(const SetElem&) for the members of the buckets
// the cursor names and returns the next cursor (0: done).
template <class F>
std::uint64_t scan_step(const SetObject* s, std::uint64_t cursor, F&& f);

// Snapshot bytes: intset and listpack blobs as they are; a hashtable as [u32 len][bytes]...
void save(const SetObject* s, std::string& out);
SetObject* load(store::Heap& heap, std::uint8_t enc, std::string_view bytes);

// ---- inline templates --------------------------------------------------------------------

// The blob of either form (a heap object's, or the one folded in a record, value.hpp).
inline std::uint8_t* blob_of(const SetObject* s) {
  return is_folded(s) ? folded_blob(s) : static_cast<std::uint8_t*>(s->data);
}
inline Intset intset_of(const SetObject* s) {
  return Intset(blob_of(s));
}
inline Listpack listpack_of(const SetObject* s) {
  return Listpack(blob_of(s));
}
inline SetHash* hash_of(const SetObject* s) {
  return static_cast<SetHash*>(s->data);
}

template <class F>
void for_each(const SetObject* s, F&& f) {
  switch (s->enc) {
    case kSetIntset: {
      const Intset is = intset_of(s);
      for (std::size_t i = 0, n = is.size(); i < n; ++i) {
        SetElem e;
        e.is_int = true;
        e.i = is.get(i);
        f(e);
      }
      break;
    }
    case kSetListpack: {
      const Listpack lp = listpack_of(s);
      for (Listpack::Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) {
        const Listpack::Entry le = lp.get(p);
        SetElem e;
        e.is_int = le.is_int;
        e.i = le.i;
        e.str = le.str;
        f(e);
      }
      break;
    }
    default:
      hash_of(s)->table.for_each([&](const SetMember* m) {
        SetElem e;
        e.str = SetMemberTraits::key(m);
        f(e);
      });
  }
}

template <class F>
std::uint64_t scan_step(const SetObject* s, std::uint64_t cursor, F&& f) {
  return hash_of(s)->table.scan(cursor, [&](const SetMember* m) {
    SetElem e;
    e.str = SetMemberTraits::key(m);
    f(e);
  });
}

}  // namespace set
}  // namespace ruvio::types
