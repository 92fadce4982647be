// Value objects: a toy type registered through types::ValueOps, taken down every path the
// keyspace offers a value — the write handle, TYPE, OBJECT ENCODING, MEMORY USAGE, WRONGTYPE,
// COPY, RENAME, MOVE, SWAPDB, DEL/UNLINK/FLUSH* with lazy free, snapshots and WAL replay —
// with used_memory checked exact at each step.
#include <doctest/doctest.h>
#include <mimalloc.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "worker/engine/command_table.hpp"
#include "worker/engine/context.hpp"
#include "worker/persist/snapshot.hpp"
#include "worker/persist/wal_reader.hpp"
#include "worker/persist/wal_writer.hpp"
#include "worker/types/value.hpp"

using namespace ruvio;
using store::Db;
using store::Heap;
using store::Open;
using types::Object;

namespace {

constexpr std::int64_t kNow = 1'700'000'000'000;

// The toy: a list of strings, one heap block each (so its free effort grows with it).
//   Toy    [type id][enc][u32 count][Block** blocks]   enc 0 "toy-small" (<= 4), 1 "toy-big"
//   Block  [u32 len][bytes]
struct Toy : Object {
  std::uint32_t count;
  char** blocks;
};

constexpr types::TypeId kToyId = types::kTypeFirstTest;

std::uint8_t toy_enc(std::uint32_t n) {
  return n <= 4 ? 0 : 1;
}

Toy* toy_make(Heap& heap, const std::vector<std::string>& items) {
  auto* t = static_cast<Toy*>(heap.alloc(sizeof(Toy)));
  t->type_id = kToyId;
  t->enc = toy_enc(static_cast<std::uint32_t>(items.size()));
  t->count = static_cast<std::uint32_t>(items.size());
  t->blocks = static_cast<char**>(heap.alloc(sizeof(char*) * (items.empty() ? 1 : items.size())));
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto len = static_cast<std::uint32_t>(items[i].size());
    t->blocks[i] = static_cast<char*>(heap.alloc(4 + len));
    std::memcpy(t->blocks[i], &len, 4);
    std::memcpy(t->blocks[i] + 4, items[i].data(), len);
  }
  return t;
}

std::vector<std::string> toy_items(const Object* o) {
  const auto* t = static_cast<const Toy*>(o);
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < t->count; ++i) {
    std::uint32_t len;
    std::memcpy(&len, t->blocks[i], 4);
    out.emplace_back(t->blocks[i] + 4, len);
  }
  return out;
}

// Appends to the toy through the write handle: the realloc is accounted by the heap.
void toy_push(store::WriteHandle& h, const std::string& item) {
  Heap& heap = h.heap();
  std::vector<std::string> items = toy_items(h.peek());
  items.push_back(item);
  Toy* old = h.as<Toy>();
  Toy* fresh = toy_make(heap, items);
  h.set(fresh);
  for (std::uint32_t i = 0; i < old->count; ++i) heap.release(old->blocks[i]);
  heap.release(old->blocks);
  heap.release(old);
}

const types::ValueOps kToyOps = {
    "toytype",
    types::Type::kModule,
    [](Heap& heap, Object* o) {
      auto* t = static_cast<Toy*>(o);
      for (std::uint32_t i = 0; i < t->count; ++i) heap.release(t->blocks[i]);
      heap.release(t->blocks);
      heap.release(t);
    },
    [](Heap& heap, const Object* o) -> Object* { return toy_make(heap, toy_items(o)); },
    [](const Object* o) {
      const auto* t = static_cast<const Toy*>(o);
      std::size_t n = mi_usable_size(t) + mi_usable_size(t->blocks);
      for (std::uint32_t i = 0; i < t->count; ++i) n += mi_usable_size(t->blocks[i]);
      return n;
    },
    [](const Object* o) -> std::string_view { return o->enc == 0 ? "toy-small" : "toy-big"; },
    [](const Object* o) -> std::size_t { return static_cast<const Toy*>(o)->count + 2; },
    [](const Object* o, std::string& out) {
      for (const std::string& s : toy_items(o)) {
        const auto len = static_cast<std::uint32_t>(s.size());
        out.append(reinterpret_cast<const char*>(&len), 4);
        out.append(s);
      }
    },
    [](Heap& heap, std::uint8_t enc, std::string_view in) -> Object* {
      std::vector<std::string> items;
      while (!in.empty()) {
        std::uint32_t len;
        if (in.size() < 4) return nullptr;
        std::memcpy(&len, in.data(), 4);
        if (in.size() - 4 < len) return nullptr;
        items.emplace_back(in.substr(4, len));
        in.remove_prefix(4 + len);
      }
      if (enc != toy_enc(static_cast<std::uint32_t>(items.size()))) return nullptr;
      return toy_make(heap, items);
    },
    // release_some: frees blocks from the end, then the toy itself.
    [](Heap& heap, Object* o, std::size_t budget, bool* done) -> std::size_t {
      auto* t = static_cast<Toy*>(o);
      std::size_t spent = 0;
      while (t->count > 0 && spent < budget) {
        heap.release(t->blocks[--t->count]);
        ++spent;
      }
      *done = t->count == 0;
      if (*done) {
        heap.release(t->blocks);
        heap.release(t);
        spent += 2;
      }
      return spent;
    },
};

struct Registered {
  Registered() { types::register_type(kToyId, &kToyOps); }
  ~Registered() { types::register_type(kToyId, nullptr); }
};

std::vector<std::string> parts(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back("item-" + std::to_string(i));
  return v;
}

// A shard and a client to run real command handlers against, as the server does.
struct Bench {
  Config config;
  worker::Shard shard{config, 0};
  worker::ClientInfo client;
  std::string buf;
  proto::ReplyWriter out{buf};

  Bench() { shard.set_now_ms(kNow); }
  std::string run(std::vector<std::string_view> args) {
    const worker::CommandDef* def = worker::command_table().find(args[0]);
    REQUIRE(def != nullptr);
    buf.clear();
    worker::Context ctx{args, out, client, shard, def};
    def->handler(ctx);
    return buf;
  }
  Db& db(int i = 0) { return shard.db(i); }
  void put(std::string_view key, int n, int db_index = 0) {
    store::WriteHandle h = db(db_index).open(key, types::Type::kModule, kNow);
    REQUIRE(h.status() == Open::kMissing);
    h.set(toy_make(h.heap(), parts(n)));
  }
  std::size_t used() const { return shard.used_memory(); }
};

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/ruvio-types-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("value types: the write handle creates, finds, counts, invalidates WATCH") {
  Registered reg;
  Bench b;
  const std::uint64_t watcher = worker::WatchRegistry::watcher(0, 7);
  b.shard.watch(0, "a", watcher);
  b.db().set_string("anchor", "1", {});  // the table exists: from here only records count
  const std::uint64_t m0 = b.shard.mutations();
  const std::size_t base = b.used();
  b.put("a", 3);
  CHECK(b.shard.mutations() == m0 + 1);  // released once: one mutation for the WAL
  CHECK(b.shard.watch_dirty(watcher));
  b.shard.unwatch(watcher);
  CHECK(b.used() - base == b.db().peek("a").memory_usage());

  {
    store::WriteHandle h = b.db().open("a", types::Type::kModule, kNow);
    REQUIRE(h.status() == Open::kFound);
    CHECK(toy_items(h.peek()) == parts(3));
    // Only looked at: releasing it is not a mutation.
  }
  CHECK(b.shard.mutations() == m0 + 1);
  {
    store::WriteHandle h = b.db().open("a", types::Type::kModule, kNow);
    toy_push(h, "item-3");
    toy_push(h, "item-4");  // past 4 items: the type switches encoding
  }
  CHECK(b.shard.mutations() == m0 + 2);
  CHECK(toy_items(b.db().peek("a").object()) == parts(5));
  CHECK(b.used() - base == b.db().peek("a").memory_usage());  // exact after reallocations

  // WRONGTYPE is decided by open(), both ways.
  b.db().set_string("s", "x", {});
  CHECK(b.db().open("s", types::Type::kModule, kNow).wrong_type());
  CHECK(b.db().open("a", types::Type::kString, kNow).wrong_type());
  CHECK(b.run({"get", "a"}) ==
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  CHECK(b.run({"append", "a", "x"}) ==
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");

  // remove(): an emptied value deletes its key.
  {
    store::WriteHandle h = b.db().open("a", types::Type::kModule, kNow);
    h.remove();
  }
  CHECK_FALSE(b.db().peek("a"));
  b.run({"del", "s"});
  CHECK(b.used() == base);
}

TEST_CASE("value types: TYPE, OBJECT ENCODING, MEMORY USAGE, COPY, RENAME, MOVE, SWAPDB") {
  Registered reg;
  Bench b;
  const std::size_t base = b.used();
  b.put("a", 2);
  CHECK(b.run({"type", "a"}) == "+toytype\r\n");
  CHECK(b.run({"object", "encoding", "a"}) == "$9\r\ntoy-small\r\n");
  const std::size_t usage = b.db().peek("a").memory_usage();
  CHECK(b.run({"memory", "usage", "a"}) == ":" + std::to_string(usage) + "\r\n");
  CHECK(b.run({"scan", "0", "type", "toytype"}) == "*2\r\n$1\r\n0\r\n*1\r\n$1\r\na\r\n");

  // COPY: a deep copy through the ops, accounted exactly.
  std::size_t before = b.used();
  CHECK(b.run({"copy", "a", "b"}) == ":1\r\n");
  CHECK(b.db().peek("b").object() != b.db().peek("a").object());
  CHECK(toy_items(b.db().peek("b").object()) == parts(2));
  CHECK(b.used() - before == b.db().peek("b").memory_usage());
  {
    store::WriteHandle h = b.db().open("b", types::Type::kModule, kNow);
    toy_push(h, "only-in-b");
  }
  CHECK(toy_items(b.db().peek("a").object()) == parts(2));  // independent

  // RENAME keeps the object (no copy); COPY ... REPLACE over a toy frees the old one.
  const Object* obj = b.db().peek("b").object();
  CHECK(b.run({"rename", "b", "c"}) == "+OK\r\n");
  CHECK(b.db().peek("c").object() == obj);
  CHECK(b.run({"copy", "a", "c", "replace"}) == ":1\r\n");
  CHECK(toy_items(b.db().peek("c").object()) == parts(2));

  // MOVE hands the object over with its bytes of accounting.
  const std::size_t moved = b.db().peek("c").memory_usage();
  const std::size_t db0 = b.db(0).used_memory();
  const std::size_t db1 = b.db(1).used_memory();
  obj = b.db().peek("c").object();
  CHECK(b.run({"move", "c", "1"}) == ":1\r\n");
  CHECK(b.db(1).peek("c").object() == obj);
  CHECK(db0 - b.db(0).used_memory() >= moved);  // the table may also have shrunk
  CHECK(b.db(1).used_memory() - db1 >= moved);  // the new table's arrays come on top
  CHECK(b.run({"type", "c"}) == "+none\r\n");

  CHECK(b.run({"swapdb", "0", "1"}) == "+OK\r\n");
  CHECK(b.run({"object", "encoding", "c"}) == "$9\r\ntoy-small\r\n");
  CHECK(b.run({"type", "a"}) == "+none\r\n");

  CHECK(b.run({"flushall", "sync"}) == "+OK\r\n");
  CHECK(b.used() == base);
}

TEST_CASE("value types: lazy free of large values and FLUSHALL ASYNC keep used_memory exact") {
  Registered reg;
  Bench b;
  const std::size_t base = b.used();
  b.put("small", 3);  // effort 5: freed at once even by UNLINK
  b.put("big", 100);  // effort 102 > 64: queued
  b.put("big2", 100);
  const std::size_t big = b.db().peek("big").memory_usage();
  const std::size_t with_all = b.used();

  CHECK(b.run({"unlink", "small"}) == ":1\r\n");
  CHECK(b.db().lazyfree_pending() == 0);
  const std::size_t after_small = b.used();
  CHECK(after_small < with_all);

  CHECK(b.run({"del", "big"}) == ":1\r\n");  // lazyfree-lazy-user-del is no: at once
  CHECK(b.db().lazyfree_pending() == 0);
  CHECK(after_small - b.used() >= big);

  b.shard.config().lazyfree_lazy_user_del = true;
  const std::size_t before = b.used();
  CHECK(b.run({"del", "big2"}) == ":1\r\n");
  CHECK(b.run({"exists", "big2"}) == ":0\r\n");
  CHECK(b.shard.lazyfree_pending() == 1);
  CHECK(b.used() >= before - 64);  // pending bytes still count (only the table may shrink)
  const std::size_t pending_used = b.used();
  CHECK_FALSE(b.db().lazyfree_step(1000));
  CHECK(b.shard.lazyfree_pending() == 0);
  CHECK(pending_used - b.used() == big);

  // FLUSHALL ASYNC: the keys go at once, the memory in steps.
  for (int i = 0; i < 300; ++i) b.put("k" + std::to_string(i), i % 7);
  b.db().set_string("str", "v", {});
  CHECK(b.run({"flushall", "async"}) == "+OK\r\n");
  CHECK(b.run({"dbsize"}) == ":0\r\n");
  CHECK(b.shard.lazyfree_pending() == 301);
  CHECK(b.used() > base);
  int steps = 0;
  while (b.db().lazyfree_step(16)) ++steps;
  CHECK(steps > 5);  // bounded steps, not one sweep
  CHECK(b.shard.lazyfree_pending() == 0);
  CHECK(b.used() == base);
  CHECK(b.db().lazyfreed_total() == 302);
}

TEST_CASE("value types: one huge value is lazily freed in bounded steps (release_some)") {
  Registered reg;
  Bench b;
  b.shard.config().lazyfree_lazy_user_del = true;
  const std::size_t base = b.used();
  b.put("huge", 5000);
  b.put("huge2", 3000);
  CHECK(b.run({"unlink", "huge"}) == ":1\r\n");
  CHECK(b.run({"exists", "huge"}) == ":0\r\n");
  CHECK(b.shard.lazyfree_pending() == 1);
  std::size_t last = b.used();
  int steps = 0;
  while (b.db().lazyfree_step(100)) {
    ++steps;
    CHECK(b.used() < last);  // every step gives memory back
    last = b.used();
    if (steps > 1000) break;
  }
  CHECK(steps >= 49);  // 5002 units at 100 a step
  CHECK(b.shard.lazyfree_pending() == 0);
  CHECK(b.db().lazyfreed_total() == 1);
  // FLUSHALL ASYNC: the huge value met in the flushed table is released in steps as well.
  CHECK(b.run({"flushall", "async"}) == "+OK\r\n");
  CHECK(b.shard.lazyfree_pending() == 1);
  steps = 0;
  while (b.db().lazyfree_step(100) && steps < 1000) ++steps;
  CHECK(steps >= 29);
  CHECK(b.shard.lazyfree_pending() == 0);
  CHECK(b.used() == base);
}

TEST_CASE("value types: snapshot save/load and WAL replay through the ops table") {
  Registered reg;
  TempDir dir;
  Bench live;
  live.put("t1", 2);
  live.put("t2", 9);
  live.db().set_string("s", "plain", {});
  live.db().set_expire("t2", kNow + 5000);
  live.put("other-db", 1, 3);
  std::vector<Db*> dbs;
  for (int i = 0; i < live.shard.databases(); ++i) dbs.push_back(&live.db(i));
  persist::SnapshotInfo info;
  REQUIRE_FALSE(persist::write_snapshot(dbs, dir.path, 1, kNow, info));
  CHECK(info.keys == 4);

  // After the snapshot, toy keys change by commands that the WAL logs.
  persist::WalWriter w(dir.path, 1 << 16);
  REQUIRE(w.start(1));
  const std::vector<std::vector<std::string_view>> logged = {
      {"COPY", "t1", "t3"}, {"RENAME", "t2", "t4"}, {"DEL", "t1"}};
  for (const auto& args : logged) {
    REQUIRE(w.reserve(persist::command_record_size(args)));
    persist::append_command(w.buffer(), kNow, 0, args);
    live.run(args);
  }
  REQUIRE(w.flush());
  REQUIRE(w.sync());

  Bench back;
  std::vector<Db*> fresh;
  for (int i = 0; i < back.shard.databases(); ++i) fresh.push_back(&back.db(i));
  persist::SnapshotInfo loaded;
  std::string error;
  REQUIRE(persist::load_snapshot(fresh, dir.path, loaded, error) == persist::LoadResult::kLoaded);
  CHECK(toy_items(back.db().peek("t2").object()) == parts(9));
  CHECK(back.db().peek("t2").encoding() == "toy-big");
  CHECK(back.db().peek("t2").expire_at() == kNow + 5000);
  CHECK(back.db(3).peek("other-db").type_name() == "toytype");
  persist::ReplayReport rep;
  auto err = persist::replay_wal(
      dir.path, loaded.wal_seq,
      [&](const persist::Command& c) {
        back.client.db = c.db;
        std::vector<std::string_view> args = c.args;
        const worker::CommandDef* def = worker::command_table().find(args[0]);
        REQUIRE(def != nullptr);
        back.buf.clear();
        worker::Context ctx{args, back.out, back.client, back.shard, def};
        def->handler(ctx);
      },
      rep);
  REQUIRE_FALSE(err);
  CHECK(rep.records == 3);
  for (Bench* s : {&live, &back}) {
    CHECK_FALSE(s->db().peek("t1"));
    CHECK(toy_items(s->db().peek("t3").object()) == parts(2));
    CHECK(toy_items(s->db().peek("t4").object()) == parts(9));
    CHECK(s->db().peek("t4").expire_at() == kNow + 5000);
    CHECK(s->db().peek("s").str() == "plain");
  }
  // The same keys cost the same bytes (the tables' overflow blocks may land in other bins).
  for (std::string_view k : {"t3", "t4", "s"})
    CHECK(back.db().peek(k).memory_usage() == live.db().peek(k).memory_usage());

  // A snapshot naming a type this build lacks is refused, not half loaded.
  types::register_type(kToyId, nullptr);
  Bench none;
  std::vector<Db*> none_dbs;
  for (int i = 0; i < none.shard.databases(); ++i) none_dbs.push_back(&none.db(i));
  CHECK(persist::load_snapshot(none_dbs, dir.path, loaded, error) == persist::LoadResult::kCorrupt);
  CHECK(error.find("unknown to this build") != std::string::npos);
  types::register_type(kToyId, &kToyOps);
}
