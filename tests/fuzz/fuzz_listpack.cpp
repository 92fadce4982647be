// libFuzzer target: untrusted bytes (a RESTORE payload) go through Listpack::validate first;
// whatever it accepts must then walk both ways, seek, compare and take writes without reading
// outside the blob, and stay valid after them. Validation itself must never read out of bounds.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_listpack.cpp worker/containers/listpack.cpp \
//       worker/memory/heap.cpp worker/containers/canonical_int.cpp \
//       worker/memory/alloc_sampler.cpp -lmimalloc -o fuzz_listpack
//
// Input: the listpack bytes, as they are (seed with any DUMP body from test_listpack.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "worker/containers/listpack.hpp"
#include "worker/store/record.hpp"

namespace {

using ruvio::store::Heap;
using ruvio::types::Listpack;
using Pos = Listpack::Pos;

void check(bool ok) {
  if (!ok) std::abort();
}

std::vector<std::string> walk(const Listpack& lp) {
  Listpack::IntBuf buf;
  std::vector<std::string> fwd;
  for (Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) {
    fwd.emplace_back(lp.get_str(p, buf));  // touches every byte of the entry
  }
  std::size_t i = fwd.size();
  for (Pos p = lp.last(); p != Listpack::kNone; p = lp.prev(p)) {
    check(i > 0);
    check(fwd[--i] == lp.get_str(p, buf));
  }
  check(i == 0);
  return fwd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // An exact-size heap copy so ASan sees any read past the end.
  std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[size == 0 ? 1 : size]);
  if (size != 0) std::memcpy(exact.get(), data, size);
  std::size_t n = 0;
  if (!Listpack::validate({exact.get(), size}, &n)) return 0;

  const Listpack view(exact.get());
  const std::vector<std::string> items = walk(view);
  check(items.size() == n);
  check(view.count() == n);
  for (std::size_t i = 0; i < n && i < 64; ++i) {
    Listpack::IntBuf buf;
    const auto idx = static_cast<std::int64_t>(i);
    check(view.get_str(view.seek(idx), buf) == items[i]);
    check(view.get_str(view.seek(idx - static_cast<std::int64_t>(n)), buf) == items[i]);
    check(view.find(view.first(), items[i]) != Listpack::kNone);
  }
  check(view.seek(static_cast<std::int64_t>(n)) == Listpack::kNone);

  // Writes on an accepted blob keep it valid: replace, insert and erase around the middle.
  Heap heap;
  auto lp = Listpack::load(heap, {exact.get(), size});
  check(lp.has_value());
  lp->append(heap, items.empty() ? std::string("x") : items.front());
  const Pos mid = lp->seek(static_cast<std::int64_t>(n / 2));
  lp->replace(heap, mid, "replaced");
  lp->insert(heap, lp->seek(0), Listpack::Where::kAfter, -123456789);
  lp->erase_range(heap, 1, n / 3);
  std::size_t after = 0;
  check(Listpack::validate(lp->span(), &after));
  check(walk(*lp).size() == after);
  lp->destroy(heap);
  check(heap.used == 0);
  return 0;
}
