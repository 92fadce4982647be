// The key table: the open-addressing HashTable (hashtable.hpp, where the slot and bucket bytes
// are drawn) over Records (record.hpp). A slot is 8 bytes, a bucket 64, so at the 0.97 load
// the index costs ~8.5 B/key; the record's own bytes and mimalloc bins are in record.hpp.
#pragma once

#include <string_view>

#include "worker/containers/hashtable.hpp"
#include "worker/store/record.hpp"

namespace ruvio::store {

struct RecordTraits {
  using Entry = Record;
  static std::string_view key(const Record* r) { return r->key(); }
  static std::uint64_t hash(std::string_view key) { return hash_key(key); }
  static bool equal(std::string_view a, std::string_view b) { return a == b; }
};

using Table = HashTable<RecordTraits>;
extern template class HashTable<RecordTraits>;

}  // namespace ruvio::store
