// WAL: CRC32C, record framing, the writer's segments and preallocation, and recovery's
// reader — including a torn tail cut at every byte offset of the last record.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/unit/hex_bytes.hpp"
#include "worker/persist/crc32c.hpp"
#include "worker/persist/wal_format.hpp"
#include "worker/persist/wal_reader.hpp"
#include "worker/persist/wal_writer.hpp"

using namespace ruvio::persist;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/ruvio-wal-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<std::string> argv_of(int i) {
  return {"SET", "key:" + std::to_string(i), std::string(static_cast<std::size_t>(i % 7), 'v')};
}

// Writes `n` SET records with the writer; returns each record's [start, end) in the segment.
std::vector<std::pair<std::size_t, std::size_t>> write_records(const std::string& dir, int n,
                                                               std::uint64_t seg = 1 << 16) {
  WalWriter w(dir, seg);
  REQUIRE(w.start(1));
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::size_t at = 0;
  for (int i = 0; i < n; ++i) {
    auto a = argv_of(i);
    std::vector<std::string_view> v(a.begin(), a.end());
    REQUIRE(w.reserve(command_record_size(v)));
    std::size_t before = w.buffer().size();
    append_command(w.buffer(), 1000 + i, i % 3, v);
    std::size_t size = w.buffer().size() - before;
    spans.emplace_back(at, at + size);
    at += size;
    REQUIRE(w.flush());
  }
  REQUIRE(w.sync());
  return spans;
}

std::vector<Command> replay_all(const std::string& dir, ReplayReport& rep,
                                std::vector<std::string>* keys = nullptr) {
  std::vector<Command> out;
  auto err = replay_wal(
      dir, 0,
      [&](const Command& c) {
        out.push_back(c);
        if (keys) keys->emplace_back(c.args[1]);
      },
      rep);
  REQUIRE_FALSE(err);
  return out;
}

}  // namespace

TEST_CASE("crc32c: standard check value, and pieces extend the checksum") {
  CHECK(crc32c("123456789") == 0xE3069283u);
  CHECK(crc32c("") == 0u);
  std::string long_text(1000, 'x');
  for (std::size_t i = 0; i < long_text.size(); ++i) long_text[i] = static_cast<char>(i * 7);
  std::uint32_t whole = crc32c(long_text);
  std::uint32_t parts = crc32c(0, long_text.data(), 13);
  parts = crc32c(parts, long_text.data() + 13, long_text.size() - 13);
  CHECK(whole == parts);
  // RFC 3720 B.4's vectors, and the hand-written SSE4.2/table code's value for long_text
  // (0x79a16ae6, printed by that code before the switch to ISA-L).
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);
  std::string ascending(32, '\0');
  for (std::size_t i = 0; i < 32; ++i) ascending[i] = static_cast<char>(i);
  CHECK(crc32c(ascending) == 0x46DD794Eu);
  CHECK(whole == 0x79a16ae6u);
}

TEST_CASE("wal: a segment written by the hand-written CRC32C code still replays") {
  // Three records as the pre-ISA-L build wrote them (hex printed by that build): SET of a
  // value with a NUL byte at db 0, PEXPIREAT at db 3, then an EXEC batch of INCR x, SET y 1.
  const auto bytes = ruvio::testing::unhex(
      "280000001ea97dbb017baefda093010000000000000300000003000000534554050000006b65793a31"
      "030000007600773800000077f969aa017caefda093010000030000000300000009000000504558504952"
      "454154050000006b65793a310d000000313733333537323930303030304b000000319d963a0202000000"
      "1d0000002a00000000000000000000000200000004000000494e43520100000078210000002a00000000"
      "00000000000000030000000300000053455401000000790100000031");
  TempDir t;
  {
    std::ofstream f(t.path + "/wal-0000000000000001.log", std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
    f.write(std::string(64, '\0').data(), 64);  // preallocated tail
  }
  // The commands as replay hands them over (their views live only during the callback).
  struct Seen {
    std::int64_t now_ms;
    int db;
    std::vector<std::string> args;
  };
  std::vector<Seen> cmds;
  ReplayReport rep;
  REQUIRE_FALSE(replay_wal(
      t.path, 0,
      [&](const Command& c) {
        cmds.push_back({c.now_ms, c.db, std::vector<std::string>(c.args.begin(), c.args.end())});
      },
      rep));
  CHECK_FALSE(rep.cut);
  CHECK(rep.records == 3);
  REQUIRE(cmds.size() == 4);
  CHECK(cmds[0].now_ms == 1733572800123);
  CHECK(cmds[0].db == 0);
  CHECK(cmds[0].args == std::vector<std::string>{"SET", "key:1", std::string("v\0w", 3)});
  CHECK(cmds[1].db == 3);
  CHECK(cmds[1].args == std::vector<std::string>{"PEXPIREAT", "key:1", "1733572900000"});
  CHECK(cmds[2].args == std::vector<std::string>{"INCR", "x"});
  CHECK(cmds[3].args == std::vector<std::string>{"SET", "y", "1"});
  CHECK(cmds[3].now_ms == 42);
  // And this build writes the same bytes for the same commands.
  std::string again;
  std::vector<std::string_view> a1 = {"SET", "key:1", std::string_view("v\0w", 3)};
  append_command(again, 1733572800123, 0, a1);
  CHECK(ruvio::testing::hex({reinterpret_cast<const std::uint8_t*>(again.data()), again.size()}) ==
        ruvio::testing::hex({bytes.data(), again.size()}));
}

TEST_CASE("wal record: round trip, and every single-bit flip is detected") {
  std::string b;
  std::vector<std::string_view> args = {"SET", "k", std::string_view("v\0w", 3)};
  append_command(b, 1234567, 5, args);
  CHECK(b.size() == command_record_size(args));
  RecordView rec;
  REQUIRE(parse_record(b, rec) == Parse::kOk);
  CHECK(rec.version == kWalVersion);
  CHECK(rec.size == b.size());
  Command c;
  REQUIRE(decode_command(rec.payload, c));
  CHECK(c.now_ms == 1234567);
  CHECK(c.db == 5);
  REQUIRE(c.args.size() == 3);
  CHECK(c.args[2] == std::string_view("v\0w", 3));
  for (std::size_t byte = 0; byte < b.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = b;
      bad[byte] = static_cast<char>(bad[byte] ^ (1 << bit));
      RecordView r;
      Parse p = parse_record(bad, r);
      CHECK_MESSAGE(p != Parse::kOk, "flip at byte " << byte << " bit " << bit);
    }
  }
  // Zeros (preallocated space) read as the end; a prefix of a record as torn.
  CHECK(parse_record(std::string(16, '\0'), rec) == Parse::kEnd);
  CHECK(parse_record(std::string_view(b).substr(0, b.size() - 1), rec) == Parse::kTorn);
}

TEST_CASE("wal batch record (EXEC): one checksum over every command, no prefix survives") {
  std::string inner;
  std::vector<std::vector<std::string_view>> cmds = {{"INCR", "x"}, {"SET", "y", "1"}};
  for (const auto& cmd : cmds) {
    std::string payload;
    append_command_payload(payload, 42, 0, cmd);
    put_u32(inner, static_cast<std::uint32_t>(payload.size()));
    inner += payload;
  }
  std::string b;
  append_batch(b, inner, 2);
  RecordView rec;
  REQUIRE(parse_record(b, rec) == Parse::kOk);
  CHECK(rec.version == kWalBatchVersion);
  std::vector<std::string_view> payloads;
  REQUIRE(decode_batch(rec.payload, payloads));
  REQUIRE(payloads.size() == 2);
  Command c;
  REQUIRE(decode_command(payloads[1], c));
  CHECK(c.now_ms == 42);
  REQUIRE(c.args.size() == 3);
  CHECK(c.args[1] == "y");
  // Cut anywhere, the batch reads as torn: neither command is replayed on its own.
  for (std::size_t cut = 1; cut < b.size(); ++cut) {
    CHECK(parse_record(std::string_view(b).substr(0, cut), rec) == Parse::kTorn);
  }
  CHECK_FALSE(
      decode_batch(std::string_view(rec.payload).substr(0, rec.payload.size() - 1), payloads));
}

TEST_CASE("wal writer: preallocated segment, records read back in order") {
  TempDir t;
  auto spans = write_records(t.path, 50);
  auto segs = list_segments(t.path);
  REQUIRE(segs.size() == 1);
  CHECK(fs::file_size(segs[0].path) == (1u << 16));  // preallocated, not yet cut
  ReplayReport rep;
  std::vector<std::string> keys;
  auto cmds = replay_all(t.path, rep, &keys);
  CHECK(cmds.size() == 50);
  CHECK(keys[49] == "key:49");
  CHECK_FALSE(rep.cut);
  // Recovery cut the zero tail: the file now ends at the last record.
  CHECK(fs::file_size(segs[0].path) == spans.back().second);
}

TEST_CASE("wal writer: a full segment rolls to a new one; roll() starts the next") {
  TempDir t;
  WalWriter w(t.path, 4096);
  REQUIRE(w.start(1));
  std::vector<std::string_view> v = {"SET", "k", std::string_view(std::string(1000, 'x'))};
  std::string big(1000, 'x');
  v[2] = big;
  for (int i = 0; i < 10; ++i) {
    REQUIRE(w.reserve(command_record_size(v)));
    append_command(w.buffer(), i, 0, v);
  }
  REQUIRE(w.flush());
  CHECK(w.seq() > 1);
  std::uint64_t next = w.roll();
  CHECK(next == w.seq());
  w.close();
  ReplayReport rep;
  CHECK(replay_all(t.path, rep).size() == 10);
  w.remove_before(next);
  CHECK(list_segments(t.path).size() == 1);
}

TEST_CASE("wal writer: no preallocation possible means not writable, and retry recovers") {
  TempDir t;
  std::string dir = t.path + "/missing";
  WalWriter w(dir, 4096);
  CHECK_FALSE(w.start(1));
  CHECK_FALSE(w.writable());
  CHECK(w.last_errno() == ENOENT);
  CHECK_FALSE(w.reserve(10));
  CHECK_FALSE(w.retry());
  fs::create_directory(dir);
  CHECK(w.retry());
  CHECK(w.writable());
  CHECK(w.reserve(10));
}

TEST_CASE("wal reader: a torn tail cut at every byte offset of the last record") {
  TempDir t;
  const int n = 6;
  auto spans = write_records(t.path, n);
  const std::string seg = list_segments(t.path)[0].path;
  std::string original;
  {
    std::ifstream in(seg, std::ios::binary);
    original.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto [start, end] = spans.back();
  for (std::size_t cut = start; cut < end; ++cut) {
    {
      std::ofstream out(seg, std::ios::binary | std::ios::trunc);
      out.write(original.data(), static_cast<std::streamsize>(cut));
    }
    ReplayReport rep;
    std::vector<std::string> keys;
    auto cmds = replay_all(t.path, rep, &keys);
    REQUIRE_MESSAGE(cmds.size() == n - 1, "cut at " << cut);
    CHECK(keys.back() == "key:" + std::to_string(n - 2));
    CHECK(fs::file_size(seg) == start);  // everything of the torn record is gone
    if (cut > start) {
      CHECK(rep.cut);
      CHECK(rep.cut_offset == start);
      CHECK(rep.cut_bytes <= cut - start);
    }
  }
}

TEST_CASE("wal reader: a corrupt record keeps what precedes it and sets later segments aside") {
  TempDir t;
  auto spans = write_records(t.path, 10);
  const std::string seg = list_segments(t.path)[0].path;
  {
    int fd = ::open(seg.c_str(), O_WRONLY);
    char x = 0x5A;
    REQUIRE(::pwrite(fd, &x, 1, static_cast<off_t>(spans[4].first + 10)) == 1);
    ::close(fd);
  }
  // A later segment that must not be replayed after the gap.
  {
    WalWriter w2(t.path, 4096);
    REQUIRE(w2.start(2));
    std::vector<std::string_view> v = {"SET", "late", "x"};
    append_command(w2.buffer(), 1, 0, v);
    w2.close();
  }
  ReplayReport rep;
  auto cmds = replay_all(t.path, rep);
  CHECK(cmds.size() == 4);
  CHECK(rep.cut);
  CHECK(rep.cut_seq == 1);
  CHECK(rep.cut_offset == spans[4].first);
  CHECK(rep.cut_reason == "corrupt record");
  CHECK(rep.set_aside.size() == 1);
  CHECK(list_segments(t.path).size() == 1);
}
