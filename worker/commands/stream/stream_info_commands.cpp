// Stream family, introspection: XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS
// and XINFO HELP, as Redis 7.0's t_stream.c answers them (lag, entries-read, the PEL views).
#include <string>
#include <vector>

#include "worker/commands/stream/stream_family.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/engine/subcommand.hpp"

namespace ruvio::worker::streams {

// ---------------------------------------------------------------------------------------
// XINFO.

namespace {

// The stream XINFO's key (args[2]) holds, or nullptr after the error reply.
const Stream* info_stream(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[2], Type::kStream, Access::kRead, e)) return nullptr;
  if (!e) {
    ctx.out.error(err::kNoSuchKey);
    return nullptr;
  }
  return stream_in(e);
}

void reply_bulk_id_pair(Context& ctx, std::string_view name, const StreamID& id) {
  ctx.out.bulk(name);
  reply_stream_id(ctx, id);
}

void reply_first_last(Context& ctx, const Stream* s, bool first) {
  StreamIter it(s, types::kStreamMinId, types::kStreamMaxId, !first);
  if (it.next()) {
    reply_stream_entry(ctx, it);
  } else {
    ctx.out.null();
  }
}

// A group's "entries-read" and "lag", as XINFO GROUPS and XINFO STREAM FULL put them.
void reply_read_and_lag(Context& ctx, const Stream* s, const StreamGroup* g) {
  ctx.out.bulk("entries-read");
  if (g->entries_read != types::kEntriesReadInvalid) {
    ctx.out.integer(g->entries_read);
  } else {
    ctx.out.null();
  }
  ctx.out.bulk("lag");
  std::int64_t lag = 0;
  if (types::stream_group_lag(s, g, &lag)) {
    ctx.out.integer(lag);
  } else {
    ctx.out.null();
  }
}

// The 7 fields XINFO STREAM and XINFO STREAM FULL begin with (xinfoReplyWithStreamInfo).
void reply_stream_header(Context& ctx, const Stream* s) {
  ctx.out.bulk("length");
  ctx.out.integer(static_cast<std::int64_t>(s->length));
  ctx.out.bulk("radix-tree-keys");
  ctx.out.integer(static_cast<std::int64_t>(s->nodes.size()));
  ctx.out.bulk("radix-tree-nodes");
  ctx.out.integer(static_cast<std::int64_t>(types::stream_rax_nodes(s)));
  reply_bulk_id_pair(ctx, "last-generated-id", s->last_id);
  reply_bulk_id_pair(ctx, "max-deleted-entry-id", s->max_deleted_id);
  ctx.out.bulk("entries-added");
  ctx.out.integer(static_cast<std::int64_t>(s->entries_added));
  reply_bulk_id_pair(ctx, "recorded-first-entry-id", s->first_id);
}

// How many of n PEL entries FULL's COUNT lets through (0: all).
std::size_t capped(std::size_t n, std::int64_t count) {
  return count == 0 ? n : std::min<std::size_t>(n, static_cast<std::size_t>(count));
}

void xinfo_stream_full(Context& ctx, const Stream* s, std::int64_t count) {
  ctx.out.map(9);
  reply_stream_header(ctx, s);
  ctx.out.bulk("entries");
  reply_stream_range(ctx, s, types::kStreamMinId, types::kStreamMaxId,
                     static_cast<std::size_t>(count), false);
  ctx.out.bulk("groups");
  ctx.out.array(types::stream_group_count(s));
  if (s->groups == nullptr) return;
  for (const StreamGroup* g : s->groups->list) {
    ctx.out.map(7);
    ctx.out.bulk("name");
    ctx.out.bulk(g->name());
    reply_bulk_id_pair(ctx, "last-delivered-id", g->last_id);
    reply_read_and_lag(ctx, s, g);
    ctx.out.bulk("pel-count");
    ctx.out.integer(static_cast<std::int64_t>(g->pel.size()));
    ctx.out.bulk("pending");
    const std::size_t np = capped(g->pel.size(), count);
    ctx.out.array(np);
    for (std::size_t i = 0; i < np; ++i) {
      const StreamNack* k = g->pel[i];
      ctx.out.array(4);
      reply_stream_id(ctx, k->id);
      ctx.out.bulk(k->consumer->name());
      ctx.out.integer(k->delivery_time);
      ctx.out.integer(static_cast<std::int64_t>(k->delivery_count));
    }
    ctx.out.bulk("consumers");
    ctx.out.array(g->consumers.size());
    for (const StreamConsumer* c : g->consumers) {
      ctx.out.map(4);
      ctx.out.bulk("name");
      ctx.out.bulk(c->name());
      ctx.out.bulk("seen-time");
      ctx.out.integer(c->seen_time);
      ctx.out.bulk("pel-count");
      ctx.out.integer(static_cast<std::int64_t>(c->pel.size()));
      ctx.out.bulk("pending");
      const std::size_t cp = capped(c->pel.size(), count);
      ctx.out.array(cp);
      for (std::size_t i = 0; i < cp; ++i) {
        const StreamNack* k = c->pel[i];
        ctx.out.array(3);
        reply_stream_id(ctx, k->id);
        ctx.out.integer(k->delivery_time);
        ctx.out.integer(static_cast<std::int64_t>(k->delivery_count));
      }
    }
  }
}

}  // namespace

void xinfo_stream(Context& ctx) {
  bool full = false;
  std::int64_t count = 10;
  if (ctx.argc() > 3) {
    if (!iequals(ctx.args[3], "full")) {
      ctx.out.error(err::kSyntax);
      return;
    }
    full = true;
    if (ctx.argc() > 4) {
      if (ctx.argc() != 6 || !iequals(ctx.args[4], "count")) {
        ctx.out.error(err::kSyntax);
        return;
      }
      if (!parse_ll(ctx, ctx.args[5], count)) return;
      if (count < 0) count = 10;
    }
  }
  const Stream* s = info_stream(ctx);
  if (s == nullptr) return;
  if (full) {
    xinfo_stream_full(ctx, s, count);
    return;
  }
  ctx.out.map(10);
  reply_stream_header(ctx, s);
  ctx.out.bulk("groups");
  ctx.out.integer(static_cast<std::int64_t>(types::stream_group_count(s)));
  ctx.out.bulk("first-entry");
  reply_first_last(ctx, s, true);
  ctx.out.bulk("last-entry");
  reply_first_last(ctx, s, false);
}

void xinfo_groups(Context& ctx) {
  const Stream* s = info_stream(ctx);
  if (s == nullptr) return;
  ctx.out.array(types::stream_group_count(s));
  if (s->groups == nullptr) return;
  for (const StreamGroup* g : s->groups->list) {
    ctx.out.map(6);
    ctx.out.bulk("name");
    ctx.out.bulk(g->name());
    ctx.out.bulk("consumers");
    ctx.out.integer(static_cast<std::int64_t>(g->consumers.size()));
    ctx.out.bulk("pending");
    ctx.out.integer(static_cast<std::int64_t>(g->pel.size()));
    reply_bulk_id_pair(ctx, "last-delivered-id", g->last_id);
    reply_read_and_lag(ctx, s, g);
  }
}

void xinfo_consumers(Context& ctx) {
  const Stream* s = info_stream(ctx);
  if (s == nullptr) return;
  const StreamGroup* g = types::stream_group_find(s, ctx.args[3]);
  if (g == nullptr) {
    std::string msg = "NOGROUP No such consumer group '";
    msg.append(ctx.args[3]);
    msg.append("' for key name '");
    msg.append(ctx.args[2]);
    msg.append("'");
    ctx.out.error(msg);
    return;
  }
  const std::int64_t now = ctx.now_ms();
  ctx.out.array(g->consumers.size());
  for (const StreamConsumer* c : g->consumers) {
    ctx.out.map(3);
    ctx.out.bulk("name");
    ctx.out.bulk(c->name());
    ctx.out.bulk("pending");
    ctx.out.integer(static_cast<std::int64_t>(c->pel.size()));
    ctx.out.bulk("idle");
    const std::int64_t idle = now - c->seen_time;
    ctx.out.integer(idle < 0 ? 0 : idle);
  }
}

void xinfo_help(Context& ctx) {
  reply_help(ctx, "XINFO",
             {"CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.", "GROUPS <key>",
              "    Show the stream consumer groups.", "STREAM <key> [FULL [COUNT <count>]",
              "    Show information about the stream."});
}

}  // namespace ruvio::worker::streams
