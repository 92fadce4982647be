// The generic-key family: DEL, EXISTS, TYPE, RENAME, COPY, MOVE, KEYS, SCAN, RANDOMKEY,
// TOUCH, OBJECT, MEMORY, and the declaration table that also lists the expiry commands
// (expire_commands.cpp). Replies and errors are Redis 7.0's.
#include <mimalloc.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "shared/glob.hpp"
#include "worker/commands/generic/key_decls.hpp"
#include "worker/commands/generic/key_family.hpp"
#include "worker/commands/hash/hash_family.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/executor.hpp"
#include "worker/engine/memory_figures.hpp"
#include "worker/engine/scan_options.hpp"
#include "worker/engine/subcommand.hpp"
#include "worker/script/functions.hpp"
#include "worker/script/lua_engine.hpp"

namespace ruvio::worker {

namespace {

// Redis's getIntFromObjectOrReply + selectDb check, as used by MOVE and COPY ... DB.
bool parse_db_index(Context& ctx, std::string_view arg, int& out) {
  const auto v = parse_int64(arg);
  if (!v || *v < INT_MIN || *v > INT_MAX) {
    ctx.out.error(v ? err::kIntRange : err::kNotInt);
    return false;
  }
  if (*v < 0 || *v >= ctx.shard.databases()) {
    ctx.out.error(err::kDbIndex);
    return false;
  }
  out = static_cast<int>(*v);
  return true;
}

// `lazy`: large values go to the lazy free queue (UNLINK always, DEL per lazyfree-lazy-user-del).
void delete_keys(Context& ctx, bool lazy) {
  store::Db& db = ctx.db();
  std::int64_t removed = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    // find() first so that a key that is already expired is not counted as deleted.
    if (db.find(ctx.args[i], ctx.now_ms()) && db.erase(ctx.args[i], lazy)) {
      ++removed;
      db.notify(kNotifyGeneric, "del", ctx.args[i]);
    }
  }
  ctx.out.integer(removed);
}

void cmd_del(Context& ctx) {
  delete_keys(ctx, ctx.shard.config().lazyfree_lazy_user_del);
}
void cmd_unlink(Context& ctx) {
  delete_keys(ctx, true);
}

void cmd_exists(Context& ctx) {
  std::int64_t n = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    if (lookup_read_notouch(ctx, ctx.args[i])) ++n;
  }
  ctx.out.integer(n);
}

void cmd_type(Context& ctx) {
  const store::Entry e = lookup_read_notouch(ctx, ctx.args[1]);
  ctx.out.simple(e ? e.type_name() : "none");
}

void cmd_touch(Context& ctx) {
  std::int64_t n = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    if (ctx.db().find(ctx.args[i], ctx.now_ms())) ++n;
  }
  ctx.out.integer(n);
}

void rename_generic(Context& ctx, bool nx) {
  store::Db& db = ctx.db();
  const std::string_view from = ctx.args[1];
  const std::string_view to = ctx.args[2];
  if (!db.find(from, ctx.now_ms())) {
    ctx.out.error(err::kNoSuchKey);
    return;
  }
  if (from == to) {
    if (nx) {
      ctx.out.integer(0);
    } else {
      ctx.out.ok();
    }
    return;
  }
  if (nx && db.find(to, ctx.now_ms())) {
    ctx.out.integer(0);
    return;
  }
  db.rename(from, to);
  db.notify(kNotifyGeneric, "rename_from", from);
  db.notify(kNotifyGeneric, "rename_to", to);
  note_hash_field_ttls(ctx.shard, ctx.client.db, to);
  if (nx) {
    ctx.out.integer(1);
  } else {
    ctx.out.ok();
  }
}

void cmd_rename(Context& ctx) {
  rename_generic(ctx, false);
}
void cmd_renamenx(Context& ctx) {
  rename_generic(ctx, true);
}

void cmd_copy(Context& ctx) {
  int target = ctx.client.db;
  bool replace = false;
  for (std::size_t i = 3; i < ctx.argc(); ++i) {
    if (iequals(ctx.args[i], "replace")) {
      replace = true;
    } else if (iequals(ctx.args[i], "db") && i + 1 < ctx.argc()) {
      if (!parse_db_index(ctx, ctx.args[i + 1], target)) return;
      ++i;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  if (ctx.client.cluster_mode && (ctx.client.db != 0 || target != 0)) {
    ctx.out.error("ERR Copying to another database is not allowed in cluster mode");
    return;
  }
  const std::string_view src = ctx.args[1];
  const std::string_view dst = ctx.args[2];
  if (target == ctx.client.db && src == dst) {
    ctx.out.error("ERR source and destination objects are the same");
    return;
  }
  store::Db& from = ctx.db();
  store::Db& to = ctx.shard.db(target);
  if (!from.find(src, ctx.now_ms())) {
    ctx.out.integer(0);
    return;
  }
  if (to.find(dst, ctx.now_ms())) {
    if (!replace) {
      ctx.out.integer(0);
      return;
    }
    to.erase_server(dst);
  }
  // Looked up again: the erase above may have moved records of this very Db.
  from.copy_to(from.find(src, ctx.now_ms()), to, dst);
  to.notify(kNotifyGeneric, "copy_to", dst);
  note_hash_field_ttls(ctx.shard, target, dst);
  ctx.out.integer(1);
}

void cmd_move(Context& ctx) {
  if (ctx.client.cluster_mode) {
    ctx.out.error("ERR MOVE is not allowed in cluster mode");
    return;
  }
  int target = 0;
  if (!parse_db_index(ctx, ctx.args[2], target)) return;
  if (target == ctx.client.db) {
    ctx.out.error("ERR source and destination objects are the same");
    return;
  }
  const std::string_view key = ctx.args[1];
  store::Db& from = ctx.db();
  store::Db& to = ctx.shard.db(target);
  const store::Entry e = from.find(key, ctx.now_ms());
  if (!e || to.find(key, ctx.now_ms())) {
    ctx.out.integer(0);
    return;
  }
  from.move_to(key, to);
  from.notify(kNotifyGeneric, "move_from", key);
  to.notify(kNotifyGeneric, "move_to", key);
  note_hash_field_ttls(ctx.shard, target, key);
  ctx.out.integer(1);
}

void cmd_keys(Context& ctx) {
  const std::string_view pattern = ctx.args[1];
  const bool all = pattern == "*";
  const std::int64_t now = ctx.now_ms();
  // (record, key): a scan may report a key twice while the table resizes; the record
  // address identifies it, so duplicates are dropped by a pointer sort, not string compares.
  std::vector<std::pair<const void*, std::string_view>> found;
  const store::Db& db = ctx.db();
  std::uint64_t cursor = 0;
  do {
    cursor = db.scan(cursor, 1024, [&](store::Entry e) {
      if (e.expired(now)) return;
      if (!all && !glob_match(pattern, e.key())) return;
      found.emplace_back(e.record(), e.key());
    });
  } while (cursor != 0);
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  found.erase(std::unique(found.begin(), found.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              found.end());
  ctx.out.array(found.size());
  for (const auto& f : found) ctx.out.bulk(f.second);
}

void cmd_scan(Context& ctx) {
  const auto parsed = parse_scan_cursor(ctx.args[1]);
  if (!parsed) {
    ctx.out.error("ERR invalid cursor");
    return;
  }
  const std::uint64_t cursor = *parsed;
  const auto opts = parse_scan_options(ctx, 2, true);
  if (!opts) return;
  const std::int64_t count = opts->count;
  const std::string_view pattern = opts->pattern;
  const bool use_pattern = opts->use_pattern;
  const std::string_view type = opts->type;
  const bool use_type = opts->use_type;
  const std::int64_t now = ctx.now_ms();
  std::vector<std::string_view> keys;
  std::vector<std::string> stale;  // expired keys met on the way, reclaimed after the scan
  store::Db& db = ctx.db();
  const std::uint64_t next = db.scan(cursor, static_cast<std::size_t>(count), [&](store::Entry e) {
    if (use_pattern && !glob_match(pattern, e.key())) return;
    if (e.expired(now)) {
      stale.emplace_back(e.key());
      return;
    }
    if (use_type && !iequals(type, e.type_name())) return;
    keys.push_back(e.key());
  });
  char buf[24];
  const int n = std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(next));
  ctx.out.array(2);
  ctx.out.bulk(std::string_view(buf, static_cast<std::size_t>(n)));
  ctx.out.array(keys.size());
  for (std::string_view k : keys) ctx.out.bulk(k);
  // Written into the reply already, so the views may now be invalidated.
  for (const std::string& k : stale) db.find(k, now);
}

void cmd_randomkey(Context& ctx) {
  const store::Entry e = ctx.db().random_entry(ctx.now_ms());
  if (e) {
    ctx.out.bulk(e.key());
  } else {
    ctx.out.null();
  }
}

// ---- OBJECT ---------------------------------------------------------------------------

bool lfu_policy(Context& ctx) {
  return ctx.shard.config().maxmemory_policy.find("lfu") != std::string::npos;
}

bool lru_or_lfu_policy(Context& ctx) {
  const std::string& p = ctx.shard.config().maxmemory_policy;
  return p.find("lru") != std::string::npos || p.find("lfu") != std::string::npos;
}

// OBJECT looks keys up without touching them and replies a null bulk for a missing key.
store::Entry object_lookup(Context& ctx) {
  store::Db& db = ctx.db();
  const store::Entry e = db.peek(ctx.args[2]);
  if (e && e.expired(ctx.now_ms())) return db.find(ctx.args[2], ctx.now_ms());
  return e;
}

void obj_encoding(Context& ctx) {
  const store::Entry e = object_lookup(ctx);
  if (!e) return ctx.out.null();
  ctx.out.bulk(e.encoding());
}

void obj_refcount(Context& ctx) {
  const store::Entry e = object_lookup(ctx);
  if (!e) return ctx.out.null();
  // Redis shares the integers 0..9999 (OBJ_SHARED_INTEGERS) when no LRU/LFU policy needs
  // per-object access data; those report the shared refcount.
  const bool shared = e.type() == types::Type::kString && e.is_int() && e.int_value() >= 0 &&
                      e.int_value() < 10000 &&
                      (ctx.shard.config().maxmemory == 0 || !lru_or_lfu_policy(ctx));
  ctx.out.integer(shared ? INT_MAX : 1);
}

void obj_idletime(Context& ctx) {
  const store::Entry e = object_lookup(ctx);
  if (!e) return ctx.out.null();
  if (lfu_policy(ctx)) {
    ctx.out.error(
        "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
        "switching between policies at runtime LRU and LFU data will take some time to adjust.");
    return;
  }
  ctx.out.integer(ctx.db().idle_seconds(e, ctx.now_ms()));
}

void obj_freq(Context& ctx) {
  const store::Entry e = object_lookup(ctx);
  if (!e) return ctx.out.null();
  if (!lfu_policy(ctx)) {
    ctx.out.error(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
        "that when switching between policies at runtime LRU and LFU data will take some time "
        "to adjust.");
    return;
  }
  ctx.out.integer(e.lfu());
}

void obj_help(Context& ctx) {
  reply_help(ctx, "OBJECT",
             {"ENCODING <key>",
              "    Return the kind of internal representation used in order to store the value",
              "    associated with a <key>.", "FREQ <key>",
              "    Return the access frequency index of the <key>. The returned integer is",
              "    proportional to the logarithm of the recent access frequency of the key.",
              "IDLETIME <key>",
              "    Return the idle time of the <key>, that is the approximated number of",
              "    seconds elapsed since the last access to the key.", "REFCOUNT <key>",
              "    Return the number of references of the value associated with the specified",
              "    <key>."});
}

void cmd_object(Context& ctx) {
  dispatch_subcommand(ctx, *ctx.command);
}

// ---- MEMORY ---------------------------------------------------------------------------

void mem_usage(Context& ctx) {
  for (std::size_t i = 3; i < ctx.argc(); i += 2) {
    if (iequals(ctx.args[i], "samples") && i + 1 < ctx.argc()) {
      const auto v = parse_int64(ctx.args[i + 1]);
      if (!v) {
        ctx.out.error(err::kNotInt);
        return;
      }
      if (*v < 0) {
        ctx.out.error(err::kSyntax);
        return;
      }
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  const store::Entry e = object_lookup(ctx);
  if (!e) return ctx.out.null();
  ctx.out.integer(static_cast<std::int64_t>(e.memory_usage()));
}

// MEMORY STATS: Redis 7.0's fields in its order (object.c's memoryCommand), from the figures
// INFO memory reports. Ratios are floats as Redis keeps them (a bulk string of the float's
// digits in RESP2, a double in RESP3).
void mem_stats(Context& ctx) {
  Shard& shard = ctx.shard;
  const MemoryFigures m = measure_memory(shard);
  const script::Engine* lua =
      shard.executor != nullptr ? script::started_engine(*shard.executor) : nullptr;
  const script::Functions* fn = lua != nullptr ? lua->functions_if_started() : nullptr;
  const std::uint64_t lua_caches = lua != nullptr ? lua->scripts_memory() : 0;
  const std::uint64_t fn_caches = fn != nullptr ? fn->overhead_memory() : 0;
  std::size_t keys = 0, nonempty = 0;
  for (int i = 0; i < shard.databases(); ++i) {
    keys += shard.db(i).size();
    nonempty += shard.db(i).size() > 0 ? 1 : 0;
  }
  const std::uint64_t overhead = std::min(m.used, m.overhead + lua_caches + fn_caches);
  const std::uint64_t net = m.used - m.startup;
  const std::uint64_t dataset = m.used - overhead;
  auto num = [&](std::string_view name, std::uint64_t v) {
    ctx.out.bulk(name);
    ctx.out.integer(static_cast<std::int64_t>(v));
  };
  auto signed_num = [&](std::string_view name, std::int64_t v) {
    ctx.out.bulk(name);
    ctx.out.integer(v);
  };
  auto ratio = [&](std::string_view name, double v) {
    ctx.out.bulk(name);
    ctx.out.double_value(static_cast<double>(static_cast<float>(v)));
  };
  ctx.out.map(27 + nonempty);
  num("peak.allocated", m.peak);
  num("total.allocated", m.used);
  num("startup.allocated", m.startup);
  num("replication.backlog", 0);
  num("clients.slaves", 0);
  num("clients.normal", m.clients);
  num("cluster.links", 0);
  num("aof.buffer", 0);
  num("lua.caches", lua_caches);
  num("functions.caches", fn_caches);
  for (int i = 0; i < shard.databases(); ++i) {
    store::Db& db = shard.db(i);
    if (db.size() == 0) continue;
    ctx.out.bulk("db." + std::to_string(i));
    ctx.out.map(3);
    num("overhead.hashtable.main", db.main_table_bytes());
    num("overhead.hashtable.expires", db.expires_table_bytes());
    num("overhead.hashtable.slot-to-keys", 0);
  }
  num("overhead.total", overhead);
  num("keys.count", keys);
  num("keys.bytes-per-key", keys == 0 ? 0 : net / keys);
  num("dataset.bytes", dataset);
  ratio("dataset.percentage", 100.0 * memory_ratio(dataset, net));
  ratio("peak.percentage", 100.0 * memory_ratio(m.used, m.peak));
  num("allocator.allocated", m.used);
  num("allocator.active", m.active);
  num("allocator.resident", m.resident);
  ratio("allocator-fragmentation.ratio", memory_ratio(m.active, m.used));
  signed_num("allocator-fragmentation.bytes", memory_difference(m.active, m.used));
  ratio("allocator-rss.ratio", memory_ratio(m.resident, m.active));
  signed_num("allocator-rss.bytes", memory_difference(m.resident, m.active));
  ratio("rss-overhead.ratio", memory_ratio(m.rss, m.resident));
  signed_num("rss-overhead.bytes", memory_difference(m.rss, m.resident));
  ratio("fragmentation", memory_ratio(m.rss, m.used));
  signed_num("fragmentation.bytes", memory_difference(m.rss, m.used));
}

// MEMORY DOCTOR: Redis 7.0's report (object.c's getMemoryDoctorReport), its rules over the
// figures MEMORY STATS reports and its texts word for word.
void mem_doctor(Context& ctx) {
  Shard& shard = ctx.shard;
  const MemoryFigures m = measure_memory(shard);
  constexpr std::int64_t kTenMb = 10 << 20;
  const script::Engine* lua =
      shard.executor != nullptr ? script::started_engine(*shard.executor) : nullptr;
  const std::uint64_t clients = std::max<std::uint64_t>(shard.connected_clients, 1);
  const bool empty = m.used < 5u * 1024 * 1024;
  const bool big_peak = !empty && static_cast<float>(m.peak) / static_cast<float>(m.used) > 1.5f;
  auto high = [&](double ratio, std::int64_t bytes, double limit) {
    return !empty && ratio > limit && bytes > kTenMb;
  };
  const bool high_frag = high(memory_ratio(m.rss, m.used), memory_difference(m.rss, m.used), 1.4);
  const bool high_alloc_frag =
      high(memory_ratio(m.active, m.used), memory_difference(m.active, m.used), 1.1);
  const bool high_alloc_rss =
      high(memory_ratio(m.resident, m.active), memory_difference(m.resident, m.active), 1.1);
  const bool high_proc_rss =
      high(memory_ratio(m.rss, m.resident), memory_difference(m.rss, m.resident), 1.1);
  const bool big_client_buf = !empty && m.clients / clients > 1024 * 200;
  const bool many_scripts = !empty && lua != nullptr && lua->cached_scripts() > 1000;
  std::string s;
  if (empty) {
    s = "Hi Sam, this instance is empty or is using very little memory, my issues detector "
        "can't be used in these conditions. Please, leave for your mission on Earth and fill it "
        "with some data. The new Sam and I will be back to our programming as soon as I "
        "finished rebooting.\n";
  } else if (!(big_peak || high_frag || high_alloc_frag || high_alloc_rss || high_proc_rss ||
               big_client_buf || many_scripts)) {
    s = "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
        "occurs on this base.\n";
  } else {
    s = "Sam, I detected a few issues in this Redis instance memory implants:\n\n";
    if (big_peak) {
      s += " * Peak memory: In the past this instance used more than 150% the memory that is "
           "currently using. The allocator is normally not able to release memory after a peak, "
           "so you can expect to see a big fragmentation ratio, however this is actually "
           "harmless and is only due to the memory peak, and if the Redis instance Resident Set "
           "Size (RSS) is currently bigger than expected, the memory will be used as soon as you "
           "fill the Redis instance with more data. If the memory peak was only occasional and "
           "you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise "
           "the only other option is to shutdown and restart the instance.\n\n";
    }
    if (high_frag) {
      s += " * High total RSS: This instance has a memory fragmentation and RSS overhead greater "
           "than 1.4 (this means that the Resident Set Size of the Redis process is much larger "
           "than the sum of the logical allocations Redis performed). This problem is usually "
           "due either to a large peak memory (check if there is a peak memory entry above in "
           "the report) or may result from a workload that causes the allocator to fragment "
           "memory a lot. If the problem is a large peak memory, then there is no issue. "
           "Otherwise, make sure you are using the Jemalloc allocator and not the default libc "
           "malloc. Note: The currently used allocator is \"mimalloc-2.0.9\".\n\n";
    }
    if (high_alloc_frag) {
      s += " * High allocator fragmentation: This instance has an allocator external "
           "fragmentation greater than 1.1. This problem is usually due either to a large peak "
           "memory (check if there is a peak memory entry above in the report) or may result "
           "from a workload that causes the allocator to fragment memory a lot. You can try "
           "enabling 'activedefrag' config option.\n\n";
    }
    if (high_alloc_rss) {
      s += " * High allocator RSS overhead: This instance has an RSS memory overhead is greater "
           "than 1.1 (this means that the Resident Set Size of the allocator is much larger "
           "than the sum what the allocator actually holds). This problem is usually due to a "
           "large peak memory (check if there is a peak memory entry above in the report), you "
           "can try the MEMORY PURGE command to reclaim it.\n\n";
    }
    if (high_proc_rss) {
      s += " * High process RSS overhead: This instance has non-allocator RSS memory overhead "
           "is greater than 1.1 (this means that the Resident Set Size of the Redis process is "
           "much larger than the RSS the allocator holds). This problem may be due to Lua "
           "scripts or Modules.\n\n";
    }
    if (big_client_buf) {
      s += " * Big client buffers: The clients output buffers in this instance are greater "
           "than 200K per client (on average). This may result from different causes, like "
           "Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that "
           "data piles on the Redis instance output buffer, or clients sending commands with "
           "large replies or very large sequences of commands in the same pipeline. Please use "
           "the CLIENT LIST command in order to investigate the issue if it causes problems in "
           "your instance, or to understand better why certain clients are using a big amount "
           "of memory.\n\n";
    }
    if (many_scripts) {
      s += " * Many scripts: There seem to be many cached scripts in this instance (more than "
           "1000). This may be because scripts are generated and `EVAL`ed, instead of being "
           "parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless "
           "`SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming "
           "most of your memory.\n\n";
    }
    s += "I'm here to keep you safe, Sam. I want to help you.\n";
  }
  ctx.out.verbatim(s);
}

// MEMORY MALLOC-STATS: mimalloc's own statistics report, as Redis answers jemalloc's.
void mem_malloc_stats(Context& ctx) {
  std::string report;
  mi_stats_print_out(
      [](const char* msg, void* arg) { static_cast<std::string*>(arg)->append(msg); }, &report);
  ctx.out.verbatim(report);
}

void mem_purge(Context& ctx) {
  ctx.shard.release_memory();
  ctx.out.ok();
}

void mem_help(Context& ctx) {
  reply_help(ctx, "MEMORY",
             {"DOCTOR", "    Return memory problems reports.", "MALLOC-STATS",
              "    Return internal statistics report from the memory allocator.", "PURGE",
              "    Attempt to purge dirty pages for reclamation by the allocator.", "STATS",
              "    Return information about the memory usage of the server.",
              "USAGE <key> [SAMPLES <count>]",
              "    Return memory in bytes used by <key> and its value. Nested values are",
              "    sampled up to <count> times (default: 5, 0 means sample all)."});
}

void cmd_memory(Context& ctx) {
  dispatch_subcommand(ctx, *ctx.command);
}

using keyfam::cmd_expire;
using keyfam::cmd_expireat;
using keyfam::cmd_expiretime;
using keyfam::cmd_persist;
using keyfam::cmd_pexpire;
using keyfam::cmd_pexpireat;
using keyfam::cmd_pexpiretime;
using keyfam::cmd_pttl;
using keyfam::cmd_ttl;

// clang-format off
const CommandDef kObjectSubs[] = {
    {&decl::object_encoding, obj_encoding},
    {&decl::object_freq, obj_freq},
    {&decl::object_idletime, obj_idletime},
    {&decl::object_refcount, obj_refcount},
    {&decl::object_help, obj_help},
};
// clang-format on

// clang-format off
const CommandDef kMemorySubs[] = {
    {&decl::memory_usage, mem_usage},
    {&decl::memory_stats, mem_stats},
    {&decl::memory_doctor, mem_doctor},
    {&decl::memory_malloc_stats, mem_malloc_stats},
    {&decl::memory_purge, mem_purge},
    {&decl::memory_help, mem_help},
};
// clang-format on

const CommandDef kKeyCommands[] = {
    {&decl::del, cmd_del},
    {&decl::unlink, cmd_unlink},
    {&decl::exists, cmd_exists},
    {&decl::type, cmd_type},
    {&decl::rename, cmd_rename},
    {&decl::renamenx, cmd_renamenx},
    {&decl::copy, cmd_copy},
    {&decl::move, cmd_move},
    {&decl::keys, cmd_keys},
    {.decl = &decl::scan, .handler = cmd_scan, .routing = {Where::kCursor}},
    {.decl = &decl::randomkey, .handler = cmd_randomkey, .routing = {Where::kTips, Merge::kRandom}},
    {.decl = &decl::touch, .handler = cmd_touch, .traits = kTouchAlways},
    {.decl = &decl::object, .handler = cmd_object, .subcommands = kObjectSubs},
    {.decl = &decl::memory, .handler = cmd_memory, .subcommands = kMemorySubs},
    {&decl::expire, cmd_expire},
    {&decl::pexpire, cmd_pexpire},
    {&decl::expireat, cmd_expireat},
    {&decl::pexpireat, cmd_pexpireat},
    {&decl::ttl, cmd_ttl},
    {&decl::pttl, cmd_pttl},
    {&decl::expiretime, cmd_expiretime},
    {&decl::pexpiretime, cmd_pexpiretime},
    {&decl::persist, cmd_persist},
};

}  // namespace

std::span<const CommandDef> key_commands() {
  return kKeyCommands;
}

}  // namespace ruvio::worker
