// The Db's write handles: WriteHandle (a collection value opened for writing: fold/unfold,
// the keyspace event and the record's settling on release) and StringHandle (a string value
// opened for in-place writes: SETRANGE, SETBIT, APPEND's big cases).
#include "worker/store/db_impl.hpp"

namespace ruvio::store {

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
    unsignalled_ = std::exchange(o.unsignalled_, false);
    stored_ = std::exchange(o.stored_, false);
    unsignalled_ = std::exchange(o.unsignalled_, false);
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
  if (dirty_) db->impl_->written(key_, rec_ != nullptr, !unsignalled_);
  dirty_ = false;
  stored_ = false;
  unsignalled_ = false;
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
    db->impl_->written(key_, rec_ != nullptr, !unsignalled_);
  }
  dirty_ = false;
  unsignalled_ = false;
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
