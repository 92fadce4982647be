#include "worker/persist/rdb_stream.hpp"

#include <algorithm>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "worker/containers/listpack.hpp"
#include "worker/store/record.hpp"
#include "worker/types/stream/stream.hpp"
#include "worker/types/stream/stream_group.hpp"

namespace ruvio::persist::rdb {
namespace {

using types::Listpack;
using types::StreamID;

// Redis's node limits at their defaults (stream-node-max-entries / -bytes): any split loads.
constexpr std::size_t kNodeEntries = 100;
constexpr std::size_t kNodeBytes = 4096;

// A listpack written into a string (no heap: DUMP has none), as lpAppend writes it.
class LpWriter {
 public:
  LpWriter() { buf_.assign(types::Listpack::kHeaderBytes, '\0'); }
  void add_int(std::int64_t v) {
    std::uint8_t enc[9];
    const std::size_t n = types::listpack_detail::encode_int(enc, v);
    put(enc, n);
  }
  void add(std::string_view s) {
    std::int64_t v = 0;
    if (containers::parse_canonical_int(s, &v)) return add_int(v);
    std::string e;
    if (s.size() < 64) {
      e.push_back(static_cast<char>(0x80 | s.size()));
    } else if (s.size() < 4096) {
      e.push_back(static_cast<char>(0xE0 | (s.size() >> 8)));
      e.push_back(static_cast<char>(s.size() & 0xff));
    } else {
      e.push_back(static_cast<char>(0xF0));
      for (int i = 0; i < 4; ++i) e.push_back(static_cast<char>((s.size() >> (8 * i)) & 0xff));
    }
    e.append(s);
    put(reinterpret_cast<const std::uint8_t*>(e.data()), e.size());
  }
  void add(const Listpack::Entry& e) { e.is_int ? add_int(e.i) : add(e.str); }
  std::size_t bytes() const { return buf_.size() + 1; }
  std::string finish() {
    buf_.push_back(static_cast<char>(Listpack::kEnd));
    const std::uint32_t total = static_cast<std::uint32_t>(buf_.size());
    for (int i = 0; i < 4; ++i) buf_[i] = static_cast<char>((total >> (8 * i)) & 0xff);
    const std::uint16_t c = count_ < 65535 ? static_cast<std::uint16_t>(count_) : 65535;
    buf_[4] = static_cast<char>(c & 0xff);
    buf_[5] = static_cast<char>(c >> 8);
    return std::move(buf_);
  }

 private:
  void put(const std::uint8_t* enc, std::size_t n) {
    buf_.append(reinterpret_cast<const char*>(enc), n);
    std::uint8_t bl[5];
    types::listpack_detail::encode_backlen(bl, n);
    buf_.append(reinterpret_cast<const char*>(bl), types::listpack_detail::backlen_size(n));
    ++count_;
  }
  std::string buf_;
  std::size_t count_ = 0;
};

void put_id_raw(std::string& out, const StreamID& id) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((id.ms >> (8 * i)) & 0xff));
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((id.seq >> (8 * i)) & 0xff));
}

bool read_id_raw(Reader& r, StreamID& id) {
  std::string_view s;
  if (!r.raw(16, s)) return false;
  id = {};
  for (int i = 0; i < 8; ++i) id.ms = (id.ms << 8) | static_cast<std::uint8_t>(s[i]);
  for (int i = 8; i < 16; ++i) id.seq = (id.seq << 8) | static_cast<std::uint8_t>(s[i]);
  return true;
}

struct Entry {
  StreamID id;
  std::vector<std::string> fv;  // field, value, ...
};

// One node of Redis's listpack format from a run of live entries.
std::string make_node(const std::vector<Entry>& es, std::size_t from, std::size_t to) {
  LpWriter lp;
  const Entry& master = es[from];
  const std::size_t nf = master.fv.size() / 2;
  lp.add_int(static_cast<std::int64_t>(to - from));
  lp.add_int(0);
  lp.add_int(static_cast<std::int64_t>(nf));
  for (std::size_t i = 0; i < nf; ++i) lp.add(master.fv[2 * i]);
  lp.add_int(0);
  for (std::size_t k = from; k < to; ++k) {
    const Entry& e = es[k];
    bool same = e.fv.size() == master.fv.size();
    for (std::size_t i = 0; same && i < nf; ++i) same = e.fv[2 * i] == master.fv[2 * i];
    lp.add_int(same ? 2 : 0);
    lp.add_int(static_cast<std::int64_t>(e.id.ms - master.id.ms));
    lp.add_int(static_cast<std::int64_t>(e.id.seq - master.id.seq));
    const std::size_t n = e.fv.size() / 2;
    if (same) {
      for (std::size_t i = 0; i < n; ++i) lp.add(e.fv[2 * i + 1]);
    } else {
      lp.add_int(static_cast<std::int64_t>(n));
      for (const std::string& s : e.fv) lp.add(s);
    }
    lp.add_int(static_cast<std::int64_t>(same ? n + 3 : 2 * n + 4));
  }
  return lp.finish();
}

}  // namespace

void encode_stream(const types::Object* o, std::string& out) {
  const auto* s = static_cast<const types::Stream*>(o);
  std::vector<Entry> es;
  types::StreamIter it(s, types::kStreamMinId, types::kStreamMaxId, false);
  while (it.next()) {
    Entry& e = es.emplace_back();
    e.id = it.id();
    it.for_each_pair([&](const Listpack::Entry& f, const Listpack::Entry& v) {
      e.fv.emplace_back(f.is_int ? std::to_string(f.i) : std::string(f.str));
      e.fv.emplace_back(v.is_int ? std::to_string(v.i) : std::string(v.str));
    });
  }
  // Node boundaries first (the count is written before the nodes).
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0, bytes = 0; i < es.size(); ++i) {
    std::size_t add = 16;
    for (const std::string& f : es[i].fv) add += f.size() + 2;
    if (cuts.empty() || i - cuts.back() >= kNodeEntries || bytes + add > kNodeBytes) {
      cuts.push_back(i);
      bytes = 0;
    }
    bytes += add;
  }
  out.push_back(static_cast<char>(kStreamListpacks2));
  put_len(out, cuts.size());
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    const std::size_t to = c + 1 < cuts.size() ? cuts[c + 1] : es.size();
    std::string key;
    put_id_raw(key, es[cuts[c]].id);
    put_string(out, key);
    put_string(out, make_node(es, cuts[c], to));
  }
  put_len(out, s->length);
  put_len(out, s->last_id.ms);
  put_len(out, s->last_id.seq);
  put_len(out, s->first_id.ms);
  put_len(out, s->first_id.seq);
  put_len(out, s->max_deleted_id.ms);
  put_len(out, s->max_deleted_id.seq);
  put_len(out, s->entries_added);
  const std::size_t ng = s->groups != nullptr ? s->groups->list.size() : 0;
  put_len(out, ng);
  for (std::size_t g = 0; g < ng; ++g) {
    const types::StreamGroup* grp = s->groups->list[g];
    put_string(out, grp->name());
    put_len(out, grp->last_id.ms);
    put_len(out, grp->last_id.seq);
    put_len(out, static_cast<std::uint64_t>(grp->entries_read));
    put_len(out, grp->pel.size());
    for (const types::StreamNack* n : grp->pel) {
      put_id_raw(out, n->id);
      put_u64_le(out, static_cast<std::uint64_t>(n->delivery_time));
      put_len(out, n->delivery_count);
    }
    put_len(out, grp->consumers.size());
    for (const types::StreamConsumer* c : grp->consumers) {
      put_string(out, c->name());
      put_u64_le(out, static_cast<std::uint64_t>(c->seen_time));
      put_len(out, c->pel.size());
      for (const types::StreamNack* n : c->pel) put_id_raw(out, n->id);
    }
  }
}

namespace {

// Reads one Redis node into entries (live ones only), checking it as
// streamValidateListpackIntegrity(deep) does.
bool read_node(const StreamID& master, std::string& blob, std::vector<Entry>& out) {
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(blob.data()),
                                            blob.size());
  if (!Listpack::validate(bytes)) return false;
  const Listpack lp(reinterpret_cast<std::uint8_t*>(blob.data()));
  Listpack::Pos p = lp.first();
  auto next_int = [&](std::int64_t& v) {
    if (p == Listpack::kNone) return false;
    const auto i = lp.get_int(p);
    if (!i) return false;
    v = *i;
    p = lp.next(p);
    return true;
  };
  Listpack::IntBuf buf;
  auto next_str = [&](std::string& s) {
    if (p == Listpack::kNone) return false;
    s.assign(lp.get_str(p, buf));
    p = lp.next(p);
    return true;
  };
  std::int64_t count = 0, deleted = 0, nf = 0, zero = 0;
  if (!next_int(count) || !next_int(deleted) || !next_int(nf) || count < 0 || deleted < 0 ||
      nf < 0 || count + deleted == 0) {
    return false;
  }
  std::vector<std::string> fields(static_cast<std::size_t>(nf));
  for (std::string& f : fields) {
    if (!next_str(f)) return false;
  }
  if (!next_int(zero) || zero != 0) return false;
  std::int64_t seen_live = 0, seen_deleted = 0;
  while (p != Listpack::kNone) {
    std::int64_t flags = 0, dms = 0, dseq = 0, n = nf, lpcount = 0;
    if (!next_int(flags) || !next_int(dms) || !next_int(dseq)) return false;
    const bool same = (flags & 2) != 0;
    if (!same && (!next_int(n) || n < 0)) return false;
    Entry e;
    e.id = {master.ms + static_cast<std::uint64_t>(dms),
            master.seq + static_cast<std::uint64_t>(dseq)};
    e.fv.reserve(static_cast<std::size_t>(2 * n));
    for (std::int64_t i = 0; i < n; ++i) {
      if (same) {
        e.fv.push_back(fields[static_cast<std::size_t>(i)]);
      } else if (!next_str(e.fv.emplace_back())) {
        return false;
      }
      if (!next_str(e.fv.emplace_back())) return false;
    }
    if (!next_int(lpcount) || lpcount != (same ? n + 3 : 2 * n + 4)) return false;
    if ((flags & 1) != 0) {
      ++seen_deleted;
    } else {
      ++seen_live;
      if (n == 0) return false;  // XADD never writes an entry without fields
      out.push_back(std::move(e));
    }
  }
  return seen_live == count && seen_deleted == deleted;
}

struct PendingNack {
  StreamID id;
  std::int64_t delivery_time;
  std::uint64_t delivery_count;
  bool owned = false;
};

bool read_groups(store::Heap& heap, Reader& r, types::Stream* s, bool v2) {
  std::uint64_t ng = 0;
  if (!r.len(ng)) return false;
  for (std::uint64_t g = 0; g < ng; ++g) {
    std::string name;
    StreamID last;
    std::uint64_t er = 0;
    if (!r.string(name) || !r.len(last.ms) || !r.len(last.seq)) return false;
    std::int64_t entries_read = types::kEntriesReadInvalid;
    if (v2) {
      if (!r.len(er)) return false;
      entries_read = static_cast<std::int64_t>(er);
    } else {
      entries_read = types::stream_estimate_distance(s, last);
    }
    types::StreamGroup* grp = types::stream_group_create(heap, s, name, last, entries_read);
    if (grp == nullptr) return false;  // a duplicate group
    std::uint64_t npel = 0;
    if (!r.len(npel) || npel > r.remaining() / 25) return false;
    std::vector<PendingNack> pel(static_cast<std::size_t>(npel));
    for (PendingNack& n : pel) {
      std::uint64_t t = 0;
      if (!read_id_raw(r, n.id) || !r.u64_le(t) || !r.len(n.delivery_count)) return false;
      n.delivery_time = static_cast<std::int64_t>(t);
    }
    for (std::size_t i = 1; i < pel.size(); ++i) {
      if (!(pel[i - 1].id < pel[i].id)) return false;  // duplicated or unordered PEL
    }
    std::uint64_t nc = 0;
    if (!r.len(nc)) return false;
    for (std::uint64_t c = 0; c < nc; ++c) {
      std::string cname;
      std::uint64_t seen = 0, ncpel = 0;
      if (!r.string(cname) || !r.u64_le(seen) || !r.len(ncpel)) return false;
      types::StreamConsumer* con =
          types::stream_consumer_create(heap, grp, cname, static_cast<std::int64_t>(seen));
      if (con == nullptr) return false;  // a duplicate consumer
      for (std::uint64_t k = 0; k < ncpel; ++k) {
        StreamID id;
        if (!read_id_raw(r, id)) return false;
        auto it =
            std::lower_bound(pel.begin(), pel.end(), id,
                             [](const PendingNack& a, const StreamID& b) { return a.id < b; });
        if (it == pel.end() || it->id != id || it->owned) return false;
        it->owned = true;
        types::stream_nack_add(heap, grp, con, id, it->delivery_time, it->delivery_count);
      }
    }
    for (const PendingNack& n : pel) {
      if (!n.owned) return false;  // a group PEL entry no consumer holds
    }
  }
  return true;
}

}  // namespace

types::Object* decode_stream(store::Heap& heap, Reader& r, std::uint8_t type) {
  std::uint64_t nodes = 0;
  if (!r.len(nodes) || nodes > r.remaining() / 2) return nullptr;
  std::vector<Entry> es;
  for (std::uint64_t i = 0; i < nodes; ++i) {
    std::string key, blob;
    if (!r.string(key) || key.size() != 16 || !r.string(blob)) return nullptr;
    Reader kr(key);
    StreamID master;
    if (!read_id_raw(kr, master) || !read_node(master, blob, es)) return nullptr;
  }
  types::Stream* s = types::stream_create(heap);
  const types::StreamLimits lim;
  std::vector<std::string_view> fv;
  bool ok = true;
  for (const Entry& e : es) {
    fv.assign(e.fv.begin(), e.fv.end());
    types::ParsedStreamId pid{e.id, true};
    StreamID added;
    if (types::stream_append(heap, s, &pid, fv, lim, 0, &added) != types::StreamAppend::kOk) {
      ok = false;  // IDs out of order across the nodes
      break;
    }
  }
  std::uint64_t length = 0;
  StreamID last, first, maxdel;
  std::uint64_t added = es.size();
  ok = ok && r.len(length) && length == es.size() && r.len(last.ms) && r.len(last.seq) &&
       !(last < s->last_id);
  if (ok && type == kStreamListpacks2) {
    ok = r.len(first.ms) && r.len(first.seq) && r.len(maxdel.ms) && r.len(maxdel.seq) &&
         r.len(added);
  } else if (ok) {
    first = types::stream_edge_id(s, true);
    if (es.empty()) first = {};
  }
  if (ok) {
    s->last_id = last;
    s->first_id = first;
    s->max_deleted_id = maxdel;
    s->entries_added = added;
    ok = read_groups(heap, r, s, type == kStreamListpacks2);
  }
  if (!ok) {
    types::stream_destroy(heap, s);
    return nullptr;
  }
  return s;
}

}  // namespace ruvio::persist::rdb
