// One logical database: the compact key table plus the expiry index.
//
// This is the API the command families use; the table (table.hpp) and the record format
// (record.hpp) are private to worker/store. Nothing here knows about RESP or libuv.
//
// Every change is counted in KeyspaceEvents::mutations (the journal's "was there an effect")
// and, while a listener is installed, reported to it (WATCH, blocked clients). Value objects
// change only through the write handle (Db::open); the string operations below are its fused
// fast forms for the SET/GET/INCR paths, and signal exactly as a handle's release does.
// Deletions may leave large values to the lazy free queue (lazyfree_step).
//
// Times are absolute Unix milliseconds. `now_ms` is passed in by the caller (the server
// caches one clock reading per loop turn, as Redis does), so lookups stay cheap and tests
// can drive time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "worker/store/lru_clock.hpp"
#include "worker/types/value.hpp"

namespace ruvio::store {

inline constexpr std::int64_t kNoExpire = -1;

// The one expiry test (Redis's keyIsExpired): a key whose expiry is `when` still exists at
// `when` and is gone from `when + 1`. GET, KEYS, SCAN, OBJECT, RANDOMKEY, TTL and active
// expiry all decide through it, so they agree at the exact millisecond.
constexpr bool is_expired(std::int64_t expire_at, std::int64_t now_ms) {
  return expire_at != kNoExpire && now_ms > expire_at;
}

using types::Type;  // the record's type bits (worker/types/value.hpp)

class Record;  // opaque; one allocation per key (record.hpp)
struct Heap;   // heap.hpp

}  // namespace ruvio::store

namespace ruvio::types {
struct Object;  // a value object (worker/types/value.hpp)
}

namespace ruvio::store {

// A borrowed handle to one key's record. Valid until the next mutation of its Db.
class Entry {
 public:
  Entry() = default;
  explicit Entry(const Record* r) : rec_(r) {}
  explicit operator bool() const { return rec_ != nullptr; }

  std::string_view key() const;
  Type type() const;
  std::string_view type_name() const;  // TYPE's reply: "string", or the value type's name
  std::int64_t expire_at() const;      // kNoExpire when the key has no TTL
  bool expired(std::int64_t now_ms) const { return is_expired(expire_at(), now_ms); }

  // Strings. An integer-encoded string has no bytes: is_int() and int_value().
  bool is_int() const;
  std::int64_t int_value() const;
  std::string_view str() const;  // only when !is_int()
  std::size_t str_len() const;   // length of the string form in either encoding
  // An embedded string not yet edited in place: what Redis's dbUnshareStringValue would turn
  // into a raw copy (StringHandle::unshare does that here).
  bool shared_str() const;
  // is_int(), str() and shared_str() in one call (one decode of the record's header and key
  // length): false for an integer-encoded string. PFCOUNT's cached read, a header check only.
  bool str_bytes(std::string_view* bytes, bool* shared) const;

  // Value objects (every type but strings); null for a string.
  const types::Object* object() const;

  // Redis names: "int", "embstr", "raw", or the value type's own ("listpack", ...).
  std::string_view encoding() const;
  std::size_t memory_usage() const;  // bytes this key costs (record + value buffers)
  std::uint8_t lfu() const;          // OBJECT FREQ; the LRU generation id in LRU mode

  const Record* record() const { return rec_; }

 private:
  const Record* rec_ = nullptr;
};

class Db;

// What the keyspace tells the layer above it (the Shard, worker/engine/shard.hpp, implements
// it). Installed only while someone listens (a WATCH, a blocked client), so a worker without
// either pays one null test per write.
class KeyspaceListener {
 public:
  virtual ~KeyspaceListener() = default;
  // `key` of `db` changed (WATCH invalidation).
  virtual void on_change(Db& db, std::string_view key) = 0;
  // Every key of `db` is about to go (FLUSHDB, FLUSHALL): the keys are still there to tell
  // which watched ones existed.
  virtual void on_flush(Db& db) = 0;
  // A write handle wrote to `key`, or created it: a client blocked on it may be served.
  virtual void key_ready(Db& db, std::string_view key) = 0;
};

// Keyspace notifications (Redis's notify.c): an event class (shared/notify_flags.hpp) and its
// name, "lpush", "expired", ... A null name: no event.
struct KeyspaceEvent {
  std::uint32_t cls = 0;
  std::string_view name;
};

// Where the keyspace publishes its notifications (the Shard implements it: it knows the db
// numbers, notify-keyspace-events and pub/sub). Installed only while notify-keyspace-events
// publishes something, so with notifications off a write pays one null test.
class KeyspaceNotifier {
 public:
  virtual ~KeyspaceNotifier() = default;
  virtual void notify(Db& db, std::uint32_t cls, std::string_view event, std::string_view key) = 0;
};

// Shared by the Dbs of one shard (a Db made without one keeps its own).
struct KeyspaceEvents {
  // Bumped by every change (writes, lazy and active expiry, flushes). The journal compares it
  // around a write command to learn whether there is an effect to log.
  std::uint64_t mutations = 0;
  KeyspaceListener* listener = nullptr;
  // The shard's cached clock (ms), for the LRU clock byte of writes that take no time argument
  // (SET): 0 = not kept, the Db's last lookup time is used.
  std::int64_t clock_ms = 0;
  // CLIENT NO-TOUCH: while set, lookups leave the clock byte alone (the executor sets it for
  // the commands of such a client, TOUCH excepted).
  bool no_touch = false;
  KeyspaceNotifier* notifier = nullptr;
  // The running command's own event, from its declaration (set by the executor only while a
  // notifier is installed): what a write handle publishes on release unless the command
  // stated another (WriteHandle::notify_as).
  KeyspaceEvent command;
  // The LRU clock the clock bytes of LRU mode refer to (lru_clock.hpp). The shard advances
  // it with clock_ms; a Db without a shard advances it on its lookups.
  LruClock lru;
};

// Lazy free (Redis's lazyfree-lazy-*): which deletions that the Db decides itself hand
// large values to the lazy free queue instead of freeing them on the spot.
struct LazyFreePolicy {
  bool expire = false;      // lazyfree-lazy-expire
  bool server_del = false;  // lazyfree-lazy-server-del: overwrites, RENAME's destination
  bool eviction = false;    // lazyfree-lazy-eviction: keys evicted under maxmemory
};

// How Db::open found the key.
enum class Open : std::uint8_t {
  kFound,      // holds the asked type: value() is it
  kMissing,    // create() makes it
  kWrongType,  // holds another type: the command answers WRONGTYPE
};

// The write handle: the one way a command changes a value object in place. Db::open gives it
// out (find-or-create by type; WRONGTYPE decided there and nowhere else). Releasing it (end of
// scope, or release()) counts the mutation for the WAL, invalidates WATCHes and fires
// key_ready, once, if anything was written. The type code allocates from heap(), so the Db's
// accounting stays exact. Valid until the Db is next mutated by anything else.
//
// Inline values (record.hpp, Enc::kInline): a small compact value lives folded in its record,
// where nothing may write to it. mut()/value() hand out a heap copy; release() folds the
// result back into the record (in place when its bin still fits, else a rebuilt record) or,
// once it is too large or no longer compact, keeps it behind the record's pointer; a large
// value that shrank under the limit is folded in the same way. So: never write through
// peek() or Entry::object(), and no pointer from peek() outlives the handle. One handle per
// key at a time (a second would edit a second copy).
class WriteHandle {
 public:
  WriteHandle() = default;
  WriteHandle(const WriteHandle&) = delete;
  WriteHandle& operator=(const WriteHandle&) = delete;
  WriteHandle(WriteHandle&& o) noexcept { *this = std::move(o); }
  WriteHandle& operator=(WriteHandle&& o) noexcept;
  ~WriteHandle() { release(); }

  Open status() const { return status_; }
  bool wrong_type() const { return status_ == Open::kWrongType; }
  bool created() const { return created_; }
  explicit operator bool() const { return rec_ != nullptr; }  // a value is there

  // The value, for writing: the key counts as changed on release (mut() + changed()).
  types::Object* value();
  template <class T>
  T* as() {
    return static_cast<T*>(value());
  }
  // The value, writable, WITHOUT counting a change: for a command that learns only by trying
  // whether it changes anything (SADD of a present member, LINSERT without the pivot), which
  // calls changed() when it did, so a no-op fires no WATCH, no key_ready and no WAL record,
  // as in Redis. A change made through it without changed() is lost (an inline value is
  // edited as a copy).
  types::Object* mut();
  template <class T>
  T* mut_as() {
    return static_cast<T*>(mut());
  }
  void changed() { dirty_ = true; }
  // A change Redis 7.0 makes without signalModifiedKey: the consumer-group commands (XGROUP,
  // XREADGROUP, XACK, XCLAIM, XAUTOCLAIM) and XSETID. Counted (WAL, event, key_ready) like
  // changed(), but it invalidates no WATCH and no tracked key, as in Redis. A handle that
  // calls it makes no other kind of change.
  void changed_unsignalled() {
    dirty_ = true;
    unsignalled_ = true;
  }
  // The value written through mut() changed its encoding but not its content (SORT converts a
  // listpack zset, as Redis): it is stored, and nothing is signalled (no WATCH, WAL, wake).
  void reencoded() { stored_ = true; }
  // The value, read only (of an inline value: a view into the record, valid while the handle
  // is open).
  const types::Object* peek() const;
  // Stores `v` as the key's value (kMissing: creates the key, without TTL). The old value,
  // if any, must have been freed or reused by the caller (an encoding conversion).
  void set(types::Object* v);
  // Deletes the key (an emptied collection, as Redis): publishes the handle's event for what
  // was written, then "del".
  void remove();
  Heap& heap();
  Db& db() { return *db_; }
  // The event this handle publishes when it releases a change, instead of the command's
  // declared one (LMOVE's source pops: "lpop"); an empty name publishes nothing.
  void notify_as(std::uint32_t cls, std::string_view name) { event_ = {cls, name}; }

  void release();

 private:
  friend class Db;
  void settle();  // release(): fold back / store the value written
  void publish_event();
  KeyspaceEvent event_;
  Db* db_ = nullptr;
  Record* rec_ = nullptr;
  // The value object being written: the record's own (kObject), or a heap copy of an inline
  // value (made by mut(), folded back by release()). Null until known.
  types::Object* obj_ = nullptr;
  std::string_view key_;  // the caller's key bytes
  std::uint64_t hash_ = 0;
  Open status_ = Open::kMissing;
  bool dirty_ = false;
  bool stored_ = false;  // reencoded(): store the value even though nothing changed
  bool created_ = false;
  bool unsignalled_ = false;  // changed_unsignalled()
};

// The string write handle: mutable bytes of a string value for the commands that edit a string
// in place (SETBIT, BITFIELD, PFADD, PFMERGE) instead of reading, copying and SETting it. Db::
// open_string gives it out (WRONGTYPE decided there, as Db::open does). An integer-encoded
// string is edited as its text, as Redis does. Releasing it counts the mutation once for the
// WAL, invalidates WATCHes and fires key_ready, if bytes() or resize() was called. Spans stay
// valid until the next resize() or mutation of the Db. Kept apart from WriteHandle on purpose:
// strings live in the record (embedded up to kEmbedMax, else an external buffer), objects do not.
class StringHandle {
 public:
  StringHandle() = default;
  StringHandle(const StringHandle&) = delete;
  StringHandle& operator=(const StringHandle&) = delete;
  StringHandle(StringHandle&& o) noexcept { *this = std::move(o); }
  StringHandle& operator=(StringHandle&& o) noexcept;
  ~StringHandle() { release(); }

  Open status() const { return status_; }
  bool wrong_type() const { return status_ == Open::kWrongType; }
  explicit operator bool() const { return rec_ != nullptr; }  // the key exists
  bool is_int() const;  // integer-encoded: not a byte string (HLL commands refuse it)

  // The current bytes, read only (an integer as its decimal text).
  std::string_view view();
  // The bytes, for writing: the key counts as changed on release.
  std::span<char> bytes();
  // Makes the value exactly `n` bytes: kept bytes stay, new ones are zero. Creates the key
  // (without TTL) when missing. Grows an external buffer geometrically, as sds does.
  std::span<char> resize(std::size_t n);
  // Makes the value exactly `v` (creating the key when missing), with the layout a value of
  // these bytes gets (an HLL stays in the record up to 3 KiB: record.hpp, kEmbedHllMax). `v`
  // must not point into the value itself. PFADD's new key, PFMERGE's result.
  void assign(std::string_view v);
  // Redis's dbUnshareStringValue without a write: an embedded or integer string becomes
  // "raw" (OBJECT ENCODING), as SETBIT or BITFIELD leave it even when no bit changed. The key
  // does not count as changed. bytes() and resize() do this too.
  void unshare();
  // The bytes written through bytes() are what they were (BITFIELD SET of the same value):
  // nothing counts as changed, as Redis 7.0 signals and propagates only a change.
  void unchanged() { dirty_ = false; }
  // The change is one Redis makes without signalModifiedKey (PFDEBUG's sparse-to-dense
  // conversion): counted for the WAL, but no WATCH or tracked key is invalidated.
  void unsignalled() { unsignalled_ = true; }
  // As WriteHandle::notify_as (BITFIELD publishes "setbit", PFMERGE "pfadd").
  void notify_as(std::uint32_t cls, std::string_view name) { event_ = {cls, name}; }

  void release();

 private:
  friend class Db;
  // resize(), the new value to begin with `head` (the current bytes, or assign()'s).
  std::span<char> resize_as(std::size_t n, std::string_view head);
  KeyspaceEvent event_;
  Db* db_ = nullptr;
  Record* rec_ = nullptr;
  std::string_view key_;
  std::uint64_t hash_ = 0;
  Open status_ = Open::kMissing;
  bool dirty_ = false;
  bool unsignalled_ = false;
  char num_[24] = {};
};

struct SetOptions {
  std::int64_t expire_at = kNoExpire;  // absolute ms; kNoExpire = no TTL
  bool keep_ttl = false;               // keep the existing TTL (SET KEEPTTL, APPEND, INCR...)
  bool as_text = false;                // never the int encoding (INCRBYFLOAT's result, as Redis)
  bool raw = false;  // OBJECT ENCODING "raw" even when short (BITOP's result, as Redis)
};

class Db {
 public:
  // `events` is shared by the Dbs of a shard; null: this Db keeps its own.
  explicit Db(KeyspaceEvents* events = nullptr);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // The write handle on `key` for a value-object type (see WriteHandle; strings use the
  // string operations). Expires lazily first.
  WriteHandle open(std::string_view key, Type type, std::int64_t now_ms);
  // The string write handle on `key` (see StringHandle). Expires lazily first.
  StringHandle open_string(std::string_view key, std::int64_t now_ms);

  // Lookup with lazy expiry: an expired key is deleted and reported missing.
  Entry find(std::string_view key, std::int64_t now_ms);
  // Lookup with lazy expiry that leaves the access clock alone (TYPE, TTL, EXISTS: Redis's
  // LOOKUP_NOTOUCH).
  // RESTORE's IDLETIME / FREQ (Redis's objectSetLRUOrLFU): under an LFU policy the counter
  // becomes `freq` (when >= 0), otherwise the LRU clock is set `idle_s` seconds back (when
  // >= 0; LruClock::back_by). A missing key: nothing.
  void set_access(std::string_view key, std::int64_t idle_s, std::int64_t freq,
                  std::int64_t now_ms);
  Entry find_notouch(std::string_view key, std::int64_t now_ms);
  // Lookup without touching access time or expiring (used by SCAN filters, tests).
  Entry peek(std::string_view key) const;
  // The same with the key's table hash already known (key_hash): the eviction pool hashes its
  // candidate once for the check and the delete.
  Entry peek(std::string_view key, std::uint64_t hash) const;
  std::uint64_t key_hash(std::string_view key) const;
  // Starts loading what a peek/evict of the key with this hash reads first (its home bucket)
  // and `hint` (the record it probably finds; may be stale or freed: a prefetch reads nothing)
  // into the cache, so that work overlaps with other misses (the eviction pool's sampling).
  void prefetch(std::uint64_t hash, const void* hint) const;
  bool exists(std::string_view key, std::int64_t now_ms) { return bool(find(key, now_ms)); }

  // Strings. A value that is a canonical int64 ("123", not "0123" / "+1" / " 1") is stored as
  // an integer, exactly when Redis would use the "int" encoding. Overwrites any type.
  void set_string(std::string_view key, std::string_view value, const SetOptions& opt);
  void set_int(std::string_view key, std::int64_t value, const SetOptions& opt);
  // APPEND: creates the key when missing; returns the new length. Grows geometrically.
  std::size_t append(std::string_view key, std::string_view tail, std::int64_t now_ms);
  // SETRANGE: zero-pads; returns the new length. Caller checks the 512 MB limit first.
  std::size_t set_range(std::string_view key, std::size_t offset, std::string_view data,
                        std::int64_t now_ms);

  // True when a key was removed. `lazy` (UNLINK, DEL under lazyfree-lazy-user-del): a value
  // above the lazy free threshold goes to the lazy free queue instead of being freed now.
  bool erase(std::string_view key, bool lazy = false);
  // Deletions the server decides, lazy as the Db's policy says (Redis's dbDelete): a STORE
  // command's empty result, COPY ... REPLACE (lazyfree-lazy-server-del); EXPIRE & co. with a
  // time already past (lazyfree-lazy-expire).
  bool erase_server(std::string_view key);
  bool erase_expired(std::string_view key);
  // Expiry. set_expire on a missing key returns false. persist returns true if a TTL was removed.
  bool set_expire(std::string_view key, std::int64_t at_ms);
  bool persist(std::string_view key);

  // Moves `from` to `to` (overwriting `to`), keeping the TTL. Caller checked `from` exists.
  void rename(std::string_view from, std::string_view to);
  // Copies the record of `src` (value and TTL) to `dst` in `target` (may be *this); a value
  // object is deep-copied through its ops.
  void copy_to(Entry src, Db& target, std::string_view dst);
  // MOVE: hands the key (value and TTL) to `target`, which must not hold it, without copying
  // the value; its bytes of accounting go with it. False when the key is missing.
  bool move_to(std::string_view key, Db& target);

  // A key holding a value object made from heap() (snapshot load, RESTORE). Overwrites.
  void set_object(std::string_view key, types::Object* value, const SetOptions& opt);
  // What value objects of this Db allocate from.
  Heap& heap();

  std::size_t size() const;          // keys, including not-yet-reclaimed expired ones
  std::size_t expires_size() const;  // keys with a TTL
  // The tables' own arrays (not the records): MEMORY STATS' overhead.hashtable.main/expires.
  std::size_t main_table_bytes() const;
  std::size_t expires_table_bytes() const;
  std::uint64_t expired_total() const;  // keys removed by lazy or active expiry, ever

  // SCAN with Redis's guarantee: every key present for the whole iteration is returned at
  // least once, across table growth and shrinking. Returns the next cursor (0 = done).
  // `count` is a hint for the amount of work (buckets visited).
  std::uint64_t scan(std::uint64_t cursor, std::size_t count,
                     const std::function<void(Entry)>& emit) const;
  Entry random_entry(std::int64_t now_ms);  // uniform enough for RANDOMKEY; empty if no key

  // Active expiry: samples keys with a TTL and deletes expired ones, doing at most `budget`
  // samples. Returns the number of keys deleted; `sampled`, when given, gets how many keys
  // were looked at (INFO's expired_stale_perc).
  std::size_t expire_cycle(std::int64_t now_ms, std::size_t budget, std::size_t* sampled = nullptr);

  // Incremental resize work for the idle timer: moves up to `buckets` old home buckets in each
  // table that is resizing. Returns true while a resize is still in progress.
  bool rehash_step(std::size_t buckets);

  // The record's clock byte is an LRU clock (default: noeviction, *-lru) or Redis's LFU
  // counter (*-lfu policies). Set it when maxmemory-policy changes.
  // `log_factor`: lfu-log-factor (how slowly the counter grows).
  void set_lfu_mode(bool lfu, int log_factor = 10);
  bool lfu_mode() const;
  // LFU decay (lfu-decay-time, minutes; 0 = never): every period, one pass over the keys
  // takes 1 from each counter, done `budget` keys per call from the server's timer. That is
  // Redis's "counter - periods since last access" with no per-key timestamp (the clock byte is
  // all a key pays). Returns true while a pass is in progress.
  bool lfu_decay_step(std::int64_t now_ms, std::int64_t period_ms, std::size_t budget);
  // OBJECT IDLETIME, DEBUG OBJECT lru_seconds_idle, the eviction pool's LRU score: seconds
  // since `e` was last accessed, through the LRU clock (0 in LFU mode, as Redis answers
  // IDLETIME only under LRU policies: the caller refuses).
  std::int64_t idle_seconds(Entry e, std::int64_t now_ms) const;
  // The LRU clock's merge pass over this Db (lru_pass_step): rewrites the clock bytes of up to
  // *left keys through clock.remap() (SCAN order, so no key present throughout is missed),
  // taking what it did off *left. True once this Db is done with the clock's current pass.
  bool lru_remap_step(const LruClock& clock, std::size_t* left);

  // Eviction (evict.hpp). Up to `want` (at most 64) random keys of the main table, or of the
  // expiry index when `from_expires`; returns how many were written to `out`.
  std::size_t sample(bool from_expires, std::size_t want, Entry* out);
  // Deletes an evicted key (lazily when the policy's `eviction` says so) and returns the
  // bytes that frees (a lazily queued value counts at its MEMORY USAGE), 0 when missing.
  std::size_t evict(std::string_view key) { return evict(key, key_hash(key)); }
  std::size_t evict(std::string_view key, std::uint64_t hash);

  // FLUSHDB: frees everything (the caller calls mi_collect). `async`: the keys are gone at
  // once, their memory is freed by lazyfree_step() in bounded steps.
  void clear(bool async = false);
  void swap(Db& other);  // SWAPDB

  // Lazy free. Pending values still count in used_memory() until freed, as in Redis.
  void set_lazyfree(const LazyFreePolicy& policy);
  std::size_t lazyfree_pending() const;   // values (keys) waiting to be freed
  std::uint64_t lazyfreed_total() const;  // values freed by the queue, ever
  // Frees queued values for about `effort` units of free effort; true while some remain.
  bool lazyfree_step(std::size_t effort);

  KeyspaceEvents& events();
  std::uint64_t mutations() const;
  // Publishes one keyspace notification for `key` of this Db (a command whose change does
  // not go through a write handle: SET, DEL, EXPIRE, RENAME ...; eviction's "evicted").
  // One branch when notifications are off.
  void notify(std::uint32_t cls, std::string_view event, std::string_view key) {
    KeyspaceNotifier* n = events().notifier;
    if (n != nullptr) [[unlikely]]
      n->notify(*this, cls, event, key);
  }

  // Allocator-usable bytes held by this Db (records, value buffers, tables).
  // Inline (a pointer to the heap's counter): maxmemory reads every database's figure
  // before each command while a limit is set.
  std::size_t used_memory() const { return *used_; }

  // Optional key-set observer (the cluster's per-slot key counts): called with +1 when a key
  // is created and -1 when one is removed (delete, expiry, rename, overwrite by a new key),
  // and once with (empty key, 0) when clear() drops every key. Attaching reports every
  // existing key as +1 first, so the observer starts in step. Null by default: then the only
  // cost is one branch per insert/delete. The observer follows the keys on swap().
  using KeyObserver = void (*)(void* context, std::string_view key, int delta);
  void set_key_observer(KeyObserver fn, void* context);
  void* key_observer_context() const;

 private:
  friend class WriteHandle;
  friend class StringHandle;
  struct Impl;
  Impl* impl_;
  const std::size_t* used_;  // &impl_->heap.used
};

}  // namespace ruvio::store
