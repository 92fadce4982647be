// libFuzzer target: BITFIELD's argument parser on untrusted arguments, then the operations
// it accepts run on a bitmap sized exactly as the command sizes it (the highest written bit),
// with GETs read through a zero-padded window as the command does. Nothing may read or write
// outside the bitmap, every accepted type must be i1..i64 / u1..u63, every accepted offset
// below 2^32 bits (512 MB), and every stored value must read back as the arithmetic says.
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_bitfield.cpp worker/commands/bitmap/bitfield_args.cpp \
//       worker/engine/common.cpp worker/types/bitmap/bitmap.cpp -o fuzz_bitfield
//
// Input: the arguments after the key, separated by 0xff bytes (seed: "GET\xffu8\xff0").
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "worker/commands/bitmap/bitfield_args.hpp"

namespace bf = ruvio::worker::bitfield;
namespace bm = ruvio::types::bitmap;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string_view> args;
  const char* p = reinterpret_cast<const char*>(data);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == 0xff) {
      args.emplace_back(p + start, i - start);
      start = i + 1;
    }
  }
  if (args.size() > 64) return 0;
  std::vector<bf::Op> ops;
  bf::Parsed parsed = bf::parse(args, ops);
  if (!parsed.error.empty()) return 0;
  for (const bf::Op& op : ops) {
    check(op.bits >= 1 && op.bits <= (op.sign ? 64u : 63u));
    check((op.offset >> 3) < bf::kMaxBytes);
  }
  if (!parsed.writes) return 0;
  // The fuzzer keeps offsets small enough to allocate; far ones were checked above.
  if (parsed.highest_write >= (1u << 20)) return 0;
  std::vector<std::uint8_t> bytes((parsed.highest_write >> 3) + 1, 0);
  for (const bf::Op& op : ops) {
    if (op.kind == bf::Kind::kGet) {
      std::uint8_t win[9] = {};
      const std::uint64_t byte = op.offset >> 3;
      for (std::uint64_t i = 0; i < 9 && byte + i < bytes.size(); ++i) win[i] = bytes[byte + i];
      (void)bm::get_unsigned(win, op.offset & 7, op.bits);
      continue;
    }
    if (op.sign) {
      const std::int64_t old = bm::get_signed(bytes.data(), op.offset, op.bits);
      std::int64_t lim = 0;
      const bool incr = op.kind == bf::Kind::kIncrBy;
      const int of =
          bm::check_signed(incr ? old : op.value, incr ? op.value : 0, op.bits, op.overflow, &lim);
      if (of != 0 && op.overflow == bm::Overflow::kFail) continue;
      const std::int64_t nv =
          of != 0 ? lim
                  : (incr ? static_cast<std::int64_t>(static_cast<std::uint64_t>(old) +
                                                      static_cast<std::uint64_t>(op.value))
                          : op.value);
      bm::set_bits(bytes.data(), op.offset, op.bits, static_cast<std::uint64_t>(nv));
      check(bm::get_signed(bytes.data(), op.offset, op.bits) == nv);
    } else {
      const std::uint64_t old = bm::get_unsigned(bytes.data(), op.offset, op.bits);
      std::uint64_t lim = 0;
      const bool incr = op.kind == bf::Kind::kIncrBy;
      const auto v = static_cast<std::uint64_t>(op.value);
      const int of =
          bm::check_unsigned(incr ? old : v, incr ? op.value : 0, op.bits, op.overflow, &lim);
      if (of != 0 && op.overflow == bm::Overflow::kFail) continue;
      const std::uint64_t nv = of != 0 ? lim : (incr ? old + v : v);
      bm::set_bits(bytes.data(), op.offset, op.bits, nv);
      check(bm::get_unsigned(bytes.data(), op.offset, op.bits) == nv);
    }
  }
  return 0;
}
