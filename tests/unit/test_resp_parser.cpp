#include <doctest/doctest.h>

#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "proto/resp_parser.hpp"

using ruvio::proto::kInlineMaxSize;
using ruvio::proto::ParseResult;
using ruvio::proto::ParseStatus;
using ruvio::proto::RequestParser;

namespace {

using Command = std::vector<std::string>;

std::vector<std::string> copy_args(const std::vector<std::string_view>& args) {
  return {args.begin(), args.end()};
}

// A connection's read loop in miniature: parse every complete command in `buf`, drop what
// was consumed, keep the rest. Returns the last status.
ParseStatus drain(RequestParser& p, std::string& buf, std::vector<Command>& out,
                  std::string* error = nullptr) {
  std::vector<std::string_view> args;
  for (;;) {
    ParseResult r = p.parse(buf, args);
    if (r.status == ParseStatus::kError) {
      if (error) *error = std::string(r.error);
      return r.status;
    }
    if (r.status == ParseStatus::kNeedMore) {
      REQUIRE(r.consumed <= buf.size());
      buf.erase(0, r.consumed);
      return r.status;
    }
    REQUIRE(r.consumed > 0);
    REQUIRE(r.consumed <= buf.size());
    out.push_back(copy_args(args));
    buf.erase(0, r.consumed);
  }
}

// Parses `wire` in one piece and expects exactly one protocol error.
std::string error_of(std::string_view wire, bool authenticated = true) {
  RequestParser p;
  p.set_authenticated(authenticated);
  std::string buf(wire);
  std::vector<Command> cmds;
  std::string err;
  ParseStatus s = drain(p, buf, cmds, &err);
  if (s != ParseStatus::kError) return "<no error>";
  return err;
}

std::vector<Command> parse_all(std::string_view wire) {
  RequestParser p;
  std::string buf(wire);
  std::vector<Command> cmds;
  drain(p, buf, cmds);
  return cmds;
}

// Concatenation without `"literal" + std::string`, which trips GCC 12's -Wrestrict false
// positive at -O3 (GCC bug 105329).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view part : parts) s.append(part);
  return s;
}

Command inline_args(std::string_view line) {
  auto cmds = parse_all(std::string(line) + "\r\n");
  REQUIRE(cmds.size() == 1);
  return cmds[0];
}

const std::string kPipeline = std::string(
                                  "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"
                                  "*0\r\n"
                                  "*2\r\n$3\r\nGET\r\n$0\r\n\r\n"
                                  "PING\r\n"
                                  "\r\n"
                                  "*-1\r\n"
                                  "  set \"a b\" 'c\\'d'\n"
                                  "*2\r\n$4\r\nECHO\r\n$6\r\n") +
                              std::string("a\0\r\nb\n", 6) +
                              "\r\n"
                              "*1\r\n$4\r\nQUIT\r\n";

const std::vector<Command> kPipelineCommands = {
    {"SET", "key", "value"},
    {"GET", ""},
    {"PING"},
    {"set", "a b", "c'd"},
    {"ECHO", std::string("a\0\r\nb\n", 6)},
    {"QUIT"},
};

}  // namespace

// parse() reads a whole command with plain headers in one pass and leaves the rest to the
// general parser; fed one byte at a time, every command goes the general way. Both must give
// the same commands and the same verdict at each limit the one-pass reader tests.
TEST_CASE("resp parser: the one-pass reader agrees with the general path at its limits") {
  auto outcome = [](const std::string& wire, bool authenticated, bool small_bulk, bool bytewise) {
    RequestParser p;
    p.set_authenticated(authenticated);
    if (small_bulk) p.set_max_bulk_len(64);
    std::vector<Command> cmds;
    std::string err;
    std::string buf;
    ParseStatus s = ParseStatus::kNeedMore;
    if (bytewise) {
      for (char c : wire) {
        buf.push_back(c);
        s = drain(p, buf, cmds, &err);
        if (s == ParseStatus::kError) break;
      }
    } else {
      buf = wire;
      s = drain(p, buf, cmds, &err);
    }
    return std::make_tuple(cmds, s, err, s == ParseStatus::kError ? 0 : buf.size());
  };
  auto args_of = [](std::size_t n, std::size_t len) {
    std::string w = cat({"*", std::to_string(n), "\r\n"});
    const std::string body(len, 'a');
    for (std::size_t i = 0; i < n; ++i) w += cat({"$", std::to_string(len), "\r\n", body, "\r\n"});
    return w;
  };
  const std::vector<std::string> wires = {
      "*1\r\n$4\r\nPING\r\n",
      "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n",
      "*2\r\n$3\r\nGET\r\n$01\r\nk\r\n",
      "*1\r\n$4\rXPING\r\n",
      "*1\r\n$4\r\nPINGxy*1\r\n$1\r\nx\r\n",
      "*1\r\n$-1\r\n",
      "*01\r\n$4\r\nPING\r\n",
      "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPI",
      "*2\r\n$3\r\nGET\r\n:1\r\n",
      "*1\r\n$1234567890123456789\r\n",
      args_of(12, 3),
      args_of(10, 1),
      args_of(11, 1),
      args_of(1024, 1),
      args_of(1025, 1),
      args_of(1, 64),
      args_of(1, 65),
      args_of(1, 16384),
      args_of(1, 16385),
  };
  for (const std::string& wire : wires) {
    for (int mode = 0; mode < 4; ++mode) {
      const bool authenticated = (mode & 1) == 0;
      const bool small_bulk = (mode & 2) != 0;
      CAPTURE(wire.substr(0, 40));
      CAPTURE(mode);
      CHECK(outcome(wire, authenticated, small_bulk, false) ==
            outcome(wire, authenticated, small_bulk, true));
    }
  }
  // And the one-pass reader gives the commands themselves.
  const auto [cmds, status, err, left] = outcome(args_of(1024, 1), true, false, false);
  CHECK(cmds.size() == 1);
  CHECK(cmds[0].size() == 1024);
  CHECK(status == ParseStatus::kNeedMore);
  CHECK(left == 0);
}

TEST_CASE("resp parser: pipeline in one piece") {
  CHECK(parse_all(kPipeline) == kPipelineCommands);
}

TEST_CASE("resp parser: pipeline split at every byte, buffer moved between reads") {
  for (std::size_t cut = 0; cut <= kPipeline.size(); ++cut) {
    CAPTURE(cut);
    RequestParser p;
    std::vector<Command> cmds;
    std::string buf = kPipeline.substr(0, cut);
    REQUIRE(drain(p, buf, cmds) == ParseStatus::kNeedMore);
    // A fresh string: the partly parsed command now lives at another address.
    std::string moved = buf + kPipeline.substr(cut);
    buf.clear();
    REQUIRE(drain(p, moved, cmds) == ParseStatus::kNeedMore);
    CHECK(moved.empty());
    CHECK(cmds == kPipelineCommands);
  }
}

TEST_CASE("resp parser: pipeline split at every pair of positions") {
  for (std::size_t a = 0; a <= kPipeline.size(); ++a) {
    for (std::size_t b = a; b <= kPipeline.size(); b += 3) {
      RequestParser p;
      std::vector<Command> cmds;
      std::string buf = kPipeline.substr(0, a);
      drain(p, buf, cmds);
      buf += kPipeline.substr(a, b - a);
      drain(p, buf, cmds);
      buf += kPipeline.substr(b);
      REQUIRE(drain(p, buf, cmds) == ParseStatus::kNeedMore);
      REQUIRE(cmds == kPipelineCommands);
    }
  }
}

TEST_CASE("resp parser: pipeline fed one byte at a time") {
  RequestParser p;
  std::vector<Command> cmds;
  std::string buf;
  for (char c : kPipeline) {
    buf.push_back(c);
    REQUIRE(drain(p, buf, cmds) == ParseStatus::kNeedMore);
  }
  CHECK(cmds == kPipelineCommands);
}

TEST_CASE("resp parser: every strict prefix of a command needs more and consumes nothing") {
  const std::string cmd = "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n";
  RequestParser p;
  std::vector<std::string_view> args;
  for (std::size_t n = 0; n < cmd.size(); ++n) {
    ParseResult r = p.parse(std::string_view(cmd).substr(0, n), args);
    CHECK(r.status == ParseStatus::kNeedMore);
    CHECK(r.consumed == 0);
  }
  ParseResult r = p.parse(cmd, args);
  REQUIRE(r.status == ParseStatus::kCommand);
  CHECK(r.consumed == cmd.size());
  CHECK(copy_args(args) == Command{"GET", "key"});
  // Multibulk arguments are views into the input, not copies.
  CHECK(args[1].data() == cmd.data() + cmd.size() - 5);
}

TEST_CASE("resp parser: input ending exactly at a header boundary is not read past") {
  // Exact-size heap copies, so a sanitizer build catches any read past the end.
  const std::string cmd = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
  RequestParser p;
  std::vector<std::string_view> args;
  for (std::size_t n = 1; n <= cmd.size(); ++n) {
    std::unique_ptr<char[]> exact(new char[n]);
    std::memcpy(exact.get(), cmd.data(), n);
    ParseResult r = p.parse({exact.get(), n}, args);
    CHECK(r.status == (n == cmd.size() ? ParseStatus::kCommand : ParseStatus::kNeedMore));
  }
}

TEST_CASE("resp parser: one command per call, consumed points at the next one") {
  const std::string wire = "*1\r\n$4\r\nPING\r\nPING\r\n";
  RequestParser p;
  std::vector<std::string_view> args;
  ParseResult r = p.parse(wire, args);
  REQUIRE(r.status == ParseStatus::kCommand);
  CHECK(r.consumed == 14);
  r = p.parse(std::string_view(wire).substr(14), args);
  REQUIRE(r.status == ParseStatus::kCommand);
  CHECK(r.consumed == 6);
  CHECK(copy_args(args) == Command{"PING"});
}

TEST_CASE("resp parser: empty commands are skipped") {
  RequestParser p;
  std::vector<std::string_view> args;
  const std::string wire = "*0\r\n*-1\r\n*-7\r\n\r\n\n   \t\r\nPING\r\n";
  ParseResult r = p.parse(wire, args);
  REQUIRE(r.status == ParseStatus::kCommand);
  CHECK(r.consumed == wire.size());
  CHECK(copy_args(args) == Command{"PING"});

  r = p.parse("*0\r\n\r\n", args);
  CHECK(r.status == ParseStatus::kNeedMore);
  CHECK(r.consumed == 6);

  r = p.parse("", args);
  CHECK(r.status == ParseStatus::kNeedMore);
  CHECK(r.consumed == 0);
}

TEST_CASE("resp parser: skipped empties before a split command, dropped or not") {
  const std::string head = "\r\n*0\r\n*2\r\n$3\r\nGET\r\n$3\r\nk";
  const std::string tail = "ey\r\n";
  std::vector<std::string_view> args;
  {
    RequestParser p;
    ParseResult r = p.parse(head, args);
    REQUIRE(r.status == ParseStatus::kNeedMore);
    CHECK(r.consumed == 6);
    std::string rest = head.substr(6) + tail;  // caller dropped the empties
    r = p.parse(rest, args);
    REQUIRE(r.status == ParseStatus::kCommand);
    CHECK(r.consumed == rest.size());
    CHECK(copy_args(args) == Command{"GET", "key"});
  }
  {
    RequestParser p;
    ParseResult r = p.parse(head, args);
    REQUIRE(r.status == ParseStatus::kNeedMore);
    std::string all = head + tail;  // caller kept them
    r = p.parse(all, args);
    REQUIRE(r.status == ParseStatus::kCommand);
    CHECK(r.consumed == all.size());
    CHECK(copy_args(args) == Command{"GET", "key"});
  }
}

TEST_CASE("resp parser: one args vector shared by two connections' parsers") {
  RequestParser a, b;
  std::vector<std::string_view> args;
  const std::string a1 = "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n";
  const std::string a2 = a1 + "$1\r\ny\r\n";
  const std::string b1 = "*2\r\n$3\r\nGET\r\n$1\r\nz\r\n";
  REQUIRE(a.parse(a1, args).status == ParseStatus::kNeedMore);
  REQUIRE(b.parse(b1, args).status == ParseStatus::kCommand);
  CHECK(copy_args(args) == Command{"GET", "z"});
  REQUIRE(a.parse(a2, args).status == ParseStatus::kCommand);
  CHECK(copy_args(args) == Command{"SET", "x", "y"});
}

TEST_CASE("resp parser: big bulk reports the size it needs") {
  const std::string head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$104857600\r\n";
  RequestParser p;
  std::vector<std::string_view> args;
  ParseResult r = p.parse(head + "abc", args);
  REQUIRE(r.status == ParseStatus::kNeedMore);
  CHECK(r.consumed == 0);
  CHECK(r.need == head.size() + 104857600 + 2);

  std::string body(104857600, 'x');
  std::string all = head + body + "\r\n";
  r = p.parse(all, args);
  REQUIRE(r.status == ParseStatus::kCommand);
  CHECK(r.consumed == all.size());
  REQUIRE(args.size() == 3);
  CHECK(args[2].size() == body.size());
  CHECK(args[2].data() == all.data() + head.size());

  // Before the length is known there is nothing to report.
  r = p.parse("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048", args);
  CHECK(r.status == ParseStatus::kNeedMore);
  CHECK(r.need == 0);
}

TEST_CASE("resp parser: bytes after a header CR and after a body are skipped unread, as Redis") {
  CHECK(parse_all("*1\r\n$4\r\nPINGxx*1\rX$4\r\nPINGab") ==
        std::vector<Command>{{"PING"}, {"PING"}});
}

TEST_CASE("resp parser: protocol errors carry Redis 7's exact text") {
  CHECK(error_of("*abc\r\n") == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("*\r\n") == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("*+1\r\n") == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("*01\r\n") == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("* 1\r\n") == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("*1X$4\r\nPING\r\n") == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("*2147483648\r\n") == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("*99999999999999999999999\r\n") == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("*2147483647\r\n") == "<no error>");  // Redis 7.0's limit is INT_MAX

  CHECK(error_of("*1\r\n$-1\r\n") == "ERR Protocol error: invalid bulk length");
  CHECK(error_of("*1\r\n$abc\r\n") == "ERR Protocol error: invalid bulk length");
  CHECK(error_of("*1\r\n$\r\n") == "ERR Protocol error: invalid bulk length");
  CHECK(error_of("*1\r\n$01\r\n") == "ERR Protocol error: invalid bulk length");
  CHECK(error_of("*1\r\n$+1\r\n") == "ERR Protocol error: invalid bulk length");
  CHECK(error_of("*1\r\n$-0\r\n") == "ERR Protocol error: invalid bulk length");
  CHECK(error_of("*1\r\n$536870913\r\n") == "ERR Protocol error: invalid bulk length");
  CHECK(error_of("*1\r\n$536870912\r\n") == "<no error>");
  {
    RequestParser p;
    p.set_max_bulk_len(10);
    std::vector<std::string_view> args;
    CHECK(p.parse("*1\r\n$11\r\n", args).error == "ERR Protocol error: invalid bulk length");
    CHECK(p.parse("*1\r\n$10\r\n", args).status == ParseStatus::kNeedMore);
  }

  CHECK(error_of("*1\r\nX4\r\n") == "ERR Protocol error: expected '$', got 'X'");
  CHECK(error_of("*2\r\n$3\r\nGET\r\n:1\r\n") == "ERR Protocol error: expected '$', got ':'");
  CHECK(error_of("*1\r\n\r\n") == "ERR Protocol error: expected '$', got ' '");
  CHECK(error_of("*1\r\n\n\r\n") == "ERR Protocol error: expected '$', got ' '");
  CHECK(error_of("*1\r\nX") == "<no error>");  // judged only once the line is whole

  CHECK(error_of("ECHO \"abc\r\n") == "ERR Protocol error: unbalanced quotes in request");
  CHECK(error_of("ECHO 'abc\r\n") == "ERR Protocol error: unbalanced quotes in request");
  CHECK(error_of("ECHO \"a\"b\r\n") == "ERR Protocol error: unbalanced quotes in request");
  CHECK(error_of("ECHO 'a'b\r\n") == "ERR Protocol error: unbalanced quotes in request");
  CHECK(error_of("ECHO \"a\\\r\n") == "ERR Protocol error: unbalanced quotes in request");

  CHECK(error_of(std::string(kInlineMaxSize, 'A')) == "<no error>");
  CHECK(error_of(std::string(kInlineMaxSize + 1, 'A')) ==
        "ERR Protocol error: too big inline request");
  CHECK(error_of(std::string(100 * 1024, 'A') + "\r\n") == "<no error>");  // a whole line is fine
  CHECK(error_of(cat({"*", std::string(kInlineMaxSize - 1, '1')})) == "<no error>");
  CHECK(error_of(cat({"*", std::string(kInlineMaxSize, '1')})) ==
        "ERR Protocol error: too big mbulk count string");
  CHECK(error_of(cat({"*1\r\n$", std::string(kInlineMaxSize - 1, '1')})) == "<no error>");
  CHECK(error_of(cat({"*1\r\n$", std::string(kInlineMaxSize, '1')})) ==
        "ERR Protocol error: too big bulk count string");
  CHECK(error_of(cat({"*1\r\n", std::string(70000, 'X')})) ==
        "ERR Protocol error: too big bulk count string");
  // A '\r' far away ends the line: then it is judged on its value.
  CHECK(error_of(cat({"*", std::string(70000, '1'), "\r\n"})) ==
        "ERR Protocol error: invalid multibulk length");
}

TEST_CASE("resp parser: errors are found whatever the split") {
  const std::string wire = "*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$-5\r\n";
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
    RequestParser p;
    std::vector<Command> cmds;
    std::string err;
    std::string buf = wire.substr(0, cut);
    if (drain(p, buf, cmds, &err) != ParseStatus::kError) {
      buf += wire.substr(cut);
      REQUIRE(drain(p, buf, cmds, &err) == ParseStatus::kError);
    }
    CHECK(err == "ERR Protocol error: invalid bulk length");
    CHECK(cmds == std::vector<Command>{{"PING"}});
  }
}

TEST_CASE("resp parser: unauthenticated clients get Redis's small limits") {
  CHECK(error_of("*11\r\n", false) == "ERR Protocol error: unauthenticated multibulk length");
  CHECK(error_of("*2000000\r\n", false) == "ERR Protocol error: unauthenticated multibulk length");
  CHECK(error_of("*10\r\n$16384\r\n", false) == "<no error>");
  CHECK(error_of("*10\r\n$16385\r\n", false) == "ERR Protocol error: unauthenticated bulk length");
  CHECK(error_of("*1\r\n$536870913\r\n", false) == "ERR Protocol error: invalid bulk length");
  CHECK(error_of("*abc\r\n", false) == "ERR Protocol error: invalid multibulk length");
  CHECK(error_of("*11\r\n", true) == "<no error>");
  CHECK(error_of("*1\r\n$16385\r\n", true) == "<no error>");

  RequestParser p;
  p.set_authenticated(false);
  std::vector<std::string_view> args;
  REQUIRE(p.parse("*2\r\n$4\r\nAUTH\r\n$1\r\nx\r\n", args).status == ParseStatus::kCommand);
  p.set_authenticated(true);
  CHECK(p.parse("*11\r\n", args).status == ParseStatus::kNeedMore);
}

TEST_CASE("resp parser: inline splitting follows sdssplitargs") {
  CHECK(inline_args("PING") == Command{"PING"});
  CHECK(inline_args("  SET   k \t v  ") == Command{"SET", "k", "v"});
  CHECK(inline_args("ECHO \"\"") == Command{"ECHO", ""});  // Redis 7 keeps empty arguments
  CHECK(inline_args("ECHO ''") == Command{"ECHO", ""});
  CHECK(inline_args("ECHO \"a b\"") == Command{"ECHO", "a b"});
  CHECK(inline_args("ECHO \"\\n\\r\\t\\b\\a\\\\\\\"\\q\"") == Command{"ECHO", "\n\r\t\b\a\\\"q"});
  CHECK(inline_args("ECHO \"\\x41\\x4g\\x6A\"") == Command{"ECHO", "Ax4g\x6a"});
  CHECK(inline_args("ECHO \"\\x00\"") == Command{"ECHO", std::string(1, '\0')});
  CHECK(inline_args("ECHO 'a\\'b' 'c\\nd'") == Command{"ECHO", "a'b", "c\\nd"});
  CHECK(inline_args("ECHO ab\"cd ef\"") == Command{"ECHO", "abcd ef"});
  CHECK(inline_args("ECHO \"a\"\x0b") == Command{"ECHO", "a"});
  CHECK(inline_args("ECHO a\vb") == Command{"ECHO", "a\vb"});  // \v is not a separator
  CHECK(inline_args("ECHO \x0bx") == Command{"ECHO", "x"});    // but it is skipped as a blank
  CHECK(inline_args("ECHO a\rb") == Command{"ECHO", "a", "b"});
  CHECK(inline_args("a \"b\" c") == Command{"a", "b", "c"});
  CHECK(parse_all("PING\nPING\r\n") == std::vector<Command>{{"PING"}, {"PING"}});
}

TEST_CASE("resp parser: inline views stay valid while later arguments are unescaped") {
  std::string line = "SET";
  for (int i = 0; i < 200; ++i)
    line += " \"v" + std::to_string(i) + "\\x41\" plain" + std::to_string(i);
  line += "\r\n";
  auto cmds = parse_all(line);
  REQUIRE(cmds.size() == 1);
  REQUIRE(cmds[0].size() == 401);
  CHECK(cmds[0][1] == "v0A");
  CHECK(cmds[0][2] == "plain0");
  CHECK(cmds[0][399] == "v199A");
  CHECK(cmds[0][400] == "plain199");
}

TEST_CASE("resp parser: steady state reuses the args vector") {
  RequestParser p;
  std::vector<std::string_view> args;
  const std::string cmd = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n";
  REQUIRE(p.parse(cmd, args).status == ParseStatus::kCommand);
  const auto* data = args.data();
  const auto cap = args.capacity();
  for (int i = 0; i < 100; ++i) {
    REQUIRE(p.parse(cmd, args).status == ParseStatus::kCommand);
    REQUIRE(p.parse("SET k \"v\"\r\n", args).status == ParseStatus::kCommand);
  }
  CHECK(args.data() == data);
  CHECK(args.capacity() == cap);
}

TEST_CASE("resp parser: a many-argument command arriving in small reads") {
  std::string wire = "*20000\r\n";
  for (int i = 0; i < 20000; ++i) {
    std::string a = std::to_string(i);
    wire += cat({"$", std::to_string(a.size()), "\r\n", a, "\r\n"});
  }
  RequestParser p;
  std::vector<std::string_view> args;
  std::string buf;
  ParseResult r{ParseStatus::kNeedMore};
  for (std::size_t at = 0; at < wire.size(); at += 7) {
    buf.append(wire, at, 7);
    r = p.parse(buf, args);
    if (r.status != ParseStatus::kNeedMore) break;
    std::string moved = buf;  // also move the buffer each time
    buf.swap(moved);
  }
  REQUIRE(r.status == ParseStatus::kCommand);
  REQUIRE(args.size() == 20000);
  CHECK(args[0] == "0");
  CHECK(args[12345] == "12345");
  CHECK(args[19999] == "19999");
}

TEST_CASE("resp parser: reset forgets a partly parsed command") {
  RequestParser p;
  std::vector<std::string_view> args;
  REQUIRE(p.parse("*2\r\n$3\r\nGET\r\n", args).status == ParseStatus::kNeedMore);
  p.reset();
  ParseResult r = p.parse("PING\r\n", args);
  REQUIRE(r.status == ParseStatus::kCommand);
  CHECK(copy_args(args) == Command{"PING"});
}
