// FUNCTION DUMP payloads (their CRC64 is persist's, tested in test_rdb.cpp): the round trip through
// LZF and plain strings, and a snapshot carrying function libraries beside its keys.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "worker/persist/snapshot.hpp"
#include "worker/script/function_payload.hpp"

using namespace ruvio::worker::script;

TEST_CASE("function payload: libraries round trip, short and long") {
  const std::string small = "#!lua name=a\nx";
  const std::string big = "#!lua name=b\n" + std::string(5000, 'y') + "redis.register_function";
  std::vector<std::string_view> codes = {small, big};
  const std::string dump = dump_functions(codes);
  CHECK(static_cast<unsigned char>(dump[0]) == 0xF5);
  CHECK(dump.size() < big.size());  // the long one went through LZF
  std::vector<std::string> back;
  std::string err;
  REQUIRE(parse_functions(
      dump,
      [&](const std::string& c, std::string&) {
        back.push_back(c);
        return true;
      },
      err));
  CHECK(back == std::vector<std::string>{small, big});
  std::string broken = dump;
  broken[3] ^= 1;
  CHECK_FALSE(parse_functions(
      broken, [](const std::string&, std::string&) { return true; }, err));
  CHECK(err == "DUMP payload version or checksum are wrong");
}

TEST_CASE("snapshot: function libraries come back before the keys") {
  char tmpl[] = "/tmp/ruvio-fsnap-test-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  ruvio::store::Db db;
  db.set_string("k", "v", {});
  std::vector<ruvio::store::Db*> dbs = {&db};
  const std::string code = "#!lua name=l\nredis.register_function('f', function() end)";
  const std::string_view libs[] = {code, "#!lua name=m\n"};
  ruvio::persist::SnapshotInfo info;
  REQUIRE_FALSE(ruvio::persist::write_snapshot(dbs, dir, 1, 0, info, libs));
  ruvio::store::Db db2;
  std::vector<ruvio::store::Db*> dbs2 = {&db2};
  std::vector<std::string> loaded;
  std::string err;
  REQUIRE(ruvio::persist::load_snapshot(dbs2, dir, info, err, &loaded) ==
          ruvio::persist::LoadResult::kLoaded);
  CHECK(loaded == std::vector<std::string>{code, "#!lua name=m\n"});
  CHECK(db2.size() == 1);
  std::filesystem::remove_all(dir);
}
