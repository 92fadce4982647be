// XINFO STREAM's radix-tree-nodes without a rax: Redis keys its node index by the master ID
// of each listpack node as 16 bytes (ms, then seq, both big-endian), and reports raxSize's
// sibling, the count of rax nodes. Our index is a sorted array of the same masters (the same
// node boundaries: stream.hpp), so the count is computed from the sorted keys.
//
// What rax builds by inserts is the compressed trie of the keys: a node at the root, at every
// branching point (keys differing at the next byte), at every child edge of a branching point
// (a compressed node when a single-child chain follows) and at every key (a leaf: all keys are
// 16 bytes, none is a prefix of another). Over a sorted range of keys the common prefix is the
// one of the first and the last, so the count is a walk over the branching bytes:
//
//   nodes(range, depth):  range of 1 key at depth 16   → 1 (the leaf)
//                         common prefix L > depth      → 1 + nodes(range, L)   (compressed)
//                         else (branching at depth)    → 1 + Σ nodes(group by byte, depth+1)
//
// After deletions the count is still that of the remaining keys' trie, which is Redis's
// answer as far as raxRemove re-compresses what a removed key leaves:
// tests/integration/test_stream_rax.py compares both figures with redis-server after appends,
// MAXLEN/MINID trims and XDELs that empty nodes, and they are equal. Both figures follow
// Redis's only as far as the node boundaries do (stream.hpp closes nodes as 7.0 does).
#include <array>
#include <cstdint>
#include <vector>

#include "worker/types/stream/stream.hpp"

namespace ruvio::types {
namespace {

using Key = std::array<std::uint8_t, 16>;

Key key_of(const StreamID& id) {
  Key k;
  for (int i = 0; i < 8; ++i) {
    k[i] = static_cast<std::uint8_t>(id.ms >> (56 - 8 * i));
    k[8 + i] = static_cast<std::uint8_t>(id.seq >> (56 - 8 * i));
  }
  return k;
}

std::size_t common_prefix(const Key& a, const Key& b, std::size_t from) {
  std::size_t i = from;
  while (i < 16 && a[i] == b[i]) ++i;
  return i;
}

std::size_t count_nodes(const std::vector<Key>& keys, std::size_t a, std::size_t b,
                        std::size_t depth) {
  if (depth == 16) return 1;  // one key (all are distinct): the leaf
  const std::size_t l = common_prefix(keys[a], keys[b - 1], depth);
  if (l > depth) return 1 + count_nodes(keys, a, b, l);
  std::size_t n = 1;
  for (std::size_t i = a; i < b;) {
    std::size_t j = i + 1;
    while (j < b && keys[j][depth] == keys[i][depth]) ++j;
    n += count_nodes(keys, i, j, depth + 1);
    i = j;
  }
  return n;
}

}  // namespace

std::size_t stream_rax_nodes(const Stream* s) {
  const std::size_t n = s->nodes.size();
  if (n == 0) return 1;  // the empty head
  std::vector<Key> keys;
  keys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) keys.push_back(key_of(s->nodes[i].master));
  return count_nodes(keys, 0, n, 0);
}

}  // namespace ruvio::types
