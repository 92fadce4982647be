#include "worker/types/stream/stream_group.hpp"

#include <cstring>

namespace ruvio::types {
namespace {

int name_cmp(std::string_view a, std::string_view b) {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// The index of the first element whose name is >= name.
template <class T>
std::size_t name_lower_bound(const HeapVec<T*>& v, std::string_view name) {
  std::size_t lo = 0, hi = v.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (name_cmp(v[mid]->name(), name) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

template <class T>
T* name_find(const HeapVec<T*>& v, std::string_view name) {
  const std::size_t i = name_lower_bound(v, name);
  return i < v.size() && v[i]->name() == name ? v[i] : nullptr;
}

template <class T>
T* alloc_named(store::Heap& heap, std::string_view name) {
  auto* p = static_cast<T*>(heap.alloc(sizeof(T) + name.size()));
  std::memset(static_cast<void*>(p), 0, sizeof(T));
  p->name_len = static_cast<std::uint32_t>(name.size());
  if (!name.empty()) std::memcpy(reinterpret_cast<char*>(p) + sizeof(T), name.data(), name.size());
  return p;
}

void pel_erase(HeapVec<StreamNack*>& pel, const StreamID& id) {
  const std::size_t i = stream_pel_lower_bound(pel, id);
  if (i < pel.size() && pel[i]->id == id) pel.erase(i);
}

void pel_insert(store::Heap& heap, HeapVec<StreamNack*>& pel, StreamNack* n) {
  // Deliveries come in ascending order: the common case is the end.
  if (pel.empty() || pel.back()->id < n->id) {
    pel.push_back(heap, n);
  } else {
    pel.insert(heap, stream_pel_lower_bound(pel, n->id), n);
  }
}

void destroy_group(store::Heap& heap, StreamGroup* g) {
  for (StreamNack* n : g->pel) heap.release(n);
  g->pel.release(heap);
  for (StreamConsumer* c : g->consumers) {
    c->pel.release(heap);
    heap.release(c);
  }
  g->consumers.release(heap);
  heap.release(g);
}

}  // namespace

void stream_groups_destroy(store::Heap& heap, StreamGroups* gs) {
  if (gs == nullptr) return;
  for (StreamGroup* g : gs->list) destroy_group(heap, g);
  gs->list.release(heap);
  heap.release(gs);
}

StreamGroups* stream_groups_copy(store::Heap& heap, const StreamGroups* src) {
  if (src == nullptr) return nullptr;
  auto* gs = static_cast<StreamGroups*>(heap.alloc(sizeof(StreamGroups)));
  *gs = {};
  for (const StreamGroup* sg : src->list) {
    StreamGroup* g = alloc_named<StreamGroup>(heap, sg->name());
    g->last_id = sg->last_id;
    g->entries_read = sg->entries_read;
    for (const StreamConsumer* sc : sg->consumers) {
      StreamConsumer* c = alloc_named<StreamConsumer>(heap, sc->name());
      c->seen_time = sc->seen_time;
      g->consumers.push_back(heap, c);
    }
    for (const StreamNack* sn : sg->pel) {
      StreamConsumer* owner = name_find(g->consumers, sn->consumer->name());
      auto* n = static_cast<StreamNack*>(heap.alloc(sizeof(StreamNack)));
      *n = {sn->id, sn->delivery_time, sn->delivery_count, owner};
      g->pel.push_back(heap, n);
      owner->pel.push_back(heap, n);
    }
    gs->list.push_back(heap, g);
  }
  return gs;
}

std::size_t stream_groups_memory(const StreamGroups* gs) {
  if (gs == nullptr) return 0;
  std::size_t n = mi_usable_size(const_cast<StreamGroups*>(gs)) + gs->list.alloc_bytes();
  for (const StreamGroup* g : gs->list) {
    n += mi_usable_size(const_cast<StreamGroup*>(g)) + g->pel.alloc_bytes() +
         g->consumers.alloc_bytes();
    for (const StreamNack* k : g->pel) n += mi_usable_size(const_cast<StreamNack*>(k));
    for (const StreamConsumer* c : g->consumers) {
      n += mi_usable_size(const_cast<StreamConsumer*>(c)) + c->pel.alloc_bytes();
    }
  }
  return n;
}

std::size_t stream_group_count(const Stream* s) {
  return s->groups == nullptr ? 0 : s->groups->list.size();
}

StreamGroup* stream_group_find(const Stream* s, std::string_view name) {
  return s->groups == nullptr ? nullptr : name_find(s->groups->list, name);
}

StreamGroup* stream_group_create(store::Heap& heap, Stream* s, std::string_view name,
                                 const StreamID& last_id, std::int64_t entries_read) {
  if (s->groups == nullptr) {
    s->groups = static_cast<StreamGroups*>(heap.alloc(sizeof(StreamGroups)));
    *s->groups = {};
  }
  auto& list = s->groups->list;
  const std::size_t i = name_lower_bound(list, name);
  if (i < list.size() && list[i]->name() == name) return nullptr;
  StreamGroup* g = alloc_named<StreamGroup>(heap, name);
  g->last_id = last_id;
  g->entries_read = entries_read;
  list.insert(heap, i, g);
  return g;
}

bool stream_group_destroy(store::Heap& heap, Stream* s, std::string_view name) {
  if (s->groups == nullptr) return false;
  auto& list = s->groups->list;
  const std::size_t i = name_lower_bound(list, name);
  if (i >= list.size() || list[i]->name() != name) return false;
  destroy_group(heap, list[i]);
  list.erase(i);
  return true;
}

StreamConsumer* stream_consumer_find(const StreamGroup* g, std::string_view name) {
  return name_find(g->consumers, name);
}

StreamConsumer* stream_consumer_create(store::Heap& heap, StreamGroup* g, std::string_view name,
                                       std::int64_t now_ms) {
  const std::size_t i = name_lower_bound(g->consumers, name);
  if (i < g->consumers.size() && g->consumers[i]->name() == name) return nullptr;
  StreamConsumer* c = alloc_named<StreamConsumer>(heap, name);
  c->seen_time = now_ms;
  g->consumers.insert(heap, i, c);
  return c;
}

StreamConsumer* stream_consumer_get(store::Heap& heap, StreamGroup* g, std::string_view name,
                                    std::int64_t now_ms, bool* created) {
  StreamConsumer* c = stream_consumer_find(g, name);
  *created = c == nullptr;
  if (c == nullptr) c = stream_consumer_create(heap, g, name, now_ms);
  return c;
}

std::size_t stream_consumer_delete(store::Heap& heap, StreamGroup* g, StreamConsumer* c) {
  const std::size_t pending = c->pel.size();
  for (StreamNack* n : c->pel) {
    pel_erase(g->pel, n->id);
    heap.release(n);
  }
  c->pel.release(heap);
  const std::size_t i = name_lower_bound(g->consumers, c->name());
  g->consumers.erase(i);
  heap.release(c);
  g->consumers.maybe_shrink(heap);
  return pending;
}

std::size_t stream_pel_lower_bound(const HeapVec<StreamNack*>& pel, const StreamID& id) {
  std::size_t lo = 0, hi = pel.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (pel[mid]->id < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

StreamNack* stream_pel_find(const HeapVec<StreamNack*>& pel, const StreamID& id) {
  const std::size_t i = stream_pel_lower_bound(pel, id);
  return i < pel.size() && pel[i]->id == id ? pel[i] : nullptr;
}

StreamNack* stream_nack_add(store::Heap& heap, StreamGroup* g, StreamConsumer* c,
                            const StreamID& id, std::int64_t delivery_time,
                            std::uint64_t delivery_count) {
  auto* n = static_cast<StreamNack*>(heap.alloc(sizeof(StreamNack)));
  *n = {id, delivery_time, delivery_count, c};
  pel_insert(heap, g->pel, n);
  pel_insert(heap, c->pel, n);
  return n;
}

void stream_nack_move(store::Heap& heap, StreamNack* n, StreamConsumer* to) {
  if (n->consumer == to) return;
  pel_erase(n->consumer->pel, n->id);
  n->consumer->pel.maybe_shrink(heap);
  n->consumer = to;
  pel_insert(heap, to->pel, n);
}

void stream_nack_remove(store::Heap& heap, StreamGroup* g, StreamNack* n) {
  pel_erase(g->pel, n->id);
  pel_erase(n->consumer->pel, n->id);
  g->pel.maybe_shrink(heap);
  n->consumer->pel.maybe_shrink(heap);
  heap.release(n);
}

std::int64_t stream_estimate_distance(const Stream* s, const StreamID& id) {
  if (s->entries_added == 0) return 0;
  const auto added = static_cast<std::int64_t>(s->entries_added);
  if (s->length == 0 && id <= s->last_id) return added;
  if (id == s->last_id) return added;
  if (id > s->last_id) return kEntriesReadInvalid;
  if (s->max_deleted_id.zero() || s->max_deleted_id < s->first_id) {
    if (id < s->first_id) return added - static_cast<std::int64_t>(s->length);
    if (id == s->first_id) return added - static_cast<std::int64_t>(s->length) + 1;
  }
  return kEntriesReadInvalid;
}

bool stream_range_has_tombstones(const Stream* s, const StreamID& start, const StreamID& end) {
  if (s->length == 0 || s->max_deleted_id.zero()) return false;
  if (s->first_id > s->max_deleted_id) return false;
  return start <= s->max_deleted_id && s->max_deleted_id <= end;
}

bool stream_group_lag(const Stream* s, const StreamGroup* g, std::int64_t* lag) {
  const auto added = static_cast<std::int64_t>(s->entries_added);
  if (s->entries_added == 0) {
    *lag = 0;
    return true;
  }
  if (g->entries_read != kEntriesReadInvalid &&
      !stream_range_has_tombstones(s, g->last_id, kStreamMaxId)) {
    *lag = added - g->entries_read;
    return true;
  }
  const std::int64_t read = stream_estimate_distance(s, g->last_id);
  if (read == kEntriesReadInvalid) return false;
  *lag = added - read;
  return true;
}

void stream_group_advance(const Stream* s, StreamGroup* g, const StreamID& id) {
  if (g->entries_read != kEntriesReadInvalid && !stream_range_has_tombstones(s, id, kStreamMaxId)) {
    ++g->entries_read;
  } else if (s->entries_added != 0) {
    g->entries_read = stream_estimate_distance(s, id);
  }
  g->last_id = id;
}

}  // namespace ruvio::types
