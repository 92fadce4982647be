// The key hash, and the keyspace's instance of the table (hashtable_impl.hpp).
#include "worker/store/table.hpp"

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "worker/containers/hashtable_impl.hpp"

namespace ruvio::store {

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr std::uint64_t kP0 = 0xa0761d6478bd642fULL;
constexpr std::uint64_t kP1 = 0xe7037ed1a0b428dbULL;
constexpr std::uint64_t kP2 = 0x8ebc6af09c88c6e3ULL;

inline std::uint64_t mum(std::uint64_t a, std::uint64_t b) {
  u128 r = static_cast<u128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}
inline std::uint64_t r64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline std::uint64_t r32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::uint64_t process_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ kP2;
}

const std::uint64_t g_seed = mum(process_seed() ^ kP0, kP1);

}  // namespace

std::uint64_t hash_key(std::string_view key) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(key.data());
  std::size_t n = key.size();
  std::uint64_t seed = g_seed;
  std::uint64_t a, b;
  if (n <= 16) {
    if (n >= 4) {
      std::size_t q = (n >> 3) << 2;
      a = (r32(p) << 32) | r32(p + q);
      b = (r32(p + n - 4) << 32) | r32(p + n - 4 - q);
    } else if (n > 0) {
      a = (static_cast<std::uint64_t>(p[0]) << 16) | (static_cast<std::uint64_t>(p[n >> 1]) << 8) |
          p[n - 1];
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    std::size_t i = n;
    while (i > 16) {
      seed = mum(r64(p) ^ kP1, r64(p + 8) ^ seed);
      p += 16;
      i -= 16;
    }
    a = r64(p + i - 16);
    b = r64(p + i - 8);
  }
  u128 r = static_cast<u128>(a ^ kP1) * (b ^ seed);
  return mum(static_cast<std::uint64_t>(r) ^ kP0 ^ n, static_cast<std::uint64_t>(r >> 64) ^ kP1);
}

template class HashTable<RecordTraits>;

}  // namespace ruvio::store
