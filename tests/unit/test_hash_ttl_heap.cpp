// The per-hash index of field TTLs (field_table.hpp's by_time heap): a random mix of HSET,
// HEXPIRE, HPERSIST, HINCRBY (keeps the TTL), HDEL, lazy and bounded active expiry checked
// against a plain model after every step (the next expiry exact, the due fields exactly
// those expired, the accounting exact), and the cost the index exists for: expiring the due
// fields of a 1,000,000-field hash whose 1,000 TTL fields are all that may expire.
#include <doctest/doctest.h>
#include <mimalloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "worker/memory/heap.hpp"
#include "worker/types/hash/hash.hpp"

using namespace ruvio;
using store::Heap;
namespace H = types::hash;

namespace {

constexpr std::int64_t kNow = 1'700'000'000'000;

struct Model {
  std::map<std::string, std::int64_t> ttl;  // field -> expire_at (-1: none)
  std::int64_t next() const {
    std::int64_t m = -1;
    for (const auto& [f, at] : ttl) {
      if (at >= 0 && (m < 0 || at < m)) m = at;
    }
    return m;
  }
};

}  // namespace

TEST_CASE("hash field TTL heap: random operations against a model") {
  Heap heap;
  H::Limits lim;
  H::Hash* h = H::create(heap);
  Model m;
  std::mt19937_64 rng(12345);
  std::vector<std::string> gone;
  std::int64_t now = kNow;
  for (int step = 0; step < 20000; ++step) {
    const std::string f = "f" + std::to_string(rng() % 300);
    const auto it = m.ttl.find(f);
    const bool has = it != m.ttl.end();
    switch (rng() % 8) {
      case 0:
      case 1:
        H::set(heap, h, f, "v" + std::to_string(step), lim);
        m.ttl[f] = -1;
        break;
      case 2:
      case 3:
        if (has) {
          const std::int64_t at = now + static_cast<std::int64_t>(rng() % 2000);
          H::set_field_expire(heap, h, f, at);
          it->second = at;
        }
        break;
      case 4:
        if (has) {
          H::set_field_expire(heap, h, f, -1);
          it->second = -1;
        }
        break;
      case 5:
        if (has) {
          H::set(heap, h, f, "n", lim, /*keep_ttl=*/true);
        }
        break;
      case 6:
        CHECK(H::del(heap, h, f) == has);
        if (has) m.ttl.erase(it);
        break;
      default: {
        now += static_cast<std::int64_t>(rng() % 50);
        std::size_t due = 0;
        for (const auto& [k, at] : m.ttl) due += at >= 0 && now > at;
        const std::size_t max = rng() % 2 != 0 ? SIZE_MAX : rng() % 4;
        const std::size_t n = max == SIZE_MAX ? H::expire_fields(heap, h, now)
                                              : H::expire_fields(heap, h, now, max, gone);
        CHECK(n == std::min(due, max));
        // The earliest go first.
        std::vector<std::pair<std::int64_t, std::string>> order;
        for (const auto& [k, at] : m.ttl) {
          if (at >= 0 && now > at) order.emplace_back(at, k);
        }
        std::sort(order.begin(), order.end());
        for (std::size_t i = 0; i < n; ++i) {
          if (max != SIZE_MAX) CHECK(m.ttl.at(gone[i]) == order[i].first);
        }
        if (max == SIZE_MAX) {
          for (const auto& [at, k] : order) m.ttl.erase(k);
        } else {
          for (const std::string& g : gone) m.ttl.erase(g);
        }
        break;
      }
    }
    REQUIRE(H::length(h) == m.ttl.size());
    std::uint32_t ttls = 0;
    for (const auto& [k, at] : m.ttl) ttls += at >= 0;
    REQUIRE(H::ttl_fields(h) == ttls);
    REQUIRE(H::next_field_expire(h) == m.next());
    REQUIRE(H::kHashOps.memory_usage(h) == heap.used);
  }
  // Snapshot and copy rebuild the index.
  std::string bytes;
  H::kHashOps.save(h, bytes);
  auto* l = static_cast<H::Hash*>(H::kHashOps.load(heap, H::kHashtable, bytes));
  REQUIRE(l != nullptr);
  CHECK(H::next_field_expire(l) == m.next());
  auto* c = static_cast<H::Hash*>(H::kHashOps.copy(heap, h));
  CHECK(H::next_field_expire(c) == m.next());
  CHECK(H::ttl_fields(c) == H::ttl_fields(h));
  H::kHashOps.destroy(heap, l);
  H::kHashOps.destroy(heap, c);
  // Lazy free in steps drops the index whole.
  bool done = false;
  while (!done) H::kHashOps.release_some(heap, h, 7, &done);
  CHECK(heap.used == 0);
}

// The figure of the task's point: a hash of 1,000,000 fields, 1,000 of them with a TTL, all
// due; one active-expiry visit (expire_fields with a budget of 20 fields, as a tick takes)
// until none is left, timed per visit. Not run by the suite (a timing, on a shared machine):
//   build/tests/unit-tests -tc='*cost of an active*' --no-skip
TEST_CASE("hash field TTL heap: cost of an active-expiry visit" * doctest::skip()) {
  Heap heap;
  H::Limits lim;
  H::Hash* h = H::create(heap);
  for (int i = 0; i < 1'000'000; ++i) H::set(heap, h, "f:" + std::to_string(i), "v", lim);
  for (int i = 0; i < 1'000'000; i += 1000) {
    H::set_field_expire(heap, h, "f:" + std::to_string(i), kNow + i / 1000);
  }
  std::vector<std::string> gone;
  const std::int64_t now = kNow + 10'000;
  std::size_t visits = 0, fields = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (H::ttl_fields(h) != 0) {
    fields += H::expire_fields(heap, h, now, 20, gone);
    ++visits;
  }
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  CHECK(fields == 1000);
  CHECK(H::length(h) == 999'000);
  std::printf(
      "active expiry, 1,000,000-field hash, 1,000 TTL fields: %zu visits of <= 20 "
      "fields, %.2f us per visit, %.3f us per expired field\n",
      visits, us / static_cast<double>(visits), us / static_cast<double>(fields));
  H::kHashOps.destroy(heap, h);
}
