// Set values: the encodings' operations and conversions (set.hpp draws the bytes).
#include "worker/types/set/set.hpp"

#include <cstring>
#include <new>
#include <vector>

#include "worker/containers/hashtable_impl.hpp"

namespace ruvio::types {

struct SetMember {};  // only ever a pointer to the bytes drawn in set.hpp

namespace {

constexpr std::uint8_t kLongMember = 0xFF;

std::size_t decimal_len(std::int64_t v) {
  Listpack::IntBuf buf;
  SetElem e;
  e.is_int = true;
  e.i = v;
  return e.text(buf).size();
}

SetMember* member_make(store::Heap& heap, std::string_view s) {
  const bool longer = s.size() >= kLongMember;
  const std::size_t head = longer ? 5 : 1;
  auto* p = static_cast<std::uint8_t*>(heap.alloc(head + s.size()));
  if (longer) {
    p[0] = kLongMember;
    const auto n = static_cast<std::uint32_t>(s.size());
    std::memcpy(p + 1, &n, 4);
  } else {
    p[0] = static_cast<std::uint8_t>(s.size());
  }
  if (!s.empty()) std::memcpy(p + head, s.data(), s.size());
  return reinterpret_cast<SetMember*>(p);
}

SetHash* hash_create(store::Heap& heap) {
  const std::size_t before = heap.used;
  auto* h = new (heap.alloc(sizeof(SetHash))) SetHash(&heap);
  h->mem = heap.used - before;
  return h;
}

// After a MOVE the value's bytes count in `heap` but the table still allocates from the old
// Db's heap: rebuild the arrays from `heap` (members stay), and hand the old arrays' freed
// bytes back so that both heaps stay exact.
void rehome(store::Heap& heap, SetHash* h) {
  if (h->heap == &heap) return;
  store::Heap* old = h->heap;
  const std::size_t before_new = heap.used;
  SetTable fresh(&heap);
  h->table.for_each([&](SetMember* m) {
    const std::string_view k = SetMemberTraits::key(m);
    fresh.insert(m, fresh.hash(k));
  });
  const std::size_t before_old = old->used;
  h->table.clear();
  const std::size_t freed = before_old - old->used;
  heap.transfer(*old, freed);
  h->table.swap(fresh);  // fresh now holds the emptied table of the old heap
  h->heap = &heap;
  h->mem = h->mem - freed + (heap.used - before_new + freed);
}

// Inserts a member known to be absent.
void hash_insert(store::Heap& heap, SetHash* h, std::string_view s) {
  rehome(heap, h);
  const std::size_t before = heap.used;
  h->table.insert(member_make(heap, s), h->table.hash(s));
  h->mem += heap.used - before;
}

bool hash_add(store::Heap& heap, SetHash* h, std::string_view s) {
  rehome(heap, h);
  const std::uint64_t hv = h->table.hash(s);
  if (h->table.find(s, hv)) return false;
  const std::size_t before = heap.used;
  h->table.insert(member_make(heap, s), hv);
  h->mem += heap.used - before;
  return true;
}

// Freeing needs no rehome (an O(n) rebuild): after a MOVE the arrays' bytes already count in
// `heap`, so they are released through it.
void hash_destroy(store::Heap& heap, SetHash* h) {
  h->table.set_heap(&heap);
  h->heap = &heap;
  if (h->table.size() != 0) h->table.for_each([&](SetMember* m) { heap.release(m); });
  h->~SetHash();  // frees the arrays
  heap.release(h);
}

// Lazy free in steps: up to `budget` members out of the table per call, `mem` and the size
// (the free effort) kept exact, then the arrays and the blocks.
bool hash_release_some(store::Heap& heap, SetHash* h, std::size_t budget, std::size_t* spent) {
  h->table.set_heap(&heap);
  h->heap = &heap;
  return h->table.drain(budget, [&](SetMember* m) {
    h->mem -= mi_usable_size(m);
    heap.release(m);
    ++*spent;
  });
}

// Moves every member of s into a new hashtable (intset/listpack -> hashtable).
void to_hashtable(store::Heap& heap, SetObject* s) {
  SetHash* h = hash_create(heap);
  Listpack::IntBuf buf;
  set::for_each(s, [&](const SetElem& e) { hash_insert(heap, h, e.text(buf)); });
  if (s->enc == kSetIntset) {
    set::intset_of(s).destroy(heap);
  } else {
    set::listpack_of(s).destroy(heap);
  }
  s->data = h;
  s->enc = kSetHashtable;
}

void intset_to_listpack(store::Heap& heap, SetObject* s) {
  Intset is = set::intset_of(s);
  Listpack lp = Listpack::create(heap);
  for (std::size_t i = 0, n = is.size(); i < n; ++i) lp.append(heap, is.get(i));
  is.destroy(heap);
  s->data = lp.blob();
  s->enc = kSetListpack;
}

}  // namespace

std::string_view SetMemberTraits::key(const SetMember* m) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(m);
  if (p[0] != kLongMember) return {reinterpret_cast<const char*>(p + 1), p[0]};
  std::uint32_t n;
  std::memcpy(&n, p + 1, 4);
  return {reinterpret_cast<const char*>(p + 5), n};
}

std::string_view SetElem::text(Listpack::IntBuf& buf) const {
  if (!is_int) return str;
  // ll2string: digits backwards from the end of buf.
  std::uint64_t u = i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
  std::size_t at = buf.size();
  do {
    buf[--at] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (i < 0) buf[--at] = '-';
  return {buf.data() + at, buf.size() - at};
}

namespace set {

SetObject* create(store::Heap& heap, std::string_view first, std::size_t size_hint,
                  const SetLimits& lim) {
  auto* s = static_cast<SetObject*>(heap.alloc(sizeof(SetObject)));
  s->type_id = kTypeSet;
  std::memset(s->pad, 0, sizeof s->pad);
  if (Listpack::Elem(first).is_int() && size_hint <= lim.max_intset_entries) {
    s->enc = kSetIntset;
    s->data = Intset::create(heap).blob();
  } else if (size_hint <= lim.max_listpack_entries) {
    s->enc = kSetListpack;
    s->data = Listpack::create(heap).blob();
  } else {
    s->enc = kSetHashtable;
    s->data = hash_create(heap);
  }
  return s;
}

void destroy(store::Heap& heap, SetObject* s) {
  switch (s->enc) {
    case kSetIntset:
      intset_of(s).destroy(heap);
      break;
    case kSetListpack:
      listpack_of(s).destroy(heap);
      break;
    default:
      hash_destroy(heap, hash_of(s));
  }
  heap.release(s);
}

SetObject* clone(store::Heap& heap, const SetObject* s) {
  auto* c = static_cast<SetObject*>(heap.alloc(sizeof(SetObject)));
  c->type_id = kTypeSet;
  c->enc = s->enc;  // s may be folded (shorter than a SetObject): no memcpy of it
  std::memset(c->pad, 0, sizeof c->pad);
  switch (s->enc) {
    case kSetIntset:
      c->data = intset_of(s).clone(heap).blob();
      break;
    case kSetListpack:
      c->data = listpack_of(s).clone(heap).blob();
      break;
    default: {
      SetHash* h = hash_create(heap);
      for_each(s, [&](const SetElem& e) { hash_insert(heap, h, e.str); });
      c->data = h;
    }
  }
  return c;
}

std::size_t size(const SetObject* s) {
  switch (s->enc) {
    case kSetIntset:
      return intset_of(s).size();
    case kSetListpack:
      return listpack_of(s).count();
    default:
      return hash_of(s)->table.size();
  }
}

bool contains(const SetObject* s, std::string_view member) {
  switch (s->enc) {
    case kSetIntset: {
      const Listpack::Elem e(member);
      return e.is_int() && intset_of(s).contains(e.int_value());
    }
    case kSetListpack: {
      const Listpack lp = listpack_of(s);
      const Listpack::Pos first = lp.first();
      return first != Listpack::kNone && lp.find(first, member) != Listpack::kNone;
    }
    default: {
      const SetTable& t = hash_of(s)->table;
      return bool(t.find(member, t.hash(member)));
    }
  }
}

bool add(store::Heap& heap, SetObject* s, std::string_view member, const SetLimits& lim) {
  if (s->enc == kSetIntset) {
    const Listpack::Elem e(member);
    Intset is = intset_of(s);
    if (e.is_int()) {
      if (!is.add(heap, e.int_value())) return false;
      s->data = is.blob();
      if (is.size() > lim.max_intset_entries) to_hashtable(heap, s);
      return true;
    }
    std::size_t maxelelen = 0;
    if (!is.empty()) maxelelen = std::max(decimal_len(is.min()), decimal_len(is.max()));
    if (is.size() < lim.max_listpack_entries && member.size() <= lim.max_listpack_value &&
        maxelelen <= lim.max_listpack_value) {
      intset_to_listpack(heap, s);
    } else {
      to_hashtable(heap, s);
    }
    // Not an integer, so not a member of the intset it came from: falls through to add.
  }
  if (s->enc == kSetListpack) {
    Listpack lp = listpack_of(s);
    const Listpack::Pos first = lp.first();
    if (first != Listpack::kNone && lp.find(first, member) != Listpack::kNone) return false;
    if (lp.count() < lim.max_listpack_entries && member.size() <= lim.max_listpack_value &&
        lp.safe_to_add(member.size() + 11)) {
      lp.append(heap, Listpack::Elem(member));
      s->data = lp.blob();
      return true;
    }
    to_hashtable(heap, s);
  }
  return hash_add(heap, hash_of(s), member);
}

bool remove(store::Heap& heap, SetObject* s, std::string_view member) {
  switch (s->enc) {
    case kSetIntset: {
      const Listpack::Elem e(member);
      if (!e.is_int()) return false;
      Intset is = intset_of(s);
      if (!is.remove(heap, e.int_value())) return false;
      s->data = is.blob();
      return true;
    }
    case kSetListpack: {
      Listpack lp = listpack_of(s);
      const Listpack::Pos first = lp.first();
      if (first == Listpack::kNone) return false;
      const Listpack::Pos p = lp.find(first, member);
      if (p == Listpack::kNone) return false;
      lp.erase(heap, p);
      s->data = lp.blob();
      return true;
    }
    default: {
      SetHash* h = hash_of(s);
      rehome(heap, h);
      const std::size_t before = heap.used;
      SetMember* m = h->table.erase(member, h->table.hash(member));
      if (m == nullptr) return false;
      heap.release(m);
      h->mem -= before - heap.used;
      return true;
    }
  }
}

std::string_view encoding_name(const SetObject* s) {
  switch (s->enc) {
    case kSetIntset:
      return "intset";
    case kSetListpack:
      return "listpack";
    default:
      return "hashtable";
  }
}

std::size_t memory_usage(const SetObject* s) {
  const std::size_t self = mi_usable_size(s);
  switch (s->enc) {
    case kSetIntset:
      return self + intset_of(s).alloc_size();
    case kSetListpack:
      return self + listpack_of(s).alloc_size();
    default:
      return self + hash_of(s)->mem;
  }
}

SetElem random(const SetObject* s, std::mt19937_64& rng) {
  SetElem e;
  switch (s->enc) {
    case kSetIntset:
      e.is_int = true;
      e.i = intset_of(s).random(rng);
      return e;
    case kSetListpack: {
      const Listpack lp = listpack_of(s);
      std::uniform_int_distribution<std::int64_t> pick(0,
                                                       static_cast<std::int64_t>(lp.count()) - 1);
      const Listpack::Entry le = lp.get(lp.seek(pick(rng)));
      e.is_int = le.is_int;
      e.i = le.i;
      e.str = le.str;
      return e;
    }
    default: {
      e.str = SetMemberTraits::key(hash_of(s)->table.fair_random(rng));
      return e;
    }
  }
}

void save(const SetObject* s, std::string& out) {
  switch (s->enc) {
    case kSetIntset: {
      const auto sp = intset_of(s).span();
      out.append(reinterpret_cast<const char*>(sp.data()), sp.size());
      break;
    }
    case kSetListpack: {
      const auto sp = listpack_of(s).span();
      out.append(reinterpret_cast<const char*>(sp.data()), sp.size());
      break;
    }
    default:
      for_each(s, [&](const SetElem& e) {
        const auto n = static_cast<std::uint32_t>(e.str.size());
        char len[4];
        std::memcpy(len, &n, 4);
        out.append(len, 4);
        out.append(e.str);
      });
  }
}

SetObject* load(store::Heap& heap, std::uint8_t enc, std::string_view bytes) {
  const std::span<const std::uint8_t> raw(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                          bytes.size());
  void* data = nullptr;
  switch (enc) {
    case kSetIntset: {
      auto is = Intset::load(heap, raw);
      if (!is) return nullptr;
      data = is->blob();
      break;
    }
    case kSetListpack: {
      auto lp = Listpack::load(heap, raw);
      if (!lp) return nullptr;
      if (lp->empty()) {
        lp->destroy(heap);
        return nullptr;
      }
      data = lp->blob();
      break;
    }
    case kSetHashtable: {
      SetHash* h = hash_create(heap);
      std::size_t at = 0;
      bool ok = true;
      while (at < bytes.size()) {
        std::uint32_t n;
        if (bytes.size() - at < 4) {
          ok = false;
          break;
        }
        std::memcpy(&n, bytes.data() + at, 4);
        at += 4;
        if (bytes.size() - at < n) {
          ok = false;
          break;
        }
        ok = hash_add(heap, h, bytes.substr(at, n));
        if (!ok) break;
        at += n;
      }
      if (!ok || h->table.size() == 0) {
        hash_destroy(heap, h);
        return nullptr;
      }
      data = h;
      break;
    }
    default:
      return nullptr;
  }
  auto* s = static_cast<SetObject*>(heap.alloc(sizeof(SetObject)));
  s->type_id = kTypeSet;
  s->enc = enc;
  std::memset(s->pad, 0, sizeof s->pad);
  s->data = data;
  return s;
}

}  // namespace set

namespace {

std::size_t free_effort(const Object* o) {
  const auto* s = static_cast<const SetObject*>(o);
  return s->enc == kSetHashtable ? set::size(s) : 1;
}

std::size_t release_some(store::Heap& heap, Object* o, std::size_t budget, bool* done) {
  auto* s = static_cast<SetObject*>(o);
  std::size_t spent = 0;
  if (s->enc == kSetHashtable && hash_release_some(heap, set::hash_of(s), budget, &spent)) {
    *done = false;
    return spent;
  }
  set::destroy(heap, s);
  *done = true;
  return spent + 1;
}

}  // namespace

const ValueOps kSetOps = {
    .name = "set",
    .type = types::Type::kSet,
    .destroy = [](store::Heap& heap, Object* o) { set::destroy(heap, static_cast<SetObject*>(o)); },
    .copy = [](store::Heap& heap, const Object* o) -> Object* {
      return set::clone(heap, static_cast<const SetObject*>(o));
    },
    .memory_usage =
        [](const Object* o) { return set::memory_usage(static_cast<const SetObject*>(o)); },
    .encoding =
        [](const Object* o) { return set::encoding_name(static_cast<const SetObject*>(o)); },
    .free_effort = free_effort,
    .save = [](const Object* o,
               std::string& out) { set::save(static_cast<const SetObject*>(o), out); },
    .load = [](store::Heap& heap, std::uint8_t enc, std::string_view bytes) -> Object* {
      return set::load(heap, enc, bytes);
    },
    .release_some = release_some,
    .compact_blob = [](const Object* o) -> std::string_view {
      const auto* s = static_cast<const SetObject*>(o);
      std::span<const std::uint8_t> b;
      if (s->enc == kSetIntset) {
        b = set::intset_of(s).span();
      } else if (s->enc == kSetListpack) {
        b = set::listpack_of(s).span();
      }
      return {reinterpret_cast<const char*>(b.data()), b.size()};
    },
};

}  // namespace ruvio::types

template class ruvio::store::HashTable<ruvio::types::SetMemberTraits>;
