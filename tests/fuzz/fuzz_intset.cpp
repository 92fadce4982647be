// libFuzzer target: untrusted bytes go through Intset::validate first; whatever it accepts
// must read in order, find each member, and take adds (with upgrades) and removes staying
// valid. Validation itself must never read out of bounds.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_intset.cpp worker/containers/intset.cpp \
//       worker/memory/heap.cpp worker/containers/canonical_int.cpp \
//       worker/memory/alloc_sampler.cpp -lmimalloc -o fuzz_intset
//
// Input: the intset bytes, as they are (seed with the DUMP bodies from test_intset.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "worker/containers/intset.hpp"
#include "worker/store/record.hpp"

namespace {

using ruvio::store::Heap;
using ruvio::types::Intset;

void check(bool ok) {
  if (!ok) std::abort();
}

void check_sorted(const Intset& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::size_t pos = 0;
    check(s.find(s.get(i), &pos) && pos == i);
    if (i > 0) check(s.get(i - 1) < s.get(i));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // An exact-size heap copy so ASan sees any read past the end.
  std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[size == 0 ? 1 : size]);
  if (size != 0) std::memcpy(exact.get(), data, size);
  if (!Intset::validate({exact.get(), size})) return 0;

  const Intset view(exact.get());
  check(view.bytes() == size);
  check_sorted(view);

  Heap heap;
  auto s = Intset::load(heap, {exact.get(), size});
  check(s.has_value());
  const std::size_t n = s->size();
  const std::int64_t lo = s->min();
  const std::int64_t hi = s->max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::size_t want = n;
  check(!s->add(heap, lo));
  if (lo > kMin) {
    check(s->add(heap, lo - 1));  // prepends, upgrading when lo - 1 needs a wider width
    ++want;
  }
  if (hi < kMax) {
    check(s->add(heap, hi + 1));
    ++want;
  }
  const bool had_max = hi >= kMax - 1;  // hi itself, or hi + 1 just added
  check(s->add(heap, kMax) == !had_max);
  if (!had_max) ++want;
  check(s->remove(heap, s->get(s->size() / 2)));
  check(s->size() == want - 1);
  check(Intset::validate(s->span()));
  check_sorted(*s);
  s->destroy(heap);
  check(heap.used == 0);
  return 0;
}
