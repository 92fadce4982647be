// DUMP's side of the value codec (rdb_value.hpp draws the forms): rdbSaveObjectType +
// rdbSaveObject of Redis 7.0 over this server's encodings, and the payload footer.
#include <cstring>

#include "worker/persist/crc64.hpp"
#include "worker/persist/rdb_io.hpp"
#include "worker/persist/rdb_stream.hpp"
#include "worker/persist/rdb_value.hpp"
#include "worker/types/hash/hash.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::persist::rdb {
namespace {

using types::Listpack;

std::string_view blob_view(const Listpack& lp) {
  return {reinterpret_cast<const char*>(lp.blob()), lp.bytes()};
}

void encode_list(const types::Object* o, std::string& out) {
  types::ListObject scratch;
  const types::ListObject* l = types::list_view(o, scratch);
  const types::ListNode* nodes = types::Quicklist::node_array(l);
  std::uint32_t live = 0;
  for (std::uint32_t i = 0; i < l->nnodes; ++i) live += nodes[i].count != 0 ? 1 : 0;
  out.push_back(static_cast<char>(kListQuicklist2));
  put_len(out, live);
  for (std::uint32_t i = 0; i < l->nnodes; ++i) {
    const types::ListNode& n = nodes[i];
    if (n.count == 0) continue;
    put_len(out, kNodePacked);
    if (n.raw == 0) {
      put_string(out, blob_view(Listpack(n.lp)));
    } else {
      // A compressed node is Redis's quicklistLZF already: [u32 compressed bytes][LZF].
      std::uint32_t clen = 0;
      std::memcpy(&clen, n.lp, 4);
      put_lzf_blob(out, std::string_view(reinterpret_cast<const char*>(n.lp) + 4, clen), n.raw);
    }
  }
}

void encode_set(const types::Object* o, std::string& out) {
  const auto* s = static_cast<const types::SetObject*>(o);
  if (s->enc == types::kSetIntset) {
    const types::Intset is = types::set::intset_of(s);
    out.push_back(static_cast<char>(kSetIntset));
    put_string(out, std::string_view(reinterpret_cast<const char*>(is.blob()), is.bytes()));
    return;
  }
  out.push_back(static_cast<char>(kSet));
  put_len(out, types::set::size(s));
  types::set::for_each(s, [&](const types::SetElem& e) {
    Listpack::IntBuf buf;
    put_string(out, e.text(buf));
  });
}

void encode_zset(const types::Object* o, std::string& out) {
  const auto* z = static_cast<const types::ZSet*>(o);
  if (z->enc == types::kZListpack) {
    const Listpack lp(is_folded(z) ? types::folded_blob(z) : static_cast<std::uint8_t*>(z->ptr));
    out.push_back(static_cast<char>(kZSetListpack));
    put_string(out, blob_view(lp));
    return;
  }
  const auto* sl = static_cast<const types::Skiplist*>(z->ptr);
  out.push_back(static_cast<char>(kZSet2));
  put_len(out, sl->size());
  // From the tail, as rdb.c: the loader then inserts each element at the head in O(1).
  for (const types::ZNode* n = sl->last(); n != nullptr; n = n->backward) {
    put_string(out, n->member());
    put_binary_double(out, n->score);
  }
}

void encode_hash(const types::Object* o, std::int64_t now_ms, std::string& out) {
  const auto* h = static_cast<const types::hash::Hash*>(o);
  if (h->enc == types::hash::kListpack) {
    out.push_back(static_cast<char>(kHashListpack));
    put_string(out, blob_view(types::hash::lp_of(h)));
    return;
  }
  // Field TTLs have no 7.0 form: live fields are written, expired ones left out.
  std::uint64_t n = 0;
  types::hash::for_each(h, now_ms, [&](std::string_view, std::string_view) { ++n; });
  out.push_back(static_cast<char>(kHash));
  put_len(out, n);
  types::hash::for_each(h, now_ms, [&](std::string_view f, std::string_view v) {
    put_string(out, f);
    put_string(out, v);
  });
}

}  // namespace

bool encode_value(const store::Entry& e, std::int64_t now_ms, std::string& out) {
  switch (e.type()) {
    case types::Type::kString:
      out.push_back(static_cast<char>(kString));
      if (e.is_int()) {
        put_int_string(out, e.int_value());
      } else {
        put_string(out, e.str());
      }
      return true;
    case types::Type::kList:
      encode_list(e.object(), out);
      return true;
    case types::Type::kSet:
      encode_set(e.object(), out);
      return true;
    case types::Type::kZSet:
      encode_zset(e.object(), out);
      return true;
    case types::Type::kHash:
      encode_hash(e.object(), now_ms, out);
      return true;
    case types::Type::kStream:
      encode_stream(e.object(), out);
      return true;
    default:
      return false;
  }
}

bool dump_payload(const store::Entry& e, std::int64_t now_ms, std::string& out) {
  out.clear();
  if (!encode_value(e, now_ms, out)) return false;
  out.push_back(static_cast<char>(kVersion & 0xff));
  out.push_back(static_cast<char>(kVersion >> 8));
  put_u64_le(out, crc64(0, out));
  return true;
}

bool verify_payload(std::string_view p) {
  if (p.size() < 10) return false;
  const auto* f = reinterpret_cast<const unsigned char*>(p.data() + p.size() - 10);
  const unsigned version = f[0] | (f[1] << 8);
  if (version > kVersion) return false;
  std::uint64_t want = 0;
  for (int i = 7; i >= 0; --i) want = (want << 8) | f[2 + i];
  return crc64(0, p.substr(0, p.size() - 8)) == want;
}

}  // namespace ruvio::persist::rdb
