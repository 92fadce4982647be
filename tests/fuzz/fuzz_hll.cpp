// libFuzzer target: untrusted bytes as a HyperLogLog string (SET by a client, or RESTOREd).
// Whatever passes looks_valid() must go through every HLL operation -- count, merge,
// to_dense, register raises, the sparse opcode rewrite with promotion -- without reading or
// writing outside the string, and a write that succeeds must leave a string that still
// passes looks_valid() and counts the same as its dense form.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_hll.cpp worker/types/hll/hll.cpp -o fuzz_hll
//
// Input: [1 byte: how many registers to raise][3 bytes per raise: index lo, index hi, value]
// then the HLL bytes. Seed with any GET of an HLL key (redis-server's or Ruvio's).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "worker/types/hll/hll.hpp"

namespace hll = ruvio::types::hll;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::size_t raises = data[0] % 8;
  if (size < 1 + raises * 3) return 0;
  const std::uint8_t* ops = data + 1;
  std::string s(reinterpret_cast<const char*>(data + 1 + raises * 3), size - 1 - raises * 3);
  // An exact-size heap copy, so AddressSanitizer sees any read past the end.
  if (!hll::looks_valid(s)) return 0;

  bool invalid = false;
  const std::uint64_t card = hll::count(s, &invalid);
  static std::uint8_t max[hll::kRegisters];
  std::memset(max, 0, sizeof max);
  const bool merged = hll::merge(max, s);
  check(merged == !invalid);
  if (merged) check(hll::count_registers(max) == card);

  std::string dense = s;
  const bool converted = hll::to_dense(dense);
  check(converted == !invalid);
  if (converted) {
    check(hll::looks_valid(dense) && hll::is_dense(dense));
    bool inv2 = false;
    check(hll::count(dense, &inv2) == card && !inv2);
  }

  for (std::size_t i = 0; i < raises; ++i) {
    const std::size_t reg = (ops[i * 3] | (ops[i * 3 + 1] << 8)) % hll::kRegisters;
    const unsigned value = ops[i * 3 + 2] % 52;
    if (value == 0) continue;
    const int r = hll::set(s, reg, value, 3000);
    if (r < 0) return 0;  // corrupt: the caller answers INVALIDOBJ
    check(hll::looks_valid(s));
  }
  if (raises > 0 && !invalid) {
    bool inv3 = false;
    const std::uint64_t after = hll::count(s, &inv3);
    std::string d2 = s;
    if (hll::to_dense(d2)) {
      bool inv4 = false;
      check(hll::count(d2, &inv4) == after);
    }
  }
  return 0;
}
