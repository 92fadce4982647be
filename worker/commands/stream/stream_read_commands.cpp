// Stream family, reading: XRANGE XREVRANGE XLEN, and XREAD / XREADGROUP (the option parsing
// of both, XREAD's replies; XREADGROUP's delivery is xreadgroup_serve in
// stream_group_commands.cpp), with their specs under the blocking framework (blocking.hpp):
// when a waiter is served, and what "$" stood for when it blocked.
#include <cstring>
#include <string>
#include <vector>

#include "worker/commands/stream/stream_family.hpp"
#include "worker/engine/blocking_args.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/lookup.hpp"

namespace ruvio::worker::streams {

// ---------------------------------------------------------------------------------------
// XRANGE / XREVRANGE / XLEN.

namespace {

void xrange_generic(Context& ctx, bool rev) {
  const std::string_view startarg = rev ? ctx.args[3] : ctx.args[2];
  const std::string_view endarg = rev ? ctx.args[2] : ctx.args[3];
  StreamID start, end;
  bool startex = false, endex = false;
  if (!parse_interval(ctx, startarg, start, startex, 0)) return;
  if (startex && !types::stream_id_incr(start)) {
    ctx.out.error("ERR invalid start ID for the interval");
    return;
  }
  if (!parse_interval(ctx, endarg, end, endex, UINT64_MAX)) return;
  if (endex && !types::stream_id_decr(end)) {
    ctx.out.error("ERR invalid end ID for the interval");
    return;
  }
  std::int64_t count = -1;
  for (std::size_t j = 4; j < ctx.argc(); ++j) {
    if (iequals(ctx.args[j], "count") && ctx.argc() - j - 1 >= 1) {
      if (!parse_ll(ctx, ctx.args[j + 1], count)) return;
      if (count < 0) count = 0;
      ++j;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kStream, Access::kRead, e)) return;
  if (!e) {
    ctx.out.array(0);
    return;
  }
  if (count == 0) {
    ctx.out.null_array();
    return;
  }
  reply_stream_range(ctx, stream_in(e), start, end,
                     count == -1 ? 0 : static_cast<std::size_t>(count), rev);
}

}  // namespace

void xrange(Context& ctx) {
  xrange_generic(ctx, false);
}
void xrevrange(Context& ctx) {
  xrange_generic(ctx, true);
}

void xlen(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kStream, Access::kRead, e)) return;
  ctx.out.integer(e ? static_cast<std::int64_t>(stream_in(e)->length) : 0);
}

// ---------------------------------------------------------------------------------------
// XREAD / XREADGROUP (xreadCommand).

namespace {

constexpr std::size_t kBlockedDefaultCount = 1000;  // XREAD_BLOCKED_DEFAULT_COUNT

void xread_generic(Context& ctx, bool group_cmd) {
  std::int64_t timeout = -1;
  std::int64_t count = 0;
  std::size_t streams_arg = 0, streams_count = 0;
  bool noack = false;
  std::string_view groupname, consumername;
  bool have_group = false;
  const std::size_t argc = ctx.argc();
  for (std::size_t i = 1; i < argc; ++i) {
    const std::size_t more = argc - i - 1;
    const std::string_view o = ctx.args[i];
    if (iequals(o, "block") && more != 0) {
      if (ctx.client.script) {  // as Redis: no sense in blocking a script, the name as typed
        ctx.out.error("ERR " + std::string(ctx.args[0]) +
                      " command is not allowed with BLOCK option from scripts");
        return;
      }
      ++i;
      const Timeout t = parse_timeout_ms(ctx.args[i], ctx.now_ms());
      if (!t.error.empty()) {
        ctx.out.error(t.error);
        return;
      }
      timeout = t.deadline_ms;
    } else if (iequals(o, "count") && more != 0) {
      ++i;
      if (!parse_ll(ctx, ctx.args[i], count)) return;
      if (count < 0) count = 0;
    } else if (iequals(o, "streams") && more != 0) {
      streams_arg = i + 1;
      streams_count = argc - streams_arg;
      if (streams_count % 2 != 0) {
        // 7.0.15 names XREAD and '$' for XREADGROUP too.
        ctx.out.error(
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' "
            "must be specified.");
        return;
      }
      streams_count /= 2;
      break;
    } else if (iequals(o, "group") && more >= 2) {
      if (!group_cmd) {
        ctx.out.error(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD "
            "instead.");
        return;
      }
      groupname = ctx.args[i + 1];
      consumername = ctx.args[i + 2];
      have_group = true;
      i += 2;
    } else if (iequals(o, "noack")) {
      if (!group_cmd) {
        ctx.out.error(
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD "
            "instead.");
        return;
      }
      noack = true;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  if (streams_arg == 0) {
    ctx.out.error(err::kSyntax);
    return;
  }
  if (group_cmd && !have_group) {
    ctx.out.error("ERR Missing GROUP option for XREADGROUP");
    return;
  }
  // What "$" stood for when this client blocked (the waiter's memo), else the stream's top;
  // taken first so that no ending of the wait leaves it for the client's next command.
  const std::string memo = ctx.shard.blocking().take_memo(ctx.shard.watcher_of(ctx.client));
  if (unblocked_by_error(ctx) || answered_timeout(ctx)) return;

  static thread_local std::vector<StreamID> ids;
  static thread_local std::vector<types::StreamGroup*> groups;
  ids.assign(streams_count, StreamID{});
  groups.assign(streams_count, nullptr);
  for (std::size_t k = 0; k < streams_count; ++k) {
    const std::string_view key = ctx.args[streams_arg + k];
    const std::string_view idarg = ctx.args[streams_arg + streams_count + k];
    Typed t = lookup_as(ctx, key, Type::kStream, Access::kRead);
    if (t.wrong_type) {
      // A blocked XREADGROUP whose stream was overwritten by another type: Redis 7.0 says
      // the stream is gone, not WRONGTYPE.
      ctx.out.error(have_group && !memo.empty() ? "UNBLOCKED the stream key no longer exists"
                                                : err::kWrongType);
      return;
    }
    const Stream* s = t.entry ? stream_in(t.entry) : nullptr;
    if (have_group) {
      types::StreamGroup* g = s != nullptr ? types::stream_group_find(s, groupname) : nullptr;
      if (g == nullptr) {
        if (!memo.empty()) {
          ctx.out.error(s == nullptr ? "UNBLOCKED the stream key no longer exists"
                                     : "NOGROUP the consumer group this client was blocked on "
                                       "no longer exists");
          return;
        }
        nogroup(ctx, key, groupname, "' in XREADGROUP with GROUP option");
        return;
      }
      groups[k] = g;
    }
    if (idarg == "$") {
      if (group_cmd) {
        ctx.out.error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to "
            "read the history of this consumer by specifying a proper ID, or use the "
            "> ID to get new messages. The $ ID would just return an empty result "
            "set.");
        return;
      }
      if (!memo.empty()) {
        std::memcpy(&ids[k], memo.data() + k * sizeof(StreamID), sizeof(StreamID));
      } else {
        ids[k] = s != nullptr ? s->last_id : StreamID{};
      }
      continue;
    }
    if (idarg == ">") {
      if (!group_cmd) {
        ctx.out.error(
            "ERR The > ID can be specified only when calling XREADGROUP using the "
            "GROUP <group> <consumer> option.");
        return;
      }
      ids[k] = types::kStreamMaxId;
      continue;
    }
    if (!parse_stream_id(ctx, idarg, 0, true, ids[k])) return;
  }
  // A client served after blocking gets Redis's blocked COUNT default.
  std::size_t served_count = static_cast<std::size_t>(count);
  if (!memo.empty() && count == 0) served_count = kBlockedDefaultCount;

  std::size_t arraylen = 0;
  // XREADGROUP's record is its effect (xreadgroup_serve adds to it), never the command.
  if (have_group) ctx.log_begin();
  DeferredLen top(ctx, ctx.out.protocol() >= 3 ? '%' : '*');
  for (std::size_t k = 0; k < streams_count; ++k) {
    const std::string_view key = ctx.args[streams_arg + k];
    Entry e = ctx.db().peek(key);
    if (!e || e.type() != Type::kStream) continue;
    const Stream* s = stream_in(e);
    StreamID gt = ids[k];
    bool serve = false, history = false;
    if (have_group) {
      if (gt != types::kStreamMaxId) {
        serve = history = true;
      } else if (s->length != 0 && types::stream_edge_id(s, false) > groups[k]->last_id) {
        serve = true;
        gt = groups[k]->last_id;
      }
    } else if (s->length != 0 && types::stream_edge_id(s, false) > gt) {
      serve = true;
    }
    if (!serve) continue;
    ++arraylen;
    if (ctx.out.protocol() < 3) ctx.out.array(2);
    ctx.out.bulk(key);
    if (have_group) {
      store::WriteHandle h = ctx.db().open(key, Type::kStream, ctx.now_ms());
      h.notify_as(0, {});  // Redis 7.0's XREADGROUP publishes only a new consumer's event
      xreadgroup_serve(ctx, key, h, groups[k], consumername, gt, history, served_count, noack);
    } else {
      StreamID start = gt;
      types::stream_id_incr(start);
      reply_stream_range(ctx, s, start, types::kStreamMaxId, served_count, false);
    }
  }
  if (arraylen != 0) {
    top.set(arraylen);
    return;
  }
  // Nothing to serve: a timeout reply, whether the wait ended, was never allowed (MULTI,
  // scripts) or no BLOCK was asked.
  (void)timeout;
  ctx.out.null_array();
}

}  // namespace

void xread(Context& ctx) {
  xread_generic(ctx, false);
}
void xreadgroup(Context& ctx) {
  xread_generic(ctx, true);
}

// ---------------------------------------------------------------------------------------
// XREAD / XREADGROUP under the blocking framework (blocking.hpp).

namespace {

// The option scan of xreadCommand, without replies: where BLOCK's value and the streams are.
struct XReadShape {
  bool ok = false;
  bool group = false;
  std::size_t block_at = 0;
  std::size_t streams_arg = 0;
  std::size_t nstreams = 0;
  std::string_view groupname;
};

// group_cmd: XREADGROUP's options (GROUP, NOACK, ">"), else XREAD's.
XReadShape xread_shape(std::span<const std::string_view> a, bool group_cmd) {
  XReadShape x;
  for (std::size_t i = 1; i < a.size(); ++i) {
    const std::size_t more = a.size() - i - 1;
    if (iequals(a[i], "block") && more != 0) {
      x.block_at = ++i;
      if (!parse_timeout_ms(a[i], 0).error.empty()) return x;
    } else if (iequals(a[i], "count") && more != 0) {
      if (!parse_int64(a[++i])) return x;
    } else if (iequals(a[i], "streams") && more != 0) {
      x.streams_arg = i + 1;
      if ((a.size() - x.streams_arg) % 2 != 0) return x;
      x.nstreams = (a.size() - x.streams_arg) / 2;
      break;
    } else if (group_cmd && iequals(a[i], "group") && more >= 2) {
      x.group = true;
      x.groupname = a[i + 1];
      i += 2;
    } else if (!(group_cmd && iequals(a[i], "noack"))) {
      return x;
    }
  }
  if (x.streams_arg == 0 || group_cmd != x.group) return x;
  for (std::size_t k = 0; k < x.nstreams; ++k) {
    const std::string_view id = a[x.streams_arg + x.nstreams + k];
    if (id == "$" && !group_cmd) continue;
    if (id == ">" && group_cmd) continue;
    types::ParsedStreamId p;
    if (!types::stream_id_parse(id, 0, true, false, p)) return x;
  }
  x.ok = true;
  return x;
}

template <bool kGroup>
bool xread_args_ok(std::span<const std::string_view> a) {
  return xread_shape(a, kGroup).ok;
}

template <bool kGroup>
std::size_t xread_timeout_at(std::span<const std::string_view> a) {
  return xread_shape(a, kGroup).block_at;
}

// XREAD: the ID each stream waits past, "$" resolved now (what the client blocked for).
// XREADGROUP: a marker, so the handler knows a wait ended (its errors differ then).
template <bool kGroup>
std::string xread_memo(store::Db& db, std::span<const std::string_view> a) {
  const XReadShape x = xread_shape(a, kGroup);
  if (x.group) return "g";
  std::string memo(x.nstreams * sizeof(StreamID), '\0');
  for (std::size_t k = 0; k < x.nstreams; ++k) {
    const std::string_view idarg = a[x.streams_arg + x.nstreams + k];
    StreamID id;
    if (idarg == "$") {
      const Entry e = db.peek(a[x.streams_arg + k]);
      if (e && e.type() == Type::kStream) id = stream_in(e)->last_id;
    } else {
      types::ParsedStreamId p;
      types::stream_id_parse(idarg, 0, true, false, p);
      id = p.id;
    }
    std::memcpy(memo.data() + k * sizeof(StreamID), &id, sizeof(StreamID));
  }
  return memo;
}

template <bool kGroup>
BlockingSpec::Serve xread_serves(const Entry* e, std::span<const std::string_view> a,
                                 std::size_t index, std::string_view memo) {
  using Serve = BlockingSpec::Serve;
  const XReadShape x = xread_shape(a, kGroup);
  if (x.group) {
    // A missing key or group, another type or a history read: the handler answers now.
    if (e == nullptr || e->type() != Type::kStream) return Serve::kYes;
    const Stream* s = stream_in(*e);
    const types::StreamGroup* g = types::stream_group_find(s, x.groupname);
    if (g == nullptr || a[x.streams_arg + x.nstreams + index] != ">") return Serve::kYes;
    return s->length != 0 && types::stream_edge_id(s, false) > g->last_id ? Serve::kFifo
                                                                          : Serve::kNo;
  }
  if (e == nullptr) return Serve::kNo;
  if (e->type() != Type::kStream) return Serve::kYes;
  const Stream* s = stream_in(*e);
  if (s->length == 0) return Serve::kNo;
  StreamID gt;
  const std::string_view idarg = a[x.streams_arg + x.nstreams + index];
  if (memo.size() >= (index + 1) * sizeof(StreamID)) {
    std::memcpy(&gt, memo.data() + index * sizeof(StreamID), sizeof(StreamID));
  } else if (idarg == "$") {
    gt = s->last_id;
  } else {
    types::ParsedStreamId p;
    types::stream_id_parse(idarg, 0, true, false, p);
    gt = p.id;
  }
  // Readers without a group take nothing away: every one is served, in any order.
  return types::stream_edge_id(s, false) > gt ? Serve::kYes : Serve::kNo;
}

template <bool kGroup>
constexpr BlockingSpec xread_spec() {
  return {.timeout_arg = 0,
          .type = Type::kStream,
          .args_ok = xread_args_ok<kGroup>,
          .timeout_at = xread_timeout_at<kGroup>,
          .timeout_ms = true,
          .serves = xread_serves<kGroup>,
          .memo = xread_memo<kGroup>,
          .ends_when_not_type = kGroup};
}

}  // namespace

constexpr BlockingSpec kBlockXread = xread_spec<false>();
constexpr BlockingSpec kBlockXreadgroup = xread_spec<true>();

}  // namespace ruvio::worker::streams
