// The key hash, and the keyspace's instance of the table (hashtable_impl.hpp).
//
// The hash is libxxhash's XXH3 (libxxhash-dev), seeded once per process from random_device so
// that bucket placement, and with it SCAN's cursor order, cannot be predicted from outside
// (hash flooding). It is never persisted or sent: snapshots, the WAL and DUMP hold keys; slots
// are CRC16 (shared/slots.cpp); a SCAN cursor is only good within one process, as before.
//
// It replaced a hand-written wyhash copy after measuring both in the GET path, side by side,
// on the 2-core VM shared with other builds (load average 5-12):
//   server CPU us/GET (bench/ab_env.py gethit: 10,000 keys k:<12 digits>, 50 clients, -P 16,
//   1,000,000 GETs per round, medians): 9 rounds wyhash 0.711 / XXH3 0.795 (median of the
//   per-round differences +0.013); 15 rounds 0.830 / 0.820 (per-round median -0.003), with
//   rounds spreading +-15%: equal within noise (results/2026-12-07-hash-wyhash-vs-xxh3-gethit
//   *.json).
//   callgrind instructions per request (bench/instructions.py, GET k / SET k abc): wyhash
//   1022.5 / 1278.6, XXH3 1041.3 / 1298.2 (+19, +20: +1.8%, +1.5%), the same with XXH3
//   inlined (XXH_INLINE_ALL: 1041.2 / 1297.8), so the library call costs nothing over the
//   header (results/2026-12-07-hash-wyhash-vs-xxh3-instructions.json).
#include "worker/store/table.hpp"

#include <xxhash.h>

#include <cstdint>
#include <random>
#include <string_view>

#include "worker/containers/hashtable_impl.hpp"

namespace ruvio::store {

namespace {

std::uint64_t process_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

const std::uint64_t g_seed = process_seed();

}  // namespace

std::uint64_t hash_key(std::string_view key) {
  return XXH3_64bits_withSeed(key.data(), key.size(), g_seed);
}

template class HashTable<RecordTraits>;

}  // namespace ruvio::store
