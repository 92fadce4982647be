// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE], as Redis 7.0's debug.c: the worker's snapshot is
// written to its file, the worker emptied (keys and function libraries), and the file read
// back, so the command proves the snapshot format's round trip through the disk.
//
// The file is the worker's own snapshot (DIR/worker-<i>/snapshot) through Persistence::save(),
// which also drops the WAL it covers. Under --durability memory there is no snapshot that a
// restart reads, so the round trip goes through DIR/worker-<i>/snapshot.debug-reload instead,
// a file recovery never looks at (a later start with a WAL must not load a stale copy).
//
// The loaded hashes, sets and zsets take the encodings the current thresholds choose, as in
// Redis (a CONFIG SET hash-max-listpack-entries then DEBUG RELOAD converts).
//
// Where Redis differs on purpose: NOFLUSH without MERGE and a key both in memory and in the
// file makes Redis panic ("Duplicated key found in RDB file"); here the file's key wins, as
// with MERGE. After NOSAVE or NOFLUSH the keyspace is no longer what snapshot + WAL describe,
// so a durable worker saves its snapshot again (a restart then finds what DEBUG left).
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "worker/commands/hash/hash_family.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/executor.hpp"
#include "worker/persist/rdb_value.hpp"
#include "worker/persist/service.hpp"
#include "worker/persist/snapshot.hpp"
#include "worker/script/functions.hpp"
#include "worker/script/lua_engine.hpp"
#include "worker/types/hash/hash.hpp"

namespace ruvio::worker {
namespace {

constexpr const char* kMemoryFile = "snapshot.debug-reload";
constexpr std::string_view kLoadFailed = "ERR Error trying to load the RDB dump";

std::vector<store::Db*> all_dbs(Shard& shard) {
  std::vector<store::Db*> v;
  for (int i = 0; i < shard.databases(); ++i) v.push_back(&shard.db(i));
  return v;
}

std::vector<std::string_view> library_codes(Shard& shard) {
  std::vector<std::string_view> codes;
  const script::Engine* e =
      shard.executor != nullptr ? script::started_engine(*shard.executor) : nullptr;
  const script::Functions* f = e != nullptr ? e->functions_if_started() : nullptr;
  if (f == nullptr) return codes;
  for (const auto& [name, lib] : f->libraries()) codes.emplace_back(lib->code);
  return codes;
}

// Redis's loader builds a hash, set or zset in the encoding the current thresholds choose
// (rdbLoadObject converts both ways), where the snapshot keeps the one it was saved in: such
// a value goes through the RDB codec, which rebuilds it under the thresholds. A hash with
// field TTLs stays as loaded (7.0's RDB form has no field TTLs; 7.0 has none to convert).
void apply_thresholds(store::Db& db, std::string_view key, const persist::rdb::BuildLimits& lim,
                      std::int64_t now_ms, std::string& scratch) {
  const store::Entry e = db.peek(key);
  if (!e) return;
  if (e.type() == types::Type::kHash &&
      types::hash::next_field_expire(static_cast<const types::hash::Hash*>(e.object())) >= 0) {
    return;
  }
  scratch.clear();
  if (!persist::rdb::encode_value(e, now_ms, scratch)) return;
  persist::rdb::Loaded v;
  if (!persist::rdb::decode_value(db.heap(), scratch, lim, v) || v.is_string) return;
  store::SetOptions opt;
  opt.expire_at = e.expire_at();
  db.erase(key);
  db.set_object(key, v.obj, opt);
}

// Redis's loader drops the keys already expired (rdbLoadRio on a master) and applies the
// encoding thresholds; the hashes with field TTLs join the field expiry index, as after a
// start.
void after_load(Shard& shard, std::int64_t now_ms) {
  const persist::rdb::BuildLimits lim = persist::rdb::build_limits(shard.config());
  std::vector<std::string> expired;
  std::vector<std::string> collections;
  std::string scratch;
  for (int i = 0; i < shard.databases(); ++i) {
    store::Db& db = shard.db(i);
    expired.clear();
    collections.clear();
    std::uint64_t cursor = 0;
    do {
      cursor = db.scan(cursor, 256, [&](store::Entry e) {
        const types::Type t = e.type();
        if (e.expire_at() >= 0 && e.expire_at() <= now_ms) {
          expired.emplace_back(e.key());
        } else if (t == types::Type::kHash || t == types::Type::kSet || t == types::Type::kZSet) {
          collections.emplace_back(e.key());
        }
      });
    } while (cursor != 0);
    for (const std::string& k : expired) db.erase(k);
    for (const std::string& k : collections) {
      apply_thresholds(db, k, lim, now_ms, scratch);
      if (db.peek(k).type() == types::Type::kHash) note_hash_field_ttls(shard, i, k);
    }
  }
}

}  // namespace

void debug_reload(Context& ctx) {
  bool merge = false;
  bool flush = true;
  bool save = true;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.args[j];
    if (iequals(opt, "merge")) {
      merge = true;
    } else if (iequals(opt, "noflush")) {
      flush = false;
    } else if (iequals(opt, "nosave")) {
      save = false;
    } else {
      ctx.out.error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
      return;
    }
  }
  Shard& shard = ctx.shard;
  persist::Service* p = shard.persistence;
  std::string dir;
  const char* file = persist::kSnapshotFile;
  if (p != nullptr) {
    dir = p->snapshot_dir();
  } else {
    dir = shard.config().dir + "/worker-" + std::to_string(shard.worker_id());
    file = kMemoryFile;
  }
  const std::vector<store::Db*> dbs = all_dbs(shard);
  if (save) {
    std::optional<std::string> err;
    if (p != nullptr) {
      err = p->save();
    } else {
      ::mkdir(shard.config().dir.c_str(), 0755);
      ::mkdir(dir.c_str(), 0755);
      persist::SnapshotInfo info;
      err = persist::write_snapshot(dbs, dir, 0, ctx.now_ms(), info, library_codes(shard), file);
    }
    if (err) {
      ctx.out.error("ERR");  // Redis's shared.err when rdbSave fails
      return;
    }
  }
  if (flush) {
    for (store::Db* db : dbs) db->clear();
    script::Engine* e =
        shard.executor != nullptr ? script::started_engine(*shard.executor) : nullptr;
    if (e != nullptr && e->functions_if_started() != nullptr) e->flush_functions();
    shard.release_memory();
  }
  persist::SnapshotInfo info;
  std::string error;
  std::vector<std::string> libraries;
  const persist::LoadResult r = persist::load_snapshot(dbs, dir, info, error, &libraries, file);
  if (r != persist::LoadResult::kLoaded) {
    spdlog::warn("DEBUG RELOAD: {}",
                 r == persist::LoadResult::kMissing ? "no snapshot file" : error);
    // Memory holds what the failed load left (as Redis's does); the disk must say the same,
    // or a restart would bring back what DEBUG dropped.
    if (p != nullptr) (void)p->save();
    ctx.out.error(kLoadFailed);
    return;
  }
  // Redis's loader refuses a library that exists unless MERGE (RDBFLAGS_ALLOW_DUP) is given.
  bool ok = true;
  if (!libraries.empty()) {
    script::Functions& f = script::engine(*shard.executor).functions();
    std::string result;
    for (const std::string& code : libraries) ok = f.load(code, merge, false, result) && ok;
  }
  after_load(shard, ctx.now_ms());
  if (p != nullptr && (!save || !flush)) (void)p->save();
  if (!ok) {
    ctx.out.error(kLoadFailed);
    return;
  }
  spdlog::warn("DB reloaded by DEBUG RELOAD");
  ctx.out.ok();
}

}  // namespace ruvio::worker
