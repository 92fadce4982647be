#include <doctest/doctest.h>

#include <string>

#include "shared/control.hpp"

using namespace ruvio;
using namespace ruvio::control;

namespace {

Message roundtrip(const Message& msg) {
  std::string wire;
  encode(msg, wire);
  std::size_t consumed = 99;
  bool error = true;
  auto out = decode(wire, consumed, error);
  REQUIRE(out.has_value());
  CHECK_FALSE(error);
  CHECK(consumed == wire.size());
  return *out;
}

}  // namespace

TEST_CASE("WorkerInit round-trips with its whole config") {
  WorkerInit init;
  init.id = 3;
  init.worker_count = 4;
  init.slot_first = 12288;
  init.slot_last = 16383;
  init.config.port = 7000;
  init.config.cpus = {0, 2, 4, 6};
  init.config.durability = Durability::kAlways;
  init.config.maxmemory = 2ULL << 30;
  init.config.requirepass = std::string("p\0ss", 4);
  init.config.alloc_trace = false;
  init.config.maxmemory_policy = "allkeys-lfu";
  const Message out = roundtrip(init);
  REQUIRE(std::holds_alternative<WorkerInit>(out));
  const auto& got = std::get<WorkerInit>(out);
  CHECK(got.id == 3);
  CHECK(got.worker_count == 4);
  CHECK(got.slot_first == 12288);
  CHECK(got.slot_last == 16383);
  CHECK(got.config.port == 7000);
  CHECK(got.config.cpus == std::vector<int>{0, 2, 4, 6});
  CHECK(got.config.durability == Durability::kAlways);
  CHECK(got.config.maxmemory == (2ULL << 30));
  CHECK(got.config.requirepass == std::string("p\0ss", 4));
  CHECK_FALSE(got.config.alloc_trace);
  CHECK(got.config.maxmemory_policy == "allkeys-lfu");
}

TEST_CASE("the small messages round-trip") {
  CHECK(std::get<WorkerReady>(roundtrip(WorkerReady{7})).id == 7);
  CHECK(std::holds_alternative<Shutdown>(roundtrip(Shutdown{})));
  CHECK(std::holds_alternative<ShutdownRequest>(roundtrip(ShutdownRequest{})));
}

TEST_CASE("the frame header is a little-endian payload length") {
  std::string wire;
  encode(WorkerReady{1}, wire);
  REQUIRE(wire.size() > 4);
  const auto len = static_cast<unsigned char>(wire[0]) | static_cast<unsigned char>(wire[1]) << 8 |
                   static_cast<unsigned char>(wire[2]) << 16 |
                   static_cast<unsigned char>(wire[3]) << 24;
  CHECK(static_cast<std::size_t>(len) == wire.size() - 4);
}

TEST_CASE("partial frames wait for more bytes") {
  std::string wire;
  encode(WorkerInit{}, wire);
  for (std::size_t cut = 0; cut < wire.size(); ++cut) {
    std::size_t consumed = 99;
    bool error = true;
    CHECK_FALSE(decode(std::string_view(wire).substr(0, cut), consumed, error).has_value());
    CHECK(consumed == 0);
    CHECK_FALSE(error);
  }
}

TEST_CASE("several frames in one buffer decode one at a time") {
  std::string wire;
  encode(WorkerReady{1}, wire);
  encode(ShutdownRequest{}, wire);
  encode(WorkerReady{2}, wire);
  std::string_view rest = wire;
  std::size_t consumed = 0;
  bool error = false;
  auto a = decode(rest, consumed, error);
  REQUIRE(a);
  CHECK(std::get<WorkerReady>(*a).id == 1);
  rest.remove_prefix(consumed);
  auto b = decode(rest, consumed, error);
  REQUIRE(b);
  CHECK(std::holds_alternative<ShutdownRequest>(*b));
  rest.remove_prefix(consumed);
  auto c = decode(rest, consumed, error);
  REQUIRE(c);
  CHECK(std::get<WorkerReady>(*c).id == 2);
  rest.remove_prefix(consumed);
  CHECK(rest.empty());
}

TEST_CASE("malformed frames are errors") {
  std::size_t consumed = 0;
  bool error = false;

  SUBCASE("length above 64 MB, before the payload arrives") {
    const std::string wire("\x01\x00\x00\x04", 4);  // 64 MB + 1
    CHECK_FALSE(decode(wire, consumed, error));
    CHECK(error);
  }
  SUBCASE("zero length") {
    const std::string wire("\x00\x00\x00\x00", 4);
    CHECK_FALSE(decode(wire, consumed, error));
    CHECK(error);
  }
  SUBCASE("variant index out of range") {
    std::string wire;
    encode(Shutdown{}, wire);
    // payload: [endian flag][i32 index] -> index 2; make it 9.
    REQUIRE(wire.size() >= 9);
    wire[5] = 9;
    CHECK_FALSE(decode(wire, consumed, error));
    CHECK(error);
  }
  SUBCASE("payload shorter than the message") {
    std::string wire;
    encode(WorkerInit{}, wire);
    const std::size_t payload = wire.size() - 4 - 10;
    wire.resize(wire.size() - 10);
    wire[0] = static_cast<char>(payload & 0xff);
    wire[1] = static_cast<char>((payload >> 8) & 0xff);
    CHECK_FALSE(decode(wire, consumed, error));
    CHECK(error);
  }
  SUBCASE("trailing bytes after the message") {
    std::string wire;
    encode(WorkerReady{1}, wire);
    wire += "xx";
    wire[0] = static_cast<char>(wire[0] + 2);
    CHECK_FALSE(decode(wire, consumed, error));
    CHECK(error);
  }
  SUBCASE("absurd string length inside the payload") {
    std::string wire;
    WorkerInit init;
    init.config.bind = std::string(1, 'x');
    encode(init, wire);
    // Overwrite the u64 length of config_file (the first string) with one above
    // string::max_size(), so the failure is a length_error and nothing is allocated.
    const auto at = wire.find(std::string("\x00\x00\x00\x00\x00\x00\x00\x00", 8), 4 + 1 + 4);
    REQUIRE(at != std::string::npos);
    wire[at + 7] = '\xff';
    CHECK_FALSE(decode(wire, consumed, error));
    CHECK(error);
  }
  CHECK(consumed == 0);
}
