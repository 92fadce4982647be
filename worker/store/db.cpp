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
#include "worker/store/db.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "shared/notify_flags.hpp"
#include "worker/store/record.hpp"
#include "worker/store/table.hpp"
#include "worker/types/value.hpp"

namespace ruvio::store {

namespace {

// Writes the decimal text of v; returns the length.
std::size_t write_int(char* out, std::int64_t v) {
  auto res = std::to_chars(out, out + 24, v);
  return static_cast<std::size_t>(res.ptr - out);
}

}  // namespace

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

// ---- Db::Impl -------------------------------------------------------------------------------

struct Db::Impl {
  Heap heap;
  Table main{&heap};
  Table expires{&heap};
  std::uint64_t expired_total = 0;
  std::int64_t now = 0;
  bool lfu = false;
  int lfu_log_factor = 10;
  std::uint32_t lru_epoch = 0;     // the LRU clock pass this Db has finished
  std::uint64_t lru_cursor = 0;    // its SCAN cursor in the pass in progress
  std::int64_t decay_started = 0;  // when the current (or last) decay pass began
  std::size_t decay_pos = 0;       // walk position of the pass in progress
  bool decaying = false;
  std::uint64_t rng = std::random_device{}() | 1;
  KeyObserver observer = nullptr;
  void* observer_context = nullptr;

  // Lazy free: records unlinked from the tables whose memory is freed by lazyfree_step().
  LazyFreePolicy lazy_policy;
  std::vector<Record*> lazy_values;                 // large values (UNLINK, lazy DEL...)
  std::vector<std::unique_ptr<Table>> lazy_tables;  // FLUSHDB ASYNC: whole tables of records
  std::size_t lazy_table_pos = 0;                   // walk position in lazy_tables.front()
  std::size_t lazy_table_left = 0;                  // records not yet freed in lazy_tables
  std::uint64_t lazyfreed = 0;

  static std::size_t free_effort(const Record* r) {
    if (r->enc() != Enc::kObject) [[likely]]
      return 1;
    const types::Object* o = r->object();
    return types::ops_of(o).free_effort(o);
  }

  // The type's stepwise release of a value object, or null.
  using ReleaseSome = std::size_t (*)(Heap&, types::Object*, std::size_t, bool*);
  static ReleaseSome stepwise(const Record* r) {
    if (r->enc() != Enc::kObject) [[likely]]
      return nullptr;
    return types::ops_of(r->object()).release_some;
  }

  // Frees an unlinked record now, or queues it when `lazy` and its value is large.
  // `keep_block`: the record's block stays for the heap's next allocation (eviction).
  void dispose(Record* r, bool lazy, bool keep_block = false) {
    if (lazy && free_effort(r) > types::kLazyFreeThreshold) [[unlikely]] {
      lazy_values.push_back(r);
      return;
    }
    if (keep_block) {
      Record::destroy_keep(heap, r);
    } else {
      Record::destroy(heap, r);
    }
  }

  bool lazy_step(std::size_t effort) {
    std::size_t spent = 0;
    auto free_one = [&](Record* r) {
      spent += free_effort(r);
      Record::destroy(heap, r);
      ++lazyfreed;
    };
    while (!lazy_values.empty() && spent < effort) {
      Record* r = lazy_values.back();
      if (const auto step = stepwise(r)) {
        bool done = false;
        spent += step(heap, r->object(), effort - spent, &done);
        if (!done) break;  // the rest in a later step
        lazy_values.pop_back();
        Record::destroy_shallow(heap, r);  // the value is gone: only the record block is left
        ++lazyfreed;
        continue;
      }
      lazy_values.pop_back();
      free_one(r);
    }
    while (!lazy_tables.empty() && spent < effort) {
      Table& t = *lazy_tables.front();
      const bool more = t.walk(&lazy_table_pos, effort - spent, [&](Record* r) {
        --lazy_table_left;
        if (stepwise(r) != nullptr && free_effort(r) > types::kLazyFreeThreshold) {
          lazy_values.push_back(r);  // a huge value of a flushed table: freed in steps too
          spent += 1;
          return;
        }
        free_one(r);
      });
      if (!more) {
        lazy_tables.erase(lazy_tables.begin());  // its destructor frees the arrays
        lazy_table_pos = 0;
      }
    }
    if (lazy_values.empty() && lazy_values.capacity() > 0) std::vector<Record*>().swap(lazy_values);
    return !lazy_values.empty() || !lazy_tables.empty();
  }

  Db* self = nullptr;  // the Db holding this Impl (swap() moves Impls between Dbs)
  KeyspaceEvents own_events;
  KeyspaceEvents* ev = &own_events;  // the shard's, or own_events; stays with the Db on swap

  // WATCH: tells the listener that `key` changed.
  void touched(std::string_view key) {
    if (ev->listener != nullptr) [[unlikely]]
      ev->listener->on_change(*self, key);
  }
  void flushing() {
    if (ev->listener != nullptr) [[unlikely]]
      ev->listener->on_flush(*self);
  }
  // A write handle's release.
  void written(std::string_view key, bool exists) {
    ++ev->mutations;
    if (ev->listener == nullptr) [[likely]]
      return;
    ev->listener->on_change(*self, key);
    if (exists) ev->listener->key_ready(*self, key);
  }

  void notify(std::string_view key, int delta) {
    if (observer != nullptr) [[unlikely]]
      observer(observer_context, key, delta);
  }

  std::uint64_t next_rand() {  // splitmix64
    std::uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  std::int64_t clock_now() const { return ev->clock_ms != 0 ? ev->clock_ms : now; }
  // The LRU generation of an access now. The shard advances the clock once per loop turn;
  // a Db of its own (unit tests) on its lookups.
  std::uint8_t lru_now() const {
    if (ev->clock_ms == 0) [[unlikely]]
      ev->lru.advance(now);
    return ev->lru.current();
  }
  std::uint8_t fresh_clock() const { return lfu ? kLfuInitVal : lru_now(); }
  // The clock byte a record keeps when it moves to another slot (RENAME, MOVE): a generation
  // the LRU pass merges away must not survive behind the pass's cursor.
  std::uint8_t moved_clock(std::uint8_t c) const { return lfu ? c : ev->lru.keep(c); }

  void touch(Record* r) {
    if (ev->no_touch) [[unlikely]]
      return;
    if (!lfu) {
      r->set_clock(lru_now());
      return;
    }
    std::uint8_t c = r->clock();
    if (c == 255) return;
    double base = c > kLfuInitVal ? c - kLfuInitVal : 0;
    double p = 1.0 / (base * lfu_log_factor + 1);
    double x = static_cast<double>(next_rand() >> 11) * (1.0 / 9007199254740992.0);
    if (x < p) r->set_clock(static_cast<std::uint8_t>(c + 1));
  }

  static bool expired(const Record* r, std::int64_t at) {
    return r->has_ttl() && is_expired(r->expire_at(), at);
  }

  // Removes a key if present and frees (or, when `lazy`, may queue) its record.
  void remove(std::string_view key, std::uint64_t h, bool lazy, bool keep_block = false) {
    Record* r = main.erase(key, h);
    if (r == nullptr) return;
    ++ev->mutations;
    touched(key);
    notify(key, -1);
    if (r->has_ttl()) expires.erase(key, h);
    dispose(r, lazy, keep_block);
  }

  void add(Record* r, std::uint64_t h) {
    main.insert(r, h);
    notify(r->key(), 1);
    if (r->has_ttl()) expires.insert(r, h);
    if (ev->notifier != nullptr) [[unlikely]]
      ev->notifier->notify(*self, kNotifyNew, "new", r->key());
  }

  // Lazy or active expiry removed `key` (Redis's deleteExpiredKeyAndPropagate).
  void expired_key(std::string_view key, std::uint64_t h) {
    if (ev->notifier == nullptr) [[likely]] {
      remove(key, h, lazy_policy.expire);
    } else {
      std::string name(key);  // the record's bytes go with it
      remove(key, h, lazy_policy.expire);
      ev->notifier->notify(*self, kNotifyExpired, "expired", name);
    }
    ++expired_total;
  }

  // The main slot `ref` held `old`; it now holds `nr` (same key). Keeps the expiry index in
  // step, then frees `old` (without its external buffer when `shallow`, which nr took over).
  void replaced(Table::Ref ref, Record* old, Record* nr, std::uint64_t h, bool shallow) {
    if (old != nr) ref.set(nr);
    std::string_view key = old->key();
    if (old->has_ttl() && nr->has_ttl()) {
      if (old != nr) expires.find(key, h).set(nr);
    } else if (old->has_ttl()) {
      expires.erase(key, h);
    } else if (nr->has_ttl()) {
      expires.insert(nr, h);
    }
    if (old == nr) return;
    if (shallow) {
      Record::destroy_shallow(heap, old);
    } else {
      dispose(old, lazy_policy.server_del);  // an overwrite: Redis's server-side delete
    }
  }

  // Lookup with lazy expiry; fills ref.
  Record* lookup(std::string_view key, std::uint64_t h, Table::Ref* ref) {
    *ref = main.find(key, h);
    if (!*ref) return nullptr;
    Record* r = ref->get();
    if (expired(r, now)) {
      expired_key(key, h);
      *ref = Table::Ref();
      return nullptr;
    }
    return r;
  }

  void set_value(std::string_view key, Payload p, const SetOptions& opt) {
    ++ev->mutations;
    touched(key);
    std::uint64_t h = main.hash(key);
    Table::Ref ref;
    Record* old = lookup(key, h, &ref);
    std::int64_t exp = opt.expire_at;
    if (exp == kNoExpire && opt.keep_ttl && old != nullptr) exp = old->expire_at();
    std::uint8_t clock = lfu && old != nullptr ? old->clock() : fresh_clock();
    if (old != nullptr && p.enc != Enc::kExtStr && old->type() == Type::kString &&
        (old->enc() == Enc::kEmbStr || old->enc() == Enc::kEmbRaw || old->is_int()) &&
        old->has_ttl() == (exp != kNoExpire) &&
        mi_good_size(Record::size_for(key, exp != kNoExpire, p)) == mi_usable_size(old)) {
      Record::rewrite(old, exp, clock, p);  // same bin: no allocation (INCR, same-size SET)
      return;
    }
    bool reused_buf = false;
    if (p.enc == Enc::kExtStr && p.ptr == nullptr) {
      // Reuse the old external buffer when the new value lands in the same bin.
      if (old != nullptr && old->enc() == Enc::kExtStr) {
        void* buf = old->ext_buf();
        if (mi_good_size(8 + p.bytes.size()) == mi_usable_size(buf)) {
          std::memcpy(ext::data(buf), p.bytes.data(), p.bytes.size());
          ext::set_len(buf, p.bytes.size());
          p.ptr = buf;
          reused_buf = true;
        }
      }
      if (!reused_buf) p.ptr = ext::make(heap, p.bytes, 0);
    }
    Record* nr = Record::create(heap, Type::kString, key, exp, clock, p);
    if (old == nullptr) {
      add(nr, h);
    } else {
      replaced(ref, old, nr, h, reused_buf);
    }
  }

  // Makes the string at `ref` externally stored with room for `need` bytes; returns the buffer.
  void* make_ext(Table::Ref ref, std::uint64_t h, std::size_t need) {
    Record* r = ref.get();
    if (r->enc() == Enc::kExtStr) {
      void* buf = r->ext_buf();
      void* nb = ext::reserve(heap, buf, need);
      if (nb != buf) r->set_ext_buf(nb);
      return nb;
    }
    char num[24];
    std::string_view cur;
    if (r->is_int()) {
      cur = std::string_view(num, write_int(num, r->int_value()));
    } else {
      cur = r->str();
    }
    constexpr std::size_t kStep = 1024 * 1024;
    std::size_t cap = need < kStep ? need * 2 : need + kStep;
    void* buf = ext::make(heap, cur, cap);
    Payload p;
    p.enc = Enc::kExtStr;
    p.ptr = buf;
    Record* nr = Record::create(heap, r->type(), r->key(), r->expire_at(), r->clock(), p);
    replaced(ref, r, nr, h, false);
    return buf;
  }

  // Reused by resize_string: the new bytes of an embedded string before its record is rebuilt.
  std::string scratch;

  // Makes the string at `ref` exactly `n` bytes (kept bytes stay, new ones are zero) and
  // returns its record, which may have moved. `head`: the bytes the value will begin with
  // (embeds(): an HLL stays embedded longer). Embedded strings stay in the record (the
  // handle resizes them in place while the bin fits, Record::resize_embedded; else one
  // rebuild of at most kEmbedHllMax bytes here); longer ones live in an external buffer
  // grown as sds grows.
  Record* resize_ext(Record* r, std::size_t n) {
    void* buf = r->ext_buf();
    std::size_t len = ext::len(buf);
    if (n > len) {
      void* nb = ext::reserve(heap, buf, n);
      if (nb != buf) r->set_ext_buf(nb);
      buf = nb;
      std::memset(ext::data(buf) + len, 0, n - len);
    }
    ext::set_len(buf, n);
    return r;
  }

  Record* resize_string(Table::Ref ref, std::uint64_t h, std::size_t n, std::string_view head) {
    Record* r = ref.get();
    if (r->enc() == Enc::kExtStr) return resize_ext(r, n);
    char num[24];
    std::string_view cur =
        r->is_int() ? std::string_view(num, write_int(num, r->int_value())) : r->str();
    if (!embeds(n, head)) {
      std::size_t len = cur.size();
      void* buf = make_ext(ref, h, n);
      std::memset(ext::data(buf) + len, 0, n - len);
      ext::set_len(buf, n);
      return ref.get();
    }
    scratch.assign(cur.substr(0, n < cur.size() ? n : cur.size()));
    scratch.resize(n, '\0');
    Payload p;
    p.enc = Enc::kEmbRaw;  // only the string handle resizes: an edit in place
    p.bytes = scratch;
    if (mi_good_size(Record::size_for(r->key(), r->has_ttl(), p)) == mi_usable_size(r)) {
      Record::rewrite(r, r->expire_at(), r->clock(), p);
      return r;
    }
    Record* nr = Record::create(heap, Type::kString, r->key(), r->expire_at(), r->clock(), p);
    replaced(ref, r, nr, h, false);
    return nr;
  }

  // A new string key of `n` zero bytes (`head` as resize_string's).
  Record* create_string(std::string_view key, std::uint64_t h, std::size_t n,
                        std::string_view head) {
    Payload p;
    if (!embeds(n, head)) {
      p.enc = Enc::kExtStr;
      p.ptr = ext::make(heap, {}, n);
      std::memset(ext::data(p.ptr), 0, n);
      ext::set_len(p.ptr, n);
    } else {
      scratch.assign(n, '\0');
      p.enc = Enc::kEmbRaw;  // Redis creates it raw (SETBIT, BITFIELD, PFADD on a new key)
      p.bytes = scratch;
    }
    Record* r = Record::create(heap, Type::kString, key, kNoExpire, fresh_clock(), p);
    add(r, h);
    return r;
  }
};

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

std::size_t Db::expire_cycle(std::int64_t now_ms, std::size_t budget) {
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

// ---- WriteHandle ----------------------------------------------------------------------------

WriteHandle& WriteHandle::operator=(WriteHandle&& o) noexcept {
  if (this != &o) {
    release();
    db_ = std::exchange(o.db_, nullptr);
    rec_ = std::exchange(o.rec_, nullptr);
    obj_ = std::exchange(o.obj_, nullptr);
    key_ = o.key_;
    hash_ = o.hash_;
    status_ = o.status_;
    dirty_ = std::exchange(o.dirty_, false);
    stored_ = std::exchange(o.stored_, false);
    created_ = o.created_;
    event_ = o.event_;
  }
  return *this;
}

types::Object* WriteHandle::mut() {
  if (obj_ == nullptr && rec_ != nullptr && rec_->enc() == Enc::kInline) {
    // An inline value is edited as a heap copy, folded back (or left on the heap when it
    // has grown past the inline limit) by release().
    const types::Object* f = rec_->object();
    obj_ = types::ops_of(f).copy(heap(), f);
  }
  return obj_;
}

types::Object* WriteHandle::value() {
  types::Object* o = mut();
  if (o != nullptr) dirty_ = true;
  return o;
}

const types::Object* WriteHandle::peek() const {
  if (obj_ != nullptr) return obj_;
  return rec_ != nullptr && rec_->has_object() ? rec_->object() : nullptr;
}

void WriteHandle::set(types::Object* v) {
  dirty_ = true;
  obj_ = v;
  if (rec_ != nullptr) {
    if (rec_->enc() == Enc::kObject) rec_->set_object(v);  // inline: stored by release()
    return;
  }
  Db::Impl& d = *db_->impl_;
  Payload p;
  p.enc = Enc::kObject;
  p.ptr = v;
  rec_ = Record::create(d.heap, types::ops_of(v).type, key_, kNoExpire, d.fresh_clock(), p);
  d.add(rec_, hash_);
  created_ = true;
  status_ = Open::kFound;
}

void WriteHandle::remove() {
  if (rec_ == nullptr) return;
  if (obj_ != nullptr && rec_->enc() != Enc::kObject) {
    types::ops_of(obj_).destroy(heap(), obj_);  // a copy of an inline value: never stored
  }
  obj_ = nullptr;
  if (db_->impl_->ev->notifier == nullptr) [[likely]] {
    db_->impl_->remove(key_, hash_, false);  // counts and signals the change itself
  } else {
    // The command's event for what it wrote, then "del", as Redis's emptied collections.
    if (dirty_) publish_event();
    std::string key(key_);  // key_ may point into the record
    db_->impl_->remove(key_, hash_, false);
    db_->impl_->ev->notifier->notify(*db_, kNotifyGeneric, "del", key);
  }
  rec_ = nullptr;
  dirty_ = false;
}

void WriteHandle::publish_event() {
  KeyspaceNotifier* n = db_->impl_->ev->notifier;
  if (n != nullptr && !event_.name.empty()) n->notify(*db_, event_.cls, event_.name, key_);
}

Heap& WriteHandle::heap() {
  return db_->impl_->heap;
}

// Puts the handle's value where it belongs once the command is done with it: a compact value
// under the inline limit into the record (folded), anything else behind the record's pointer.
// The record may be rebuilt here: pointers into it (peek() of an inline value) end with the
// handle.
void WriteHandle::settle() {
  Db::Impl& d = *db_->impl_;
  Record* r = rec_;
  types::Object* o = std::exchange(obj_, nullptr);
  const bool detached = r->enc() != Enc::kObject;  // o is a heap copy of an inline value
  if (!dirty_ && !stored_) {
    if (detached) types::ops_of(o).destroy(d.heap, o);
    return;
  }
  Payload p;
  p.ptr = o;
  p.bytes = types::foldable_blob(o);
  if (!p.bytes.empty()) {
    p.enc = Enc::kInline;
  } else if (detached) {
    p.enc = Enc::kObject;
  } else {
    return;  // large and already behind the pointer
  }
  const std::size_t need = Record::size_for(r->key(), r->has_ttl(), p);
  if (mi_good_size(need) == mi_usable_size(r)) {
    Record::rewrite(r, r->expire_at(), r->clock(), p);  // same bin: no allocation
  } else {
    Record* nr = Record::create(d.heap, r->type(), r->key(), r->expire_at(), r->clock(), p);
    // A caller may have opened the handle with the record's own key bytes (Entry::key()):
    // release() still names the key after the old record is gone.
    const auto at = reinterpret_cast<std::uintptr_t>(key_.data());
    const auto old = reinterpret_cast<std::uintptr_t>(r);
    if (at >= old && at < old + mi_usable_size(r)) key_ = nr->key();
    d.replaced(d.main.find(key_, hash_), r, nr, hash_, true);
    rec_ = nr;
  }
  if (p.enc == Enc::kInline) types::ops_of(o).destroy(d.heap, o);
}

void WriteHandle::release() {
  if (db_ == nullptr) return;
  if (obj_ != nullptr && rec_ != nullptr) settle();
  if (dirty_) publish_event();
  Db* db = std::exchange(db_, nullptr);
  if (dirty_) db->impl_->written(key_, rec_ != nullptr);
  dirty_ = false;
  stored_ = false;
}

// ---- StringHandle ---------------------------------------------------------------------------

StringHandle Db::open_string(std::string_view key, std::int64_t now_ms) {
  Impl& d = *impl_;
  d.now = now_ms;
  StringHandle h;
  h.key_ = key;
  h.hash_ = d.main.hash(key);
  if (d.ev->notifier != nullptr) [[unlikely]]
    h.event_ = d.ev->command;
  Table::Ref ref;
  Record* r = d.lookup(key, h.hash_, &ref);
  if (r == nullptr) {
    h.db_ = this;
  } else if (r->type() != Type::kString) {
    h.status_ = Open::kWrongType;
  } else {
    d.touch(r);
    h.db_ = this;
    h.rec_ = r;
    h.status_ = Open::kFound;
  }
  return h;
}

StringHandle& StringHandle::operator=(StringHandle&& o) noexcept {
  if (this != &o) {
    release();
    db_ = std::exchange(o.db_, nullptr);
    rec_ = std::exchange(o.rec_, nullptr);
    key_ = o.key_;
    hash_ = o.hash_;
    status_ = o.status_;
    dirty_ = std::exchange(o.dirty_, false);
    event_ = o.event_;
  }
  return *this;
}

bool StringHandle::is_int() const {
  return rec_ != nullptr && rec_->is_int();
}

std::string_view StringHandle::view() {
  if (rec_ == nullptr) return {};
  if (rec_->is_int()) return {num_, write_int(num_, rec_->int_value())};
  return rec_->str();
}

std::span<char> StringHandle::bytes() {
  if (rec_ == nullptr) return {};
  dirty_ = true;
  if (rec_->is_int()) return resize(rec_->str_len());  // the text, as an embedded string
  rec_->mark_raw();
  std::string_view s = rec_->str();
  return {const_cast<char*>(s.data()), s.size()};
}

std::span<char> StringHandle::resize(std::size_t n) {
  if (rec_ != nullptr && (rec_->enc() == Enc::kEmbRaw || rec_->enc() == Enc::kEmbStr) &&
      rec_->resize_embedded(n)) {
    // In place in its bin (PFADD's opcode growth): no table lookup, no copy.
    dirty_ = true;
    rec_->mark_raw();
    std::string_view s = rec_->str();
    return {const_cast<char*>(s.data()), s.size()};
  }
  return resize_as(n, view());
}

std::span<char> StringHandle::resize_as(std::size_t n, std::string_view head) {
  Db::Impl& d = *db_->impl_;
  dirty_ = true;
  if (rec_ == nullptr) {
    rec_ = d.create_string(key_, hash_, n, head);
    status_ = Open::kFound;
  } else if (rec_->enc() == Enc::kExtStr) {
    rec_ = d.resize_ext(rec_, n);  // the record stays: no table lookup
  } else if (rec_->is_int() || rec_->str().size() != n) {
    rec_ = d.resize_string(d.main.find(key_, hash_), hash_, n, head);
  }
  rec_->mark_raw();
  std::string_view s = rec_->str();
  return {const_cast<char*>(s.data()), s.size()};
}

void StringHandle::assign(std::string_view v) {
  // `v` must not point into this value (resize may move or rewrite it).
  std::span<char> out = resize_as(v.size(), v);
  if (!v.empty()) std::memcpy(out.data(), v.data(), v.size());
}

void StringHandle::unshare() {
  if (rec_ == nullptr) return;
  if (rec_->is_int()) {
    const bool was = dirty_;
    resize(rec_->str_len());  // the same text, now raw bytes: not a change of the value
    dirty_ = was;
    return;
  }
  rec_->mark_raw();
}

void StringHandle::release() {
  if (db_ == nullptr) return;
  Db* db = std::exchange(db_, nullptr);
  if (dirty_) {
    KeyspaceNotifier* n = db->impl_->ev->notifier;
    if (n != nullptr && !event_.name.empty()) [[unlikely]]
      n->notify(*db, event_.cls, event_.name, key_);
    db->impl_->written(key_, rec_ != nullptr);
  }
  dirty_ = false;
}

void Db::set_key_observer(KeyObserver fn, void* context) {
  Impl& d = *impl_;
  d.observer = fn;
  d.observer_context = context;
  if (fn != nullptr) d.main.for_each([&](Record* r) { fn(context, r->key(), 1); });
}

void* Db::key_observer_context() const {
  return impl_->observer != nullptr ? impl_->observer_context : nullptr;
}

}  // namespace ruvio::store
