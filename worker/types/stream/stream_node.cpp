#include "worker/types/stream/stream_node.hpp"

#include <vector>

namespace ruvio::types::stream_node {
namespace {

std::int64_t int_at(const Listpack& lp, Pos p) {
  const Listpack::Entry e = lp.get(p);
  return e.i;  // every number of a node is written as an integer
}

}  // namespace

Listpack create(store::Heap& heap, std::span<const std::string_view> fv) {
  Listpack lp = Listpack::create(heap);
  const std::size_t n = fv.size() / 2;
  lp.append(heap, 0);  // count: append() makes it 1
  lp.append(heap, 0);
  lp.append(heap, static_cast<std::int64_t>(n));
  for (std::size_t i = 0; i < n; ++i) lp.append(heap, Listpack::Elem(fv[i * 2]));
  lp.append(heap, 0);
  return lp;
}

Header header(const Listpack& lp) {
  Header h;
  Pos p = lp.first();
  h.count = int_at(lp, p);
  p = lp.next(p);
  h.deleted = int_at(lp, p);
  p = lp.next(p);
  h.nfields = int_at(lp, p);
  p = lp.next(p);
  h.first_field = p;
  for (std::int64_t i = 0; i < h.nfields; ++i) p = lp.next(p);
  h.first_entry = lp.next(p);  // past the master terminator
  return h;
}

void append(store::Heap& heap, Listpack& lp, const StreamID& master, const StreamID& id,
            std::span<const std::string_view> fv) {
  const std::int64_t n = static_cast<std::int64_t>(fv.size() / 2);
  Pos p = lp.first();
  const std::int64_t count = int_at(lp, p);
  lp.replace(heap, p, count + 1);
  const Header h = header(lp);
  bool same = n == h.nfields;
  if (same) {
    Pos f = h.first_field;
    for (std::int64_t i = 0; i < n && same; ++i, f = lp.next(f)) same = lp.equals(f, fv[i * 2]);
  }
  const std::int64_t flags = same ? kFlagSameFields : 0;
  lp.append(heap, flags);
  lp.append(heap, static_cast<std::int64_t>(id.ms - master.ms));
  lp.append(heap, static_cast<std::int64_t>(id.seq - master.seq));
  if (!same) lp.append(heap, n);
  for (std::int64_t i = 0; i < n; ++i) {
    if (!same) lp.append(heap, Listpack::Elem(fv[i * 2]));
    lp.append(heap, Listpack::Elem(fv[i * 2 + 1]));
  }
  lp.append(heap, same ? 3 + n : 4 + 2 * n);
}

EntryView read(const Listpack& lp, const Header& h, const StreamID& master, Pos at) {
  EntryView e;
  e.flags_pos = at;
  e.flags = int_at(lp, at);
  Pos p = lp.next(at);
  e.id.ms = master.ms + static_cast<std::uint64_t>(int_at(lp, p));
  p = lp.next(p);
  e.id.seq = master.seq + static_cast<std::uint64_t>(int_at(lp, p));
  p = lp.next(p);
  std::int64_t skip;
  if (e.same_fields()) {
    e.nfields = h.nfields;
    skip = e.nfields;
  } else {
    e.nfields = int_at(lp, p);
    p = lp.next(p);
    skip = e.nfields * 2;
  }
  e.fields = p;
  for (std::int64_t i = 0; i < skip; ++i) p = lp.next(p);
  e.lp_count = p;
  return e;
}

Pos next(const Listpack& lp, const EntryView& e) {
  return lp.next(e.lp_count);
}

Pos prev(const Listpack& lp, Pos flags_pos) {
  Pos p = lp.prev(flags_pos);
  const std::int64_t n = int_at(lp, p);
  if (n == 0) return Listpack::kNone;  // the master terminator
  for (std::int64_t i = 0; i < n; ++i) p = lp.prev(p);
  return p;
}

Pos last_entry(const Listpack& lp) {
  const Pos end = lp.last();
  const std::int64_t n = int_at(lp, end);
  if (n == 0) return Listpack::kNone;
  Pos p = end;
  for (std::int64_t i = 0; i < n; ++i) p = lp.prev(p);
  return p;
}

void mark_deleted(store::Heap& heap, Listpack& lp, const EntryView& e) {
  // Flags stay a one-byte integer, so the positions after them do not move.
  lp.replace(heap, e.flags_pos, e.flags | kFlagDeleted);
  Pos p = lp.first();
  const std::int64_t count = int_at(lp, p);
  p = lp.replace(heap, p, count - 1);
  p = lp.next(p);
  const std::int64_t deleted = int_at(lp, p);
  lp.replace(heap, p, deleted + 1);
}

bool validate(std::span<const std::uint8_t> bytes, const StreamID& master, StreamID* first,
              StreamID* last) {
  std::size_t total = 0;
  if (!Listpack::validate(bytes, &total)) return false;
  // validate() never writes; a handle is a read-only view here.
  Listpack lp(const_cast<std::uint8_t*>(bytes.data()));
  auto is_int = [&](Pos p) { return p != Listpack::kNone && lp.get(p).is_int; };
  Pos p = lp.first();
  std::int64_t v[3];
  for (auto& x : v) {
    if (!is_int(p)) return false;
    x = lp.get(p).i;
    p = lp.next(p);
  }
  const std::int64_t count = v[0], deleted = v[1], nfields = v[2];
  if (count < 0 || deleted < 0 || nfields < 0 || count + deleted < 1) return false;
  if (static_cast<std::size_t>(nfields) > total) return false;
  for (std::int64_t i = 0; i < nfields; ++i) {
    if (p == Listpack::kNone) return false;
    p = lp.next(p);
  }
  if (!is_int(p) || lp.get(p).i != 0) return false;
  p = lp.next(p);
  std::int64_t live = 0, dead = 0;
  StreamID prev_id;
  bool any = false;
  while (p != Listpack::kNone) {
    std::int64_t elems = 0;
    if (!is_int(p)) return false;
    const std::int64_t flags = lp.get(p).i;
    if (flags & ~(kFlagDeleted | kFlagSameFields)) return false;
    p = lp.next(p);
    if (!is_int(p)) return false;
    StreamID id;
    id.ms = master.ms + static_cast<std::uint64_t>(lp.get(p).i);
    p = lp.next(p);
    if (!is_int(p)) return false;
    id.seq = master.seq + static_cast<std::uint64_t>(lp.get(p).i);
    p = lp.next(p);
    elems = 3;
    std::int64_t skip;
    if (flags & kFlagSameFields) {
      skip = nfields;
    } else {
      if (!is_int(p)) return false;
      const std::int64_t n = lp.get(p).i;
      if (n < 0 || static_cast<std::size_t>(n) > total) return false;
      p = lp.next(p);
      ++elems;
      skip = n * 2;
    }
    for (std::int64_t i = 0; i < skip; ++i) {
      if (p == Listpack::kNone) return false;
      p = lp.next(p);
    }
    elems += skip;
    if (!is_int(p) || lp.get(p).i != elems) return false;
    p = lp.next(p);
    // No order is required: after an XSETID below a deleted top, later entries may sort
    // below earlier tombstones (and below the master), as in Redis.
    if (!any && first != nullptr) *first = id;
    prev_id = id;
    any = true;
    if (flags & kFlagDeleted) {
      ++dead;
    } else {
      ++live;
    }
  }
  if (live != count || dead != deleted) return false;
  if (last != nullptr) *last = prev_id;
  return any;
}

}  // namespace ruvio::types::stream_node
