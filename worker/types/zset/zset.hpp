// Sorted sets: the value object and its semantics (Redis's t_zset.c zset* / zzl* layer), over
// two encodings — the listpack (small) and the skiplist + member index (skiplist.hpp). No RESP:
// the command family (worker/commands/sorted_set/zset_commands.cpp) turns arguments into these
// calls.
//
//   ZSet object (16 bytes, one heap block):
//     byte 0   type id  kTypeZSet
//     byte 1   enc      kZListpack (0) | kZSkiplist (1)
//     bytes 2..7 padding
//     bytes 8..15 ptr   kZListpack: the listpack blob; kZSkiplist: a Skiplist (its own block)
//
//   A small listpack zset is usually held folded in its record instead ([type][enc][1][blob],
//   value.hpp); pad[0] is 0 in a heap object.
//
//   listpack encoding: [member][score][member][score]... in (score, member) order, the score
//   written as Redis 7.0's d2string does (score_text: an integral score within +-2^62 as an
//   integer, otherwise "%.17g" text or "inf"/"-inf"), so the blob is byte for byte 7.0's.
//
// Conversion: listpack -> skiplist when an add would pass zset-max-listpack-entries or
// brings a member longer than zset-max-listpack-value (Redis's zsetAdd), member by member
// even inside one ZADD, as 7.0 (7.2's zsetTypeMaybeConvert, converting before a long ZADD,
// is not 7.0's: the members added before the conversion lose a -0 score to the listpack's
// integer form). Back to listpack only for the destinations of ZUNIONSTORE/ZINTERSTORE/
// ZDIFFSTORE (convert_to_listpack_if_needed), as 7.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "worker/containers/listpack.hpp"
#include "worker/containers/skiplist.hpp"
#include "worker/memory/heap.hpp"
#include "worker/types/value.hpp"

namespace ruvio::types {

enum ZEnc : std::uint8_t { kZListpack = 0, kZSkiplist = 1 };

struct ZSetLimits {
  std::size_t max_entries = 128;  // zset-max-listpack-entries
  std::size_t max_value = 64;     // zset-max-listpack-value
};

struct ZSet : Object {
  std::uint8_t pad[6];
  void* ptr;
};
static_assert(sizeof(ZSet) == 16);

// zsetAdd's flags.
enum ZAddIn : unsigned { kZIncr = 1, kZNx = 2, kZXx = 4, kZGt = 8, kZLt = 16 };
enum ZAddOut : unsigned { kZNan = 1, kZAdded = 2, kZUpdated = 4, kZNop = 8 };

// Redis 7.0's d2string: the text a score is stored as in a listpack and shown as by ZSCAN of
// a listpack (an integral value within +-2^62 as an integer, so -0 is "0"; else "%.17g").
// `buf` needs 32 bytes.
std::string_view score_text(double d, char* buf);
// "%.17g" (with inf/-inf): ZSCAN of a skiplist (createStringObjectFromLongDouble).
std::string_view score_text_g17(double d, char* buf);

// A position in score order, valid until the zset is next written.
class ZCursor {
 public:
  ZCursor() = default;
  ZCursor(const ZSet* z, Listpack::Pos p) : z_(z), pos_(p) {}
  ZCursor(const ZSet* z, ZNode* n) : z_(z), node_(n) {}
  bool valid() const { return node_ != nullptr || pos_ != Listpack::kNone; }
  std::string_view member(Listpack::IntBuf& buf) const;
  double score() const;
  void next();
  void prev();
  ZNode* node() const { return node_; }
  Listpack::Pos pos() const { return pos_; }

 private:
  const ZSet* z_ = nullptr;
  Listpack::Pos pos_ = Listpack::kNone;  // listpack: the member entry
  ZNode* node_ = nullptr;                // skiplist
};

// zsetTypeCreate: a listpack when the hints fit, otherwise a skiplist.
ZSet* zset_create(store::Heap& heap, std::size_t size_hint, std::size_t len_hint,
                  const ZSetLimits& lim);
void zset_destroy(store::Heap& heap, ZSet* z);
ZSet* zset_copy(store::Heap& heap, const ZSet* z);
std::size_t zset_memory(const ZSet* z);

std::size_t zset_size(const ZSet* z);
std::optional<double> zset_score(const ZSet* z, std::string_view member);
// zsetTypeMaybeConvert.
void zset_maybe_convert(store::Heap& heap, ZSet* z, std::size_t size_hint, const ZSetLimits& lim);
void zset_to_skiplist(store::Heap& heap, ZSet* z);
// zsetConvertToListpackIfNeeded.
void zset_to_listpack_if_needed(store::Heap& heap, ZSet* z, std::size_t maxelelen,
                                std::size_t totelelen, const ZSetLimits& lim);

// zsetAdd: false (with kZNan) when the resulting score is NaN.
bool zset_add(store::Heap& heap, ZSet* z, double score, std::string_view member, unsigned in,
              unsigned* out, double* newscore, const ZSetLimits& lim);
bool zset_remove(store::Heap& heap, ZSet* z, std::string_view member);

// 0-based rank in ascending order (reverse: descending); nullopt when absent.
std::optional<std::size_t> zset_rank(const ZSet* z, std::string_view member, bool reverse);

ZCursor zset_at(const ZSet* z, std::size_t rank);  // 0-based, ascending
ZCursor zset_first_in(const ZSet* z, const ScoreRange& r);
ZCursor zset_last_in(const ZSet* z, const ScoreRange& r);
ZCursor zset_first_in(const ZSet* z, const LexRange& r);
ZCursor zset_last_in(const ZSet* z, const LexRange& r);

// ZREMRANGEBY*: 0-based inclusive ranks already clamped; return how many went.
std::size_t zset_delete_ranks(store::Heap& heap, ZSet* z, std::size_t start, std::size_t end);
std::size_t zset_delete_range(store::Heap& heap, ZSet* z, const ScoreRange& r);
std::size_t zset_delete_range(store::Heap& heap, ZSet* z, const LexRange& r);

// The value-object table (registered by register_builtin_types).
extern const ValueOps kZSetOps;

}  // namespace ruvio::types
