// The parameter table (shared/config_params.cpp): every parameter once, every alias resolves
// to its row, every default reads back, and a default-constructed Config answers CONFIG GET
// exactly as a worker did before the table existed (config_get_star.inc).
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "shared/config.hpp"
#include "shared/config_table.hpp"

using namespace ruvio;

namespace {

const std::pair<const char*, const char*> kBefore[] = {
#include "config_get_star.inc"
};

// What CONFIG GET answers on a worker started on the defaults: every kConfig name.
std::map<std::string, std::string> config_get_star(const Config& c) {
  std::map<std::string, std::string> out;
  for (const Param& p : config_params()) {
    if ((p.where & kConfig) == 0) continue;
    out[std::string(p.name)] = param_get(p, c);
    if (!p.alias.empty()) out[std::string(p.alias)] = param_get(p, c);
  }
  return out;
}

}  // namespace

TEST_CASE("config table: each name and alias once, lower case") {
  std::set<std::string> seen;
  for (const Param& p : config_params()) {
    for (const std::string_view name : {p.name, p.alias}) {
      if (name.empty()) continue;
      INFO("parameter ", std::string(name));
      CHECK(seen.insert(std::string(name)).second);
      for (char c : name) CHECK(!(c >= 'A' && c <= 'Z'));
    }
  }
}

TEST_CASE("config table: every name and alias resolves to its row, any case") {
  for (const Param& p : config_params()) {
    for (const std::string_view name : {p.name, p.alias}) {
      if (name.empty()) continue;
      INFO("parameter ", std::string(name));
      CHECK(find_param(name, p.where) == &p);
      std::string upper(name);
      for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
      CHECK(find_param(upper, p.where) == &p);
    }
  }
  CHECK(find_param("hash-max-ziplist-entries", kBoth)->name == "hash-max-listpack-entries");
  CHECK(find_param("lua-time-limit", kConfig)->name == "busy-reply-threshold");
  CHECK(find_param("workers", kConfig) == nullptr);  // a flag, not a CONFIG parameter
  CHECK(find_param("appendonly", kFlag) == nullptr);
  CHECK(find_param("nosuch", kBoth) == nullptr);
}

TEST_CASE("config table: the rows are consistent") {
  for (const Param& p : config_params()) {
    INFO("parameter ", std::string(p.name));
    if (p.settable) CHECK((p.where & kConfig) != 0);
    if ((p.where & kFlag) != 0) CHECK(!p.help.empty());
    if (p.type == ParamType::kEnum) CHECK(!p.names.empty());
    if (p.type == ParamType::kSpecial) CHECK(p.special != nullptr);
    if (p.type == ParamType::kFixed) CHECK(!p.settable);
    // Every value the flags or the file may name reads its default back.
    if ((p.where & kFlag) != 0 && !p.default_text.empty()) {
      Config c;
      Given given;
      CHECK_FALSE(param_parse(p, std::string(p.default_text), c, given));
    }
    // CONFIG GET's text of a settable parameter is a value CONFIG SET takes.
    if (p.settable) {
      Config c;
      const std::string text = param_get(p, c);
      CHECK_FALSE(param_set(p, text, c));
      CHECK(param_get(p, c) == text);
    }
  }
}

TEST_CASE("config table: the defaults are what CONFIG GET answered before the table") {
  std::map<std::string, std::string> before;
  for (const auto& [name, value] : kBefore) before[name] = value;
  // Given on the command line when the fixture was taken.
  before["port"] = "6379";
  before["dir"] = "./data";
  // Changed since, to answer the truth: no jemalloc here, and hz does not follow the clients.
  before["jemalloc-bg-thread"] = "no";
  before["dynamic-hz"] = "no";
  before["dbfilename"] = "snapshot";  // the file each worker writes in DIR/worker-<i>/
  // Redis 7.0's hidden parameters, added since (CONFIG GET by exact name only).
  before["key-load-delay"] = "0";
  before["loading-process-events-interval-bytes"] = "2097152";
  before["lua-enable-deprecated-api"] = "no";
  before["rdb-key-save-delay"] = "0";
  before["use-exit-on-panic"] = "no";
  before["watchdog-period"] = "0";
  const std::map<std::string, std::string> now = config_get_star(Config{});
  for (const auto& [name, value] : before) {
    INFO("parameter ", name);
    REQUIRE(now.count(name) == 1);
    CHECK(now.at(name) == value);
  }
  for (const auto& [name, value] : now) {
    INFO("parameter ", name);
    CHECK(before.count(name) == 1);
  }
}

TEST_CASE("config table: CONFIG SET's reasons are Redis 7.0's") {
  Config c;
  const auto set = [&](std::string_view name, std::string_view value) {
    return param_set(*find_param(name, kConfig), value, c).value_or("OK");
  };
  CHECK(set("maxmemory", "abc") == "argument must be a memory value");
  CHECK(set("maxmemory", "1kb") == "OK");
  CHECK(c.maxmemory == 1024);
  CHECK(set("proto-max-bulk-len", "1k") ==
        "argument must be between 1048576 and 9223372036854775807 inclusive");
  CHECK(set("maxclients", "0") == "argument must be between 1 and 4294967295 inclusive");
  CHECK(set("timeout", "007") == "argument couldn't be parsed into an integer");
  CHECK(set("list-max-ziplist-size", "-2147483649") ==
        "argument must be between -2147483648 and 2147483647 inclusive");
  CHECK(set("maxmemory-eviction-tenacity", "101") ==
        "argument must be between 0 and 100 inclusive");
  CHECK(set("lazyfree-lazy-expire", "maybe") == "argument must be 'yes' or 'no'");
  CHECK(set("sanitize-dump-payload", "x") ==
        "argument(s) must be one of the following: no, yes, clients");
  CHECK(set("maxmemory-policy", "ALLKEYS-LRU") == "OK");
  CHECK(c.maxmemory_policy == "allkeys-lru");
  CHECK(set("maxmemory-clients", "101%") == "percentage argument must be less or equal to 100");
  CHECK(set("notify-keyspace-events", "Q") ==
        "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
  CHECK(set("zset-max-ziplist-value", "1kb") == "OK");
  CHECK(c.zset_max_listpack_value == 1024);
  CHECK(set("acllog-max-len", "abc") == "argument couldn't be parsed into an integer");
}

TEST_CASE("config table: the flags read aliases and the memory rows' units") {
  std::vector<std::string> args = {"ruvio", "--hash-max-ziplist-value",  "1kb", "--lua-time-limit",
                                   "100",   "--zset-max-listpack-value", "2kb"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  Config c;
  REQUIRE_FALSE(parse_config(static_cast<int>(args.size()), argv.data(), c));
  CHECK(c.hash_max_listpack_value == 1024);
  CHECK(c.busy_reply_threshold == 100);
  CHECK(c.zset_max_listpack_value == 2048);
  CHECK(c.databases == 16);  // untouched rows keep their defaults
}
