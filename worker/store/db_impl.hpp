// Db::Impl, shared by the Db's two files: db.cpp (Entry, Db: lookups, writes, expiry,
// eviction sampling, lazy free) and db_handles.cpp (the write handles WriteHandle and
// StringHandle). Private to worker/store: nothing outside the folder includes it.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "shared/notify_flags.hpp"
#include "worker/store/db.hpp"
#include "worker/store/record.hpp"
#include "worker/store/table.hpp"
#include "worker/types/value.hpp"

namespace ruvio::store {

// Writes the decimal text of v (24 bytes of room); returns the length.
inline std::size_t write_int(char* out, std::int64_t v) {
  auto res = std::to_chars(out, out + 24, v);
  return static_cast<std::size_t>(res.ptr - out);
}

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
  // signal = false: Redis's dirty++ without signalModifiedKey (no WATCH, no tracking).
  void written(std::string_view key, bool exists, bool signal = true) {
    ++ev->mutations;
    if (ev->listener == nullptr) [[likely]]
      return;
    if (signal) ev->listener->on_change(*self, key);
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

}  // namespace ruvio::store
