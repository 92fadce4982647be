#include "worker/types/stream/stream.hpp"

#include <cstring>
#include <new>

#include "worker/types/stream/stream_group.hpp"

namespace ruvio::types {
namespace {

using stream_node::EntryView;
using stream_node::Header;

constexpr std::size_t kListpackMaxSize = std::size_t{1} << 30;  // STREAM_LISTPACK_MAX_SIZE

Listpack node_lp(const StreamNodeRef& n) {
  return Listpack(n.lp);
}

void free_node(store::Heap& heap, Stream* s, std::size_t i) {
  Listpack lp(s->nodes[i].lp);
  lp.destroy(heap);
  s->nodes.erase(i);
}

}  // namespace

Stream* stream_create(store::Heap& heap) {
  auto* s = static_cast<Stream*>(heap.alloc(sizeof(Stream)));
  std::memset(static_cast<void*>(s), 0, sizeof(Stream));
  s->type_id = kTypeStream;
  s->enc = 0;
  return s;
}

void stream_destroy(store::Heap& heap, Stream* s) {
  for (StreamNodeRef& n : s->nodes) node_lp(n).destroy(heap);
  s->nodes.release(heap);
  stream_groups_destroy(heap, s->groups);
  heap.release(s);
}

Stream* stream_copy(store::Heap& heap, const Stream* src) {
  Stream* s = stream_create(heap);
  std::memcpy(static_cast<void*>(s), src, sizeof(Stream));
  s->nodes = {};
  s->groups = nullptr;
  s->nodes.reserve(heap, src->nodes.size());
  for (const StreamNodeRef& n : src->nodes) {
    s->nodes.push_back(heap, {n.master, n.last, node_lp(n).clone(heap).blob(), n.redis_extra});
  }
  s->groups = stream_groups_copy(heap, src->groups);
  return s;
}

std::size_t stream_memory(const Stream* s) {
  std::size_t n = mi_usable_size(const_cast<Stream*>(s)) + s->nodes.alloc_bytes();
  for (const StreamNodeRef& r : s->nodes) n += mi_usable_size(r.lp);
  return n + stream_groups_memory(s->groups);
}

std::size_t stream_node_for(const Stream* s, const StreamID& id) {
  std::size_t lo = 0, hi = s->nodes.size();  // first master > id
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (s->nodes[mid].master <= id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? SIZE_MAX : lo - 1;
}

StreamAppend stream_append(store::Heap& heap, Stream* s, const ParsedStreamId* use_id,
                           std::span<const std::string_view> fv, const StreamLimits& lim,
                           std::int64_t now_ms, StreamID* added) {
  StreamID id;
  if (use_id != nullptr) {
    if (use_id->seq_given) {
      id = use_id->id;
    } else if (s->last_id.ms == use_id->id.ms) {
      if (s->last_id.seq == UINT64_MAX) return StreamAppend::kIdTooSmall;
      id = s->last_id;
      ++id.seq;
    } else {
      id = use_id->id;
    }
    if (id <= s->last_id) return StreamAppend::kIdTooSmall;
  } else {
    const auto ms = static_cast<std::uint64_t>(now_ms);
    if (ms > s->last_id.ms) {
      id = {ms, 0};
    } else {
      id = s->last_id;
      stream_id_incr(id);
    }
  }
  std::size_t totelelen = 0;
  for (std::string_view e : fv) totelelen += e.size();
  if (totelelen > kListpackMaxSize) return StreamAppend::kTooLarge;

  bool new_node = s->nodes.empty();
  if (!new_node) {
    Listpack lp = node_lp(s->nodes.back());
    std::size_t max_bytes = lim.node_max_bytes;
    if (max_bytes == 0 || max_bytes > kListpackMaxSize) max_bytes = kListpackMaxSize;
    const auto redis_bytes = static_cast<std::size_t>(static_cast<std::int64_t>(lp.bytes()) +
                                                      s->nodes.back().redis_extra);
    if (redis_bytes + totelelen >= max_bytes) {
      new_node = true;
    } else if (lim.node_max_entries != 0) {
      const Header h = stream_node::header(lp);
      if (h.count + h.deleted >= lim.node_max_entries) new_node = true;
    }
  }
  // The tail is the node with the largest master (rax's "$"). A new node goes where its
  // master sorts: after an XSETID below a deleted top that is not the end.
  std::size_t at = s->nodes.size() - (new_node ? 0 : 1);
  if (new_node) {
    Listpack lp = stream_node::create(heap, fv);
    at = stream_node_for(s, id);
    at = at == SIZE_MAX ? 0 : at + 1;
    s->nodes.insert(heap, at, {id, stream_node::first_prev(id), lp.blob(), 0});
  }
  StreamNodeRef& n = s->nodes[at];
  Listpack lp = node_lp(n);
  n.redis_extra += stream_node::append(heap, lp, n.master, n.last, id, fv);
  n.lp = lp.blob();
  n.last = id;
  ++s->length;
  ++s->entries_added;
  s->last_id = id;
  if (s->length == 1) s->first_id = id;
  if (added != nullptr) *added = id;
  return StreamAppend::kOk;
}

std::int64_t stream_trim(store::Heap& heap, Stream* s, const StreamTrim& t) {
  if (t.strategy == StreamTrim::kNone) return 0;
  std::int64_t deleted = 0;
  const auto maxlen = static_cast<std::uint64_t>(t.maxlen);
  std::size_t drop = 0;  // whole nodes removed from the front
  while (drop < s->nodes.size()) {
    if (t.strategy == StreamTrim::kMaxLen && s->length <= maxlen) break;
    StreamNodeRef& n = s->nodes[drop];
    Listpack lp = node_lp(n);
    Header h = stream_node::header(lp);
    const std::int64_t entries = h.count;
    if (t.limit != 0 && deleted + entries > t.limit) break;
    bool remove_node;
    if (t.strategy == StreamTrim::kMaxLen) {
      remove_node = s->length - static_cast<std::uint64_t>(entries) >= maxlen;
    } else {
      remove_node = n.last < t.minid;
    }
    if (remove_node) {
      lp.destroy(heap);
      ++drop;
      s->length -= static_cast<std::uint64_t>(entries);
      deleted += entries;
      continue;
    }
    if (t.approx) break;
    // Tombstones inside this node, from its front, until the target is met.
    std::int64_t from_lp = 0;
    Listpack::Pos p = h.first_entry;
    StreamID prev = stream_node::first_prev(n.master);
    while (p != Listpack::kNone) {
      const EntryView e = stream_node::read(lp, h, prev, p);
      const bool stop = t.strategy == StreamTrim::kMaxLen ? s->length <= maxlen : e.id >= t.minid;
      if (stop) break;
      p = e.next;
      prev = e.id;
      if (!e.deleted()) {
        // The head keeps its width when flagged, so `p` stays where it was.
        lp.replace(heap, e.head_pos, lp.get(e.head_pos).i | stream_node::kFlagDeleted);
        ++from_lp;
        --s->length;
      }
    }
    deleted += from_lp;
    Listpack::Pos c = lp.first();
    c = lp.replace(heap, c, h.count - from_lp);
    c = lp.next(c);
    lp.replace(heap, c, h.deleted + from_lp);
    n.lp = lp.blob();
    break;  // what was left to trim was inside this node
  }
  if (drop != 0) {
    s->nodes.erase(0, drop);
    s->nodes.maybe_shrink(heap);
  }
  if (deleted != 0) stream_refresh_first_id(s);
  return deleted;
}

bool stream_delete(store::Heap& heap, Stream* s, const StreamID& id) {
  // The iterator's lookup (streamDeleteItem uses one): it knows tombstones and nodes whose
  // entries do not ascend.
  StreamIter it(s, id, id, false);
  if (!it.next()) return false;
  const std::size_t i = it.node_index();
  const EntryView e = it.entry();
  StreamNodeRef& n = s->nodes[i];
  Listpack lp = node_lp(n);
  if (stream_node::header(lp).count == 1) {
    free_node(heap, s, i);
    s->nodes.maybe_shrink(heap);
  } else {
    stream_node::mark_deleted(heap, lp, e);
    n.lp = lp.blob();
  }
  --s->length;
  return true;
}

StreamID stream_edge_id(const Stream* s, bool first) {
  // The last entry of the tail node is live unless XDEL took it (then max_deleted_id is at
  // or past it; trims never leave the tail's last entry a tombstone): no walk for XREAD's
  // "is there anything new" on every call.
  if (!first && s->length != 0 && s->max_deleted_id < s->nodes.back().last) {
    return s->nodes.back().last;
  }
  StreamIter it(s, kStreamMinId, kStreamMaxId, !first);
  if (it.next()) return it.id();
  return first ? kStreamMaxId : kStreamMinId;
}

void stream_refresh_first_id(Stream* s) {
  s->first_id = s->length == 0 ? kStreamMinId : stream_edge_id(s, true);
}

// ---- iteration -------------------------------------------------------------------------

StreamIter::StreamIter(const Stream* s, const StreamID& start, const StreamID& end, bool rev)
    : s_(s), start_(start), end_(end), rev_(rev) {
  if (s->nodes.empty() || start > end) {
    done_ = true;
    return;
  }
  std::size_t i = stream_node_for(s, rev ? end : start);
  if (i == SIZE_MAX) {
    if (rev) {
      done_ = true;
      return;
    }
    i = 0;
  }
  enter(i);
}

void StreamIter::enter(std::size_t node) {
  node_ = node;
  const StreamNodeRef& n = s_->nodes[node];
  lp_ = Listpack(n.lp);
  hdr_ = stream_node::header(lp_);
  pos_ = hdr_.first_entry;
  prev_ = stream_node::first_prev(n.master);
  if (!rev_) return;
  // Backwards: read the node forward once, then step back through what was read.
  const auto total = static_cast<std::size_t>(hdr_.count + hdr_.deleted);
  seen_ = inline_;
  if (total > kInlineSeen) {
    more_.resize(total);
    seen_ = more_.data();
  }
  left_ = 0;
  StreamID prev = prev_;
  for (Listpack::Pos p = pos_; p != Listpack::kNone && left_ < total; ++left_) {
    seen_[left_] = {p, prev};
    const stream_node::EntryView e = stream_node::read(lp_, hdr_, prev, p);
    prev = e.id;
    p = e.next;
  }
}

bool StreamIter::next() {
  while (!done_) {
    if (rev_ ? left_ == 0 : pos_ == Listpack::kNone) {
      if (rev_) {
        if (node_ == 0) break;
        enter(node_ - 1);
      } else {
        if (node_ + 1 >= s_->nodes.size()) break;
        enter(node_ + 1);
      }
      continue;
    }
    if (rev_) {
      --left_;
      cur_ = stream_node::read(lp_, hdr_, seen_[left_].prev, seen_[left_].pos);
    } else {
      cur_ = stream_node::read(lp_, hdr_, prev_, pos_);
      pos_ = cur_.next;
      prev_ = cur_.id;
    }
    // Tombstones are skipped before the range test, as streamIteratorGetID does: after an
    // XSETID below a deleted top, a node may hold a tombstone above a later, lower entry.
    if (cur_.deleted()) continue;
    if (rev_) {
      if (cur_.id < start_) break;
      if (cur_.id > end_) continue;
    } else {
      if (cur_.id > end_) break;
      if (cur_.id < start_) continue;
    }
    return true;
  }
  done_ = true;
  return false;
}

}  // namespace ruvio::types
