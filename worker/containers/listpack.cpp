#include "worker/containers/listpack.hpp"

#include <array>
#include <cassert>
#include <charconv>
#include <cstring>
#include <limits>

namespace ruvio::types {

namespace {

using Pos = Listpack::Pos;

// First bytes of the encodings (listpack.hpp draws them).
constexpr std::uint8_t kStr6 = 0x80;
constexpr std::uint8_t kInt13 = 0xC0;
constexpr std::uint8_t kStr12 = 0xE0;
constexpr std::uint8_t kStr32 = 0xF0;
constexpr std::uint8_t kInt16 = 0xF1;
constexpr std::uint8_t kInt24 = 0xF2;
constexpr std::uint8_t kInt32 = 0xF3;
constexpr std::uint8_t kInt64 = 0xF4;

std::uint32_t load_u32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}

void store_u32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
  p[2] = static_cast<std::uint8_t>(v >> 16);
  p[3] = static_cast<std::uint8_t>(v >> 24);
}

std::uint64_t load_le(const std::uint8_t* p, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

void store_le(std::uint8_t* p, std::uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Bytes that must be readable to learn an entry's size from its first byte; 0 when the byte
// starts no entry (unused encodings and the terminator).
std::size_t length_bytes(std::uint8_t b) {
  if (b < kStr12) return 1;  // 7-bit int, 6-bit string, 13-bit int
  if (b < kStr32) return 2;  // 12-bit string
  if (b == kStr32) return 5;
  if (b <= kInt64) return 1;
  return 0;
}

// encoded_size of the small entries by first byte (validate's fast path); 0 for the others.
constexpr std::array<std::uint8_t, 256> kSmallEncodedSize = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned b = 0; b < kStr12; ++b) t[b] = b < kStr6 ? 1 : b < kInt13 ? 1 + (b & 0x3Fu) : 2;
  return t;
}();

// Size of encoding + data of the entry at e (its length_bytes readable); 0 when unknown.
std::uint64_t encoded_size(const std::uint8_t* e) {
  const std::uint8_t b = e[0];
  if (b < kStr6) return 1;
  if (b < kInt13) return 1 + (b & 0x3Fu);
  if (b < kStr12) return 2;
  if (b < kStr32) return 2 + ((std::uint64_t{b} & 0x0Fu) << 8 | e[1]);
  switch (b) {
    case kStr32:
      return 5 + std::uint64_t{load_u32(e + 1)};
    case kInt16:
      return 3;
    case kInt24:
      return 4;
    case kInt32:
      return 5;
    case kInt64:
      return 9;
    default:
      return 0;
  }
}

// Size of the whole entry at e, backlen included. The small encodings (7-bit integers,
// strings to 63 bytes, 13-bit integers: a 1-byte backlen) are decided inline, since every walk
// (next, seek: LINDEX, LSET, LRANGE) runs through here once per entry.
inline std::size_t entry_size(const std::uint8_t* e) {
  const std::uint8_t b = e[0];
  if (b < kStr6) return 2;
  if (b < kInt13) return 2 + (b & 0x3Fu);
  if (b < kStr12) return 3;
  const std::uint64_t n = encoded_size(e);
  assert(n != 0);
  return static_cast<std::size_t>(n + (n <= 127 ? 1 : listpack_detail::backlen_size(n)));
}

// A blob moves when it outgrows its block or falls under half of it (mi_realloc's rule).
bool must_move(const void* p, std::size_t new_size) {
  const std::size_t usable = mi_usable_size(p);
  return new_size > usable || new_size < usable / 2;
}

}  // namespace

namespace listpack_detail {

std::size_t backlen_size(std::uint64_t len) {
  if (len <= 127) return 1;
  if (len < 16383) return 2;
  if (len < 2097151) return 3;
  if (len < 268435455) return 4;
  return 5;
}

void encode_backlen(std::uint8_t* out, std::uint64_t len) {
  const std::size_t n = backlen_size(len);
  out[0] = static_cast<std::uint8_t>((len >> (7 * (n - 1))) & 127u);
  for (std::size_t i = 1; i < n; ++i) {
    out[i] = static_cast<std::uint8_t>(((len >> (7 * (n - 1 - i))) & 127u) | 128u);
  }
}

std::uint64_t decode_backlen(const std::uint8_t* last) {
  std::uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    v |= std::uint64_t{*last & 127u} << shift;
    if ((*last & 128u) == 0) return v;
    if (shift == 28) return std::numeric_limits<std::uint64_t>::max();
    --last;
  }
}

std::size_t encode_int(std::uint8_t* out, std::int64_t v) {
  if (v >= 0 && v <= 127) {
    out[0] = static_cast<std::uint8_t>(v);
    return 1;
  }
  if (v >= -4096 && v <= 4095) {
    const auto u = static_cast<std::uint64_t>(v < 0 ? v + 8192 : v);
    out[0] = static_cast<std::uint8_t>(kInt13 | (u >> 8));
    out[1] = static_cast<std::uint8_t>(u);
    return 2;
  }
  const auto u = static_cast<std::uint64_t>(v);
  unsigned width;
  if (v >= -32768 && v <= 32767) {
    out[0] = kInt16;
    width = 2;
  } else if (v >= -8388608 && v <= 8388607) {
    out[0] = kInt24;
    width = 3;
  } else if (v >= std::numeric_limits<std::int32_t>::min() &&
             v <= std::numeric_limits<std::int32_t>::max()) {
    out[0] = kInt32;
    width = 4;
  } else {
    out[0] = kInt64;
    width = 8;
  }
  store_le(out + 1, u, width);
  return 1 + width;
}

}  // namespace listpack_detail

using listpack_detail::backlen_size;
using listpack_detail::decode_backlen;
using listpack_detail::encode_backlen;

Listpack::Elem::Elem(std::string_view s) : s_(s) {
  is_int_ = containers::parse_canonical_int(s, &i_);
}

// --- lifetime ---------------------------------------------------------------------------------

Listpack Listpack::create(store::Heap& heap) {
  auto* lp = static_cast<std::uint8_t*>(heap.alloc(kEmptyBytes));
  store_u32(lp, kEmptyBytes);
  lp[4] = 0;
  lp[5] = 0;
  lp[kHeaderBytes] = kEnd;
  return Listpack(lp);
}

std::optional<Listpack> Listpack::load(store::Heap& heap, std::span<const std::uint8_t> bytes) {
  if (!validate(bytes)) return std::nullopt;
  auto* lp = static_cast<std::uint8_t*>(heap.alloc(bytes.size()));
  std::memcpy(lp, bytes.data(), bytes.size());
  return Listpack(lp);
}

Listpack Listpack::clone(store::Heap& heap) const {
  const std::size_t n = bytes();
  auto* lp = static_cast<std::uint8_t*>(heap.alloc(n));
  std::memcpy(lp, lp_, n);
  return Listpack(lp);
}

void Listpack::destroy(store::Heap& heap) {
  heap.release(lp_);
  lp_ = nullptr;
}

// --- validation -------------------------------------------------------------------------------

bool Listpack::validate(std::span<const std::uint8_t> bytes, std::size_t* count) {
  const std::size_t size = bytes.size();
  if (size < kEmptyBytes || size > std::numeric_limits<std::uint32_t>::max()) return false;
  const std::uint8_t* b = bytes.data();
  if (load_u32(b) != size || b[size - 1] != kEnd) return false;
  const std::size_t end = size - 1;  // the terminator
  std::size_t p = kHeaderBytes;
  std::size_t n = 0;
  while (p < end) {
    const std::size_t room = end - p;  // bytes this entry may use
    // The common small entries (7-bit ints, strings to 63 bytes, 13-bit ints) have a one-byte
    // backlen equal to their size: checked inline, without building the backlen to compare.
    if (const std::size_t enc = kSmallEncodedSize[b[p]]; enc != 0) {
      if (enc >= room || b[p + enc] != enc) return false;
      p += enc + 1;
      ++n;
      continue;
    }
    const std::size_t lb = length_bytes(b[p]);
    if (lb == 0 || lb > room) return false;
    const std::uint64_t enc = encoded_size(b + p);
    if (enc > room) return false;
    const std::size_t bl = backlen_size(enc);
    if (bl > room - enc) return false;
    std::uint8_t want[5];
    encode_backlen(want, enc);
    if (std::memcmp(b + p + enc, want, bl) != 0) return false;
    p += static_cast<std::size_t>(enc) + bl;
    ++n;
  }
  const std::uint16_t h = static_cast<std::uint16_t>(b[4] | b[5] << 8);
  if (h != kCountUnknown && h != n) return false;
  if (count != nullptr) *count = n;
  return true;
}

// --- header -----------------------------------------------------------------------------------

std::size_t Listpack::bytes() const {
  return load_u32(lp_);
}

std::uint16_t Listpack::header_count() const {
  return static_cast<std::uint16_t>(lp_[4] | lp_[5] << 8);
}

void Listpack::set_header_count(std::uint16_t n) const {
  lp_[4] = static_cast<std::uint8_t>(n);
  lp_[5] = static_cast<std::uint8_t>(n >> 8);
}

void Listpack::add_count(std::int64_t delta) {
  const std::uint16_t h = header_count();
  if (h == kCountUnknown) return;  // stays unknown until count() walks
  const std::int64_t n = std::int64_t{h} + delta;
  assert(n >= 0);
  set_header_count(n >= kCountUnknown ? kCountUnknown : static_cast<std::uint16_t>(n));
}

std::size_t Listpack::count() const {
  const std::uint16_t h = header_count();
  if (h != kCountUnknown) return h;
  std::size_t n = 0;
  for (Pos p = first(); p != kNone; p = next(p)) ++n;
  if (n < kCountUnknown) set_header_count(static_cast<std::uint16_t>(n));
  return n;
}

// --- walking ----------------------------------------------------------------------------------

Listpack::Pos Listpack::first() const {
  return lp_[kHeaderBytes] == kEnd ? kNone : static_cast<Pos>(kHeaderBytes);
}

Listpack::Pos Listpack::last() const {
  const auto end = static_cast<Pos>(bytes() - 1);
  return end == kHeaderBytes ? kNone : prev(end);
}

Listpack::Pos Listpack::next(Pos p) const {
  assert(p >= kHeaderBytes && p < bytes() - 1);
  const auto q = static_cast<Pos>(p + entry_size(lp_ + p));
  return lp_[q] == kEnd ? kNone : q;
}

Listpack::Pos Listpack::prev(Pos p) const {
  assert(p >= kHeaderBytes && p < bytes());
  if (p == kHeaderBytes) return kNone;
  // A 1-byte backlen (entries up to 127 bytes) has its top bit clear.
  if (lp_[p - 1] < 128) return static_cast<Pos>(p - 1 - lp_[p - 1]);
  const std::uint64_t len = decode_backlen(lp_ + p - 1);
  return static_cast<Pos>(p - len - backlen_size(len));
}

Listpack::Pos Listpack::seek(std::int64_t index) const {
  const std::uint16_t h = header_count();
  bool forward = true;
  if (h != kCountUnknown) {
    if (index < 0) index += h;
    if (index < 0 || index >= h) return kNone;
    if (index > h / 2) {
      forward = false;
      index -= h;  // now negative: -1 is the last entry
    }
  } else if (index < 0) {
    forward = false;
  }
  Pos p;
  if (forward && h != kCountUnknown) {
    // The entry exists (index < count): skip entry sizes without end checks.
    std::size_t off = kHeaderBytes;
    for (; index > 0; --index) off += entry_size(lp_ + off);
    return static_cast<Pos>(off);
  }
  if (forward) {
    for (p = first(); p != kNone && index > 0; --index) p = next(p);
  } else {
    for (p = last(); p != kNone && index < -1; ++index) p = prev(p);
  }
  return p;
}

// --- reading ----------------------------------------------------------------------------------

Listpack::Entry Listpack::get(Pos p) const {
  const std::uint8_t* e = lp_ + p;
  const std::uint8_t b = e[0];
  Entry out;
  if (b < kStr6) {
    out.is_int = true;
    out.i = b;
  } else if (b < kInt13) {
    out.str = {reinterpret_cast<const char*>(e + 1), b & 0x3Fu};
  } else if (b < kStr12) {
    const std::int64_t u = (b & 0x1F) << 8 | e[1];
    out.is_int = true;
    out.i = u >= 4096 ? u - 8192 : u;
  } else if (b < kStr32) {
    out.str = {reinterpret_cast<const char*>(e + 2),
               static_cast<std::size_t>((b & 0x0F) << 8 | e[1])};
  } else if (b == kStr32) {
    out.str = {reinterpret_cast<const char*>(e + 5), load_u32(e + 1)};
  } else {
    out.is_int = true;
    switch (b) {
      case kInt16:
        out.i = static_cast<std::int16_t>(load_le(e + 1, 2));
        break;
      case kInt24: {
        const auto u = static_cast<std::int64_t>(load_le(e + 1, 3));
        out.i = u >= (1 << 23) ? u - (1 << 24) : u;
        break;
      }
      case kInt32:
        out.i = static_cast<std::int32_t>(load_le(e + 1, 4));
        break;
      case kInt64:
        out.i = static_cast<std::int64_t>(load_le(e + 1, 8));
        break;
      default:
        assert(false && "listpack: unknown encoding (blob not validated?)");
    }
  }
  return out;
}

std::string_view Listpack::get_str(Pos p, IntBuf& buf) const {
  const Entry e = get(p);
  if (!e.is_int) return e.str;
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), e.i);
  return {buf.data(), static_cast<std::size_t>(r.ptr - buf.data())};
}

std::optional<std::int64_t> Listpack::get_int(Pos p) const {
  const Entry e = get(p);
  if (!e.is_int) return std::nullopt;
  return e.i;
}

bool Listpack::equals(Pos p, std::string_view s) const {
  const Entry e = get(p);
  if (!e.is_int) return e.str == s;
  std::int64_t v;
  return containers::parse_canonical_int(s, &v) && v == e.i;
}

Listpack::Pos Listpack::find(Pos from, std::string_view s, unsigned skip) const {
  std::int64_t v = 0;
  const bool s_is_int = containers::parse_canonical_int(s, &v);
  unsigned left = 0;
  for (Pos p = from; p != kNone; p = next(p)) {
    if (left > 0) {
      --left;
      continue;
    }
    const Entry e = get(p);
    if (e.is_int ? (s_is_int && e.i == v) : e.str == s) return p;
    left = skip;
  }
  return kNone;
}

// --- writing ----------------------------------------------------------------------------------

void Listpack::splice(store::Heap& heap, std::size_t off, std::size_t old_len,
                      std::size_t new_len) {
  const std::size_t total = bytes();
  const std::size_t tail = total - off - old_len;  // the terminator included
  const std::size_t new_total = total - old_len + new_len;
  assert(new_total <= std::numeric_limits<std::uint32_t>::max());
  if (must_move(lp_, new_total)) {
    // One copy of each side instead of realloc's copy plus a memmove.
    auto* nb = static_cast<std::uint8_t*>(heap.alloc(new_total));
    std::memcpy(nb, lp_, off);
    std::memcpy(nb + off + new_len, lp_ + off + old_len, tail);
    heap.release(lp_);
    lp_ = nb;
  } else if (new_len != old_len) {
    std::memmove(lp_ + off + new_len, lp_ + off + old_len, tail);
  }
  store_u32(lp_, static_cast<std::uint32_t>(new_total));
}

Listpack::Pos Listpack::write_at(store::Heap& heap, std::size_t off, std::size_t old_len,
                                 const Elem& e) {
  std::uint8_t head[9];
  std::size_t hl;
  std::string_view data;
  std::string copy;
  if (e.is_int()) {
    hl = listpack_detail::encode_int(head, e.int_value());
  } else {
    data = e.str();
    const std::size_t n = data.size();
    if (n < 64) {
      head[0] = static_cast<std::uint8_t>(kStr6 | n);
      hl = 1;
    } else if (n < 4096) {
      head[0] = static_cast<std::uint8_t>(kStr12 | (n >> 8));
      head[1] = static_cast<std::uint8_t>(n);
      hl = 2;
    } else {
      assert(n <= std::numeric_limits<std::uint32_t>::max());
      head[0] = kStr32;
      store_u32(head + 1, static_cast<std::uint32_t>(n));
      hl = 5;
    }
    // A value read from this very blob would be moved or overwritten by the splice.
    const auto d = reinterpret_cast<std::uintptr_t>(data.data());
    const auto lo = reinterpret_cast<std::uintptr_t>(lp_);
    if (n > 0 && d < lo + alloc_size() && d + n > lo) {
      copy.assign(data);
      data = copy;
    }
  }
  const std::size_t enc = hl + data.size();
  const std::size_t bl = backlen_size(enc);
  splice(heap, off, old_len, enc + bl);
  std::uint8_t* out = lp_ + off;
  std::memcpy(out, head, hl);
  if (!data.empty()) std::memcpy(out + hl, data.data(), data.size());
  encode_backlen(out + enc, enc);
  return static_cast<Pos>(off);
}

Listpack::Pos Listpack::append(store::Heap& heap, Elem e) {
  const Pos p = write_at(heap, bytes() - 1, 0, e);
  add_count(1);
  return p;
}

Listpack::Pos Listpack::prepend(store::Heap& heap, Elem e) {
  const Pos p = write_at(heap, kHeaderBytes, 0, e);
  add_count(1);
  return p;
}

Listpack::Pos Listpack::insert(store::Heap& heap, Pos at, Where where, Elem e) {
  assert(at >= kHeaderBytes && at < bytes() - 1);
  const std::size_t off = where == Where::kAfter ? at + entry_size(lp_ + at) : at;
  const Pos p = write_at(heap, off, 0, e);
  add_count(1);
  return p;
}

Listpack::Pos Listpack::replace(store::Heap& heap, Pos at, Elem e) {
  assert(at >= kHeaderBytes && at < bytes() - 1);
  return write_at(heap, at, entry_size(lp_ + at), e);
}

Listpack::Pos Listpack::erase(store::Heap& heap, Pos at) {
  return erase(heap, at, 1);
}

Listpack::Pos Listpack::erase(store::Heap& heap, Pos at, std::size_t n) {
  assert(at >= kHeaderBytes && at < bytes() - 1);
  std::size_t q = at;
  std::size_t deleted = 0;
  while (deleted < n && lp_[q] != kEnd) {
    q += entry_size(lp_ + q);
    ++deleted;
  }
  splice(heap, at, q - at, 0);
  add_count(-static_cast<std::int64_t>(deleted));
  return lp_[at] == kEnd ? kNone : at;
}

void Listpack::erase_range(store::Heap& heap, std::int64_t index, std::size_t n) {
  if (n == 0) return;
  const Pos p = seek(index);
  if (p != kNone) erase(heap, p, n);
}

}  // namespace ruvio::types
