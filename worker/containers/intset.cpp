#include "worker/containers/intset.hpp"

#include <bit>
#include <cassert>
#include <limits>

namespace ruvio::types {

// Members and header are read and written with memcpy in native order.
static_assert(std::endian::native == std::endian::little, "intset: little-endian hosts only");

namespace {

std::int64_t load_member(const std::uint8_t* p, std::uint32_t width) {
  switch (width) {
    case 2: {
      std::int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

void store_member(std::uint8_t* p, std::uint32_t width, std::int64_t v) {
  switch (width) {
    case 2: {
      const auto n = static_cast<std::int16_t>(v);
      std::memcpy(p, &n, 2);
      break;
    }
    case 4: {
      const auto n = static_cast<std::int32_t>(v);
      std::memcpy(p, &n, 4);
      break;
    }
    default:
      std::memcpy(p, &v, 8);
  }
}

// A blob moves when it outgrows its block or falls under half of it (mi_realloc's rule).
bool must_move(const void* p, std::size_t new_size) {
  const std::size_t usable = mi_usable_size(p);
  return new_size > usable || new_size < usable / 2;
}

}  // namespace

std::uint32_t Intset::width_for(std::int64_t v) {
  if (v >= std::numeric_limits<std::int16_t>::min() &&
      v <= std::numeric_limits<std::int16_t>::max())
    return 2;
  if (v >= std::numeric_limits<std::int32_t>::min() &&
      v <= std::numeric_limits<std::int32_t>::max())
    return 4;
  return 8;
}

Intset Intset::create(store::Heap& heap) {
  Intset s(static_cast<std::uint8_t*>(heap.alloc(kHeaderBytes)));
  s.store32(0, 2);
  s.store32(4, 0);
  return s;
}

std::optional<Intset> Intset::load(store::Heap& heap, std::span<const std::uint8_t> bytes) {
  if (!validate(bytes)) return std::nullopt;
  auto* b = static_cast<std::uint8_t*>(heap.alloc(bytes.size()));
  std::memcpy(b, bytes.data(), bytes.size());
  return Intset(b);
}

Intset Intset::clone(store::Heap& heap) const {
  auto* b = static_cast<std::uint8_t*>(heap.alloc(bytes()));
  std::memcpy(b, is_, bytes());
  return Intset(b);
}

void Intset::destroy(store::Heap& heap) {
  heap.release(is_);
  is_ = nullptr;
}

bool Intset::validate(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderBytes) return false;
  std::uint32_t width;
  std::uint32_t length;
  std::memcpy(&width, bytes.data(), 4);
  std::memcpy(&length, bytes.data() + 4, 4);
  if (width != 2 && width != 4 && width != 8) return false;
  // 64-bit arithmetic: length x 8 cannot overflow.
  if (kHeaderBytes + std::uint64_t{length} * width != bytes.size()) return false;
  if (length == 0) return false;
  const std::uint8_t* m = bytes.data() + kHeaderBytes;
  std::int64_t prev = load_member(m, width);
  for (std::uint32_t i = 1; i < length; ++i) {
    const std::int64_t cur = load_member(m + std::size_t{i} * width, width);
    if (cur <= prev) return false;
    prev = cur;
  }
  return true;
}

std::int64_t Intset::get(std::size_t i) const {
  assert(i < size());
  const std::uint32_t w = width();
  return load_member(is_ + kHeaderBytes + i * w, w);
}

void Intset::set(std::size_t i, std::int64_t v) {
  const std::uint32_t w = width();
  store_member(is_ + kHeaderBytes + i * w, w, v);
}

bool Intset::find(std::int64_t v, std::size_t* pos) const {
  const std::size_t n = size();
  // The ends first: appending ascending members (a common load) then costs O(1).
  if (n == 0 || v < get(0)) {
    *pos = 0;
    return false;
  }
  if (v > get(n - 1)) {
    *pos = n;
    return false;
  }
  std::size_t lo = 0;
  std::size_t hi = n;  // v lies in [get(lo), get(hi - 1)]
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    const std::int64_t m = get(mid);
    if (m == v) {
      *pos = mid;
      return true;
    }
    if (m < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *pos = lo;
  return false;
}

void Intset::resize(store::Heap& heap, std::size_t keep, std::size_t new_bytes) {
  if (!must_move(is_, new_bytes)) return;
  auto* b = static_cast<std::uint8_t*>(heap.alloc(new_bytes));
  std::memcpy(b, is_, keep < new_bytes ? keep : new_bytes);
  heap.release(is_);
  is_ = b;
}

void Intset::upgrade_and_add(store::Heap& heap, std::int64_t v) {
  const std::uint32_t old_w = width();
  const std::uint32_t new_w = width_for(v);
  const std::size_t n = size();
  // v does not fit the old width, so it is below every member or above every member.
  const std::size_t shift = v < 0 ? 1 : 0;
  const std::size_t new_bytes = kHeaderBytes + (n + 1) * new_w;
  const std::uint8_t* src = is_ + kHeaderBytes;
  std::uint8_t* old = nullptr;
  if (must_move(is_, new_bytes)) {
    old = is_;
    is_ = static_cast<std::uint8_t*>(heap.alloc(new_bytes));
  }
  std::uint8_t* dst = is_ + kHeaderBytes;
  // From the end down, so in place a wider write never lands on a member not yet read.
  for (std::size_t i = n; i-- > 0;) {
    store_member(dst + (i + shift) * new_w, new_w, load_member(src + i * old_w, old_w));
  }
  if (old != nullptr) heap.release(old);
  store32(0, new_w);
  store32(4, static_cast<std::uint32_t>(n + 1));
  set(shift == 1 ? 0 : n, v);
}

bool Intset::add(store::Heap& heap, std::int64_t v) {
  if (width_for(v) > width()) {
    upgrade_and_add(heap, v);
    return true;
  }
  std::size_t pos;
  if (find(v, &pos)) return false;
  const std::size_t n = size();
  const std::uint32_t w = width();
  assert(n < std::numeric_limits<std::uint32_t>::max());
  resize(heap, bytes(), kHeaderBytes + (n + 1) * w);
  std::uint8_t* m = is_ + kHeaderBytes;
  std::memmove(m + (pos + 1) * w, m + pos * w, (n - pos) * w);
  store32(4, static_cast<std::uint32_t>(n + 1));
  set(pos, v);
  return true;
}

bool Intset::remove(store::Heap& heap, std::int64_t v) {
  if (width_for(v) > width()) return false;
  std::size_t pos;
  if (!find(v, &pos)) return false;
  const std::size_t n = size();
  const std::uint32_t w = width();
  std::uint8_t* m = is_ + kHeaderBytes;
  std::memmove(m + pos * w, m + (pos + 1) * w, (n - pos - 1) * w);
  store32(4, static_cast<std::uint32_t>(n - 1));
  resize(heap, bytes(), bytes());
  return true;
}

}  // namespace ruvio::types
