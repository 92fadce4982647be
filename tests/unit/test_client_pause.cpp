// CLIENT PAUSE: the pause state's rules and which commands the executor holds back
// (Redis 7.0's processCommand); the replies themselves are checked against redis-server in
// tests/integration/test_client_pause.py.
#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "shared/config.hpp"
#include "worker/engine/client_pause.hpp"
#include "worker/engine/command_table.hpp"
#include "worker/engine/executor.hpp"

using ruvio::Config;
using ruvio::worker::ClientInfo;
using ruvio::worker::ClientPause;
using ruvio::worker::command_table;
using ruvio::worker::CommandDef;
using ruvio::worker::Executor;
using ruvio::worker::Shard;

namespace {

using Mode = ClientPause::Mode;

struct Fixture {
  Config config;
  Shard shard{config, 0};
  Executor exec{shard};
  ClientInfo client;

  Fixture() { shard.set_now_ms(1'000'000); }

  std::string run(std::initializer_list<std::string_view> args) {
    std::vector<std::string_view> v(args);
    std::string out;
    ruvio::proto::ReplyWriter w(out, client.resp);
    exec.execute(client, v, w);
    return out;
  }
  bool parks(std::initializer_list<std::string_view> args) {
    std::vector<std::string_view> v(args);
    return exec.parks(client, v);
  }
};

}  // namespace

TEST_CASE("client pause: a new pause never weakens the one in force") {
  ClientPause p;
  CHECK_FALSE(p.paused(0));
  std::uint64_t v = p.version();
  p.pause(Mode::kAll, 200);
  CHECK(p.version() != v);
  p.pause(Mode::kWrite, 20);
  CHECK(p.mode(100) == Mode::kAll);
  CHECK(p.end_ms() == 200);
  CHECK(p.mode(200) == Mode::kAll);  // holds while now <= end
  CHECK(p.mode(201) == Mode::kNone);
  p.expire(201);
  CHECK(p.end_ms() == 0);
  // Once over, a weaker pause is what it says.
  p.pause(Mode::kWrite, 300);
  CHECK(p.mode(250) == Mode::kWrite);
  p.unpause();
  CHECK_FALSE(p.paused(250));
  // A timeout of 0 (end 0) pauses nothing new, but a stricter mode applies to the pause
  // in force (Redis: PAUSE 1000 WRITE then PAUSE 0 ALL holds reads too).
  p.pause(Mode::kAll, 0);
  CHECK_FALSE(p.paused(250));
  p.expire(250);
  p.pause(Mode::kWrite, 1000);
  p.pause(Mode::kAll, 0);
  CHECK(p.mode(500) == Mode::kAll);
}

TEST_CASE("client pause: the handler's replies and errors") {
  Fixture f;
  CHECK(f.run({"CLIENT", "PAUSE", "abc"}) == "-ERR timeout is not an integer or out of range\r\n");
  CHECK(f.run({"CLIENT", "PAUSE", "1.5"}) == "-ERR timeout is not an integer or out of range\r\n");
  CHECK(f.run({"CLIENT", "PAUSE", "-1"}) == "-ERR timeout is negative\r\n");
  // The mode is checked before the timeout.
  CHECK(f.run({"CLIENT", "PAUSE", "abc", "foo"}) ==
        "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n");
  CHECK(f.run({"CLIENT", "PAuse", "10", "write", "x"}) ==
        "-ERR unknown subcommand or wrong number of arguments for 'PAuse'. Try CLIENT HELP.\r\n");
  CHECK(f.run({"CLIENT", "PAUSE"}) ==
        "-ERR wrong number of arguments for 'client|pause' command\r\n");
  CHECK(f.run({"CLIENT", "UNPAUSE", "x"}) ==
        "-ERR wrong number of arguments for 'client|unpause' command\r\n");
  CHECK_FALSE(f.shard.client_pause.paused(f.shard.now_ms()));
  // Past the clock's range: the end wraps into the past, as in Redis 7.0, and nothing pauses.
  CHECK(f.run({"CLIENT", "PAUSE", "9223372036854775807", "WRITE"}) == "+OK\r\n");
  CHECK_FALSE(f.shard.client_pause.paused(f.shard.now_ms()));
  CHECK(f.run({"CLIENT", "PAUSE", "500", "wRiTe"}) == "+OK\r\n");
  CHECK(f.shard.client_pause.mode(f.shard.now_ms()) == Mode::kWrite);
  CHECK(f.shard.client_pause.end_ms() == f.shard.now_ms() + 500);
  CHECK(f.run({"CLIENT", "PAUSE", "100"}) == "+OK\r\n");  // ALL by default
  CHECK(f.shard.client_pause.mode(f.shard.now_ms()) == Mode::kAll);
  CHECK(f.shard.client_pause.end_ms() == f.shard.now_ms() + 500);
  CHECK(f.run({"CLIENT", "UNPAUSE"}) == "+OK\r\n");
  CHECK_FALSE(f.shard.client_pause.paused(f.shard.now_ms()));
}

TEST_CASE("client pause: WRITE holds writes and may-replicate commands, not reads") {
  Fixture f;
  CHECK_FALSE(f.parks({"SET", "k", "v"}));  // no pause: one compare, nothing held
  f.shard.client_pause.pause(Mode::kWrite, f.shard.now_ms() + 1000);
  for (auto cmd : std::vector<std::vector<std::string_view>>{{"SET", "k", "v"},
                                                             {"DEL", "k"},
                                                             {"EXPIRE", "k", "10"},
                                                             {"PERSIST", "k"},
                                                             {"FLUSHALL"},
                                                             {"PUBLISH", "c", "m"},
                                                             {"GETEX", "k"},
                                                             {"GETDEL", "k"}}) {
    CAPTURE(cmd[0]);
    CHECK(f.exec.parks(f.client, cmd));
  }
  for (auto cmd : std::vector<std::vector<std::string_view>>{{"GET", "k"},
                                                             {"PING"},
                                                             {"INFO"},
                                                             {"DBSIZE"},
                                                             {"CLIENT", "UNPAUSE"},
                                                             {"CLIENT", "PAUSE", "10"},
                                                             {"SELECT", "1"},
                                                             {"MULTI"}}) {
    CAPTURE(cmd[0]);
    CHECK_FALSE(f.exec.parks(f.client, cmd));
  }
  // Errors that come before the pause check answer at once.
  CHECK_FALSE(f.parks({"NOSUCH"}));
  CHECK_FALSE(f.parks({"SET", "k"}));
  f.client.authenticated = false;
  CHECK_FALSE(f.parks({"SET", "k", "v"}));
  f.client.authenticated = true;
  f.client.subscriptions = 1;  // RESP2 subscribed mode refuses SET with an error
  CHECK_FALSE(f.parks({"SET", "k", "v"}));
  f.client.subscriptions = 0;
  // The pause ends on its own.
  f.shard.set_now_ms(f.shard.now_ms() + 1001);
  CHECK_FALSE(f.parks({"SET", "k", "v"}));
}

TEST_CASE("client pause: MULTI queues and EXEC under WRITE") {
  Fixture f;
  f.shard.client_pause.pause(Mode::kWrite, f.shard.now_ms() + 1000);
  f.client.in_multi = true;
  CHECK(f.parks({"SET", "k", "v"}));  // a write waits before it is queued
  CHECK_FALSE(f.parks({"GET", "k"}));
  f.client.queued = {{"GET", "k"}};
  CHECK_FALSE(f.parks({"EXEC"}));
  f.client.queued = {{"GET", "k"}, {"SET", "k", "v"}};
  CHECK(f.parks({"EXEC"}));
  // A transaction that came over the mesh, each command's row named by the frame; and one
  // command (the checks before the pause were made at the client's worker).
  const CommandDef* get = command_table().find("GET");
  const CommandDef* incr = command_table().find("INCR");
  const CommandDef* reads[] = {get};
  const CommandDef* writes[] = {get, incr};
  CHECK_FALSE(f.exec.parks(reads));
  CHECK(f.exec.parks(writes));
  CHECK_FALSE(f.exec.parks_resolved(*get));
  CHECK(f.exec.parks_resolved(*incr));
}

TEST_CASE("client pause: ALL holds every command that would run, UNPAUSE included") {
  Fixture f;
  f.shard.client_pause.pause(Mode::kAll, f.shard.now_ms() + 1000);
  CHECK(f.parks({"GET", "k"}));
  CHECK(f.parks({"PING"}));
  CHECK(f.parks({"CLIENT", "UNPAUSE"}));
  CHECK(f.parks({"CLIENT", "PAUSE", "x"}));  // its error would come from the handler
  CHECK_FALSE(f.parks({"CLIENT", "PAUSE"}));
  CHECK_FALSE(f.parks({"CLIENT", "NOSUCH"}));
  CHECK_FALSE(f.parks({"NOSUCH"}));
  const CommandDef* reads[] = {command_table().find("GET")};
  CHECK(f.exec.parks(reads));
  CHECK(f.exec.parks_resolved(*command_table().find("PING")));
}
