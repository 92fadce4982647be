// The hash type's semantics over its two encodings (hash.hpp) and its ValueOps table.
#include "worker/types/hash/hash.hpp"

#include <mimalloc.h>

#include <new>
#include <string>
#include <vector>

#include "worker/containers/hashtable_impl.hpp"

namespace ruvio::store {
template class HashTable<types::hash::FieldTraits>;
}

namespace ruvio::types::hash {
namespace {

bool g_ttls_seen = false;  // a worker is one thread: a plain flag

// ---- the by_time heap (field_table.hpp): a binary min-heap of TTL records by expire_at ----

std::int64_t at_of(const FieldRec* r) {
  return view(r).expire_at;
}

void place(FieldTable* ft, std::uint32_t i, FieldRec* r) {
  ft->by_time[i] = r;
  set_slot(r, i);
}

void sift_up(FieldTable* ft, std::uint32_t i) {
  FieldRec* r = ft->by_time[i];
  const std::int64_t t = at_of(r);
  while (i > 0) {
    const std::uint32_t up = (i - 1) / 2;
    if (at_of(ft->by_time[up]) <= t) break;
    place(ft, i, ft->by_time[up]);
    i = up;
  }
  place(ft, i, r);
}

void sift_down(FieldTable* ft, std::uint32_t i) {
  const std::uint32_t n = ft->ttl_fields;
  FieldRec* r = ft->by_time[i];
  const std::int64_t t = at_of(r);
  for (;;) {
    std::uint32_t c = 2 * i + 1;
    if (c >= n) break;
    std::int64_t tc = at_of(ft->by_time[c]);
    if (c + 1 < n) {
      const std::int64_t t2 = at_of(ft->by_time[c + 1]);
      if (t2 < tc) {
        ++c;
        tc = t2;
      }
    }
    if (tc >= t) break;
    place(ft, i, ft->by_time[c]);
    i = c;
  }
  place(ft, i, r);
}

// After the time of the record at slot i changed.
void sift(FieldTable* ft, std::uint32_t i) {
  if (i > 0 && at_of(ft->by_time[i]) < at_of(ft->by_time[(i - 1) / 2])) {
    sift_up(ft, i);
  } else {
    sift_down(ft, i);
  }
}

// The heap's array at `cap` entries (the live ones kept); null at 0.
void resize_heap(store::Heap& heap, FieldTable* ft, std::uint32_t cap) {
  FieldRec** fresh = nullptr;
  if (cap != 0) {
    fresh = static_cast<FieldRec**>(heap.alloc(std::size_t{cap} * sizeof(FieldRec*)));
    if (ft->ttl_fields != 0) {
      std::memcpy(fresh, ft->by_time, std::size_t{ft->ttl_fields} * sizeof(FieldRec*));
    }
    cap = static_cast<std::uint32_t>(mi_usable_size(fresh) / sizeof(FieldRec*));
  }
  heap.release(ft->by_time);
  ft->by_time = fresh;
  ft->by_time_cap = cap;
}

void heap_push(store::Heap& heap, FieldTable* ft, FieldRec* r) {
  // Grown by half, not doubled: the array is the index's whole cost (8 bytes a TTL field).
  if (ft->ttl_fields == ft->by_time_cap) resize_heap(heap, ft, ft->by_time_cap / 2 * 3 + 4);
  place(ft, ft->ttl_fields, r);
  ++ft->ttl_fields;
  sift_up(ft, ft->ttl_fields - 1);
  g_ttls_seen = true;
}

void heap_remove(store::Heap& heap, FieldTable* ft, FieldRec* r) {
  const std::uint32_t i = slot_of(r);
  const std::uint32_t last = --ft->ttl_fields;
  if (i != last) {
    place(ft, i, ft->by_time[last]);
    sift(ft, i);
  }
  if (ft->ttl_fields == 0) {
    resize_heap(heap, ft, 0);
  } else if (ft->by_time_cap > 64 && ft->ttl_fields < ft->by_time_cap / 4) {
    resize_heap(heap, ft, ft->by_time_cap / 2);
  }
}

void free_field(store::Heap& heap, FieldTable* ft, FieldRec* r) {
  ft->entry_bytes -= mi_usable_size(r);
  if (view(r).has_ttl) heap_remove(heap, ft, r);
  heap.release(r);
}

void add_field(store::Heap& heap, FieldTable* ft, FieldRec* r, std::uint64_t hv) {
  ft->entry_bytes += mi_usable_size(r);
  if (view(r).has_ttl) heap_push(heap, ft, r);
  ft->table.insert(r, hv);
}

FieldTable* new_table(store::Heap& heap) {
  void* p = heap.alloc(sizeof(FieldTable));
  return new (p) FieldTable(&heap);
}

void destroy_table(store::Heap& heap, FieldTable* ft) {
  ft->table.set_heap(&heap);
  if (ft->table.size() != 0) ft->table.for_each([&](FieldRec* r) { heap.release(r); });
  heap.release(ft->by_time);
  ft->~FieldTable();
  heap.release(ft);
}

bool expired(const FieldView& v, std::int64_t now_ms) {
  return v.has_ttl && now_ms > v.expire_at;
}

// Replaces the record of an existing field (its ref) with a new one.
void replace_field(store::Heap& heap, FieldTable* ft, Table::Ref ref, std::string_view value,
                   std::int64_t expire_at) {
  FieldRec* old = ref.get();
  const bool had_ttl = view(old).has_ttl;
  FieldRec* fresh = make_field(heap, view(old).field, value, expire_at);
  ft->entry_bytes += mi_usable_size(fresh);
  if (had_ttl && expire_at >= 0) {  // the fresh record takes the old one's heap entry
    const std::uint32_t i = slot_of(old);
    place(ft, i, fresh);
    sift(ft, i);
  } else if (had_ttl) {
    heap_remove(heap, ft, old);
  } else if (expire_at >= 0) {
    heap_push(heap, ft, fresh);
  }
  ref.set(fresh);
  ft->entry_bytes -= mi_usable_size(old);
  heap.release(old);
}

}  // namespace

Hash* create(store::Heap& heap) {
  void* p = heap.alloc(sizeof(Hash));
  Hash* h = new (p) Hash;
  h->type_id = kTypeHash;
  h->enc = kListpack;
  h->data = Listpack::create(heap).blob();
  return h;
}

Hash* create_hashtable(store::Heap& heap, std::size_t n) {
  void* p = heap.alloc(sizeof(Hash));
  Hash* h = new (p) Hash;
  h->type_id = kTypeHash;
  h->enc = kHashtable;
  FieldTable* ft = new_table(heap);
  ft->table.reserve(n);
  h->data = ft;
  return h;
}

bool add_unique(store::Heap& heap, Hash* h, std::string_view field, std::string_view value) {
  FieldTable* ft = ft_of(h);
  ft->table.set_heap(&heap);
  const std::uint64_t hv = ft->table.hash(field);
  if (ft->table.find(field, hv)) return false;
  add_field(heap, ft, make_field(heap, field, value, -1), hv);
  return true;
}

std::size_t length(const Hash* h) {
  if (h->enc == kListpack) return lp_of(h).count() / 2;
  return ft_of(h)->table.size();
}

std::optional<std::string_view> get(const Hash* h, std::string_view field, Listpack::IntBuf& buf,
                                    std::int64_t now_ms) {
  if (h->enc == kListpack) {
    Listpack lp = lp_of(h);
    Listpack::Pos p = lp.find(lp.first(), field, 1);
    if (p == Listpack::kNone) return std::nullopt;
    return lp.get_str(lp.next(p), buf);
  }
  const Table& t = ft_of(h)->table;
  Table::Ref ref = t.find(field, t.hash(field));
  if (!ref) return std::nullopt;
  FieldView v = view(ref.get());
  if (expired(v, now_ms)) return std::nullopt;
  return v.value;
}

void convert_to_hashtable(store::Heap& heap, Hash* h) {
  if (h->enc != kListpack) return;
  Listpack lp = lp_of(h);
  FieldTable* ft = new_table(heap);
  Listpack::IntBuf fb, vb;
  for (Listpack::Pos p = lp.first(); p != Listpack::kNone;) {
    Listpack::Pos q = lp.next(p);
    std::string_view f = lp.get_str(p, fb);
    add_field(heap, ft, make_field(heap, f, lp.get_str(q, vb), -1), ft->table.hash(f));
    p = lp.next(q);
  }
  lp.destroy(heap);
  h->data = ft;
  h->enc = kHashtable;
}

void try_conversion(store::Heap& heap, Hash* h, std::span<const std::string_view> args,
                    const Limits& lim) {
  if (h->enc != kListpack) return;
  std::size_t sum = 0;
  for (std::string_view a : args) {
    if (a.size() > lim.max_value) {
      convert_to_hashtable(heap, h);
      return;
    }
    sum += a.size();
  }
  if (!lp_of(h).safe_to_add(sum)) convert_to_hashtable(heap, h);
}

bool set(store::Heap& heap, Hash* h, std::string_view field, std::string_view value,
         const Limits& lim, bool keep_ttl) {
  // hashTypeSet converts on its own for a long field or value (HINCRBY's field, HINCRBYFLOAT's
  // result), whatever the caller checked.
  if (h->enc == kListpack && (field.size() > lim.max_value || value.size() > lim.max_value)) {
    convert_to_hashtable(heap, h);
  }
  if (h->enc == kListpack) {
    Listpack lp = lp_of(h);
    Listpack::Pos p = lp.find(lp.first(), field, 1);
    if (p != Listpack::kNone) {
      lp.replace(heap, lp.next(p), value);
      h->data = lp.blob();
      return false;
    }
    lp.append(heap, field);
    lp.append(heap, value);
    h->data = lp.blob();
    if (lp.count() / 2 > lim.max_entries) convert_to_hashtable(heap, h);
    return true;
  }
  FieldTable* ft = ft_of(h);
  ft->table.set_heap(&heap);
  const std::uint64_t hv = ft->table.hash(field);
  Table::Ref ref = ft->table.find(field, hv);
  if (ref) {
    FieldView old = view(ref.get());
    replace_field(heap, ft, ref, value, keep_ttl && old.has_ttl ? old.expire_at : -1);
    return false;
  }
  add_field(heap, ft, make_field(heap, field, value, -1), hv);
  return true;
}

bool del(store::Heap& heap, Hash* h, std::string_view field) {
  if (h->enc == kListpack) {
    Listpack lp = lp_of(h);
    Listpack::Pos p = lp.find(lp.first(), field, 1);
    if (p == Listpack::kNone) return false;
    lp.erase(heap, p, 2);
    h->data = lp.blob();
    return true;
  }
  FieldTable* ft = ft_of(h);
  ft->table.set_heap(&heap);
  FieldRec* r = ft->table.erase(field, ft->table.hash(field));
  if (r == nullptr) return false;
  free_field(heap, ft, r);
  return true;
}

std::optional<std::int64_t> field_expire(const Hash* h, std::string_view field,
                                         std::int64_t now_ms) {
  if (h->enc == kListpack) {
    Listpack lp = lp_of(h);
    if (lp.find(lp.first(), field, 1) == Listpack::kNone) return std::nullopt;
    return -1;
  }
  const Table& t = ft_of(h)->table;
  Table::Ref ref = t.find(field, t.hash(field));
  if (!ref) return std::nullopt;
  FieldView v = view(ref.get());
  if (expired(v, now_ms)) return std::nullopt;
  return v.has_ttl ? v.expire_at : -1;
}

void set_field_expire(store::Heap& heap, Hash* h, std::string_view field, std::int64_t at) {
  if (h->enc == kListpack) {
    if (at < 0) return;
    convert_to_hashtable(heap, h);
  }
  FieldTable* ft = ft_of(h);
  ft->table.set_heap(&heap);
  Table::Ref ref = ft->table.find(field, ft->table.hash(field));
  if (!ref) return;
  FieldView v = view(ref.get());
  if (!v.has_ttl && at < 0) return;
  if (v.has_ttl && at >= 0) {  // same size: rewrite in place, then move in the heap
    std::memcpy(const_cast<char*>(v.value.data() + v.value.size()), &at, 8);
    sift(ft, slot_of(ref.get()));
    return;
  }
  replace_field(heap, ft, ref, v.value, at);
}

std::uint32_t ttl_fields(const Hash* h) {
  return h->enc == kHashtable ? ft_of(h)->ttl_fields : 0;
}

void random_pair(const Hash* h, std::mt19937_64& rng, Listpack::IntBuf& fb, Listpack::IntBuf& vb,
                 std::string_view* field, std::string_view* value) {
  if (h->enc == kListpack) {
    Listpack lp = lp_of(h);
    const std::uint64_t i = rng() % (lp.count() / 2);
    Listpack::Pos p = lp.seek(static_cast<std::int64_t>(2 * i));
    *field = lp.get_str(p, fb);
    *value = lp.get_str(lp.next(p), vb);
    return;
  }
  const FieldView v = view(ft_of(h)->table.fair_random(rng));
  *field = v.field;
  *value = v.value;
}

bool field_ttls_seen() {
  return g_ttls_seen;
}

bool needs_purge(const Hash* h, std::int64_t now_ms) {
  if (h->enc != kHashtable) return false;
  const FieldTable* ft = ft_of(h);
  return ft->ttl_fields != 0 && now_ms > at_of(ft->by_time[0]);
}

std::size_t expire_fields(store::Heap& heap, Hash* h, std::int64_t now_ms) {
  if (h->enc != kHashtable || ft_of(h)->ttl_fields == 0) return 0;
  FieldTable* ft = ft_of(h);
  ft->table.set_heap(&heap);
  std::size_t n = 0;
  while (ft->ttl_fields != 0) {
    const FieldView v = view(ft->by_time[0]);
    if (!expired(v, now_ms)) break;
    free_field(heap, ft, ft->table.erase(v.field, ft->table.hash(v.field)));
    ++n;
  }
  return n;
}

std::size_t expire_fields(store::Heap& heap, Hash* h, std::int64_t now_ms, std::size_t max,
                          std::vector<std::string>& gone) {
  gone.clear();
  if (h->enc != kHashtable || ft_of(h)->ttl_fields == 0) return 0;
  FieldTable* ft = ft_of(h);
  ft->table.set_heap(&heap);
  // Due fields from the heap's top, earliest first: O(log n) each, the rest untouched.
  while (ft->ttl_fields != 0 && gone.size() < max) {
    const FieldView v = view(ft->by_time[0]);
    if (!expired(v, now_ms)) break;
    gone.emplace_back(v.field);
    free_field(heap, ft, ft->table.erase(v.field, ft->table.hash(v.field)));
  }
  return gone.size();
}

std::int64_t next_field_expire(const Hash* h) {
  if (h->enc != kHashtable || ft_of(h)->ttl_fields == 0) return -1;
  return at_of(ft_of(h)->by_time[0]);
}

// ---- ValueOps --------------------------------------------------------------------------------

namespace {

void ops_destroy(store::Heap& heap, Object* o) {
  auto* h = static_cast<Hash*>(o);
  if (h->enc == kListpack) {
    Listpack lp = lp_of(h);
    lp.destroy(heap);
  } else {
    destroy_table(heap, ft_of(h));
  }
  h->~Hash();
  heap.release(h);
}

Object* ops_copy(store::Heap& heap, const Object* o) {
  const auto* src = static_cast<const Hash*>(o);
  void* p = heap.alloc(sizeof(Hash));
  Hash* h = new (p) Hash;
  h->type_id = kTypeHash;
  h->enc = src->enc;  // src may be folded: read through lp_of
  if (src->enc == kListpack) {
    h->data = lp_of(src).clone(heap).blob();
    return h;
  }
  FieldTable* ft = new_table(heap);
  ft_of(src)->table.for_each([&](FieldRec* r) {
    FieldView v = view(r);
    add_field(heap, ft, make_field(heap, v.field, v.value, v.has_ttl ? v.expire_at : -1),
              ft->table.hash(v.field));
  });
  h->data = ft;
  return h;
}

std::size_t ops_memory(const Object* o) {
  const auto* h = static_cast<const Hash*>(o);
  std::size_t n = mi_usable_size(h);
  if (h->enc == kListpack) return n + lp_of(h).alloc_size();
  const FieldTable* ft = ft_of(h);
  const std::size_t index = ft->by_time != nullptr ? mi_usable_size(ft->by_time) : 0;
  return n + mi_usable_size(ft) + ft->table.alloc_bytes() + ft->entry_bytes + index;
}

std::string_view ops_encoding(const Object* o) {
  return o->enc == kListpack ? "listpack" : "hashtable";
}

// Lazy free in steps: up to `budget` field records per call, taken out of the table as they
// go (so length(), the free effort, and MEMORY USAGE stay exact), then the arrays and the
// objects. The records and arrays count in `heap` even after a MOVE (set_heap, O(1)).
std::size_t ops_release_some(store::Heap& heap, Object* o, std::size_t budget, bool* done) {
  auto* h = static_cast<Hash*>(o);
  std::size_t spent = 0;
  if (h->enc == kHashtable) {
    FieldTable* ft = ft_of(h);
    ft->table.set_heap(&heap);
    if (ft->by_time != nullptr) {  // records leave in table order: drop the index whole first
      ft->ttl_fields = 0;
      resize_heap(heap, ft, 0);
    }
    const bool more = ft->table.drain(budget, [&](FieldRec* r) {
      ft->entry_bytes -= mi_usable_size(r);
      heap.release(r);
      ++spent;
    });
    if (more) {
      *done = false;
      return spent;
    }
  }
  ops_destroy(heap, h);
  *done = true;
  return spent + 1;
}

std::size_t ops_free_effort(const Object* o) {
  const auto* h = static_cast<const Hash*>(o);
  return h->enc == kListpack ? 1 : length(h);
}

// Snapshot bytes: the listpack blob as it is, or the field records one after another (their
// own bytes, drawn in field_table.hpp, are self-delimiting).
void ops_save(const Object* o, std::string& out) {
  const auto* h = static_cast<const Hash*>(o);
  if (h->enc == kListpack) {
    std::span<const std::uint8_t> s = lp_of(h).span();
    out.append(reinterpret_cast<const char*>(s.data()), s.size());
    return;
  }
  ft_of(h)->table.for_each([&](FieldRec* r) {
    FieldView v = view(r);
    const std::size_t n =
        static_cast<std::size_t>(v.value.data() + v.value.size() - reinterpret_cast<char*>(r)) +
        (v.has_ttl ? 8 : 0);
    out.append(reinterpret_cast<const char*>(r), n);
  });
}

bool read_varint(std::string_view& in, std::uint64_t* v) {
  std::uint64_t r = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (in.empty()) return false;
    const auto b = static_cast<std::uint8_t>(in[0]);
    in.remove_prefix(1);
    r |= std::uint64_t(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *v = r;
      return true;
    }
  }
  return false;
}

Object* ops_load(store::Heap& heap, std::uint8_t enc, std::string_view in) {
  if (enc == kListpack) {
    std::size_t count = 0;
    std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(in.data()),
                                        in.size());
    if (!Listpack::validate(bytes, &count) || count % 2 != 0) return nullptr;
    std::optional<Listpack> lp = Listpack::load(heap, bytes);
    if (!lp) return nullptr;
    void* p = heap.alloc(sizeof(Hash));
    Hash* h = new (p) Hash;
    h->type_id = kTypeHash;
    h->enc = kListpack;
    h->data = lp->blob();
    return h;
  }
  if (enc != kHashtable) return nullptr;
  void* p = heap.alloc(sizeof(Hash));
  Hash* h = new (p) Hash;
  h->type_id = kTypeHash;
  h->enc = kHashtable;
  FieldTable* ft = new_table(heap);
  h->data = ft;
  bool ok = true;
  while (ok && !in.empty()) {
    std::uint64_t a, vlen;
    ok = false;
    if (!read_varint(in, &a) || !read_varint(in, &vlen)) break;
    const std::uint64_t flen = a >> 1;
    const bool ttl = (a & 1) != 0;
    if (flen > in.size() || vlen > in.size() - flen || (ttl && in.size() - flen - vlen < 8)) {
      break;
    }
    std::string_view f = in.substr(0, flen), v = in.substr(flen, vlen);
    std::int64_t at = -1;
    if (ttl) std::memcpy(&at, in.data() + flen + vlen, 8);
    in.remove_prefix(flen + vlen + (ttl ? 8 : 0));
    const std::uint64_t hv = ft->table.hash(f);
    if (ft->table.find(f, hv) || (ttl && at < 0)) break;
    add_field(heap, ft, make_field(heap, f, v, at), hv);
    ok = true;
  }
  if (!ok) {
    ops_destroy(heap, h);
    return nullptr;
  }
  return h;
}

}  // namespace

std::string_view ops_compact_blob(const Object* o) {
  const auto* h = static_cast<const Hash*>(o);
  if (h->enc != kListpack) return {};
  const std::span<const std::uint8_t> s = lp_of(h).span();
  return {reinterpret_cast<const char*>(s.data()), s.size()};
}

const ValueOps kHashOps = {
    "hash",     types::Type::kHash, ops_destroy,      ops_copy,
    ops_memory, ops_encoding,       ops_free_effort,  ops_save,
    ops_load,   ops_release_some,   ops_compact_blob,
};

}  // namespace ruvio::types::hash
