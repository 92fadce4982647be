// Value objects: everything a key holds that is not an inline string (Redis's robj for the
// collection types), reached from the record's 8-byte kObject pointer (record.hpp).
//
//   value object, first two bytes (every type's object starts with types::Object):
//     byte 0   type id    TypeId: which ValueOps table this object answers to
//     byte 1   encoding   the type's own encoding byte (Redis's robj->encoding), so a type
//                         has 256 encodings of its own, not the record header's 4 bits
//     byte 2.. the type's data, drawn in its own folder (worker/types/<type>/); byte 2 is 0
//              in every heap object (the types keep it as padding)
//
//   folded object: the same value held INSIDE its record (record.hpp, Enc::kInline), for a
//   compact encoding whose blob is small (at most kInlineMax bytes folded):
//     byte 0   type id
//     byte 1   encoding   a compact one (listpack, intset)
//     byte 2   kFoldedMark (1): tells the type's accessors the blob follows here
//     byte 3.. the blob (listpack.hpp / intset.hpp bytes), not aligned: read with memcpy
//   A folded object is read only (reads get a const Object* into the record); a write handle
//   gives the type a heap copy (ops.copy, which reads either form) and folds the result back
//   when the handle is released (worker/store/db.cpp). destroy/memory_usage/free_effort are
//   never called on a folded object: the record owns and counts its bytes.
//
// One ValueOps table per type says how to destroy, copy, measure, name and snapshot an
// object (the RDB codec, worker/persist/rdb_*.cpp, switches on the type instead). The
// keyspace never looks inside an object: Record::destroy, COPY, MOVE, RENAME, MEMORY USAGE,
// OBJECT ENCODING, TYPE, SWAPDB, FLUSH*, lazy free, snapshots and WAL replay all go through
// the table.
//
// Adding a type (worker/types/<type>/): a struct deriving from Object, its encodings, the
// functions below, one `const ValueOps` and a register_type() call in register_builtin_types()
// (registry.cpp). The command family creates keys through Db::open (the write handle).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "worker/memory/heap.hpp"

namespace ruvio::types {

// The record's 3 type bits (worker/store/record.hpp), which WRONGTYPE checks compare.
// kModule: a type that names itself through its ValueOps (as Redis's OBJ_MODULE), such as
// the unit tests' toy types.
enum class Type : std::uint8_t { kString = 0, kList, kSet, kZSet, kHash, kStream, kModule };

// Ids are persistent (snapshots store them): never renumber.
enum TypeId : std::uint8_t {
  kTypeList = 1,
  kTypeSet = 2,
  kTypeZSet = 3,
  kTypeHash = 4,
  kTypeStream = 5,
  kTypeFirstTest = 240,  // 240..255: unit tests register toy types here
};

struct Object {
  std::uint8_t type_id;
  std::uint8_t enc;
};

struct ValueOps {
  std::string_view name;  // TYPE and SCAN TYPE: "list", "hash", ...
  types::Type type;       // the record's type bits, which WRONGTYPE checks compare
  // Frees every block the object owns, the object included, through `heap`.
  void (*destroy)(store::Heap& heap, Object* o);
  // A deep copy allocated from `heap` (COPY, also into another Db).
  Object* (*copy)(store::Heap& heap, const Object* o);
  // Allocator-usable bytes (mi_usable_size) of every block the object owns: exact, because
  // MOVE and lazy free move this many bytes of accounting between heaps and queues.
  std::size_t (*memory_usage)(const Object* o);
  // OBJECT ENCODING: Redis's name of the current encoding ("listpack", "hashtable", ...).
  std::string_view (*encoding)(const Object* o);
  // Lazy free's measure, as Redis's objectGetFreeEffort: about how many blocks destroy frees.
  std::size_t (*free_effort)(const Object* o);
  // Snapshot: save appends the value's bytes; load rebuilds the object from exactly those
  // bytes and its encoding byte, or returns null when they are malformed.
  void (*save)(const Object* o, std::string& out);
  Object* (*load)(store::Heap& heap, std::uint8_t enc, std::string_view bytes);
  // Lazy free of one huge value in bounded steps (a 1M-element collection must not stall the
  // loop): frees about `budget` units of free effort of the object's insides and returns the
  // units spent; sets *done once the object itself is freed too. Null: the queue frees the
  // value with destroy() in one step.
  std::size_t (*release_some)(store::Heap& heap, Object* o, std::size_t budget,
                              bool* done) = nullptr;
  // The blob of the current encoding when it is one self-contained compact blob (listpack,
  // intset) that a record may hold folded; empty otherwise. Reads either form. Null: the type
  // is never folded.
  std::string_view (*compact_blob)(const Object* o) = nullptr;
};

// Installs (or, with null, removes) the table of a type id.
void register_type(TypeId id, const ValueOps* ops);
// The types this build has; called once at start-up (and idempotent).
void register_builtin_types();
// The table of an id; null when this build has no such type (a snapshot from a newer build).
const ValueOps* find_ops(std::uint8_t id);

inline const ValueOps& ops_of(const Object* o) {
  return *find_ops(o->type_id);
}

// Redis's LAZYFREE_THRESHOLD: values whose free effort is above this are freed by the lazy
// free queue (when the lazyfree-lazy-* setting of the path says so), not on the spot.
inline constexpr std::size_t kLazyFreeThreshold = 64;

// ---- folded objects (see the picture above) ---------------------------------------------------

inline constexpr std::uint8_t kFoldedMark = 1;
inline constexpr std::size_t kFoldedHeader = 3;  // type id, encoding, mark
// The largest folded object a record holds inline. Every write to an inline value copies it
// out and back (two copies of at most this many bytes), and the saving is a fixed ~24-40 B
// (the 16 B object, the 8 B pointer, a block's rounding): past a few hundred bytes the copies
// cost more than the saving is worth.
inline constexpr std::size_t kInlineMax = 256;

inline bool is_folded(const Object* o) {
  return reinterpret_cast<const std::uint8_t*>(o)[2] == kFoldedMark;
}
// The blob of a folded object (not aligned).
inline std::uint8_t* folded_blob(const Object* o) {
  return const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(o)) + kFoldedHeader;
}
// The blob `o` (either form) would be folded with, or empty when it cannot be (not compact,
// or over kInlineMax folded).
inline std::string_view foldable_blob(const Object* o) {
  const ValueOps& ops = ops_of(o);
  if (ops.compact_blob == nullptr) return {};
  const std::string_view b = ops.compact_blob(o);
  return kFoldedHeader + b.size() <= kInlineMax ? b : std::string_view();
}
// The bytes `o` takes folded, or 0 when it cannot be.
inline std::size_t folded_size(const Object* o) {
  const std::size_t n = foldable_blob(o).size();
  return n != 0 ? kFoldedHeader + n : 0;
}
// Writes the folded form of `o` with its `blob` (foldable_blob(o)) to `out`.
inline void fold_into(const Object* o, std::string_view blob, std::uint8_t* out) {
  out[0] = o->type_id;
  out[1] = o->enc;
  out[2] = kFoldedMark;
  std::memcpy(out + kFoldedHeader, blob.data(), blob.size());
}

}  // namespace ruvio::types
