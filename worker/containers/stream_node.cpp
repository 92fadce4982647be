#include "worker/containers/stream_node.hpp"

namespace ruvio::types::stream_node {
namespace {

std::int64_t int_at(const Listpack& lp, Pos p) {
  return lp.get(p).i;  // every number of a node is written as an integer
}

constexpr std::uint64_t kMaxDelta = std::uint64_t{1} << 60;

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

namespace {

// A listpack integer element's bytes: encoding + data + backlen.
std::int64_t int_elem(std::int64_t v) {
  std::uint8_t buf[9];
  const std::size_t n = listpack_detail::encode_int(buf, v);
  return static_cast<std::int64_t>(n + listpack_detail::backlen_size(n));
}

// How an entry's ID and flags are written (the head, and what follows it).
struct Coded {
  std::int64_t head;
  std::int64_t seq;  // unpacked, d >= 1
  bool packed;
  bool escape;
};

Coded code_id(const StreamID& prev, const StreamID& id, std::int64_t flags) {
  const std::uint64_t dms = id.ms - prev.ms;
  if (id >= prev && dms < kMaxDelta) {
    const std::uint64_t seq = dms == 0 ? id.seq - prev.seq : id.seq;
    const std::uint64_t d = dms + 1;
    if (seq < 4 && dms < (kMaxDelta >> 4)) {
      return {flags | 4 | static_cast<std::int64_t>(seq << 3) | static_cast<std::int64_t>(d << 5),
              0, true, false};
    }
    return {flags | static_cast<std::int64_t>(d << 3), static_cast<std::int64_t>(seq), false,
            false};
  }
  return {flags, 0, false, true};
}

}  // namespace

std::int64_t redis_entry_extra(const StreamID& master, const StreamID& prev, const StreamID& id,
                               bool same, std::int64_t nfields) {
  const std::int64_t flags = same ? kFlagSameFields : 0;
  const std::int64_t redis = int_elem(flags) +
                             int_elem(static_cast<std::int64_t>(id.ms - master.ms)) +
                             int_elem(static_cast<std::int64_t>(id.seq - master.seq)) +
                             int_elem(same ? 3 + nfields : 4 + 2 * nfields);
  const Coded c = code_id(prev, id, flags);
  std::int64_t ours = int_elem(c.head);
  if (c.escape) {
    ours +=
        int_elem(static_cast<std::int64_t>(id.ms)) + int_elem(static_cast<std::int64_t>(id.seq));
  } else if (!c.packed) {
    ours += int_elem(c.seq);
  }
  return redis - ours;
}

std::int64_t append(store::Heap& heap, Listpack& lp, const StreamID& master, const StreamID& prev,
                    const StreamID& id, std::span<const std::string_view> fv) {
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
  const Coded c = code_id(prev, id, same ? kFlagSameFields : 0);
  lp.append(heap, c.head);
  if (c.escape) {
    lp.append(heap, static_cast<std::int64_t>(id.ms));
    lp.append(heap, static_cast<std::int64_t>(id.seq));
  } else if (!c.packed) {
    lp.append(heap, c.seq);
  }
  if (!same) lp.append(heap, n);
  for (std::int64_t i = 0; i < n; ++i) {
    if (!same) lp.append(heap, Listpack::Elem(fv[i * 2]));
    lp.append(heap, Listpack::Elem(fv[i * 2 + 1]));
  }
  return redis_entry_extra(master, prev, id, same, n);
}

namespace {

// Decodes the head at `p` (and what follows it) into the ID; returns the position after.
Pos decode_id(const Listpack& lp, Pos p, const StreamID& prev, std::uint64_t head, StreamID& id) {
  p = lp.next(p);
  if (head & 4) {
    const std::uint64_t seq = (head >> 3) & 3, d = head >> 5;
    id.ms = prev.ms + (d - 1);
    id.seq = d == 1 ? prev.seq + seq : seq;
    return p;
  }
  const std::uint64_t d = head >> 3;
  if (d == 0) {
    id.ms = static_cast<std::uint64_t>(int_at(lp, p));
    p = lp.next(p);
    id.seq = static_cast<std::uint64_t>(int_at(lp, p));
  } else {
    const auto seq = static_cast<std::uint64_t>(int_at(lp, p));
    id.ms = prev.ms + (d - 1);
    id.seq = d == 1 ? prev.seq + seq : seq;
  }
  return lp.next(p);
}

}  // namespace

EntryView read(const Listpack& lp, const Header& h, const StreamID& prev, Pos at) {
  EntryView e;
  e.head_pos = at;
  const auto head = static_cast<std::uint64_t>(int_at(lp, at));
  e.flags = static_cast<std::int64_t>(head & 3);
  Pos p = decode_id(lp, at, prev, head, e.id);
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
  e.next = p;
  return e;
}

std::int64_t redis_extra(const Listpack& lp, const StreamID& master) {
  const Header h = header(lp);
  std::int64_t extra = 0;
  StreamID prev = first_prev(master);
  for (Pos p = h.first_entry; p != Listpack::kNone;) {
    const EntryView e = read(lp, h, prev, p);
    extra += redis_entry_extra(master, prev, e.id, e.same_fields(), e.nfields);
    prev = e.id;
    p = e.next;
  }
  return extra;
}

void mark_deleted(store::Heap& heap, Listpack& lp, const EntryView& e) {
  const std::int64_t head = int_at(lp, e.head_pos);
  lp.replace(heap, e.head_pos, head | kFlagDeleted);
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
  StreamID prev = first_prev(master);
  bool any = false;
  while (p != Listpack::kNone) {
    if (!is_int(p)) return false;
    const auto head = static_cast<std::uint64_t>(lp.get(p).i);
    p = lp.next(p);
    // Entries need not ascend: after an XSETID below a deleted top, later entries may sort
    // below earlier tombstones, as in Redis.
    StreamID id;
    if (head & 4) {
      id.ms = prev.ms + ((head >> 5) - 1);
      id.seq = (head >> 5) == 1 ? prev.seq + ((head >> 3) & 3) : (head >> 3) & 3;
      if ((head >> 5) == 0) return false;
    } else if ((head >> 3) == 0) {
      if (!is_int(p)) return false;
      id.ms = static_cast<std::uint64_t>(lp.get(p).i);
      p = lp.next(p);
      if (!is_int(p)) return false;
      id.seq = static_cast<std::uint64_t>(lp.get(p).i);
      p = lp.next(p);
    } else {
      if (!is_int(p)) return false;
      const auto seq = static_cast<std::uint64_t>(lp.get(p).i);
      id.ms = prev.ms + ((head >> 3) - 1);
      id.seq = (head >> 3) == 1 ? prev.seq + seq : seq;
      p = lp.next(p);
    }
    std::int64_t skip;
    if (head & kFlagSameFields) {
      skip = nfields;
    } else {
      if (!is_int(p)) return false;
      const std::int64_t n = lp.get(p).i;
      if (n < 0 || static_cast<std::size_t>(n) > total) return false;
      p = lp.next(p);
      skip = n * 2;
    }
    for (std::int64_t i = 0; i < skip; ++i) {
      if (p == Listpack::kNone) return false;
      p = lp.next(p);
    }
    if (!any && first != nullptr) *first = id;
    prev = id;
    any = true;
    if (head & kFlagDeleted) {
      ++dead;
    } else {
      ++live;
    }
  }
  if (live != count || dead != deleted) return false;
  if (last != nullptr) *last = prev;
  return any;
}

}  // namespace ruvio::types::stream_node
