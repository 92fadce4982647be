// Inline values (record.hpp Enc::kInline, value.hpp's folded object): small compact hashes,
// sets and zsets live inside their record. Pinned here: the byte costs drawn in record.hpp, the
// inline limit exactly (kInlineMax bytes folded stays, one more goes behind the pointer) and
// the way back, encoding conversions out of an inline value, every keyspace path that rebuilds
// or hands over a record (COPY, RENAME, MOVE, EXPIRE, PERSIST, SWAPDB, snapshot load), no-op
// writes that must not count as changes, and used_memory / MEMORY USAGE exact at each step.
#include <doctest/doctest.h>
#include <mimalloc.h>

#include <string>
#include <vector>

#include "worker/engine/command_table.hpp"
#include "worker/engine/context.hpp"
#include "worker/store/record.hpp"
#include "worker/types/hash/hash.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/value.hpp"
#include "worker/types/zset/zset.hpp"

using namespace ruvio;
using store::Enc;

namespace {

constexpr std::int64_t kNow = 1'700'000'000'000;

// A shard and a client running the real command handlers, as the server does.
struct Bench {
  Config config;
  worker::Shard shard{config, 0};
  worker::ClientInfo client;
  std::string buf;
  proto::ReplyWriter out{buf};
  std::size_t base = 0;

  Bench() {
    shard.set_now_ms(kNow);
    types::register_builtin_types();
    db().set_string("anchor", "1", {});  // the table exists: from here only records count
    base = used();
  }
  std::string run(std::vector<std::string_view> args) {
    const worker::CommandDef* def = worker::command_table().find(args[0]);
    REQUIRE(def != nullptr);
    buf.clear();
    worker::Context ctx{args, out, client, shard, def};
    def->handler(ctx);
    return buf;
  }
  store::Db& db(int i = 0) { return shard.db(i); }
  std::size_t used() const { return shard.used_memory(); }
  Enc enc(std::string_view key, int i = 0) { return db(i).peek(key).record()->enc(); }
  std::size_t usage(std::string_view key, int i = 0) { return db(i).peek(key).memory_usage(); }
  // Every byte above the anchor is the keys' MEMORY USAGE (the table does not grow here).
  void exact(std::vector<std::string_view> keys) {
    std::size_t sum = 0;
    for (std::string_view k : keys) sum += usage(k);
    CHECK(used() - base == sum);
  }
};

std::string str(std::size_t n, char c) {
  return std::string(n, c);
}

}  // namespace

TEST_CASE("inline: the byte costs drawn in record.hpp") {
  Bench b;
  CHECK(b.run({"hset", "h:12345", "field:1", "value:1", "field:2", "value:2", "field:3",
               "value:3"}) == ":3\r\n");
  CHECK(b.enc("h:12345") == Enc::kInline);
  CHECK(b.usage("h:12345") == 80);  // 2 + 1 + 7 + 3 + 61-byte listpack = 74 -> 80 B
  CHECK(b.run({"sadd", "iset:12345", "1", "2", "3", "4"}) == ":4\r\n");
  CHECK(b.enc("iset:12345") == Enc::kInline);
  CHECK(b.usage("iset:12345") == 32);  // 2 + 1 + 10 + 3 + 16-byte intset = 32 B
  CHECK(b.run({"zadd", "z:12345", "1", "member:1", "2", "member:2", "3", "member:3"}) == ":3\r\n");
  CHECK(b.enc("z:12345") == Enc::kInline);
  CHECK(b.usage("z:12345") == 64);  // 2 + 1 + 7 + 3 + 43-byte listpack = 56 -> 64 B
  CHECK(b.run({"object", "encoding", "h:12345"}) == "$8\r\nlistpack\r\n");
  CHECK(b.run({"object", "encoding", "iset:12345"}) == "$6\r\nintset\r\n");
  CHECK(b.run({"object", "encoding", "z:12345"}) == "$8\r\nlistpack\r\n");
  CHECK(b.run({"memory", "usage", "iset:12345"}) == ":32\r\n");
  b.exact({"h:12345", "iset:12345", "z:12345"});
}

TEST_CASE("inline: kInlineMax bytes folded stay in the record, one more goes out, and back") {
  Bench b;
  // A listpack set: 7 header/end bytes + (len + 2) per member under 64 bytes. Three members of
  // 60 and one of 58 make 7 + 3 x 62 + 60 = 253 bytes, folded 3 + 253 = 256 = kInlineMax.
  static_assert(types::kInlineMax == 256);
  const std::string a = str(60, 'a'), c = str(60, 'c'), d = str(60, 'd');
  const std::string m58 = str(58, 'x'), m59 = str(59, 'y');
  CHECK(b.run({"sadd", "s", a, c, d, m58}) == ":4\r\n");
  CHECK(b.enc("s") == Enc::kInline);
  CHECK(types::folded_size(b.db().peek("s").object()) == types::kInlineMax);
  b.exact({"s"});

  // limit + 1: swap the 58-byte member for a 59-byte one.
  CHECK(b.run({"srem", "s", m58}) == ":1\r\n");
  CHECK(b.enc("s") == Enc::kInline);
  CHECK(b.run({"sadd", "s", m59}) == ":1\r\n");
  CHECK(b.enc("s") == Enc::kObject);
  CHECK(types::folded_size(b.db().peek("s").object()) == 0);
  CHECK(b.run({"object", "encoding", "s"}) == "$8\r\nlistpack\r\n");
  CHECK(b.run({"scard", "s"}) == ":4\r\n");
  CHECK(b.run({"sismember", "s", m59}) == ":1\r\n");
  b.exact({"s"});

  // And back in when it shrinks under the limit again.
  CHECK(b.run({"srem", "s", m59}) == ":1\r\n");
  CHECK(b.enc("s") == Enc::kInline);
  CHECK(b.run({"scard", "s"}) == ":3\r\n");
  b.exact({"s"});
  CHECK(b.run({"del", "s"}) == ":1\r\n");
  CHECK(b.used() == b.base);
}

TEST_CASE("inline: encoding conversions out of an inline value") {
  Bench b;
  // intset -> listpack (a non-integer) stays inline; -> hashtable (a long member) goes out.
  CHECK(b.run({"sadd", "s", "1", "2"}) == ":2\r\n");
  CHECK(b.enc("s") == Enc::kInline);
  CHECK(b.run({"sadd", "s", "x"}) == ":1\r\n");
  CHECK(b.run({"object", "encoding", "s"}) == "$8\r\nlistpack\r\n");
  CHECK(b.enc("s") == Enc::kInline);
  CHECK(b.run({"sadd", "s", str(65, 'l')}) == ":1\r\n");
  CHECK(b.run({"object", "encoding", "s"}) == "$9\r\nhashtable\r\n");
  CHECK(b.enc("s") == Enc::kObject);
  CHECK(b.run({"srem", "s", str(65, 'l')}) == ":1\r\n");
  CHECK(b.enc("s") == Enc::kObject);  // a hashtable never converts back, as in Redis
  b.exact({"s"});

  // hash listpack -> hashtable by a long value, and by a field TTL.
  CHECK(b.run({"hset", "h", "f", "v"}) == ":1\r\n");
  CHECK(b.enc("h") == Enc::kInline);
  CHECK(b.run({"hset", "h", "g", str(65, 'v')}) == ":1\r\n");
  CHECK(b.enc("h") == Enc::kObject);
  CHECK(b.run({"hget", "h", "f"}) == "$1\r\nv\r\n");
  CHECK(b.run({"hset", "h2", "f", "v"}) == ":1\r\n");
  CHECK(b.run({"hexpire", "h2", "100", "fields", "1", "f"}) == "*1\r\n:1\r\n");
  CHECK(b.enc("h2") == Enc::kObject);
  CHECK(b.run({"object", "encoding", "h2"}) == "$9\r\nhashtable\r\n");

  // zset listpack -> skiplist by a long member; SORT's conversion is stored too.
  CHECK(b.run({"zadd", "z", "1", "a", "2", "b"}) == ":2\r\n");
  CHECK(b.enc("z") == Enc::kInline);
  CHECK(b.run({"zadd", "z", "3", str(65, 'm')}) == ":1\r\n");
  CHECK(b.enc("z") == Enc::kObject);
  CHECK(b.run({"zadd", "z2", "1", "a", "2", "b"}) == ":2\r\n");
  CHECK(b.run({"sort", "z2", "alpha"}) == "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  CHECK(b.run({"object", "encoding", "z2"}) == "$8\r\nskiplist\r\n");
  CHECK(b.enc("z2") == Enc::kObject);
  b.exact({"s", "h", "h2", "z", "z2"});

  // Emptied inline values delete their key and leave nothing behind.
  CHECK(b.run({"del", "s", "h", "h2", "z", "z2"}) == ":5\r\n");
  CHECK(b.run({"sadd", "e", "1"}) == ":1\r\n");
  CHECK(b.run({"spop", "e"}) == "$1\r\n1\r\n");
  CHECK(b.run({"zadd", "e", "1", "a"}) == ":1\r\n");
  CHECK(b.run({"zrem", "e", "a"}) == ":1\r\n");
  CHECK(b.run({"hset", "e", "f", "v"}) == ":1\r\n");
  CHECK(b.run({"hdel", "e", "f"}) == ":1\r\n");
  CHECK(b.run({"exists", "e"}) == ":0\r\n");
  CHECK(b.used() == b.base);
}

TEST_CASE("inline: COPY, RENAME, MOVE, EXPIRE, PERSIST, SWAPDB of an inline value") {
  Bench b;
  b.db().set_expire("anchor", kNow + 10'000'000);  // the expiry index exists from here
  b.base = b.used();
  CHECK(b.run({"zadd", "z", "1", "a", "2", "b", "3", "c"}) == ":3\r\n");
  const std::string all = b.run({"zrange", "z", "0", "-1", "withscores"});
  CHECK(b.run({"copy", "z", "z2"}) == ":1\r\n");
  CHECK(b.enc("z2") == Enc::kInline);
  CHECK(b.run({"zrange", "z2", "0", "-1", "withscores"}) == all);
  CHECK(b.run({"zadd", "z2", "4", "d"}) == ":1\r\n");  // independent copies
  CHECK(b.run({"zcard", "z"}) == ":3\r\n");
  b.exact({"z", "z2"});

  CHECK(b.run({"expire", "z", "100"}) == ":1\r\n");  // rebuilt with room for the TTL
  CHECK(b.enc("z") == Enc::kInline);
  CHECK(b.run({"zrange", "z", "0", "-1", "withscores"}) == all);
  CHECK(b.run({"zadd", "z", "5", "e"}) == ":1\r\n");  // a write keeps the TTL
  CHECK(b.run({"ttl", "z"}) == ":100\r\n");
  CHECK(b.run({"zrem", "z", "e"}) == ":1\r\n");
  b.exact({"z", "z2"});

  CHECK(b.run({"rename", "z", "renamed"}) == "+OK\r\n");
  CHECK(b.enc("renamed") == Enc::kInline);
  CHECK(b.run({"zrange", "renamed", "0", "-1", "withscores"}) == all);
  CHECK(b.run({"ttl", "renamed"}) == ":100\r\n");
  CHECK(b.run({"persist", "renamed"}) == ":1\r\n");
  CHECK(b.run({"ttl", "renamed"}) == ":-1\r\n");
  CHECK(b.enc("renamed") == Enc::kInline);
  b.exact({"renamed", "z2"});

  const std::size_t moved = b.usage("renamed");
  const std::size_t db1 = b.db(1).used_memory();
  CHECK(b.run({"move", "renamed", "1"}) == ":1\r\n");
  CHECK(b.db(1).used_memory() - db1 >= moved);
  CHECK(b.enc("renamed", 1) == Enc::kInline);
  CHECK(b.run({"swapdb", "0", "1"}) == "+OK\r\n");
  CHECK(b.run({"zrange", "renamed", "0", "-1", "withscores"}) == all);
  CHECK(b.run({"zadd", "renamed", "9", "z"}) == ":1\r\n");  // written in the Db it moved to
  CHECK(b.run({"zscore", "renamed", "z"}) == "$1\r\n9\r\n");
  CHECK(b.run({"flushall", "sync"}) == "+OK\r\n");
}

TEST_CASE("inline: a no-op write changes nothing; set_object folds a small value") {
  Bench b;
  CHECK(b.run({"sadd", "s", "a", "b"}) == ":2\r\n");
  CHECK(b.run({"hset", "h", "f", "v"}) == ":1\r\n");
  CHECK(b.run({"zadd", "z", "1", "a"}) == ":1\r\n");
  const store::Record* rs = b.db().peek("s").record();
  const std::size_t used = b.used();
  const std::uint64_t m = b.shard.mutations();
  CHECK(b.run({"sadd", "s", "a"}) == ":0\r\n");
  CHECK(b.run({"srem", "s", "zz"}) == ":0\r\n");
  CHECK(b.run({"smove", "s", "t", "zz"}) == ":0\r\n");
  CHECK(b.run({"zadd", "z", "nx", "5", "a"}) == ":0\r\n");
  CHECK(b.run({"zrem", "z", "zz"}) == ":0\r\n");
  CHECK(b.run({"hdel", "h", "zz"}) == ":0\r\n");
  CHECK(b.run({"hsetnx", "h", "f", "w"}) == ":0\r\n");
  CHECK(b.shard.mutations() == m);
  CHECK(b.used() == used);                 // the copies made for trying were freed
  CHECK(b.db().peek("s").record() == rs);  // and the record was not rebuilt

  // A write handle reads its own writes, before they are folded back.
  {
    store::WriteHandle h = b.db().open("s", types::Type::kSet, kNow);
    const auto* before = static_cast<const types::SetObject*>(h.peek());
    CHECK(types::is_folded(before));
    auto* s = h.mut_as<types::SetObject>();
    CHECK_FALSE(types::is_folded(s));
    CHECK(types::set::add(h.heap(), s, "c", types::SetLimits{}));
    h.changed();
    CHECK(types::set::size(static_cast<const types::SetObject*>(h.peek())) == 3);
  }
  CHECK(b.run({"scard", "s"}) == ":3\r\n");
  CHECK(b.enc("s") == Enc::kInline);

  // Db::set_object (snapshot load, the STORE commands) folds what fits.
  CHECK(b.run({"sadd", "src", "1", "2", "3"}) == ":3\r\n");
  CHECK(b.run({"sunionstore", "dst", "src", "s"}) == ":6\r\n");
  CHECK(b.enc("dst") == Enc::kInline);
  CHECK(b.run({"zadd", "z", "2", "b"}) == ":1\r\n");
  CHECK(b.run({"zunionstore", "zd", "1", "z"}) == ":2\r\n");
  CHECK(b.enc("zd") == Enc::kInline);
  CHECK(b.run({"zrangestore", "zr", "z", "0", "-1"}) == ":2\r\n");
  CHECK(b.enc("zr") == Enc::kInline);
  b.exact({"s", "h", "z", "src", "dst", "zd", "zr"});
}

TEST_CASE("inline: small lists fold too; reads see a one-node view, writes a heap copy") {
  Bench b;
  std::vector<std::string> members;
  std::vector<std::string_view> push = {"rpush", "l:12345"};
  for (int j = 0; j < 20; ++j) members.push_back("member:" + std::to_string(j));
  for (const std::string& m : members) push.push_back(m);
  CHECK(b.run(push) == ":20\r\n");
  CHECK(b.enc("l:12345") == Enc::kInline);
  CHECK(b.usage("l:12345") == 256);  // 2 + 1 + 7 + 3 + 217-byte listpack = 230 -> 256 B
  CHECK(b.run({"object", "encoding", "l:12345"}) == "$9\r\nquicklist\r\n");
  CHECK(b.run({"llen", "l:12345"}) == ":20\r\n");
  CHECK(b.run({"lindex", "l:12345", "-1"}) == "$9\r\nmember:19\r\n");
  CHECK(b.run({"lrange", "l:12345", "1", "2"}) == "*2\r\n$8\r\nmember:1\r\n$8\r\nmember:2\r\n");
  CHECK(b.run({"lpos", "l:12345", "member:3"}) == ":3\r\n");
  CHECK(b.run({"sort", "l:12345", "alpha", "limit", "0", "2"}) ==
        "*2\r\n$8\r\nmember:0\r\n$8\r\nmember:1\r\n");
  b.exact({"l:12345"});

  // Past the limit it goes behind the pointer; popping brings it back in.
  CHECK(b.run({"rpush", "l:12345", str(60, 'x')}) == ":21\r\n");
  CHECK(b.enc("l:12345") == Enc::kObject);
  CHECK(b.run({"rpop", "l:12345"}) == "$60\r\n" + str(60, 'x') + "\r\n");
  CHECK(b.enc("l:12345") == Enc::kInline);
  CHECK(b.run({"lset", "l:12345", "0", "first"}) == "+OK\r\n");
  CHECK(b.run({"linsert", "l:12345", "before", "nope", "x"}) == ":-1\r\n");
  CHECK(b.run({"lmove", "l:12345", "l:12345", "left", "right"}) == "$5\r\nfirst\r\n");
  CHECK(b.run({"lindex", "l:12345", "-1"}) == "$5\r\nfirst\r\n");
  CHECK(b.run({"copy", "l:12345", "c"}) == ":1\r\n");
  CHECK(b.enc("c") == Enc::kInline);
  CHECK(b.run({"lrange", "c", "0", "0"}) == "*1\r\n$8\r\nmember:1\r\n");
  b.exact({"l:12345", "c"});
  CHECK(b.run({"ltrim", "c", "5", "1"}) == "+OK\r\n");  // emptied: the key goes
  CHECK(b.run({"del", "l:12345"}) == ":1\r\n");
  CHECK(b.used() == b.base);
}

TEST_CASE("inline: a handle opened with the record's own key bytes outlives the rebuild") {
  Bench b;
  CHECK(b.run({"sadd", "s", "1"}) == ":1\r\n");
  const std::uint64_t watcher = worker::WatchRegistry::watcher(0, 7);
  b.shard.watch(0, "s", watcher);
  {
    const std::string_view k = b.db().peek("s").key();  // bytes inside the record
    store::WriteHandle h = b.db().open(k, types::Type::kSet, kNow);
    auto* s = h.mut_as<types::SetObject>();
    for (int i = 2; i < 40; ++i)
      CHECK(types::set::add(h.heap(), s, std::to_string(i), types::SetLimits{}));
    h.changed();  // folded into a record of a larger bin: the old one (and `k`) is freed
  }
  CHECK(b.shard.watch_dirty(watcher));  // release() named the key after the rebuild
  b.shard.unwatch(watcher);
  CHECK(b.enc("s") == Enc::kInline);
  CHECK(b.run({"scard", "s"}) == ":39\r\n");
  b.exact({"s"});
}
