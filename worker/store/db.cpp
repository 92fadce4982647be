// Db: the key table, the expiry index and the string operations on records.
//
// The expiry index is a second Table holding the same Record pointers as the main table,
// only for keys with a TTL (keyed by the record's key, same hash). Whenever a TTL key's
// record moves (reallocated), both tables get the new pointer.
//
// The record's clock byte (see record.hpp) has two meanings, chosen per Db:
//   LRU mode (default; noeviction and *-lru): the LRU clock's current generation id, set on
//     every access (lru_clock.hpp: a 256-entry table of generation start times that a
//     bounded background pass keeps from running out, so idle times never wrap).
//   LFU mode (*-lfu): Redis's logarithmic counter (LFU_INIT_VAL 5, lfu-log-factor 10). There
//     is no room for Redis's 16-bit decay timestamp: lfu_decay_step() instead walks the table
//     once per lfu-decay-time period and takes 1 from every counter, which is what Redis's
//     LFUDecrAndReturn computes for a key at its next access (one per period elapsed).
#include "worker/store/db_impl.hpp"

namespace ruvio::store {

// ---- Entry ----------------------------------------------------------------------------------

std::string_view Entry::key() const {
  return rec_->key();
}
Type Entry::type() const {
  return rec_->type();
}
std::int64_t Entry::expire_at() const {
  return rec_->expire_at();
}
bool Entry::is_int() const {
  return rec_->is_int();
}
std::int64_t Entry::int_value() const {
  return rec_->int_value();
}
std::string_view Entry::str() const {
  return rec_->str();
}
bool Entry::shared_str() const {
  return rec_->enc() == Enc::kEmbStr;
}
bool Entry::str_bytes(std::string_view* bytes, bool* shared) const {
  const Enc enc = rec_->enc();
  if (enc >= Enc::kInt1) return false;
  *bytes = rec_->str();
  *shared = enc == Enc::kEmbStr;
  return true;
}
std::size_t Entry::str_len() const {
  return rec_->str_len();
}
std::size_t Entry::memory_usage() const {
  return rec_->memory_usage();
}
std::uint8_t Entry::lfu() const {
  return rec_->clock();
}

std::string_view Entry::type_name() const {
  if (rec_->has_object()) return types::ops_of(rec_->object()).name;
  return "string";
}

const types::Object* Entry::object() const {
  return rec_->has_object() ? rec_->object() : nullptr;
}

std::string_view Entry::encoding() const {
  switch (rec_->enc()) {
    case Enc::kEmbStr:
      return rec_->str().size() <= kEmbstrMax ? "embstr" : "raw";
    case Enc::kEmbRaw:
    case Enc::kExtStr:
      return "raw";
    case Enc::kObject:
    case Enc::kInline: {
      const types::Object* o = rec_->object();
      return types::ops_of(o).encoding(o);
    }
    default:
      return "int";
  }
}

// ---- Db -------------------------------------------------------------------------------------

Db::Db(KeyspaceEvents* events) : impl_(new Impl), used_(&impl_->heap.used) {
  impl_->self = this;
  if (events != nullptr) impl_->ev = events;
}

Db::~Db() {
  clear();
  while (impl_->lazy_step(SIZE_MAX)) {
  }
  delete impl_;
}

void Db::set_lfu_mode(bool lfu, int log_factor) {
  impl_->lfu = lfu;
  impl_->lfu_log_factor = log_factor;
}

bool Db::lfu_mode() const {
  return impl_->lfu;
}

bool Db::lfu_decay_step(std::int64_t now_ms, std::int64_t period_ms, std::size_t budget) {
  Impl& d = *impl_;
  if (!d.lfu || period_ms <= 0) return false;
  if (!d.decaying) {
    if (d.decay_started == 0) d.decay_started = now_ms;  // the first period starts now
    if (now_ms - d.decay_started < period_ms) return false;
    d.decaying = true;
    d.decay_started = now_ms;
    d.decay_pos = 0;
  }
  // A resize during the pass shifts positions: a few keys are then decayed twice or not at
  // all in this period, which the next period evens out.
  d.decaying = d.main.walk(&d.decay_pos, budget, [](Record* r) {
    const std::uint8_t c = r->clock();
    if (c > 0) r->set_clock(static_cast<std::uint8_t>(c - 1));
  });
  return d.decaying;
}

std::int64_t Db::idle_seconds(Entry e, std::int64_t now_ms) const {
  return impl_->ev->lru.idle_seconds(e.lfu(), now_ms);
}

bool Db::lru_remap_step(const LruClock& clock, std::size_t* left) {
  Impl& d = *impl_;
  if (d.lru_epoch == clock.epoch()) return true;
  if (d.lfu || d.main.size() == 0) {  // counters, not generations / nothing to rewrite
    d.lru_epoch = clock.epoch();
    d.lru_cursor = 0;
    return true;
  }
  do {
    std::size_t n = 0;
    d.lru_cursor = d.main.scan(d.lru_cursor, [&](Record* r) {
      r->set_clock(clock.remap(r->clock()));
      ++n;
    });
    *left -= std::min(n, *left);
  } while (d.lru_cursor != 0 && *left > 0);
  if (d.lru_cursor != 0) return false;
  d.lru_epoch = clock.epoch();
  return true;
}

std::size_t Db::sample(bool from_expires, std::size_t want, Entry* out) {
  Impl& d = *impl_;
  const Table& t = from_expires ? d.expires : d.main;
  std::size_t n = 0;
  Record* recs[Table::kSlotsPerBucket];
  for (int picks = 0; picks < 64 && n < want && t.size() > 0; ++picks) {
    const std::size_t got = t.sample_bucket(d.next_rand(), recs);
    // The caller scores every sample from its record (clock byte, key): start all those
    // misses now so they overlap instead of being paid one after the other.
    for (std::size_t i = 0; i < got && n < want; ++i) {
      __builtin_prefetch(recs[i]);
      out[n++] = Entry(recs[i]);
    }
  }
  if (n == 0 && t.size() > 0) {  // a nearly empty table: what one scan step finds
    t.scan(d.next_rand(), [&](Record* r) {
      if (n < want) out[n++] = Entry(r);
    });
  }
  return n;
}

std::size_t Db::evict(std::string_view key, std::uint64_t h) {
  Impl& d = *impl_;
  Table::Ref ref = d.main.find(key, h);
  if (!ref) return 0;
  const std::size_t before = d.heap.used;
  const std::size_t queued = d.lazy_values.size();
  const std::size_t usage = d.lazy_policy.eviction ? ref.get()->memory_usage() : 0;
  // The SET (or other write) that made room usually allocates a record of this size next.
  d.remove(key, h, d.lazy_policy.eviction, /*keep_block=*/true);
  if (d.lazy_values.size() != queued) return usage;
  return before > d.heap.used ? before - d.heap.used : 0;
}

Entry Db::find(std::string_view key, std::int64_t now_ms) {
  Impl& d = *impl_;
  d.now = now_ms;
  Table::Ref ref;
  Record* r = d.lookup(key, d.main.hash(key), &ref);
  if (r == nullptr) return Entry();
  d.touch(r);
  return Entry(r);
}

Entry Db::find_notouch(std::string_view key, std::int64_t now_ms) {
  Impl& d = *impl_;
  d.now = now_ms;
  Table::Ref ref;
  Record* r = d.lookup(key, d.main.hash(key), &ref);
  return r != nullptr ? Entry(r) : Entry();
}

void Db::set_access(std::string_view key, std::int64_t idle_s, std::int64_t freq,
                    std::int64_t now_ms) {
  Impl& d = *impl_;
  Table::Ref ref = d.main.find(key, d.main.hash(key));
  if (!ref) return;
  if (d.lfu) {
    if (freq >= 0) ref.get()->set_clock(static_cast<std::uint8_t>(freq));
  } else if (idle_s >= 0) {
    ref.get()->set_clock(d.ev->lru.back_by(idle_s, now_ms));
  }
}

Entry Db::peek(std::string_view key) const {
  return peek(key, key_hash(key));
}

Entry Db::peek(std::string_view key, std::uint64_t hash) const {
  Table::Ref ref = impl_->main.find(key, hash);
  return ref ? Entry(ref.get()) : Entry();
}

std::uint64_t Db::key_hash(std::string_view key) const {
  return impl_->main.hash(key);
}

void Db::prefetch(std::uint64_t hash, const void* hint) const {
  impl_->main.prefetch(hash);
  if (hint != nullptr) __builtin_prefetch(hint);
}

void Db::set_string(std::string_view key, std::string_view value, const SetOptions& opt) {
  Payload p = Payload::of_string(value, !opt.as_text);
  if (opt.raw && p.enc == Enc::kEmbStr) p.enc = Enc::kEmbRaw;
  impl_->set_value(key, p, opt);
}

void Db::set_int(std::string_view key, std::int64_t value, const SetOptions& opt) {
  impl_->set_value(key, Payload::of_int(value), opt);
}

std::size_t Db::append(std::string_view key, std::string_view tail, std::int64_t now_ms) {
  Impl& d = *impl_;
  d.now = now_ms;
  std::uint64_t h = d.main.hash(key);
  Table::Ref ref;
  Record* r = d.lookup(key, h, &ref);
  ++impl_->ev->mutations;
  d.touched(key);
  if (r == nullptr) {
    // Redis stores a new APPEND key as SET would (int/embstr when it can).
    d.set_value(key, Payload::of_string(tail), SetOptions{});
    return tail.size();
  }
  d.touch(r);
  std::size_t len = r->str_len();
  std::size_t total = len + tail.size();
  void* buf = d.make_ext(ref, h, total);
  if (!tail.empty()) std::memcpy(ext::data(buf) + len, tail.data(), tail.size());
  ext::set_len(buf, total);
  return total;
}

std::size_t Db::set_range(std::string_view key, std::size_t offset, std::string_view data,
                          std::int64_t now_ms) {
  Impl& d = *impl_;
  d.now = now_ms;
  std::uint64_t h = d.main.hash(key);
  Table::Ref ref;
  Record* r = d.lookup(key, h, &ref);
  ++impl_->ev->mutations;
  d.touched(key);
  if (r == nullptr) {
    if (data.empty()) return 0;
    Payload p;
    p.enc = Enc::kExtStr;
    p.ptr = ext::make(d.heap, {}, offset + data.size());
    d.add(Record::create(d.heap, Type::kString, key, kNoExpire, d.fresh_clock(), p), h);
    ref = d.main.find(key, h);
    r = ref.get();
  } else {
    d.touch(r);
    if (data.empty()) return r->str_len();
  }
  std::size_t len = r->str_len();
  std::size_t end = offset + data.size();
  std::size_t total = end > len ? end : len;
  void* buf = d.make_ext(ref, h, total);
  if (offset > len) std::memset(ext::data(buf) + len, 0, offset - len);
  std::memcpy(ext::data(buf) + offset, data.data(), data.size());
  ext::set_len(buf, total);
  return total;
}

bool Db::erase_server(std::string_view key) {
  return erase(key, impl_->lazy_policy.server_del);
}

bool Db::erase_expired(std::string_view key) {
  return erase(key, impl_->lazy_policy.expire);
}

bool Db::erase(std::string_view key, bool lazy) {
  Impl& d = *impl_;
  std::uint64_t h = d.main.hash(key);
  Record* r = d.main.erase(key, h);
  if (r == nullptr) return false;
  ++impl_->ev->mutations;
  d.touched(key);
  d.notify(key, -1);
  if (r->has_ttl()) d.expires.erase(key, h);
  d.dispose(r, lazy);
  return true;
}

bool Db::set_expire(std::string_view key, std::int64_t at_ms) {
  Impl& d = *impl_;
  std::uint64_t h = d.main.hash(key);
  Table::Ref ref = d.main.find(key, h);
  if (!ref) return false;
  ++impl_->ev->mutations;
  d.touched(key);
  Record* r = ref.get();
  if (r->has_ttl()) {
    r->set_expire_in_place(at_ms);
    return true;
  }
  Payload p = r->payload();
  Record* nr = Record::create(d.heap, r->type(), r->key(), at_ms, r->clock(), p);
  d.replaced(ref, r, nr, h, true);
  return true;
}

bool Db::persist(std::string_view key) {
  Impl& d = *impl_;
  std::uint64_t h = d.main.hash(key);
  Table::Ref ref = d.main.find(key, h);
  if (!ref || !ref.get()->has_ttl()) return false;
  ++impl_->ev->mutations;
  d.touched(key);
  Record* r = ref.get();
  Record* nr = Record::create(d.heap, r->type(), r->key(), kNoExpire, r->clock(), r->payload());
  d.replaced(ref, r, nr, h, true);
  return true;
}

void Db::rename(std::string_view from, std::string_view to) {
  if (from == to) return;
  ++impl_->ev->mutations;
  Impl& d = *impl_;
  d.touched(from);
  d.touched(to);
  std::uint64_t hf = d.main.hash(from);
  Record* r = d.main.erase(from, hf);
  if (r == nullptr) return;
  d.notify(from, -1);
  if (r->has_ttl()) d.expires.erase(from, hf);
  std::uint64_t ht = d.main.hash(to);
  d.remove(to, ht, d.lazy_policy.server_del);
  Record* nr = Record::create(d.heap, r->type(), to, r->expire_at(), d.moved_clock(r->clock()),
                              r->payload());
  Record::destroy_shallow(d.heap, r);  // nr owns the external buffer now
  d.add(nr, ht);
}

void Db::copy_to(Entry src, Db& target, std::string_view dst) {
  ++impl_->ev->mutations;
  Impl& t = *target.impl_;
  t.touched(dst);
  const Record* s = src.record();
  Payload p = s->payload();
  if (p.enc == Enc::kExtStr) {
    p.ptr = ext::make(t.heap, s->str(), 0);
  } else if (p.enc == Enc::kObject) {
    const types::Object* o = s->object();
    p.ptr = types::ops_of(o).copy(t.heap, o);
  }
  Record* nr = Record::create(t.heap, s->type(), dst, s->expire_at(), t.fresh_clock(), p);
  std::uint64_t h = t.main.hash(dst);
  t.remove(dst, h, t.lazy_policy.server_del);
  t.add(nr, h);
}

bool Db::move_to(std::string_view key, Db& target) {
  Impl& d = *impl_;
  Impl& t = *target.impl_;
  std::uint64_t h = d.main.hash(key);
  Record* r = d.main.erase(key, h);
  if (r == nullptr) return false;
  ++impl_->ev->mutations;
  d.touched(key);
  t.touched(key);
  d.notify(key, -1);
  if (r->has_ttl()) d.expires.erase(key, h);
  d.heap.transfer(t.heap, r->memory_usage());
  std::uint64_t ht = t.main.hash(key);
  t.remove(key, ht, t.lazy_policy.expire);  // an expired leftover of the same name
  r->set_clock(t.moved_clock(r->clock()));
  t.add(r, ht);
  return true;
}

void Db::set_object(std::string_view key, types::Object* value, const SetOptions& opt) {
  Impl& d = *impl_;
  ++impl_->ev->mutations;
  d.touched(key);
  Payload p;
  p.bytes = types::foldable_blob(value);
  p.enc = !p.bytes.empty() ? Enc::kInline : Enc::kObject;
  p.ptr = value;
  std::uint64_t h = d.main.hash(key);
  Table::Ref ref;
  Record* old = d.lookup(key, h, &ref);
  std::int64_t exp = opt.expire_at;
  if (exp == kNoExpire && opt.keep_ttl && old != nullptr) exp = old->expire_at();
  const types::ValueOps& ops = types::ops_of(value);
  Record* nr = Record::create(d.heap, ops.type, key, exp, d.fresh_clock(), p);
  if (p.enc == Enc::kInline) ops.destroy(d.heap, value);  // its bytes are in the record now
  if (old == nullptr) {
    d.add(nr, h);
  } else {
    d.replaced(ref, old, nr, h, false);
  }
}

Heap& Db::heap() {
  return impl_->heap;
}

std::size_t Db::size() const {
  return impl_->main.size();
}
std::size_t Db::expires_size() const {
  return impl_->expires.size();
}
std::size_t Db::main_table_bytes() const {
  return impl_->main.alloc_bytes();
}
std::size_t Db::expires_table_bytes() const {
  return impl_->expires.alloc_bytes();
}
std::uint64_t Db::expired_total() const {
  return impl_->expired_total;
}

std::uint64_t Db::scan(std::uint64_t cursor, std::size_t count,
                       const std::function<void(Entry)>& emit) const {
  const Table& t = impl_->main;
  std::size_t emitted = 0;
  std::size_t steps = 0;
  if (count == 0) count = 1;
  do {
    cursor = t.scan(cursor, [&](Record* r) {
      emit(Entry(r));
      ++emitted;
    });
  } while (cursor != 0 && emitted < count && ++steps < count * 10);
  return cursor;
}

Entry Db::random_entry(std::int64_t now_ms) {
  Impl& d = *impl_;
  d.now = now_ms;
  Record* recs[Table::kSlotsPerBucket];
  for (int tries = 0; tries < 100 && d.main.size() > 0; ++tries) {
    std::size_t n = 0;
    for (int picks = 0; picks < 1024 && n == 0; ++picks)
      n = d.main.sample_bucket(d.next_rand(), recs);
    Record* r = nullptr;
    if (n > 0) {
      r = recs[d.next_rand() % n];
    } else {  // a nearly empty table: take the first key a scan finds
      d.main.scan(d.next_rand(), [&](Record* x) { r = x; });
      if (r == nullptr) continue;
    }
    if (Impl::expired(r, now_ms)) {
      d.expired_key(r->key(), d.main.hash(r->key()));
      continue;
    }
    return Entry(r);
  }
  return Entry();
}

std::size_t Db::expire_cycle(std::int64_t now_ms, std::size_t budget, std::size_t* sampled) {
  Impl& d = *impl_;
  d.now = now_ms;
  std::size_t deleted = 0, samples = 0, picks = 0;
  Record* recs[Table::kSlotsPerBucket];
  while (samples < budget && picks < budget * 4 && d.expires.size() > 0) {
    ++picks;
    std::size_t n = d.expires.sample_bucket(d.next_rand(), recs);
    for (std::size_t i = 0; i < n; ++i) {
      ++samples;
      if (!Impl::expired(recs[i], now_ms)) continue;
      d.expired_key(recs[i]->key(), d.main.hash(recs[i]->key()));
      ++deleted;
    }
  }
  if (sampled != nullptr) *sampled = samples;
  return deleted;
}

bool Db::rehash_step(std::size_t buckets) {
  bool a = impl_->main.rehash_step(buckets);
  bool b = impl_->expires.rehash_step(buckets);
  return a || b;
}

void Db::clear(bool async) {
  ++impl_->ev->mutations;
  Impl& d = *impl_;
  d.flushing();
  if (async && d.main.size() > 0) {
    // O(1) now: the table of records becomes the queue's; lazyfree_step() frees it.
    auto doomed = std::make_unique<Table>(&d.heap);
    doomed->swap(d.main);
    d.lazy_table_left += doomed->size();
    d.lazy_tables.push_back(std::move(doomed));
  } else {
    d.main.for_each([&](Record* r) { Record::destroy(d.heap, r); });
  }
  d.main.clear();
  d.expires.clear();
  d.heap.drop_spare();  // FLUSHDB returns memory: no block kept back for an allocation
  d.notify({}, 0);
}

void Db::swap(Db& other) {
  ++impl_->ev->mutations;
  impl_->flushing();
  other.impl_->flushing();
  std::swap(impl_, other.impl_);
  std::swap(used_, other.used_);
  std::swap(impl_->ev, other.impl_->ev);  // the events belong to the Db, not its contents
  if (impl_->ev == &other.impl_->own_events) impl_->ev = &impl_->own_events;
  if (other.impl_->ev == &impl_->own_events) other.impl_->ev = &other.impl_->own_events;
  impl_->self = this;
  other.impl_->self = &other;
}

void Db::set_lazyfree(const LazyFreePolicy& policy) {
  impl_->lazy_policy = policy;
}

std::size_t Db::lazyfree_pending() const {
  return impl_->lazy_values.size() + impl_->lazy_table_left;
}

std::uint64_t Db::lazyfreed_total() const {
  return impl_->lazyfreed;
}

bool Db::lazyfree_step(std::size_t effort) {
  return impl_->lazy_step(effort);
}

KeyspaceEvents& Db::events() {
  return *impl_->ev;
}

std::uint64_t Db::mutations() const {
  return impl_->ev->mutations;
}

WriteHandle Db::open(std::string_view key, Type type, std::int64_t now_ms) {
  Impl& d = *impl_;
  d.now = now_ms;
  WriteHandle h;
  h.key_ = key;
  h.hash_ = d.main.hash(key);
  if (d.ev->notifier != nullptr) [[unlikely]]
    h.event_ = d.ev->command;
  Table::Ref ref;
  Record* r = d.lookup(key, h.hash_, &ref);
  if (r == nullptr) {
    h.db_ = this;
    h.status_ = Open::kMissing;
  } else if (r->type() != type) {
    h.status_ = Open::kWrongType;  // nothing to release
  } else {
    d.touch(r);
    h.db_ = this;
    h.rec_ = r;
    if (r->enc() == Enc::kObject) h.obj_ = r->object();
    h.status_ = Open::kFound;
  }
  return h;
}

}  // namespace ruvio::store
