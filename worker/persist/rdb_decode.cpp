// RESTORE's side of the value codec (rdb_value.hpp draws the forms): rdbLoadObject of Redis
// 7.0 with deep sanitization always on (whatever sanitize-dump-payload says, rdb_value.hpp:
// this server's listpack walkers trust a stored blob, so a blob is walked once here; that walk
// is cheap).
// Every form is first read into plain elements (bounds checked, blobs validated), then
// rebuilt through the types' operations, so a duplicate member is caught and the encoding
// follows the thresholds. A hash or zset past the listpack limits goes straight into its
// table, sized at once; a list's listpack nodes are adopted as they are.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "worker/containers/intset.hpp"
#include "worker/persist/rdb_io.hpp"
#include "worker/persist/rdb_stream.hpp"
#include "worker/persist/rdb_value.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/set/set.hpp"

namespace ruvio::persist::rdb {
namespace {

using types::Listpack;
using Elems = std::vector<std::string>;

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// ---- blobs into elements ---------------------------------------------------------------------

bool listpack_elems(std::string& blob, Elems& out) {
  if (!Listpack::validate(bytes_of(blob))) return false;
  const Listpack lp(reinterpret_cast<std::uint8_t*>(blob.data()));
  Listpack::IntBuf buf;
  for (Listpack::Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) {
    out.emplace_back(lp.get_str(p, buf));
  }
  return true;
}

std::uint32_t le32(const std::uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

// The ziplist of Redis <= 6.2 (ziplist.c), checked as ziplistValidateIntegrity(deep):
//   [u32 zlbytes][u32 zltail][u16 zllen] {[prevlen 1|5][encoding][data]} [0xFF]
bool ziplist_elems(const std::string& blob, Elems& out) {
  const auto* b = reinterpret_cast<const std::uint8_t*>(blob.data());
  const std::size_t size = blob.size();
  if (size < 11 || le32(b) != size || b[size - 1] != 0xFF) return false;
  const std::size_t tail = le32(b + 4);
  const std::size_t zllen = b[8] | (b[9] << 8);
  const std::size_t end = size - 1;
  std::size_t p = 10, prev_size = 0, last = 10, count = 0;
  while (p < end) {
    std::size_t prevlen = b[p], plen = 1;
    if (prevlen == 254) {
      if (p + 5 > end) return false;
      prevlen = le32(b + p + 1);
      plen = 5;
    } else if (prevlen == 255) {
      return false;
    }
    if (prevlen != prev_size) return false;
    const std::size_t q = p + plen;
    if (q >= end) return false;
    const std::uint8_t e = b[q];
    std::size_t hdr = 1, len = 0;
    bool is_int = true;
    std::int64_t v = 0;
    switch (e >> 6) {
      case 0:
        is_int = false;
        len = e & 0x3f;
        break;
      case 1:
        if (q + 2 > end) return false;
        is_int = false;
        hdr = 2;
        len = (static_cast<std::size_t>(e & 0x3f) << 8) | b[q + 1];
        break;
      case 2:
        if (e != 0x80 || q + 5 > end) return false;
        is_int = false;
        hdr = 5;
        len = (static_cast<std::size_t>(b[q + 1]) << 24) | (b[q + 2] << 16) | (b[q + 3] << 8) |
              b[q + 4];
        break;
      default:
        switch (e) {
          case 0xC0:
            len = 2;
            break;
          case 0xD0:
            len = 4;
            break;
          case 0xE0:
            len = 8;
            break;
          case 0xF0:
            len = 3;
            break;
          case 0xFE:
            len = 1;
            break;
          default:
            if (e < 0xF1 || e > 0xFD) return false;
            v = (e & 0x0f) - 1;
        }
    }
    const std::size_t data = q + hdr;
    if (data + len > end) return false;
    if (!is_int) {
      out.emplace_back(reinterpret_cast<const char*>(b + data), len);
    } else {
      if (len != 0) {
        std::uint64_t u = 0;
        for (std::size_t i = len; i-- > 0;) u = (u << 8) | b[data + i];
        const int shift = static_cast<int>(64 - 8 * len);
        v = static_cast<std::int64_t>(u << shift) >> shift;  // sign-extend
      }
      out.push_back(std::to_string(v));
    }
    last = p;
    prev_size = plen + hdr + len;
    p = data + len;
    ++count;
  }
  if (p != end || tail != last) return false;
  return zllen == 65535 || zllen == count;
}

// The zipmap of Redis <= 2.6 hashes: [u8 count] {[len][key][len][u8 free][value][free]} [0xFF],
// len = one byte < 254, or 254 then a u32 LE.
bool zipmap_elems(const std::string& blob, Elems& out) {
  const auto* b = reinterpret_cast<const std::uint8_t*>(blob.data());
  const std::size_t size = blob.size();
  if (size < 2 || b[size - 1] != 0xFF) return false;
  std::size_t p = 1, pairs = 0;
  auto read_len = [&](std::size_t& n) {
    if (p >= size) return false;
    n = b[p];
    if (n == 255) return false;
    if (n == 254) {
      if (p + 5 > size) return false;
      n = le32(b + p + 1);
      p += 5;
    } else {
      p += 1;
    }
    return true;
  };
  while (p < size - 1) {
    std::size_t klen = 0, vlen = 0;
    if (!read_len(klen) || p + klen > size - 1) return false;
    out.emplace_back(reinterpret_cast<const char*>(b + p), klen);
    p += klen;
    if (!read_len(vlen) || p + 1 > size - 1) return false;
    const std::size_t free = b[p++];
    if (p + vlen + free > size - 1) return false;
    out.emplace_back(reinterpret_cast<const char*>(b + p), vlen);
    p += vlen + free;
    ++pairs;
  }
  return p == size - 1 && (b[0] >= 254 || b[0] == pairs);
}

// ---- elements into values --------------------------------------------------------------------

void destroy(store::Heap& heap, types::Object* o) {
  if (o != nullptr) types::ops_of(o).destroy(heap, o);
}

types::Object* build_list(store::Heap& heap, const Elems& elems, const BuildLimits& lim) {
  if (elems.empty()) return nullptr;
  types::ListObject* o = types::Quicklist::create(heap, lim.list_depth);
  types::Quicklist ql(heap, o, lim.list_fill);
  for (const std::string& e : elems) types::list_push(ql, types::ListEnd::kTail, e);
  return ql.object();
}

// QUICKLIST_2 of packed nodes: each validated listpack becomes a node as it is, as 7.0's
// quicklistAppendListpack adopts it (no element-by-element rebuild); empty nodes are skipped.
types::Object* build_list_nodes(store::Heap& heap, const std::vector<std::string>& blobs,
                                const BuildLimits& lim) {
  types::ListObject* o = types::Quicklist::create(heap, lim.list_depth);
  types::Quicklist ql(heap, o, lim.list_fill);
  for (const std::string& b : blobs) {
    std::size_t count = 0;
    if (!Listpack::validate(bytes_of(b), &count) || count > UINT32_MAX) {
      types::Quicklist::destroy(heap, o);
      return nullptr;
    }
    if (count == 0) continue;
    // Validated just above: copied as is (Listpack::load would walk it a second time).
    auto* blob = static_cast<std::uint8_t*>(heap.alloc(b.size()));
    std::memcpy(blob, b.data(), b.size());
    ql.append_node(Listpack(blob), static_cast<std::uint32_t>(count));
  }
  if (o->count == 0) {
    types::Quicklist::destroy(heap, o);
    return nullptr;
  }
  ql.compress_inner();
  return o;
}

types::Object* build_set(store::Heap& heap, const Elems& elems, const BuildLimits& lim) {
  if (elems.empty()) return nullptr;
  types::SetObject* s = types::set::create(heap, elems[0], elems.size(), lim.set);
  for (const std::string& e : elems) {
    if (!types::set::add(heap, s, e, lim.set)) {  // a duplicate member
      types::set::destroy(heap, s);
      return nullptr;
    }
  }
  return s;
}

types::Object* build_hash(store::Heap& heap, const Elems& fv, const BuildLimits& lim) {
  if (fv.empty() || fv.size() % 2 != 0) return nullptr;
  // Past the listpack limits the hash ends as a hashtable anyway: built as one, sized at once
  // (as rdb.c does for RDB_TYPE_HASH: hashTypeConvert before the first field, dictExpand).
  bool big = fv.size() / 2 > lim.hash.max_entries;
  for (std::size_t i = 0; i < fv.size() && !big; ++i) big = fv[i].size() > lim.hash.max_value;
  if (big) {
    types::hash::Hash* h = types::hash::create_hashtable(heap, fv.size() / 2);
    for (std::size_t i = 0; i < fv.size(); i += 2) {
      if (!types::hash::add_unique(heap, h, fv[i], fv[i + 1])) {  // a duplicate field
        destroy(heap, h);
        return nullptr;
      }
    }
    return h;
  }
  types::hash::Hash* h = types::hash::create(heap);
  for (std::size_t i = 0; i < fv.size(); i += 2) {
    const std::string_view pair[2] = {fv[i], fv[i + 1]};
    types::hash::try_conversion(heap, h, pair, lim.hash);
    if (!types::hash::set(heap, h, pair[0], pair[1], lim.hash)) {  // a duplicate field
      destroy(heap, h);
      return nullptr;
    }
  }
  return h;
}

types::Object* build_zset(store::Heap& heap, const std::vector<std::pair<std::string, double>>& ms,
                          const BuildLimits& lim) {
  if (ms.empty()) return nullptr;
  std::size_t maxlen = 0;
  for (const auto& [m, score] : ms) {
    if (std::isnan(score)) return nullptr;
    maxlen = std::max(maxlen, m.size());
  }
  types::ZSet* z = types::zset_create(heap, ms.size(), maxlen, lim.zset);
  if (z->enc == types::kZSkiplist) {
    // Straight into the skiplist, its index sized at once, each member hashed once.
    auto* sl = static_cast<types::Skiplist*>(z->ptr);
    sl->reserve(ms.size());
    for (const auto& [m, score] : ms) {
      if (sl->insert_unique(heap, score, m) == nullptr) {  // a duplicate member
        types::zset_destroy(heap, z);
        return nullptr;
      }
    }
    return z;
  }
  for (const auto& [m, score] : ms) {
    unsigned out = 0;
    double ns = 0;
    if (!types::zset_add(heap, z, score, m, 0, &out, &ns, lim.zset) ||
        (out & types::kZAdded) == 0) {
      types::zset_destroy(heap, z);
      return nullptr;
    }
  }
  return z;
}

// zzlStrtod: a listpack/ziplist score is its text read with strtod.
bool score_of(const std::string& text, double& d) {
  char* end = nullptr;
  d = std::strtod(text.c_str(), &end);
  return end != text.c_str();
}

// ---- the loader ------------------------------------------------------------------------------

class Loader {
 public:
  Loader(store::Heap& heap, std::string_view in, const BuildLimits& lim)
      : heap_(heap), r_(in), lim_(lim) {}

  bool run(Loaded& out) {
    std::uint8_t type = 0;
    if (!r_.u8(type)) return false;
    if (type == kString) {
      out.is_string = true;
      return r_.string(out.str);
    }
    out.obj = load(type);
    return out.obj != nullptr;
  }

 private:
  // A count read from the payload, bounded by what the rest of it can hold (each element
  // takes at least `min_bytes`), so a corrupt length cannot make us reserve gigabytes.
  bool count(std::uint64_t& n, std::size_t min_bytes) {
    return r_.len(n) && n <= r_.remaining() / min_bytes;
  }
  bool strings(std::uint64_t n, Elems& out) {
    out.reserve(static_cast<std::size_t>(n));
    for (std::uint64_t i = 0; i < n; ++i) {
      if (!r_.string(out.emplace_back())) return false;
    }
    return true;
  }
  bool blob_elems(Elems& out, bool ziplist) {
    std::string blob;
    if (!r_.string(blob)) return false;
    return ziplist ? ziplist_elems(blob, out) : listpack_elems(blob, out);
  }

  // All packed nodes (what 7.0 writes): adopted whole. A plain node (an element of 1 GB or
  // more) mixes in single elements: then everything is rebuilt element by element.
  types::Object* quicklist2(std::uint64_t n) {
    std::vector<std::string> blobs;
    std::vector<bool> plain_at;
    bool plain = false;
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t container = 0;
      if (!r_.len(container) || (container != kNodePlain && container != kNodePacked) ||
          !r_.string(blobs.emplace_back())) {
        return nullptr;
      }
      plain_at.push_back(container == kNodePlain);
      plain = plain || container == kNodePlain;
    }
    if (!plain) return build_list_nodes(heap_, blobs, lim_);
    Elems el;
    for (std::size_t i = 0; i < blobs.size(); ++i) {
      if (plain_at[i]) {
        el.push_back(std::move(blobs[i]));
      } else if (!listpack_elems(blobs[i], el)) {
        return nullptr;
      }
    }
    return build_list(heap_, el, lim_);
  }

  types::Object* load(std::uint8_t type) {
    Elems el;
    std::uint64_t n = 0;
    switch (type) {
      case kList:
        if (!count(n, 1) || !strings(n, el)) return nullptr;
        return build_list(heap_, el, lim_);
      case kListZiplist:
        if (!blob_elems(el, true)) return nullptr;
        return build_list(heap_, el, lim_);
      case kListQuicklist2:
        if (!count(n, 2)) return nullptr;
        return quicklist2(n);
      case kListQuicklist:
        if (!count(n, 2)) return nullptr;
        for (std::uint64_t i = 0; i < n; ++i) {
          if (!blob_elems(el, true)) return nullptr;
        }
        return build_list(heap_, el, lim_);
      case kSet:
        if (!count(n, 1) || !strings(n, el)) return nullptr;
        return build_set(heap_, el, lim_);
      case kSetIntset: {
        std::string blob;
        if (!r_.string(blob) || !types::Intset::validate(bytes_of(blob))) return nullptr;
        const types::Intset is(reinterpret_cast<std::uint8_t*>(blob.data()));
        for (std::size_t i = 0; i < is.size(); ++i) el.push_back(std::to_string(is.get(i)));
        return build_set(heap_, el, lim_);
      }
      case kZSet:
      case kZSet2: {
        if (!count(n, type == kZSet2 ? 9 : 2)) return nullptr;
        std::vector<std::pair<std::string, double>> ms(static_cast<std::size_t>(n));
        for (auto& [m, score] : ms) {
          if (!r_.string(m)) return nullptr;
          if (!(type == kZSet2 ? r_.binary_double(score) : r_.text_double(score))) return nullptr;
        }
        return build_zset(heap_, ms, lim_);
      }
      case kZSetZiplist:
      case kZSetListpack: {
        if (!blob_elems(el, type == kZSetZiplist) || el.size() % 2 != 0) return nullptr;
        std::vector<std::pair<std::string, double>> ms(el.size() / 2);
        for (std::size_t i = 0; i < ms.size(); ++i) {
          ms[i].first = std::move(el[2 * i]);
          if (!score_of(el[2 * i + 1], ms[i].second)) return nullptr;
        }
        return build_zset(heap_, ms, lim_);
      }
      case kHash:
        if (!count(n, 1) || n > r_.remaining() / 2 || !strings(2 * n, el)) return nullptr;
        return build_hash(heap_, el, lim_);
      case kHashZiplist:
      case kHashListpack:
        if (!blob_elems(el, type == kHashZiplist)) return nullptr;
        return build_hash(heap_, el, lim_);
      case kHashZipmap: {
        std::string blob;
        if (!r_.string(blob) || !zipmap_elems(blob, el)) return nullptr;
        return build_hash(heap_, el, lim_);
      }
      case kStreamListpacks:
      case kStreamListpacks2:
        return decode_stream(heap_, r_, type);
      default:  // modules, and types of later versions (7.2's 20, 21)
        return nullptr;
    }
  }

  store::Heap& heap_;
  Reader r_;
  const BuildLimits& lim_;
};

}  // namespace

BuildLimits build_limits(const Config& c) {
  BuildLimits lim;
  lim.hash = {c.hash_max_listpack_entries, c.hash_max_listpack_value};
  lim.zset = {c.zset_max_listpack_entries, c.zset_max_listpack_value};
  lim.set = {c.set_max_intset_entries, c.set_max_listpack_entries, c.set_max_listpack_value};
  lim.list_fill = c.list_max_listpack_size;
  lim.list_depth = c.list_compress_depth;
  return lim;
}

bool decode_value(store::Heap& heap, std::string_view in, const BuildLimits& lim, Loaded& out) {
  out = Loaded{};
  return Loader(heap, in, lim).run(out);
}

}  // namespace ruvio::persist::rdb
