// Snapshots: round trip of strings, integers and TTLs; a damaged file is refused whole.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "worker/persist/snapshot.hpp"

using namespace ruvio::persist;
using namespace ruvio::store;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/ruvio-snap-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};
constexpr std::int64_t kNow = 1'700'000'000'000;
}  // namespace

TEST_CASE("snapshot: every key, value encoding and TTL comes back") {
  TempDir t;
  Db a, b;
  for (int i = 0; i < 5000; ++i)
    a.set_string("s" + std::to_string(i), std::string(i % 300, 'x'), {});
  a.set_int("n", -42, {});
  a.set_string("ttl", "v", SetOptions{kNow + 5000, false});
  a.set_string("past", "v", SetOptions{kNow - 5000, false});  // kept: replay decides
  b.set_string("other-db", "y", {});
  std::vector<Db*> dbs = {&a, &b};
  SnapshotInfo info;
  REQUIRE_FALSE(write_snapshot(dbs, t.path, 7, kNow, info));
  CHECK(info.keys == 5004);
  CHECK_FALSE(fs::exists(t.path + "/snapshot.tmp"));

  Db a2, b2;
  std::vector<Db*> dbs2 = {&a2, &b2};
  SnapshotInfo got;
  std::string err;
  REQUIRE(load_snapshot(dbs2, t.path, got, err) == LoadResult::kLoaded);
  CHECK(got.wal_seq == 7);
  CHECK(got.created_ms == kNow);
  CHECK(got.keys == 5004);
  CHECK(a2.size() == a.size());
  CHECK(a2.find("s299", kNow).str() == std::string(299 % 300, 'x'));
  CHECK(a2.find("n", kNow).is_int());
  CHECK(a2.find("n", kNow).int_value() == -42);
  CHECK(a2.find("ttl", kNow).expire_at() == kNow + 5000);
  CHECK(a2.peek("past"));
  CHECK(b2.find("other-db", kNow).str() == "y");
}

TEST_CASE("snapshot: missing is not an error; cut short or damaged is refused") {
  TempDir t;
  Db a;
  std::vector<Db*> dbs = {&a};
  SnapshotInfo info;
  std::string err;
  CHECK(load_snapshot(dbs, t.path, info, err) == LoadResult::kMissing);
  for (int i = 0; i < 100; ++i) a.set_string("k" + std::to_string(i), "value", {});
  REQUIRE_FALSE(write_snapshot(dbs, t.path, 1, kNow, info));
  const std::string path = t.path + "/snapshot";
  std::string good;
  {
    std::ifstream in(path, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (std::size_t cut : {good.size() - 1, good.size() / 2, std::size_t{3}}) {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(good.data(), static_cast<std::streamsize>(cut));
    }
    Db fresh;
    std::vector<Db*> d = {&fresh};
    CHECK(load_snapshot(d, t.path, info, err) == LoadResult::kCorrupt);
    CHECK_FALSE(err.empty());
  }
  std::string flipped = good;
  flipped[good.size() / 2] ^= 1;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(flipped.data(), static_cast<std::streamsize>(flipped.size()));
  }
  Db fresh;
  std::vector<Db*> d = {&fresh};
  CHECK(load_snapshot(d, t.path, info, err) == LoadResult::kCorrupt);
  CHECK(err.find("checksum") != std::string::npos);
}
