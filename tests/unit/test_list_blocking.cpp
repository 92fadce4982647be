// The blocking framework's bookkeeping (worker/engine/blocking.hpp): timeouts as Redis
// parses them, waiters in blocking order per key, ready keys queued once and in order,
// key_ready only for waited-on keys, FIFO checks (by the type waited for), due waiters,
// CLIENT UNBLOCK and stale waiters; and the Shard listening to its keyspace while a client
// waits (a push through the write handle marks the key ready).
#include <doctest/doctest.h>

#include <string_view>
#include <vector>

#include "worker/engine/blocking.hpp"
#include "worker/engine/shard.hpp"
#include "worker/types/list/list.hpp"

using namespace ruvio;
using worker::Blocking;
using worker::parse_timeout;

TEST_CASE("blocking: timeouts parse as Redis's getTimeoutFromObjectOrReply") {
  CHECK(parse_timeout("0", 1000).deadline_ms == 0);
  CHECK(parse_timeout("0.0001", 1000).deadline_ms == 1001);  // a part of a ms: 1 ms
  CHECK(parse_timeout("0.001", 1000).deadline_ms == 1001);
  CHECK(parse_timeout("-0.0001", 1000).deadline_ms == 0);  // ceil: -0, for ever (7.0.15)
  CHECK(parse_timeout("0.25", 1000).deadline_ms == 1250);
  CHECK(parse_timeout("2", 1000).deadline_ms == 3000);
  CHECK(parse_timeout("-1", 1000).error == "ERR timeout is negative");
  CHECK(parse_timeout("abc", 1000).error == "ERR timeout is not a float or out of range");
  CHECK(parse_timeout("", 1000).error == "ERR timeout is not a float or out of range");
  CHECK(parse_timeout("nan", 1000).error == "ERR timeout is not a float or out of range");
  // Past long long: LLONG_MIN, negative; a deadline past it: for ever (Redis 7.0.15).
  CHECK(parse_timeout("1e30", 1000).error == "ERR timeout is negative");
  CHECK(parse_timeout("inf", 1000).error == "ERR timeout is negative");
  CHECK(parse_timeout("9223372036854775", 1000).deadline_ms == 0);
  CHECK(parse_timeout("1e10", 1000).deadline_ms == 10000000001000);
  CHECK(worker::parse_timeout_ms("9223372036854775807", 1000).deadline_ms == 0);
  CHECK(worker::parse_timeout_ms("-1", 1000).error == "ERR timeout is negative");
}

TEST_CASE("blocking: waiters, readiness, FIFO, unblock, stale") {
  Blocking b;
  const std::vector<std::string_view> ab = {"a", "b"};
  const std::vector<std::string_view> b_only = {"b"};
  CHECK(b.empty());
  CHECK(b.next_deadline() == INT64_MAX);
  b.add(1, 0, ab, 0);
  b.add(2, 0, b_only, 5000);
  b.add(3, 1, b_only, 4000);
  CHECK(b.size() == 3);
  CHECK(b.next_deadline() == 4000);
  std::vector<Blocking::ReadyKey> ready;
  b.key_ready(0, "zzz");
  CHECK(!b.has_ready());
  b.key_ready(2, "b");  // nobody waits in db 2
  CHECK(!b.has_ready());
  b.key_ready(0, "b");
  b.key_ready(0, "a");
  b.key_ready(0, "b");  // queued once
  CHECK(b.has_ready());
  b.take_ready(ready);
  REQUIRE(ready.size() == 2);
  CHECK(ready[0].key == "b");
  CHECK(ready[1].key == "a");
  CHECK(!b.has_ready());  // taken once
  // Each key's waiters in blocking order.
  CHECK(*b.waiting_on(0, "b") == std::vector<std::uint64_t>{1, 2});
  CHECK(*b.waiting_on(0, "a") == std::vector<std::uint64_t>{1});
  CHECK(b.waiting_on(0, "zzz") == nullptr);
  // FIFO: 2 waits behind 1 on "b"; 1 is first; a newcomer is behind both.
  CHECK(!b.earlier_waiter(1, 0, "b"));
  CHECK(b.earlier_waiter(2, 0, "b"));
  CHECK(b.earlier_waiter(99, 0, "b"));
  CHECK(!b.earlier_waiter(99, 0, "c"));
  CHECK(!b.earlier_waiter(3, 1, "b"));  // other db
  // A waiter for another type is not "earlier" for a list waiter.
  b.add(50, 4, b_only, 0, ruvio::types::Type::kZSet);
  b.add(51, 4, b_only, 0);
  CHECK(!b.earlier_waiter(51, 4, "b"));
  CHECK(b.earlier_waiter(99, 4, "b", ruvio::types::Type::kZSet));
  CHECK(b.remove(50));
  CHECK(b.remove(51));
  // CLIENT UNBLOCK by client id (the low 48 bits of the token).
  const std::uint64_t remote = (std::uint64_t{1} << 48) | 77;
  b.add(remote, 0, ab, 0);
  CHECK(b.unblock_client(77, true));
  CHECK(b.find(remote)->deadline_ms == 1);
  CHECK(b.find(remote)->error);
  CHECK(!b.unblock_client(78, false));
  b.set_timed_out(remote, true);
  CHECK(b.unblocked_by_error(remote));
  CHECK(!b.take_timed_out(remote));  // an ERROR end is not a timeout
  b.set_timed_out(2, false);
  CHECK(!b.unblocked_by_error(2));
  CHECK(b.take_timed_out(2));
  CHECK(!b.take_timed_out(2));
  // Removal keeps the key counts right.
  CHECK(b.remove(1));
  CHECK(!b.remove(1));
  CHECK(b.remove(2));
  b.key_ready(0, "a");
  CHECK(b.has_ready());  // `remote` still waits on "a"
  b.take_ready(ready);
  std::vector<std::uint64_t> due;
  b.due(1, due);
  CHECK(due == std::vector<std::uint64_t>{remote});
  b.drop_stale(2);  // its deadline (1) is past
  CHECK(b.find(remote) == nullptr);
  b.key_ready(0, "a");
  CHECK(!b.has_ready());
  CHECK(b.remove(3));
  CHECK(b.empty());
}

TEST_CASE("blocking: the shard listens while a client waits; a push marks the key ready") {
  types::register_builtin_types();
  Config config;
  worker::Shard shard{config, 0};
  const std::vector<std::string_view> keys = {"q"};
  auto push = [&](std::string_view key) {
    store::WriteHandle h = shard.db(0).open(key, types::Type::kList, 0);
    if (!h) h.set(types::Quicklist::create(h.heap()));
    types::Quicklist ql(h.heap(), h.as<types::ListObject>(), -2);
    types::list_push(ql, types::ListEnd::kTail, "x");
  };
  std::vector<Blocking::ReadyKey> ready;
  push("q");
  CHECK(!shard.blocking().has_ready());  // nobody waited
  shard.block(7, 0, keys, 0);
  push("other");
  CHECK(!shard.blocking().has_ready());
  push("q");
  CHECK(shard.blocking().has_ready());
  shard.blocking().take_ready(ready);
  shard.unblock(7);
  push("q");
  CHECK(!shard.blocking().has_ready());
}
