// The stream's snapshot bytes and its ValueOps table.
//
//   snapshot value (encoding byte 0), integers little-endian:
//     u64 length | u64 entries_added | id last | id first | id max_deleted     id = u64 ms, u64 seq
//     u32 nodes, each: id master | u32 n | n bytes: the node's listpack (stream_node.hpp);
//                      the node's last ID is read back from its entries
//     u32 groups, each (in name order):
//       u32 n | name | id last_delivered | i64 entries_read
//       u32 consumers, each (in name order): u32 n | name | i64 seen_time
//       u32 pending, each (in ID order): id | i64 delivery_time | u64 delivery_count |
//                                        u32 owner (index into the consumers above)
//   load() trusts nothing: every node passes stream_node::validate, masters ascend, the
//   live counts add up to length, names are sorted and unique, PEL IDs
//   ascend and every owner exists; anything else is a malformed snapshot (null).
#include <cstring>

#include "worker/types/stream/stream.hpp"
#include "worker/types/stream/stream_group.hpp"

namespace ruvio::types {
namespace {

void put64(std::string& out, std::uint64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.append(b, 8);
}
void put32(std::string& out, std::uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}
void put_id(std::string& out, const StreamID& id) {
  put64(out, id.ms);
  put64(out, id.seq);
}
void put_str(std::string& out, std::string_view s) {
  put32(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}

struct Reader {
  std::string_view in;
  bool ok = true;
  template <class T>
  T num() {
    T v{};
    if (in.size() < sizeof(T)) {
      ok = false;
      return v;
    }
    std::memcpy(&v, in.data(), sizeof(T));
    in.remove_prefix(sizeof(T));
    return v;
  }
  StreamID id() {
    StreamID v;
    v.ms = num<std::uint64_t>();
    v.seq = num<std::uint64_t>();
    return v;
  }
  std::string_view bytes(std::size_t n) {
    if (in.size() < n) {
      ok = false;
      return {};
    }
    std::string_view v = in.substr(0, n);
    in.remove_prefix(n);
    return v;
  }
  std::string_view str() { return bytes(num<std::uint32_t>()); }
};

bool name_less(std::string_view a, std::string_view b) {
  return a < b;  // std::string_view compares bytes as unsigned chars, shorter first
}

bool load_groups(store::Heap& heap, Stream* s, Reader& r) {
  const auto ngroups = r.num<std::uint32_t>();
  std::string_view prev_group;
  for (std::uint32_t gi = 0; gi < ngroups && r.ok; ++gi) {
    const std::string_view name = r.str();
    const StreamID last = r.id();
    const auto entries_read = r.num<std::int64_t>();
    if (!r.ok || (gi != 0 && !name_less(prev_group, name)) || entries_read < -1) return false;
    prev_group = name;
    StreamGroup* g = stream_group_create(heap, s, name, last, entries_read);
    if (g == nullptr) return false;
    const auto nconsumers = r.num<std::uint32_t>();
    if (!r.ok || nconsumers > r.in.size() / 12) return false;
    std::string_view prev_consumer;
    for (std::uint32_t ci = 0; ci < nconsumers; ++ci) {
      const std::string_view cname = r.str();
      const auto seen = r.num<std::int64_t>();
      if (!r.ok || (ci != 0 && !name_less(prev_consumer, cname))) return false;
      prev_consumer = cname;
      if (stream_consumer_create(heap, g, cname, seen) == nullptr) return false;
    }
    const auto npel = r.num<std::uint32_t>();
    if (!r.ok || npel > r.in.size() / 36) return false;
    for (std::uint32_t pi = 0; pi < npel; ++pi) {
      const StreamID id = r.id();
      const auto time = r.num<std::int64_t>();
      const auto count = r.num<std::uint64_t>();
      const auto owner = r.num<std::uint32_t>();
      if (!r.ok || owner >= g->consumers.size()) return false;
      if (!g->pel.empty() && !(g->pel.back()->id < id)) return false;
      stream_nack_add(heap, g, g->consumers[owner], id, time, count);
    }
  }
  return r.ok;
}

}  // namespace

void stream_save(const Stream* s, std::string& out) {
  put64(out, s->length);
  put64(out, s->entries_added);
  put_id(out, s->last_id);
  put_id(out, s->first_id);
  put_id(out, s->max_deleted_id);
  put32(out, static_cast<std::uint32_t>(s->nodes.size()));
  for (const StreamNodeRef& n : s->nodes) {
    put_id(out, n.master);
    Listpack lp(n.lp);
    put32(out, static_cast<std::uint32_t>(lp.bytes()));
    out.append(reinterpret_cast<const char*>(n.lp), lp.bytes());
  }
  put32(out, static_cast<std::uint32_t>(stream_group_count(s)));
  if (s->groups == nullptr) return;
  for (const StreamGroup* g : s->groups->list) {
    put_str(out, g->name());
    put_id(out, g->last_id);
    put64(out, static_cast<std::uint64_t>(g->entries_read));
    put32(out, static_cast<std::uint32_t>(g->consumers.size()));
    for (const StreamConsumer* c : g->consumers) {
      put_str(out, c->name());
      put64(out, static_cast<std::uint64_t>(c->seen_time));
    }
    put32(out, static_cast<std::uint32_t>(g->pel.size()));
    for (const StreamNack* k : g->pel) {
      put_id(out, k->id);
      put64(out, static_cast<std::uint64_t>(k->delivery_time));
      put64(out, k->delivery_count);
      // Consumers are few per group; a linear search keeps the format free of pointers.
      std::uint32_t owner = 0;
      while (g->consumers[owner] != k->consumer) ++owner;
      put32(out, owner);
    }
  }
}

Stream* stream_load(store::Heap& heap, std::string_view bytes) {
  Reader r{bytes};
  Stream* s = stream_create(heap);
  s->length = r.num<std::uint64_t>();
  s->entries_added = r.num<std::uint64_t>();
  s->last_id = r.id();
  s->first_id = r.id();
  s->max_deleted_id = r.id();
  const auto nnodes = r.num<std::uint32_t>();
  bool ok = r.ok && nnodes <= r.in.size() / 20;
  std::uint64_t live = 0;
  StreamID prev_master;
  for (std::uint32_t i = 0; ok && i < nnodes; ++i) {
    const StreamID master = r.id();
    const std::string_view lpb = r.str();
    StreamID first, last;
    const auto* p = reinterpret_cast<const std::uint8_t*>(lpb.data());
    // Masters ascend (the index is sorted); entries need not (see stream_node::validate).
    ok = r.ok && stream_node::validate({p, lpb.size()}, master, &first, &last) &&
         (i == 0 || master > prev_master);
    if (!ok) break;
    auto lp = Listpack::load(heap, {p, lpb.size()});
    if (!lp) {
      ok = false;
      break;
    }
    s->nodes.push_back(heap, {master, last, lp->blob(), stream_node::redis_extra(*lp, master)});
    live += static_cast<std::uint64_t>(stream_node::header(*lp).count);
    prev_master = master;
  }
  ok = ok && live == s->length && load_groups(heap, s, r) && r.in.empty();
  if (!ok) {
    stream_destroy(heap, s);
    return nullptr;
  }
  return s;
}

namespace {

// Lazy free in steps: nodes from the back (no memmove), then the groups and the object.
std::size_t release_some(store::Heap& heap, Object* o, std::size_t budget, bool* done) {
  auto* s = static_cast<Stream*>(o);
  std::size_t spent = 0;
  while (!s->nodes.empty() && spent < budget) {
    Listpack(s->nodes.back().lp).destroy(heap);
    s->nodes.erase(s->nodes.size() - 1);
    ++spent;
  }
  if (s->nodes.empty()) {
    stream_destroy(heap, s);
    *done = true;
    ++spent;
  }
  return spent;
}

std::size_t free_effort(const Object* o) {
  const auto* s = static_cast<const Stream*>(o);
  std::size_t n = s->nodes.size() + 1;
  if (s->groups != nullptr) {
    for (const StreamGroup* g : s->groups->list) n += 1 + g->pel.size() + g->consumers.size();
  }
  return n;
}

}  // namespace

const ValueOps kStreamOps = {
    "stream",
    types::Type::kStream,
    [](store::Heap& heap, Object* o) { stream_destroy(heap, static_cast<Stream*>(o)); },
    [](store::Heap& heap, const Object* o) -> Object* {
      return stream_copy(heap, static_cast<const Stream*>(o));
    },
    [](const Object* o) { return stream_memory(static_cast<const Stream*>(o)); },
    [](const Object*) -> std::string_view { return "stream"; },
    free_effort,
    [](const Object* o, std::string& out) { stream_save(static_cast<const Stream*>(o), out); },
    [](store::Heap& heap, std::uint8_t enc, std::string_view bytes) -> Object* {
      return enc == 0 ? stream_load(heap, bytes) : nullptr;
    },
    release_some,
};

}  // namespace ruvio::types
