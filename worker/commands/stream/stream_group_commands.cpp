// Stream family, consumer groups: XGROUP (CREATE SETID DESTROY CREATECONSUMER DELCONSUMER
// HELP), XREADGROUP's delivery, XACK, XPENDING, XCLAIM and XAUTOCLAIM, as Redis 7.0's
// t_stream.c answers them (XINFO: stream_info_commands.cpp).
//
// Times (delivery time, seen-time, IDLE) are the worker's cached clock (ctx.now_ms()), which
// the WAL records with each command, so XREADGROUP, XCLAIM and XAUTOCLAIM replay to the same
// PEL: the same NACKs with the same delivery counts and times.
#include <string>
#include <vector>

#include "worker/commands/stream/stream_family.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/engine/subcommand.hpp"

namespace ruvio::worker::streams {
namespace {

// One entry by ID (streamReplyWithRange over [id, id]); false when it is not there.
bool reply_one(Context& ctx, const Stream* s, const StreamID& id) {
  StreamIter it(s, id, id, false);
  if (!it.next()) return false;
  reply_stream_entry(ctx, it);
  return true;
}

bool entry_exists(const Stream* s, const StreamID& id) {
  StreamIter it(s, id, id, false);
  return it.next();
}

// ---------------------------------------------------------------------------------------
// The WAL effects of deliveries and claims (Redis's streamPropagateXCLAIM, streamPropagate-
// GroupID, streamPropagateConsumerCreation): each PEL change as an XCLAIM with the absolute
// delivery time and count, the group's last ID with its entries-read, the consumer creation.
// Replayed in order, they rebuild the same PEL whatever the clock or the idle filters say.

// Only the WAL reads an effect: under --durability memory (no journal) none is built, so a
// delivery costs no argument formatting.
bool journaled(const Context& ctx) {
  return ctx.shard.persistence != nullptr;
}

void log_consumer_created(Context& ctx, std::string_view key, const StreamGroup* g,
                          std::string_view consumer) {
  if (!journaled(ctx)) return;
  ctx.log_also({"XGROUP", "CREATECONSUMER", key, g->name(), consumer});
}

// XCLAIM key group consumer 0 id... TIME t RETRYCOUNT n FORCE JUSTID: every listed ID pending
// for `consumer`, delivered at t, n times.
void log_claims(Context& ctx, std::string_view key, const StreamGroup* g, std::string_view consumer,
                std::span<const StreamID> ids, std::int64_t time, std::uint64_t count) {
  if (!journaled(ctx)) return;
  static thread_local std::string text;
  static thread_local std::vector<std::string_view> argv;
  text.clear();
  text.reserve((ids.size() + 2) * types::kStreamIdBuf);  // views below stay valid
  argv.assign({"XCLAIM", key, g->name(), consumer, "0"});
  char buf[types::kStreamIdBuf];
  auto keep = [&](std::string_view v) {
    const std::size_t at = text.size();
    text.append(v);
    argv.emplace_back(text.data() + at, v.size());
  };
  for (const StreamID& id : ids) keep(types::stream_id_format(id, buf));
  argv.emplace_back("TIME");
  keep(format_int64(time, buf));
  argv.emplace_back("RETRYCOUNT");
  keep(format_int64(static_cast<std::int64_t>(count), buf));
  argv.emplace_back("FORCE");
  argv.emplace_back("JUSTID");
  ctx.log_also(std::span<const std::string_view>(argv));
}

void log_claim(Context& ctx, std::string_view key, const StreamGroup* g, const StreamNack* k) {
  log_claims(ctx, key, g, k->consumer->name(), std::span<const StreamID>(&k->id, 1),
             k->delivery_time, k->delivery_count);
}

// XGROUP SETID key group id ENTRIESREAD n.
void log_group_id(Context& ctx, std::string_view key, const StreamGroup* g) {
  if (!journaled(ctx)) return;
  char idbuf[types::kStreamIdBuf], nbuf[24];
  ctx.log_also({"XGROUP", "SETID", key, g->name(), types::stream_id_format(g->last_id, idbuf),
                "ENTRIESREAD", format_int64(g->entries_read, nbuf)});
}

// XACK key group id...: NACKs of deleted entries that a claim dropped.
void log_dropped(Context& ctx, std::string_view key, const StreamGroup* g,
                 std::span<const StreamID> ids) {
  if (ids.empty() || !journaled(ctx)) return;
  static thread_local std::string text;
  static thread_local std::vector<std::string_view> argv;
  text.clear();
  text.reserve(ids.size() * types::kStreamIdBuf);
  argv.assign({"XACK", key, g->name()});
  char buf[types::kStreamIdBuf];
  for (const StreamID& id : ids) {
    const std::string_view v = types::stream_id_format(id, buf);
    const std::size_t at = text.size();
    text.append(v);
    argv.emplace_back(text.data() + at, v.size());
  }
  ctx.log_also(std::span<const std::string_view>(argv));
}

// The XGROUP subcommands that need a key and a group: the common lookup of xgroupCommand.
struct GroupTarget {
  store::WriteHandle h;
  Stream* s = nullptr;
  StreamGroup* g = nullptr;
};

constexpr std::string_view kKeyRequired =
    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to "
    "use the MKSTREAM option to create an empty stream automatically.";

// What a subcommand needs before it runs, checked in xgroupCommand's order (WRONGTYPE, the
// key, the group), on one handle.
enum class Needs { kNothing, kKey, kGroup };

bool group_target(Context& ctx, GroupTarget& t, Needs needs) {
  t.h = ctx.db().open(ctx.args[2], Type::kStream, ctx.now_ms());
  if (t.h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return false;
  }
  if (t.h) {
    t.s = t.h.mut_as<Stream>();  // written only where a subcommand then calls changed_unsignalled()
    t.g = types::stream_group_find(t.s, ctx.args[3]);
  }
  if (needs != Needs::kNothing && t.s == nullptr) {
    ctx.out.error(kKeyRequired);
    return false;
  }
  if (needs == Needs::kGroup && t.g == nullptr) {
    std::string msg = "NOGROUP No such consumer group '";
    msg.append(ctx.args[3]);
    msg.append("' for key name '");
    msg.append(ctx.args[2]);
    msg.append("'");
    ctx.out.error(msg);
    return false;
  }
  return true;
}

void subcommand_syntax(Context& ctx) {
  std::string msg = "ERR unknown subcommand or wrong number of arguments for '";
  msg.append(ctx.args[1].substr(0, 128));
  msg.append("'. Try XGROUP HELP.");
  ctx.out.error(msg);
}

// CREATE/SETID's options: MKSTREAM (CREATE only) and ENTRIESREAD.
bool group_options(Context& ctx, bool create, bool& mkstream, std::int64_t& entries_read) {
  for (std::size_t i = 5; i < ctx.argc();) {
    if (create && iequals(ctx.args[i], "mkstream")) {
      mkstream = true;
      ++i;
    } else if (iequals(ctx.args[i], "entriesread") && i + 1 < ctx.argc()) {
      if (!parse_ll(ctx, ctx.args[i + 1], entries_read)) return false;
      if (entries_read < 0 && entries_read != types::kEntriesReadInvalid) {
        ctx.out.error("ERR value for ENTRIESREAD must be positive or -1");
        return false;
      }
      i += 2;
    } else {
      subcommand_syntax(ctx);
      return false;
    }
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// XGROUP.

void xgroup_create(Context& ctx) {
  bool mkstream = false;
  std::int64_t entries_read = types::kEntriesReadInvalid;
  if (!group_options(ctx, true, mkstream, entries_read)) return;
  GroupTarget t;
  if (!group_target(ctx, t, Needs::kNothing)) return;
  if (t.s == nullptr && !mkstream) {
    ctx.out.error(kKeyRequired);
    return;
  }
  if (ctx.argc() > 8) {
    subcommand_syntax(ctx);
    return;
  }
  StreamID id;
  if (ctx.args[4] == "$") {
    id = t.s != nullptr ? t.s->last_id : StreamID{};
  } else if (!parse_stream_id(ctx, ctx.args[4], 0, true, id)) {
    return;
  }
  if (t.g != nullptr) {
    ctx.out.error("BUSYGROUP Consumer Group name already exists");
    return;
  }
  const bool created = t.s == nullptr;
  if (created) t.h.set(types::stream_create(t.h.heap()));
  types::stream_group_create(t.h.heap(), t.h.mut_as<Stream>(), ctx.args[3], id, entries_read);
  // Redis signals the key only when MKSTREAM created it.
  if (!created) t.h.changed_unsignalled();
  ctx.out.ok();
}

void xgroup_setid(Context& ctx) {
  bool mkstream = false;
  std::int64_t entries_read = types::kEntriesReadInvalid;
  if (!group_options(ctx, false, mkstream, entries_read)) return;
  GroupTarget t;
  if (!group_target(ctx, t, Needs::kGroup)) return;
  if (ctx.argc() != 5 && ctx.argc() != 7) {
    subcommand_syntax(ctx);
    return;
  }
  StreamID id;
  if (ctx.args[4] == "$") {
    id = t.s->last_id;
  } else if (!parse_stream_id(ctx, ctx.args[4], 0, false, id)) {
    return;
  }
  t.g->last_id = id;
  t.g->entries_read = entries_read;
  t.h.changed_unsignalled();
  ctx.out.ok();
}

void xgroup_destroy(Context& ctx) {
  GroupTarget t;
  if (!group_target(ctx, t, Needs::kKey)) return;
  if (t.g == nullptr) {
    ctx.out.integer(0);
    return;
  }
  // changed_unsignalled() marks the key written: its key_ready wakes the XREADGROUPs blocked on the
  // group, which then answer NOGROUP.
  types::stream_group_destroy(t.h.heap(), t.s, ctx.args[3]);
  t.h.changed_unsignalled();
  ctx.out.integer(1);
}

void xgroup_createconsumer(Context& ctx) {
  GroupTarget t;
  if (!group_target(ctx, t, Needs::kGroup)) return;
  if (types::stream_consumer_find(t.g, ctx.args[4]) != nullptr) {
    ctx.out.integer(0);
    return;
  }
  types::stream_consumer_create(t.h.heap(), t.g, ctx.args[4], ctx.now_ms());
  t.h.changed_unsignalled();
  ctx.out.integer(1);
}

void xgroup_delconsumer(Context& ctx) {
  GroupTarget t;
  if (!group_target(ctx, t, Needs::kGroup)) return;
  StreamConsumer* c = types::stream_consumer_find(t.g, ctx.args[4]);
  if (c == nullptr) {
    ctx.out.integer(0);
    return;
  }
  ctx.out.integer(static_cast<std::int64_t>(types::stream_consumer_delete(t.h.heap(), t.g, c)));
  t.h.changed_unsignalled();
}

void xgroup_help(Context& ctx) {
  reply_help(
      ctx, "XGROUP",
      {"CREATE <key> <groupname> <id|$> [option]",
       "    Create a new consumer group. Options are:", "    * MKSTREAM",
       "      Create the empty stream if it does not exist.", "    * ENTRIESREAD entries_read",
       "      Set the group's entries_read counter (internal use).",
       "CREATECONSUMER <key> <groupname> <consumer>",
       "    Create a new consumer in the specified group.",
       "DELCONSUMER <key> <groupname> <consumer>", "    Remove the specified consumer.",
       "DESTROY <key> <groupname>", "    Remove the specified group.",
       "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
       "    Set the current group ID and entries_read counter."});
}

// ---------------------------------------------------------------------------------------
// XREADGROUP's delivery (streamReplyWithRange with a group, and from the consumer's PEL).

void xreadgroup_serve(Context& ctx, std::string_view key, store::WriteHandle& h, StreamGroup* g,
                      std::string_view consumer_name, const StreamID& gt, bool history,
                      std::size_t count, bool noack) {
  // Written through mut(): the seen-time refresh alone is no change (no WATCH, no record);
  // changed_unsignalled() (Redis signals no modification) when a consumer, a NACK or the group's
  // last ID changes.
  Stream* s = h.mut_as<Stream>();
  const std::int64_t now = ctx.now_ms();
  bool created = false;
  StreamConsumer* c = types::stream_consumer_get(h.heap(), g, consumer_name, now, &created);
  c->seen_time = now;
  if (created) {
    h.changed_unsignalled();
    ctx.notify(kNotifyStream, "xgroup-createconsumer", key);  // streamCreateConsumer's event
    log_consumer_created(ctx, key, g, consumer_name);
  }
  StreamID start = gt;
  types::stream_id_incr(start);
  DeferredLen len(ctx);
  std::size_t n = 0;
  if (history) {
    for (std::size_t i = types::stream_pel_lower_bound(c->pel, start);
         i < c->pel.size() && (count == 0 || n < count); ++i) {
      StreamNack* k = c->pel[i];
      if (reply_one(ctx, s, k->id)) {
        k->delivery_time = now;
        ++k->delivery_count;
        h.changed_unsignalled();
        log_claim(ctx, key, g, k);
      } else {
        ctx.out.array(2);
        reply_stream_id(ctx, k->id);
        ctx.out.null_array();
      }
      ++n;
    }
    len.set(n);
    return;
  }
  static thread_local std::vector<StreamID> delivered;
  delivered.clear();
  const bool journal = journaled(ctx);
  bool claimed = false;
  const StreamID last_before = g->last_id;
  StreamIter it(s, start, types::kStreamMaxId, false);
  while ((count == 0 || n < count) && it.next()) {
    const StreamID id = it.id();
    if (id > g->last_id) types::stream_group_advance(s, g, id);
    reply_stream_entry(ctx, it);
    ++n;
    if (noack) continue;
    StreamNack* k = types::stream_pel_find(g->pel, id);
    if (k == nullptr) {
      types::stream_nack_add(h.heap(), g, c, id, now, 1);
    } else {
      types::stream_nack_move(h.heap(), k, c);
      k->delivery_time = now;
      k->delivery_count = 1;
    }
    if (journal) delivered.push_back(id);
    claimed = true;
  }
  len.set(n);
  if (claimed) {
    h.changed_unsignalled();
    log_claims(ctx, key, g, consumer_name, delivered, now, 1);
  }
  if (g->last_id != last_before) {
    h.changed_unsignalled();
    log_group_id(ctx, key, g);
  }
}

// ---------------------------------------------------------------------------------------
// XACK / XPENDING.

void xack(Context& ctx) {
  Typed t = lookup_as(ctx, ctx.args[1], Type::kStream, Access::kRead);
  if (t.wrong_type) {
    ctx.out.error(err::kWrongType);
    return;
  }
  const StreamGroup* g0 =
      t.entry ? types::stream_group_find(stream_in(t.entry), ctx.args[2]) : nullptr;
  if (g0 == nullptr) {
    ctx.out.integer(0);
    return;
  }
  static thread_local std::vector<StreamID> ids;
  ids.clear();
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    StreamID id;
    if (!parse_stream_id(ctx, ctx.args[j], 0, true, id)) return;
    ids.push_back(id);
  }
  std::int64_t acked = 0;
  store::WriteHandle h;
  StreamGroup* g = nullptr;
  for (const StreamID& id : ids) {
    if (types::stream_pel_find(g0->pel, id) == nullptr) continue;
    if (g == nullptr) {
      h = ctx.db().open(ctx.args[1], Type::kStream, ctx.now_ms());
      h.notify_as(0, {});  // XACK publishes nothing
      g = types::stream_group_find(h.mut_as<Stream>(), ctx.args[2]);
    }
    types::stream_nack_remove(h.heap(), g, types::stream_pel_find(g->pel, id));
    h.changed_unsignalled();
    ++acked;
  }
  ctx.out.integer(acked);
}

void xpending(Context& ctx) {
  const bool justinfo = ctx.argc() == 3;
  if (ctx.argc() != 3 && (ctx.argc() < 6 || ctx.argc() > 9)) {
    ctx.out.error(err::kSyntax);
    return;
  }
  StreamID start, end;
  std::int64_t count = 0, minidle = 0;
  std::string_view consumer_name;
  bool have_consumer = false;
  if (ctx.argc() >= 6) {
    std::size_t startidx = 3;
    if (iequals(ctx.args[3], "idle")) {
      if (!parse_ll(ctx, ctx.args[4], minidle)) return;
      if (ctx.argc() < 8) {
        ctx.out.error(err::kSyntax);
        return;
      }
      startidx += 2;
    }
    if (!parse_ll(ctx, ctx.args[startidx + 2], count)) return;
    if (count < 0) count = 0;
    bool startex = false, endex = false;
    if (!parse_interval(ctx, ctx.args[startidx], start, startex, 0)) return;
    if (startex && !types::stream_id_incr(start)) {
      ctx.out.error("ERR invalid start ID for the interval");
      return;
    }
    if (!parse_interval(ctx, ctx.args[startidx + 1], end, endex, UINT64_MAX)) return;
    if (endex && !types::stream_id_decr(end)) {
      ctx.out.error("ERR invalid end ID for the interval");
      return;
    }
    if (startidx + 3 < ctx.argc()) {
      consumer_name = ctx.args[startidx + 3];
      have_consumer = true;
    }
  }
  Typed t = lookup_as(ctx, ctx.args[1], Type::kStream, Access::kRead);
  if (t.wrong_type) {
    ctx.out.error(err::kWrongType);
    return;
  }
  const StreamGroup* g =
      t.entry ? types::stream_group_find(stream_in(t.entry), ctx.args[2]) : nullptr;
  if (g == nullptr) {
    nogroup(ctx, ctx.args[1], ctx.args[2]);
    return;
  }
  if (justinfo) {
    ctx.out.array(4);
    ctx.out.integer(static_cast<std::int64_t>(g->pel.size()));
    if (g->pel.empty()) {
      ctx.out.null();
      ctx.out.null();
      ctx.out.null_array();
      return;
    }
    reply_stream_id(ctx, g->pel[0]->id);
    reply_stream_id(ctx, g->pel.back()->id);
    std::size_t n = 0;
    for (const StreamConsumer* c : g->consumers) n += c->pel.empty() ? 0 : 1;
    ctx.out.array(n);
    for (const StreamConsumer* c : g->consumers) {
      if (c->pel.empty()) continue;
      ctx.out.array(2);
      ctx.out.bulk(c->name());
      ctx.out.bulk_int(static_cast<std::int64_t>(c->pel.size()));
    }
    return;
  }
  const types::HeapVec<StreamNack*>* pel = &g->pel;
  if (have_consumer) {
    const StreamConsumer* c = types::stream_consumer_find(g, consumer_name);
    if (c == nullptr) {
      ctx.out.array(0);
      return;
    }
    pel = &c->pel;
  }
  const std::int64_t now = ctx.now_ms();
  DeferredLen len(ctx);
  std::size_t n = 0;
  for (std::size_t i = types::stream_pel_lower_bound(*pel, start);
       count != 0 && i < pel->size() && (*pel)[i]->id <= end; ++i) {
    const StreamNack* k = (*pel)[i];
    if (minidle != 0 && now - k->delivery_time < minidle) continue;
    ++n;
    --count;
    ctx.out.array(4);
    reply_stream_id(ctx, k->id);
    ctx.out.bulk(k->consumer->name());
    const std::int64_t elapsed = now - k->delivery_time;
    ctx.out.integer(elapsed < 0 ? 0 : elapsed);
    ctx.out.integer(static_cast<std::int64_t>(k->delivery_count));
  }
  len.set(n);
}

// ---------------------------------------------------------------------------------------
// XCLAIM / XAUTOCLAIM.

namespace {

// The options after XCLAIM's IDs / XAUTOCLAIM's start (one loop for both, as each command's
// own errors): XCLAIM takes IDLE TIME RETRYCOUNT FORCE JUSTID LASTID, XAUTOCLAIM COUNT JUSTID.
struct ClaimArgs {
  std::int64_t retrycount = -1;
  std::int64_t deliverytime = -1;
  std::int64_t count = 100;  // XAUTOCLAIM
  bool force = false;
  bool justid = false;
  StreamID last_id;
};

bool parse_claim_options(Context& ctx, std::size_t j, bool autoclaim, ClaimArgs& a) {
  constexpr std::int64_t kMaxCount = INT64_MAX / 16;  // LONG_MAX / max(sizeof(streamID), 10)
  for (; j < ctx.argc(); ++j) {
    const bool more = ctx.argc() - 1 - j > 0;
    const std::string_view opt = ctx.args[j];
    auto num = [&](std::string_view what, std::int64_t& out) {
      const auto v = parse_int64(ctx.args[++j]);
      if (!v) {
        ctx.out.error("ERR Invalid " + std::string(what) + " option argument for XCLAIM");
        return false;
      }
      out = *v;
      return true;
    };
    if (iequals(opt, "justid")) {
      a.justid = true;
    } else if (autoclaim) {
      if (!iequals(opt, "count") || !more) {
        ctx.out.error(err::kSyntax);
        return false;
      }
      const auto v = parse_int64(ctx.args[++j]);
      if (!v || *v < 1 || *v > kMaxCount) {
        ctx.out.error("ERR COUNT must be > 0");
        return false;
      }
      a.count = *v;
    } else if (iequals(opt, "force")) {
      a.force = true;
    } else if (iequals(opt, "idle") && more) {
      if (!num("IDLE", a.deliverytime)) return false;
      a.deliverytime = ctx.now_ms() - a.deliverytime;
    } else if (iequals(opt, "time") && more) {
      if (!num("TIME", a.deliverytime)) return false;
    } else if (iequals(opt, "retrycount") && more) {
      if (!num("RETRYCOUNT", a.retrycount)) return false;
    } else if (iequals(opt, "lastid") && more) {
      if (!parse_stream_id(ctx, ctx.args[++j], 0, true, a.last_id)) return false;
    } else {
      ctx.out.error("ERR Unrecognized XCLAIM option '" + std::string(opt) + "'");
      return false;
    }
  }
  return true;
}

// The key's group for a claim, or the error replied (WRONGTYPE, NOGROUP).
bool claim_target(Context& ctx, store::WriteHandle& h, StreamGroup*& g) {
  Typed t = lookup_as(ctx, ctx.args[1], Type::kStream, Access::kRead);
  if (t.wrong_type) {
    ctx.out.error(err::kWrongType);
    return false;
  }
  if (!t.entry || types::stream_group_find(stream_in(t.entry), ctx.args[2]) == nullptr) {
    nogroup(ctx, ctx.args[1], ctx.args[2]);
    return false;
  }
  h = ctx.db().open(ctx.args[1], Type::kStream, ctx.now_ms());
  h.notify_as(0, {});  // XCLAIM / XAUTOCLAIM publish only a new consumer's event
  g = types::stream_group_find(h.mut_as<Stream>(), ctx.args[2]);
  return true;
}

// What XCLAIM and XAUTOCLAIM do to each NACK they take: the consumer (created on the first
// claim), the owner, delivery time and count, the entry replied, the effect logged.
struct Claimer {
  Context& ctx;
  store::WriteHandle& h;
  StreamGroup* g;
  bool justid;
  StreamConsumer* consumer = nullptr;
  std::size_t n = 0;

  // Drops the NACK of an entry that is gone (its ID goes into `dropped` for the effect).
  void drop(StreamNack* k, std::vector<StreamID>& dropped) {
    dropped.push_back(k->id);
    types::stream_nack_remove(h.heap(), g, k);
    h.changed_unsignalled();
  }
  // `k` null: a FORCE claim of an ID nobody has pending.
  void claim(StreamNack* k, const StreamID& id, std::int64_t time, std::int64_t retrycount) {
    const std::int64_t now = ctx.now_ms();
    if (consumer == nullptr) {
      bool created = false;
      consumer = types::stream_consumer_get(h.heap(), g, ctx.args[3], now, &created);
      consumer->seen_time = now;
      if (created) {
        ctx.notify(kNotifyStream, "xgroup-createconsumer", ctx.args[1]);
        log_consumer_created(ctx, ctx.args[1], g, ctx.args[3]);
      }
    }
    if (k == nullptr) {
      // streamCreateNACK(NULL): one delivery, then counted again below as any claim.
      k = types::stream_nack_add(h.heap(), g, consumer, id, now, 1);
    } else {
      types::stream_nack_move(h.heap(), k, consumer);
    }
    k->delivery_time = time;
    if (retrycount >= 0) {
      k->delivery_count = static_cast<std::uint64_t>(retrycount);
    } else if (!justid) {
      ++k->delivery_count;
    }
    h.changed_unsignalled();
    log_claim(ctx, ctx.args[1], g, k);
    if (justid) {
      reply_stream_id(ctx, id);
    } else if (!reply_one(ctx, h.mut_as<Stream>(), id)) {
      ctx.out.null();
    }
    ++n;
  }
};

}  // namespace

void xclaim(Context& ctx) {
  ctx.log_begin();
  store::WriteHandle h;
  StreamGroup* g = nullptr;
  if (!claim_target(ctx, h, g)) return;
  const auto minidle_arg = parse_int64(ctx.args[4]);
  if (!minidle_arg) {
    ctx.out.error("ERR Invalid min-idle-time argument for XCLAIM");
    return;
  }
  const std::int64_t minidle = *minidle_arg < 0 ? 0 : *minidle_arg;
  static thread_local std::vector<StreamID> ids;
  ids.clear();
  std::size_t j = 5;
  for (; j < ctx.argc(); ++j) {
    types::ParsedStreamId p;
    if (!types::stream_id_parse(ctx.args[j], 0, true, false, p)) break;
    ids.push_back(p.id);
  }
  ClaimArgs a;
  if (!parse_claim_options(ctx, j, false, a)) return;
  const std::int64_t now = ctx.now_ms();
  const Stream* cs = h.mut_as<Stream>();
  if (a.last_id > g->last_id) {
    g->last_id = a.last_id;
    h.changed_unsignalled();
    log_group_id(ctx, ctx.args[1], g);
  }
  if (a.deliverytime < 0 || a.deliverytime > now) a.deliverytime = now;
  static thread_local std::vector<StreamID> dropped;
  dropped.clear();
  Claimer claimer{ctx, h, g, a.justid};
  DeferredLen len(ctx);
  for (const StreamID& id : ids) {
    StreamNack* k = types::stream_pel_find(g->pel, id);
    if (!entry_exists(cs, id)) {
      if (k != nullptr) claimer.drop(k, dropped);
      continue;
    }
    if (k == nullptr && !a.force) continue;
    if (k != nullptr && minidle != 0 && now - k->delivery_time < minidle) continue;
    claimer.claim(k, id, a.deliverytime, a.retrycount);
  }
  len.set(claimer.n);
  log_dropped(ctx, ctx.args[1], g, dropped);
}

void xautoclaim(Context& ctx) {
  ctx.log_begin();
  const auto idle = parse_int64(ctx.args[4]);
  if (!idle) {
    ctx.out.error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
    return;
  }
  std::int64_t minidle = *idle < 0 ? 0 : *idle;
  StreamID start;
  bool startex = false;
  if (!parse_interval(ctx, ctx.args[5], start, startex, 0)) return;
  if (startex && !types::stream_id_incr(start)) {
    ctx.out.error("ERR invalid start ID for the interval");
    return;
  }
  ClaimArgs a;
  if (!parse_claim_options(ctx, 6, true, a)) return;
  store::WriteHandle h;
  StreamGroup* g = nullptr;
  if (!claim_target(ctx, h, g)) return;
  const Stream* cs = h.mut_as<Stream>();
  const std::int64_t now = ctx.now_ms();
  std::int64_t count = a.count;
  std::int64_t attempts = count * 10;
  static thread_local std::vector<StreamID> deleted;
  deleted.clear();
  ctx.out.array(3);
  std::string& buf = ctx.out.buffer();
  const std::size_t cursor_at = buf.size();
  Claimer claimer{ctx, h, g, a.justid};
  DeferredLen len(ctx);
  std::size_t i = types::stream_pel_lower_bound(g->pel, start);
  while (attempts-- != 0 && count != 0 && i < g->pel.size()) {
    StreamNack* k = g->pel[i];
    if (!entry_exists(cs, k->id)) {
      claimer.drop(k, deleted);
      --count;
      continue;
    }
    ++i;
    if (minidle != 0 && now - k->delivery_time < minidle) continue;
    claimer.claim(k, k->id, now, -1);
    --count;
  }
  len.set(claimer.n);
  // The cursor goes in front of the claimed entries: reply[0].
  const StreamID next = i < g->pel.size() ? g->pel[i]->id : StreamID{};
  std::string cursor_reply;
  {
    std::string* saved = &buf;
    std::string tmp;
    ctx.out.set_buffer(tmp);
    reply_stream_id(ctx, next);
    ctx.out.set_buffer(*saved);
    cursor_reply = std::move(tmp);
  }
  buf.insert(cursor_at, cursor_reply);
  ctx.out.array(deleted.size());
  for (const StreamID& id : deleted) reply_stream_id(ctx, id);
  log_dropped(ctx, ctx.args[1], g, deleted);
}

}  // namespace ruvio::worker::streams
