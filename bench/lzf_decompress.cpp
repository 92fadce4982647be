// LZF decompression speed: Ruvio's lzf_decompress_fast (worker/persist/lzf_fast.cpp, what
// RESTORE runs) against liblzf's lzf_decompress on the same streams, which liblzf's
// lzf_compress made (what DUMP and list-compress-depth write). Built and run by bench/lzf.py:
//
//   g++ -std=c++20 -O3 -Wno-restrict -I. -I/usr/include/liblzf bench/lzf_decompress.cpp
//       worker/persist/lzf_fast.cpp -llzf -o lzf_decompress
//
// Prints one JSON object per data set: raw and packed bytes, and per decompressor the median
// ns per call over BATCHES batches (the two alternate batch by batch, so a load change on the
// machine hits both alike). Checks every output against the raw bytes first.
#include <lzf.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "worker/persist/lzf_fast.hpp"

namespace {

constexpr int kBatches = 31;
constexpr double kBatchNs = 20e6;  // each batch runs about 20 ms

// A listpack (Redis 7's list node) of string entries: [u32 total][u16 count] entries 0xFF,
// each entry [0x80 | len][len bytes][backlen = len + 1] (6-bit string form, len < 64).
std::string listpack_of_strings(int n, const std::string& prefix) {
  std::string body;
  for (int i = 0; i < n; ++i) {
    const std::string s = prefix + std::to_string(i);
    body.push_back(static_cast<char>(0x80 | s.size()));
    body += s;
    body.push_back(static_cast<char>(s.size() + 1));
  }
  std::string lp(6, '\0');
  lp += body;
  lp.push_back('\xff');
  const auto total = static_cast<std::uint32_t>(lp.size());
  const auto count = static_cast<std::uint16_t>(n);
  for (int k = 0; k < 4; ++k) lp[static_cast<std::size_t>(k)] = static_cast<char>(total >> (8 * k));
  lp[4] = static_cast<char>(count);
  lp[5] = static_cast<char>(count >> 8);
  return lp;
}

// A listpack of the integers 0..n-1 (7-bit form 0xxxxxxx, else 13-bit 110xxxxx xxxxxxxx;
// each followed by its 1-byte backlen).
std::string listpack_of_ints(int n) {
  std::string lp(6, '\0');
  for (int i = 0; i < n; ++i) {
    if (i < 128) {
      lp.push_back(static_cast<char>(i));
      lp.push_back(1);
    } else {
      lp.push_back(static_cast<char>(0xC0 | (i >> 8)));
      lp.push_back(static_cast<char>(i & 0xff));
      lp.push_back(2);
    }
  }
  lp.push_back('\xff');
  const auto total = static_cast<std::uint32_t>(lp.size());
  for (int k = 0; k < 4; ++k) lp[static_cast<std::size_t>(k)] = static_cast<char>(total >> (8 * k));
  lp[4] = static_cast<char>(n);
  lp[5] = static_cast<char>(n >> 8);
  return lp;
}

std::string json_records(int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    s += (i ? "," : "") + std::string("{\"id\":") + std::to_string(1000 + i * 37) +
         ",\"name\":\"user" + std::to_string(i * 7919 % 10007) + "\",\"email\":\"user" +
         std::to_string(i * 7919 % 10007) +
         "@example.com\",\"active\":" + (i % 3 ? "true" : "false") +
         ",\"score\":" + std::to_string(i * 1.5) + "}";
  }
  return s + "]";
}

std::string file_head(const char* path, std::size_t n) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str().substr(0, n);
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

double now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  const std::vector<std::pair<std::string, std::string>> sets = {
      {"list node: 1000 strings e<i> (bench/dump.py's list)", listpack_of_strings(1000, "e")},
      {"list node: 128 strings item:<i>", listpack_of_strings(128, "item:")},
      {"list node: integers 0..999", listpack_of_ints(1000)},
      {"string: 40 JSON records (3.7 KB)", json_records(40)},
      {"string: README.md, first 4096 bytes", file_head("README.md", 4096)},
      {"string: 64 bytes of JSON", json_records(1).substr(0, 64)},
      {"string: runs (512 x 'a', 512 x 'b')", std::string(512, 'a') + std::string(512, 'b')},
      {"string: 'abc' x 341 (references at distance 3)", repeat("abc", 341)},
  };
  std::printf("[\n");
  for (std::size_t si = 0; si < sets.size(); ++si) {
    const auto& [name, raw] = sets[si];
    // Room for LZF's worst case; DUMP and the list nodes keep a value raw unless it shrinks.
    std::string packed(raw.size() + raw.size() / 16 + 64, '\0');
    const unsigned clen = lzf_compress(raw.data(), static_cast<unsigned>(raw.size()), packed.data(),
                                       static_cast<unsigned>(packed.size()));
    const char* sep = si + 1 < sets.size() ? "," : "";
    if (clen == 0 || clen >= raw.size()) {
      std::printf(
          "  {\"data\": \"%s\", \"raw_bytes\": %zu, \"packed_bytes\": %u, "
          "\"stored_raw\": true}%s\n",
          name.c_str(), raw.size(), clen, sep);
      continue;
    }
    packed.resize(clen);
    std::string out(raw.size(), '\0');
    using Fn = std::size_t (*)(const std::string&, std::string&);
    const Fn fns[2] = {
        [](const std::string& p, std::string& o) -> std::size_t {
          return lzf_decompress(p.data(), static_cast<unsigned>(p.size()), o.data(),
                                static_cast<unsigned>(o.size()));
        },
        [](const std::string& p, std::string& o) {
          return ruvio::persist::lzf_decompress_fast(p.data(), p.size(), o.data(), o.size());
        },
    };
    for (const Fn f : fns) {
      std::fill(out.begin(), out.end(), '\0');
      if (f(packed, out) != raw.size() || out != raw) return 2;
    }
    // Calls per batch: about kBatchNs of liblzf's time.
    const double t0 = now_ns();
    for (int i = 0; i < 100; ++i) fns[0](packed, out);
    const auto per_batch =
        static_cast<int>(std::max(10.0, kBatchNs / std::max(1.0, (now_ns() - t0) / 100)));
    std::vector<double> ns[2];
    for (int b = 0; b < kBatches; ++b) {
      for (int k = 0; k < 2; ++k) {
        const int which = b % 2 == 0 ? k : 1 - k;
        const double a = now_ns();
        std::size_t sink = 0;
        for (int i = 0; i < per_batch; ++i) sink += fns[which](packed, out);
        ns[which].push_back((now_ns() - a) / per_batch);
        if (sink == 0) return 3;
      }
    }
    const double lib = median(ns[0]), own = median(ns[1]);
    std::printf(
        "  {\"data\": \"%s\", \"raw_bytes\": %zu, \"packed_bytes\": %u, \"ratio\": %.3f, "
        "\"liblzf_ns\": %.1f, \"lzf_fast_ns\": %.1f, \"liblzf_mb_s\": %.0f, "
        "\"lzf_fast_mb_s\": %.0f, \"speedup\": %.2f, \"calls_per_batch\": %d, \"batches\": %d}%s\n",
        name.c_str(), raw.size(), clen, static_cast<double>(clen) / raw.size(), lib, own,
        raw.size() / lib * 1e3, raw.size() / own * 1e3, lib / own, per_batch, kBatches, sep);
  }
  std::printf("]\n");
  return 0;
}
