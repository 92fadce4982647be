// The hash type: what HSET, HGET, HDEL … mean, over two encodings. No RESP, no libuv.
//
//   Hash object (16 bytes, one block from the Db's heap):
//     [u8 type id = kTypeHash][u8 enc][6 bytes padding][8-byte pointer]
//     enc 0 kListpack   pointer = a listpack blob of field, value, field, value …
//                       (listpack.hpp; integer-looking strings stored as integers, as Redis)
//     enc 1 kHashtable  pointer = a FieldTable (field_table.hpp)
//   The pointer indirection keeps the object's address fixed across conversions, so the
//   record never has to be rewritten while a write handle is open.
//   A small listpack hash is usually held folded in its record instead ([type][enc][1][blob],
//   value.hpp): readers get it through lp_of(), writers a heap copy from the write handle.
//
// Conversion, as Redis 7.0's t_hash.c: a listpack becomes a hashtable when a write brings a
// field or value longer than hash-max-listpack-value bytes (checked over the command's
// arguments before writing, hashTypeTryConversion), or more than hash-max-listpack-entries
// fields; Redis never converts back, neither does this. A field TTL (HEXPIRE & co.) also
// converts to the hashtable, as Valkey 9 does: only that encoding stores expiry times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "worker/containers/listpack.hpp"
#include "worker/memory/heap.hpp"
#include "worker/types/hash/field_table.hpp"
#include "worker/types/value.hpp"

namespace ruvio::types::hash {

enum Enc : std::uint8_t { kListpack = 0, kHashtable = 1 };

struct Hash : Object {
  std::uint8_t pad[6] = {};
  void* data = nullptr;
};
static_assert(sizeof(Hash) == 16);

struct Limits {
  std::size_t max_entries = 128;  // hash-max-listpack-entries
  std::size_t max_value = 64;     // hash-max-listpack-value
};

Hash* create(store::Heap& heap);
// A bulk load (RESTORE of a hash past the listpack limits): an empty hashtable-encoded hash
// sized for n fields, filled by add_unique (false, nothing changed, when the field is there).
Hash* create_hashtable(store::Heap& heap, std::size_t n);
bool add_unique(store::Heap& heap, Hash* h, std::string_view field, std::string_view value);
std::size_t length(const Hash* h);

// The value of `field`, or nullopt. Expired fields (hashtable with TTLs) count as absent when
// `now_ms` is past their time; they are removed by the caller through expire_fields.
std::optional<std::string_view> get(const Hash* h, std::string_view field, Listpack::IntBuf& buf,
                                    std::int64_t now_ms);

// hashTypeTryConversion: converts a listpack that would receive a string longer than
// max_value (or grow past the listpack's 1 GiB safe size).
void try_conversion(store::Heap& heap, Hash* h, std::span<const std::string_view> args,
                    const Limits& lim);
void convert_to_hashtable(store::Heap& heap, Hash* h);

// Sets field to value, dropping any TTL of the field as Redis 7.4's HSET does (keep_ttl: as
// its HINCRBY/HINCRBYFLOAT, keeping it). True when the field was new. Converts once the
// listpack holds more than max_entries fields.
bool set(store::Heap& heap, Hash* h, std::string_view field, std::string_view value,
         const Limits& lim, bool keep_ttl = false);
// True when the field was there.
bool del(store::Heap& heap, Hash* h, std::string_view field);

// Calls f(field, value) in the encoding's order (skipping fields expired at now_ms).
template <class F>
void for_each(const Hash* h, std::int64_t now_ms, F&& f);

// HSCAN: one step from `cursor`; calls f(field, value) for what it visits and returns the
// next cursor. A listpack is returned whole with cursor 0 (as Redis).
template <class F>
std::uint64_t scan(const Hash* h, std::uint64_t cursor, std::size_t count, std::int64_t now_ms,
                   F&& f);

// A random field and its value (HRANDFIELD): uniform over a listpack; on a hashtable a
// random entry of a random non-empty bucket, about uniform as Redis's dictGetFairRandomKey.
// The hash must not be empty nor hold expired fields (purge first). Views are valid until
// the next write; integer entries are formatted into fb / vb.
void random_pair(const Hash* h, std::mt19937_64& rng, Listpack::IntBuf& fb, Listpack::IntBuf& vb,
                 std::string_view* field, std::string_view* value);

// ---- field TTLs (hashtable encoding only) ----------------------------------------------------

// The field's absolute expiry (ms), -1 without TTL, nullopt when the field is missing.
std::optional<std::int64_t> field_expire(const Hash* h, std::string_view field,
                                         std::int64_t now_ms);
// Sets (at >= 0) or removes (at < 0) the field's TTL; the field must exist. Converts a
// listpack first.
void set_field_expire(store::Heap& heap, Hash* h, std::string_view field, std::int64_t at);
// Whether some field may have expired at now_ms (then purge before reading the hash).
bool needs_purge(const Hash* h, std::int64_t now_ms);
// Deletes every field expired at now_ms; returns how many went.
std::size_t expire_fields(store::Heap& heap, Hash* h, std::int64_t now_ms);
// The active sweep's form: deletes up to `max` expired fields, earliest first, their names
// into `gone` (cleared first; the sweep logs them as HDEL). Both forms take the due fields
// off the hash's by_time heap (field_table.hpp): O(log n) a field, the rest not visited.
std::size_t expire_fields(store::Heap& heap, Hash* h, std::int64_t now_ms, std::size_t max,
                          std::vector<std::string>& gone);
// The earliest field expiry (the heap's top, always exact); -1 when no field has a TTL.
std::int64_t next_field_expire(const Hash* h);
std::uint32_t ttl_fields(const Hash* h);
// Whether any hash of this process ever held a field TTL (active expiry sweeps only then).
bool field_ttls_seen();

extern const ValueOps kHashOps;

// ---- templates -------------------------------------------------------------------------------

// The listpack of either form (a heap object's blob, or the one folded in a record).
inline Listpack lp_of(const Hash* h) {
  return Listpack(is_folded(h) ? folded_blob(h) : static_cast<std::uint8_t*>(h->data));
}
inline FieldTable* ft_of(const Hash* h) {
  return static_cast<FieldTable*>(h->data);
}

template <class F>
void for_each(const Hash* h, std::int64_t now_ms, F&& f) {
  if (h->enc == kListpack) {
    Listpack lp = lp_of(h);
    Listpack::IntBuf fb, vb;
    for (Listpack::Pos p = lp.first(); p != Listpack::kNone;) {
      Listpack::Pos q = lp.next(p);
      f(lp.get_str(p, fb), lp.get_str(q, vb));
      p = lp.next(q);
    }
    return;
  }
  ft_of(h)->table.for_each([&](FieldRec* r) {
    FieldView v = view(r);
    if (v.has_ttl && now_ms > v.expire_at) return;
    f(v.field, v.value);
  });
}

template <class F>
std::uint64_t scan(const Hash* h, std::uint64_t cursor, std::size_t count, std::int64_t now_ms,
                   F&& f) {
  if (h->enc == kListpack) {
    for_each(h, now_ms, f);
    return 0;
  }
  const Table& t = ft_of(h)->table;
  std::size_t seen = 0;
  std::size_t iterations = count * 10;
  do {
    cursor = t.scan(cursor, [&](FieldRec* r) {
      FieldView v = view(r);
      if (v.has_ttl && now_ms > v.expire_at) return;
      ++seen;
      f(v.field, v.value);
    });
  } while (cursor != 0 && iterations-- != 0 && seen < count);
  return cursor;
}

}  // namespace ruvio::types::hash
