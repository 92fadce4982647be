#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shared/config.hpp"

using namespace ruvio;

namespace {

struct Parsed {
  std::optional<ConfigError> error;
  Config config;
};

Parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "ruvio");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  Parsed out;
  out.error = parse_config(static_cast<int>(args.size()), argv.data(), out.config);
  return out;
}

std::string error_of(std::vector<std::string> args) {
  const auto parsed = parse(std::move(args));
  REQUIRE(parsed.error.has_value());
  CHECK(parsed.error->exit_code == 2);
  CHECK(parsed.error->message.find('\n') == std::string::npos);
  return parsed.error->message;
}

// A config file in the temp directory, removed when the test ends.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    path = (std::filesystem::temp_directory_path() / ("ruvio-test-" + std::to_string(getpid()) +
                                                      "-" + std::to_string(counter()++) + ".conf"))
               .string();
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

}  // namespace

TEST_CASE("defaults") {
  const auto parsed = parse({});
  REQUIRE_FALSE(parsed.error);
  const Config& c = parsed.config;
  CHECK(c.bind == "127.0.0.1");
  CHECK(c.port == 6379);
  CHECK(c.workers >= 1);
  CHECK(c.workers <= kMaxWorkers);
  CHECK(c.cpus.size() == static_cast<std::size_t>(c.workers));
  CHECK(c.worker_base_port == 6380);
  CHECK(c.admin_port == 16379);
  CHECK(c.dir == "./data");
  CHECK(c.durability == Durability::kEverysec);
  CHECK(c.sync_interval_ms == 1000);
  CHECK(c.maxmemory == 0);
  CHECK(c.maxmemory_policy == "noeviction");
  CHECK(c.requirepass.empty());
  CHECK(c.databases == 16);
  CHECK(c.log_level == "info");
  CHECK(c.alloc_trace);
  CHECK(c.config_file.empty());
}

TEST_CASE("every flag is read") {
  const auto parsed = parse({"--bind",
                             "::1",
                             "--port",
                             "7000",
                             "--workers",
                             "1",
                             "--cpus",
                             "1",
                             "--dir",
                             "/tmp/d",
                             "--durability",
                             "always",
                             "--sync-interval-ms",
                             "50",
                             "--maxmemory",
                             "100mb",
                             "--maxmemory-policy",
                             "allkeys-lru",
                             "--requirepass",
                             "secret",
                             "--databases",
                             "4",
                             "--log-level",
                             "debug",
                             "--alloc-trace",
                             "off",
                             "--worker-base-port",
                             "8000",
                             "--admin-port=9000"});
  REQUIRE_FALSE(parsed.error);
  const Config& c = parsed.config;
  CHECK(c.bind == "::1");
  CHECK(c.port == 7000);
  CHECK(c.workers == 1);
  CHECK(c.cpus == std::vector<int>{1});
  CHECK(c.dir == "/tmp/d");
  CHECK(c.durability == Durability::kAlways);
  CHECK(c.sync_interval_ms == 50);
  CHECK(c.maxmemory == 100ULL * 1024 * 1024);
  CHECK(c.maxmemory_policy == "allkeys-lru");
  CHECK(c.requirepass == "secret");
  CHECK(c.databases == 4);
  CHECK(c.log_level == "debug");
  CHECK_FALSE(c.alloc_trace);
  CHECK(c.worker_base_port == 8000);
  CHECK(c.admin_port == 9000);
}

TEST_CASE("derived ports follow --port; 0 disables them") {
  auto c = parse({"--port", "7000"}).config;
  CHECK(c.worker_base_port == 7001);
  CHECK(c.admin_port == 17000);
  c = parse({"--port", "7000", "--worker-base-port", "0", "--admin-port", "0"}).config;
  CHECK(c.worker_base_port == 0);
  CHECK(c.admin_port == 0);
  c = parse({"--port", "0"}).config;  // ephemeral proxy port: no derived ports
  CHECK(c.port == 0);
  CHECK(c.worker_base_port == 0);
  CHECK(c.admin_port == 0);
}

TEST_CASE("memory sizes follow Redis's memtoull") {
  CHECK(parse_memory("0") == 0u);
  CHECK(parse_memory("1024") == 1024u);
  CHECK(parse_memory("1k") == 1000u);
  CHECK(parse_memory("1kb") == 1024u);
  CHECK(parse_memory("100mb") == 100ULL * 1024 * 1024);
  CHECK(parse_memory("100m") == 100'000'000u);
  CHECK(parse_memory("2gb") == 2ULL * 1024 * 1024 * 1024);
  CHECK(parse_memory("2GB") == 2ULL * 1024 * 1024 * 1024);
  CHECK(parse_memory("3g") == 3'000'000'000u);
  CHECK(parse_memory("5b") == 5u);
  CHECK_FALSE(parse_memory(""));
  CHECK_FALSE(parse_memory("mb"));
  CHECK_FALSE(parse_memory("-1"));
  CHECK_FALSE(parse_memory("1.5gb"));
  CHECK_FALSE(parse_memory("10xb"));
  CHECK_FALSE(parse_memory(" 10"));
  CHECK_FALSE(parse_memory("99999999999999999999gb"));
  CHECK_FALSE(parse_memory("17179869184gb"));  // 2^34 GiB overflows u64
}

TEST_CASE("bad flags: one line naming the flag") {
  CHECK(error_of({"--bogus"}) == "ruvio: unknown option '--bogus'");
  CHECK(error_of({"--bogus=1"}) == "ruvio: unknown option '--bogus'");
  CHECK(error_of({"-x"}) == "ruvio: unknown option '-x'");
  CHECK(error_of({"stray"}) == "ruvio: unexpected argument 'stray' (options start with --)");
  CHECK(error_of({"--port"}) == "ruvio: option '--port' needs a value");
  CHECK(error_of({"--port", "65536"}) ==
        "ruvio: invalid value '65536' for '--port': must be an integer 0..65535");
  CHECK(error_of({"--port", "-1"}) ==
        "ruvio: invalid value '-1' for '--port': must be an integer 0..65535");
  CHECK(error_of({"--port", "12ab"}) ==
        "ruvio: invalid value '12ab' for '--port': must be an integer 0..65535");
  CHECK(error_of({"--worker-base-port", "x"}) ==
        "ruvio: invalid value 'x' for '--worker-base-port': must be an integer 0..65535");
  CHECK(error_of({"--admin-port", "70000"}) ==
        "ruvio: invalid value '70000' for '--admin-port': must be an integer 0..65535");
  CHECK(error_of({"--workers", "0"}) ==
        "ruvio: invalid value '0' for '--workers': must be a positive integer (at most 16384) "
        "or 'auto'");
  CHECK(error_of({"--workers", "two"}) ==
        "ruvio: invalid value 'two' for '--workers': must be a positive integer (at most 16384) "
        "or 'auto'");
  for (const char* list :
       {"", "a", "0,", ",1", "0,,2", "3-1", "0-", "-3", "1-2-3", "0;1", "5000"}) {
    CHECK(error_of({"--cpus", list}) ==
          std::string("ruvio: invalid value '") + list +
              "' for '--cpus': must be a CPU list such as 0,2,4 or 0-3");
  }
  CHECK(error_of({"--durability", "sometimes"}) ==
        "ruvio: invalid value 'sometimes' for '--durability': must be one of memory, everysec, "
        "always");
  CHECK(error_of({"--maxmemory", "lots"}) ==
        "ruvio: invalid value 'lots' for '--maxmemory': must be a memory size such as 1048576, "
        "100mb or 2gb");
  CHECK(error_of({"--maxmemory-policy", "lru"}) ==
        "ruvio: invalid value 'lru' for '--maxmemory-policy': must be one of noeviction, "
        "allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, volatile-random, "
        "volatile-ttl");
  CHECK(error_of({"--log-level", "verbose"}) ==
        "ruvio: invalid value 'verbose' for '--log-level': must be one of trace, debug, info, "
        "warn, error, critical, off");
  CHECK(error_of({"--databases", "0"}) ==
        "ruvio: invalid value '0' for '--databases': must be an integer of at least 1");
  CHECK(error_of({"--alloc-trace", "yes"}) ==
        "ruvio: invalid value 'yes' for '--alloc-trace': must be on or off");
  CHECK(error_of({"--sync-interval-ms", "0"}) ==
        "ruvio: invalid value '0' for '--sync-interval-ms': must be a positive integer");
  CHECK(error_of({"--bind", "localhost"}) ==
        "ruvio: invalid value 'localhost' for '--bind': must be an IPv4 or IPv6 address");
  CHECK(error_of({"--dir", ""}) == "ruvio: invalid value '' for '--dir': must be a directory path");
}

TEST_CASE("every accepted maxmemory-policy") {
  for (const char* policy : {"noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random",
                             "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}) {
    const auto parsed = parse({"--maxmemory-policy", policy});
    REQUIRE_FALSE(parsed.error);
    CHECK(parsed.config.maxmemory_policy == policy);
  }
}

TEST_CASE("workers above the current limit are refused with the reason") {
  const std::string too_many = std::to_string(kMaxWorkers + 1);
  CHECK(error_of({"--workers", too_many}) ==
        "ruvio: --workers above 255 is not supported (the mesh addresses workers with one byte)");
  const auto parsed = parse({"--workers", "auto"});
  REQUIRE_FALSE(parsed.error);
  CHECK(parsed.config.workers >= 1);
  CHECK(parsed.config.workers <= kMaxWorkers);
}

TEST_CASE("cpu lists") {
  auto c = parse({"--cpus", "0-3"}).config;
  CHECK(c.cpus.size() == static_cast<std::size_t>(c.workers));  // trimmed to one per worker
  CHECK(c.cpus.front() == 0);
  c = parse({"--workers", "1", "--cpus", "2,0,4"}).config;
  CHECK(c.cpus == std::vector<int>{2});
  c = parse({"--workers", "1", "--cpus", "1-1"}).config;
  CHECK(c.cpus == std::vector<int>{1});
}

// Pinned to one worker so the expected port ranges do not depend on the machine.
TEST_CASE("derived ports that do not fit, and overlaps, are refused") {
  CHECK(error_of({"--workers", "1", "--port", "65535"}) ==
        "ruvio: the direct ports default to --port+1 = 65536..65536, beyond 65535; set "
        "--worker-base-port (0 = none)");
  CHECK(error_of({"--port", "60000"}) ==
        "ruvio: the admin port defaults to --port+10000 = 70000, beyond 65535; set --admin-port "
        "(0 = none)");
  CHECK(error_of({"--workers", "1", "--port", "6379", "--worker-base-port", "6379"}) ==
        "ruvio: --port 6379 falls inside the direct ports 6379..6379 (--worker-base-port)");
  CHECK(error_of({"--workers", "1", "--admin-port", "6380"}) ==
        "ruvio: --admin-port 6380 falls inside the direct ports 6380..6380 (--worker-base-port)");
  CHECK(error_of({"--admin-port", "6379"}) == "ruvio: --admin-port and --port are both 6379");
  const auto ok = parse({"--port", "60000", "--admin-port", "0"});
  CHECK_FALSE(ok.error);
}

TEST_CASE("--help and --version exit 0 with text for stdout") {
  auto parsed = parse({"--help"});
  REQUIRE(parsed.error);
  CHECK(parsed.error->exit_code == 0);
  CHECK(parsed.error->message.find("--maxmemory-policy") != std::string::npos);
  CHECK(parsed.error->message.find("--config") != std::string::npos);
  parsed = parse({"--port", "1", "-h"});
  REQUIRE(parsed.error);
  CHECK(parsed.error->exit_code == 0);
  parsed = parse({"--version"});
  REQUIRE(parsed.error);
  CHECK(parsed.error->exit_code == 0);
  CHECK(parsed.error->message.rfind("ruvio ", 0) == 0);
}

TEST_CASE("config file: comments, blanks, quotes, case of keys") {
  TempFile file(
      "# a comment\n"
      "\n"
      "   # an indented comment\n"
      "port 7000\n"
      "  bind   \"127.0.0.1\"  \n"
      "requirepass 'it''s'\n");
  // A closing quote glued to the next word: Redis's sdssplitargs calls that unbalanced.
  CHECK(error_of({"--config", file.path}) ==
        "ruvio: config file " + file.path + " line 6: unbalanced quotes");

  TempFile good(
      "# comment\n"
      "PORT 7000\r\n"
      "bind \"::1\"\n"
      "requirepass \"a b\\\"c\\x41\"\n"
      "dir '/tmp/with space'\n"
      "maxmemory 2gb\n"
      "maxmemory-policy volatile-ttl\n"
      "workers 1\n"
      "durability memory\n"
      "alloc-trace OFF\n"
      "log-level warn\n"
      "databases 32\n"
      "sync-interval-ms 250\n"
      "cpus 0\n"
      "worker-base-port 0\n"
      "admin-port 0\n"
      "requirepass \"\"\n");
  const auto parsed = parse({"--config", good.path});
  REQUIRE_FALSE(parsed.error);
  const Config& c = parsed.config;
  CHECK(c.config_file == good.path);
  CHECK(c.port == 7000);
  CHECK(c.bind == "::1");
  CHECK(c.requirepass.empty());  // the last line wins
  CHECK(c.dir == "/tmp/with space");
  CHECK(c.maxmemory == 2ULL << 30);
  CHECK(c.maxmemory_policy == "volatile-ttl");
  CHECK(c.durability == Durability::kMemory);
  CHECK_FALSE(c.alloc_trace);
  CHECK(c.log_level == "warn");
  CHECK(c.databases == 32);
  CHECK(c.sync_interval_ms == 250);
  CHECK(c.cpus == std::vector<int>{0});
  CHECK(c.worker_base_port == 0);
  CHECK(c.admin_port == 0);

  TempFile escapes("requirepass \"a b\\\"c\\x41\"\n");
  CHECK(parse({"--config", escapes.path}).config.requirepass == "a b\"cA");
}

TEST_CASE("flags override the config file") {
  TempFile file("port 7000\nrequirepass fromfile\ndatabases 8\n");
  const auto parsed = parse({"--port", "7100", "--config", file.path, "--databases", "2"});
  REQUIRE_FALSE(parsed.error);
  CHECK(parsed.config.port == 7100);
  CHECK(parsed.config.requirepass == "fromfile");
  CHECK(parsed.config.databases == 2);
  CHECK(parsed.config.worker_base_port == 7101);  // derived from the winning port
  CHECK(parsed.config.admin_port == 17100);
}

TEST_CASE("bad config lines: one line naming the file and line") {
  TempFile unknown("port 7000\n\nbogus 1\n");
  CHECK(error_of({"--config", unknown.path}) ==
        "ruvio: config file " + unknown.path + " line 3: unknown key 'bogus'");
  TempFile bad_value("# c\nport seventy\n");
  CHECK(error_of({"--config", bad_value.path}) ==
        "ruvio: config file " + bad_value.path +
            " line 2: invalid value 'seventy' for 'port': must be an integer 0..65535");
  TempFile no_value("databases\n");
  CHECK(error_of({"--config", no_value.path}) ==
        "ruvio: config file " + no_value.path +
            " line 1: 'databases' takes exactly one value, got 0");
  TempFile two_values("bind 127.0.0.1 ::1\n");
  CHECK(error_of({"--config", two_values.path}) ==
        "ruvio: config file " + two_values.path + " line 1: 'bind' takes exactly one value, got 2");
  TempFile open_quote("requirepass \"abc\n");
  CHECK(error_of({"--config", open_quote.path}) ==
        "ruvio: config file " + open_quote.path + " line 1: unbalanced quotes");
  TempFile nested("config other.conf\n");
  CHECK(error_of({"--config", nested.path}) ==
        "ruvio: config file " + nested.path +
            " line 1: 'config' cannot be set inside a config file");
  TempFile policy("maxmemory-policy allkeys-lru\nmaxmemory-policy lfu\n");
  CHECK(error_of({"--config", policy.path}) ==
        "ruvio: config file " + policy.path +
            " line 2: invalid value 'lfu' for 'maxmemory-policy': must be one of noeviction, "
            "allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, "
            "volatile-random, volatile-ttl");
  TempFile workers("workers 256\n");
  CHECK(error_of({"--config", workers.path}) ==
        "ruvio: --workers above 255 is not supported (the mesh addresses workers with one byte)");
  CHECK(error_of({"--config", "/nonexistent/ruvio.conf"}) ==
        "ruvio: cannot read config file '/nonexistent/ruvio.conf': No such file or directory");
}

TEST_CASE("lazyfree-lazy-*: Redis 7.0 defaults, yes/no from flags and the config file") {
  const Config d = parse({}).config;
  CHECK_FALSE(d.lazyfree_lazy_eviction);
  CHECK_FALSE(d.lazyfree_lazy_expire);
  CHECK_FALSE(d.lazyfree_lazy_server_del);
  CHECK_FALSE(d.lazyfree_lazy_user_del);
  CHECK_FALSE(d.lazyfree_lazy_user_flush);
  const Config c =
      parse({"--lazyfree-lazy-user-del", "YES", "--lazyfree-lazy-expire", "yes"}).config;
  CHECK(c.lazyfree_lazy_user_del);
  CHECK(c.lazyfree_lazy_expire);
  CHECK_FALSE(c.lazyfree_lazy_server_del);
  TempFile file(
      "lazyfree-lazy-server-del yes\nlazyfree-lazy-user-flush yes\n"
      "lazyfree-lazy-eviction no\n");
  const Config f = parse({"--config", file.path}).config;
  CHECK(f.lazyfree_lazy_server_del);
  CHECK(f.lazyfree_lazy_user_flush);
  CHECK_FALSE(f.lazyfree_lazy_eviction);
  CHECK(error_of({"--lazyfree-lazy-user-del", "on"}) ==
        "ruvio: invalid value 'on' for '--lazyfree-lazy-user-del': must be yes or no");
}
