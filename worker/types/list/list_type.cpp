// The list type's ValueOps: how the keyspace destroys, copies, measures, names and snapshots
// a list without knowing its encoding.
//
//   snapshot bytes: [u32 0][u16 LE compress depth] when the depth is not 0 (a node is never
//   empty, so a zero length cannot start a node), then the nodes in order, each
//   [u32 LE blob bytes][listpack blob]. Nodes are stored plain (decompressed), so the file
//   does not depend on LZF; the load compresses the inner nodes again for the saved depth.
//   (the blob is validated on load, so a damaged snapshot is refused, not trusted)
#include <cstdint>
#include <cstring>
#include <optional>

#include "worker/types/list/list.hpp"
#include "worker/types/list/quicklist.hpp"

namespace ruvio::types {
namespace {

void save(const Object* o, std::string& out) {
  ListObject scratch;
  const ListObject* l = list_view(o, scratch);
  if (l->depth != 0) {
    char hdr[6] = {0, 0, 0, 0, static_cast<char>(l->depth), 0};
    out.append(hdr, 6);
  }
  for (std::uint32_t i = 0; i < l->nnodes; ++i) {
    const Listpack lp = Quicklist::lp(l, i);
    const auto len = static_cast<std::uint32_t>(lp.bytes());
    char hdr[4];
    std::memcpy(hdr, &len, 4);
    out.append(hdr, 4);
    out.append(reinterpret_cast<const char*>(lp.blob()), len);
  }
}

Object* load(store::Heap& heap, std::uint8_t, std::string_view in) {
  int depth = 0;
  if (in.size() >= 6 && in[0] == 0 && in[1] == 0 && in[2] == 0 && in[3] == 0) {
    depth = static_cast<std::uint8_t>(in[4]) | static_cast<std::uint8_t>(in[5]) << 8;
    in.remove_prefix(6);
  }
  ListObject* o = Quicklist::create(heap, depth);
  Quicklist ql(heap, o, -2);
  while (in.size() >= 4) {
    std::uint32_t len;
    std::memcpy(&len, in.data(), 4);
    if (in.size() - 4 < len) break;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(in.data() + 4);
    std::size_t count = 0;
    if (!Listpack::validate({bytes, len}, &count) || count == 0 || count > UINT32_MAX) break;
    std::optional<Listpack> lp = Listpack::load(heap, {bytes, len});
    if (!lp) break;
    ql.append_node(*lp, static_cast<std::uint32_t>(count));
    in.remove_prefix(4 + len);
  }
  if (!in.empty() || o->count == 0) {
    Quicklist::destroy(heap, o);
    return nullptr;
  }
  ql.compress_inner();
  return o;
}

const ValueOps kListOps = {
    "list",
    types::Type::kList,
    [](store::Heap& heap, Object* o) { Quicklist::destroy(heap, static_cast<ListObject*>(o)); },
    [](store::Heap& heap, const Object* o) -> Object* {
      ListObject scratch;
      return Quicklist::clone(heap, list_view(o, scratch));
    },
    [](const Object* o) { return Quicklist::memory_usage(static_cast<const ListObject*>(o)); },
    // Redis 7.0 names every list "quicklist" (7.2 added "listpack" for small ones).
    [](const Object*) -> std::string_view { return "quicklist"; },
    // objectGetFreeEffort of a quicklist: its node count.
    [](const Object* o) -> std::size_t { return static_cast<const ListObject*>(o)->nnodes; },
    save,
    load,
    [](store::Heap& heap, Object* o, std::size_t budget, bool* done) -> std::size_t {
      return Quicklist::release_some(heap, static_cast<ListObject*>(o), budget, done);
    },
    // compact_blob: a one-node list's listpack, folded into the record while small. A list
    // created under a list-compress-depth keeps its depth, which the folded form has no room
    // for, so only depth-0 lists fold (Redis's default; a folded list unfolds with depth 0).
    [](const Object* o) -> std::string_view {
      ListObject scratch;
      const ListObject* l = list_view(o, scratch);
      if (l->enc != ListObject::kSmall || l->nnodes != 1 || l->depth != 0) return {};
      const auto sp = Listpack(l->one.lp).span();
      return {reinterpret_cast<const char*>(sp.data()), sp.size()};
    },
};

}  // namespace

const ListObject* list_view(const Object* o, ListObject& scratch) {
  if (!is_folded(o)) return static_cast<const ListObject*>(o);
  std::memset(&scratch, 0, sizeof scratch);
  scratch.type_id = kTypeList;
  scratch.enc = ListObject::kSmall;
  scratch.nnodes = 1;
  const Listpack lp(folded_blob(o));
  scratch.count = lp.count();
  scratch.one.lp = lp.blob();
  scratch.one.count = static_cast<std::uint32_t>(scratch.count);
  return &scratch;
}

void register_list_type() {
  register_type(kTypeList, &kListOps);
}

}  // namespace ruvio::types
