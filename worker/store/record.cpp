// Record building and reading; the byte picture is in record.hpp.
#include "worker/store/record.hpp"

#include <cstdlib>
#include <limits>
#include <new>

#include "worker/types/value.hpp"

namespace ruvio::store {

namespace {

[[noreturn]] void out_of_memory() {
  throw std::bad_alloc();
}

std::size_t varint_len(std::size_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

std::uint8_t* put_varint(std::uint8_t* p, std::size_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<std::uint8_t>(v);
  return p;
}

// Smallest n in 1..8 such that v fits in n signed bytes.
unsigned int_width(std::int64_t v) {
  unsigned n = 1;
  while (n < 8) {
    std::int64_t lim = std::int64_t{1} << (8 * n - 1);
    if (v >= -lim && v < lim) break;
    ++n;
  }
  return n;
}

std::size_t payload_size(const Payload& p) {
  switch (p.enc) {
    case Enc::kEmbStr:
    case Enc::kEmbRaw:
      return varint_len(p.bytes.size()) + p.bytes.size();
    case Enc::kExtStr:
    case Enc::kObject:
      return 8;
    case Enc::kInline:
      return (p.ptr != nullptr ? types::kFoldedHeader : 0) + p.bytes.size();
    default:
      return int_width(p.i);
  }
}

}  // namespace

Payload Payload::of_string(std::string_view v, bool detect_int) {
  Payload p;
  if (detect_int && parse_canonical_int(v, &p.i)) {
    p.enc = Enc::kInt1;
    return p;
  }
  p.bytes = v;
  p.enc = embeds(v.size(), v) ? Enc::kEmbStr : Enc::kExtStr;
  return p;
}

namespace ext {

void* make(Heap& heap, std::string_view bytes, std::size_t min_cap) {
  std::size_t cap = bytes.size() > min_cap ? bytes.size() : min_cap;
  void* b = heap.alloc(8 + cap);
  set_len(b, bytes.size());
  if (!bytes.empty()) std::memcpy(data(b), bytes.data(), bytes.size());
  return b;
}

void* reserve(Heap& heap, void* b, std::size_t need) {
  if (cap(b) >= need) return b;
  // sds growth: double while small, then 1 MB steps, so APPEND loops stay amortized O(1).
  constexpr std::size_t kStep = 1024 * 1024;
  std::size_t want = need < kStep ? need * 2 : need + kStep;
  std::size_t old_usable = mi_usable_size(b);
  void* nb = mi_realloc(b, 8 + want);
  if (nb == nullptr) out_of_memory();
  const std::size_t new_usable = mi_usable_size(nb);
  heap.used = heap.used - old_usable + new_usable;
  alloc_sampler().on_free(b, old_usable);  // a resize is a free and a new allocation
  alloc_sampler().on_alloc(nb, new_usable);
  return nb;
}

}  // namespace ext

std::size_t Record::size_for(std::string_view key, bool has_ttl, const Payload& p) {
  return kHeaderBytes + (has_ttl ? kExpireBytes : 0) + varint_len(key.size()) + key.size() +
         payload_size(p);
}

Record* Record::create(Heap& heap, Type type, std::string_view key, std::int64_t expire_at,
                       std::uint8_t clock, const Payload& p) {
  std::size_t n = size_for(key, expire_at != kNoExpire, p);
  auto* out = static_cast<std::uint8_t*>(heap.alloc(n));
  write(out, type, key, expire_at, clock, p);
  return reinterpret_cast<Record*>(out);
}

void Record::rewrite(Record* r, std::int64_t expire_at, std::uint8_t clock, const Payload& p) {
  // The key bytes stay where they are (has_ttl is unchanged), so no copy of the key is needed;
  // write() copies them onto themselves through memmove.
  write(r->wb(), r->type(), r->key(), expire_at, clock, p);
}

void Record::write(std::uint8_t* out, Type type, std::string_view key, std::int64_t expire_at,
                   std::uint8_t clock, const Payload& p) {
  bool ttl = expire_at != kNoExpire;
  std::uint8_t enc = static_cast<std::uint8_t>(p.enc);
  unsigned width = 0;
  if (p.enc >= Enc::kInt1) {
    width = int_width(p.i);
    enc = static_cast<std::uint8_t>(static_cast<unsigned>(Enc::kInt1) + width - 1);
  }
  out[0] = static_cast<std::uint8_t>((static_cast<unsigned>(type) & 7u) | (enc << 3) |
                                     (ttl ? 0x80u : 0u));
  out[1] = clock;
  std::uint8_t* w = out + kHeaderBytes;
  if (ttl) {
    std::memcpy(w, &expire_at, 8);
    w += 8;
  }
  w = put_varint(w, key.size());
  if (!key.empty()) std::memmove(w, key.data(), key.size());
  w += key.size();
  switch (p.enc) {
    case Enc::kEmbStr:
    case Enc::kEmbRaw:
      w = put_varint(w, p.bytes.size());
      if (!p.bytes.empty()) std::memcpy(w, p.bytes.data(), p.bytes.size());
      break;
    case Enc::kExtStr:
    case Enc::kObject:
      std::memcpy(w, &p.ptr, 8);
      break;
    case Enc::kInline:
      if (p.ptr != nullptr) {
        types::fold_into(static_cast<const types::Object*>(p.ptr), p.bytes, w);
      } else {
        std::memmove(w, p.bytes.data(), p.bytes.size());
      }
      break;
    default: {
      std::uint64_t u = static_cast<std::uint64_t>(p.i);
      for (unsigned k = 0; k < width; ++k) w[k] = static_cast<std::uint8_t>(u >> (8 * k));
      break;
    }
  }
}

void Record::release_owned(Heap& heap, Record* r) {
  if (r->enc() == Enc::kExtStr) {
    heap.release(r->ext_buf());
  } else if (r->enc() == Enc::kObject) {
    types::Object* o = r->object();
    types::ops_of(o).destroy(heap, o);
  }
}

void Record::destroy(Heap& heap, Record* r) {
  release_owned(heap, r);
  heap.release(r);
}

void Record::destroy_keep(Heap& heap, Record* r) {
  release_owned(heap, r);
  heap.release_keep(r);
}

std::int64_t Record::int_value() const {
  unsigned width = static_cast<unsigned>(enc()) - static_cast<unsigned>(Enc::kInt1) + 1;
  const std::uint8_t* p = value_ptr();
  std::uint64_t u = 0;
  for (unsigned k = 0; k < width; ++k) u |= static_cast<std::uint64_t>(p[k]) << (8 * k);
  if (width < 8 && (p[width - 1] & 0x80)) u |= ~std::uint64_t{0} << (8 * width);  // sign-extend
  return static_cast<std::int64_t>(u);
}

void Record::set_ext_buf(void* buf) {
  std::memcpy(const_cast<std::uint8_t*>(value_ptr()), &buf, 8);
}

std::size_t Record::str_len() const {
  return is_int() ? int_text_len(int_value()) : str().size();
}

types::Object* Record::object() const {
  if (enc() == Enc::kInline) {
    return reinterpret_cast<types::Object*>(const_cast<std::uint8_t*>(value_ptr()));
  }
  types::Object* o;
  std::memcpy(&o, value_ptr(), 8);
  return o;
}

void Record::set_object(types::Object* o) {
  std::memcpy(const_cast<std::uint8_t*>(value_ptr()), &o, 8);
}

bool Record::resize_embedded(std::size_t n) {
  auto* p = const_cast<std::uint8_t*>(value_ptr());
  std::size_t old;
  std::uint8_t* d = const_cast<std::uint8_t*>(get_varint(p, &old));
  if (varint_len(n) != static_cast<std::size_t>(d - p)) return false;
  if (!embeds(n, {reinterpret_cast<const char*>(d), old})) return false;
  const std::size_t need = static_cast<std::size_t>(d - b()) + n;
  const std::size_t usable = mi_usable_size(this);
  // Growing: the block holds it (its bin was right for the old size, so it is for the new).
  // Shrinking: only while the bin is still the one size_for() would pick.
  if (n > old ? need > usable : mi_good_size(need) != usable) return false;
  put_varint(p, n);
  if (n > old) std::memset(d + old, 0, n - old);
  return true;
}

Payload Record::payload() const {
  Payload p;
  p.enc = enc();
  if (is_int()) {
    p.enc = Enc::kInt1;
    p.i = int_value();
  } else if (p.enc == Enc::kEmbStr || p.enc == Enc::kEmbRaw) {
    p.bytes = str();
  } else if (p.enc == Enc::kInline) {
    const types::Object* o = object();
    p.bytes = {reinterpret_cast<const char*>(o), types::folded_size(o)};
  } else {
    std::memcpy(&p.ptr, value_ptr(), 8);
  }
  return p;
}

std::size_t Record::memory_usage() const {
  std::size_t n = mi_usable_size(this);
  if (enc() == Enc::kExtStr) {
    n += mi_usable_size(ext_buf());
  } else if (enc() == Enc::kObject) {
    const types::Object* o = object();
    n += types::ops_of(o).memory_usage(o);
  }
  return n;
}

}  // namespace ruvio::store
