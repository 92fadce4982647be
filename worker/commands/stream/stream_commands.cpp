// Stream family, entries: XADD XDEL XTRIM XSETID, the ID and entry helpers every stream file
// uses (stream_family.hpp), and the family's declaration table. Reading (XRANGE XREVRANGE XLEN
// XREAD, XREADGROUP's parsing) is in stream_read_commands.cpp, consumer groups in
// stream_group_commands.cpp, XINFO in stream_info_commands.cpp.
//
// Arguments → worker/types/stream calls → replies, check for check as Redis 7.0's
// t_stream.c: which error wins, when a key is created (XADD, never empty but by XDEL/XTRIM),
// and what the WAL records (XADD with the ID it generated and an approximate trim rewritten
// exact, as Redis propagates it).
#include <charconv>
#include <string>
#include <vector>

#include "worker/commands/stream/stream_decls.hpp"
#include "worker/commands/stream/stream_family.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"

namespace ruvio::worker {
namespace streams {

bool parse_stream_id(Context& ctx, std::string_view arg, std::uint64_t missing_seq, bool strict,
                     StreamID& out) {
  ParsedStreamId p;
  if (!types::stream_id_parse(arg, missing_seq, strict, false, p)) {
    ctx.out.error(kInvalidStreamId);
    return false;
  }
  out = p.id;
  return true;
}

bool parse_ll(Context& ctx, std::string_view arg, std::int64_t& out) {
  const auto v = parse_int64(arg);
  if (!v) {
    ctx.out.error(err::kNotInt);
    return false;
  }
  out = *v;
  return true;
}

void nogroup(Context& ctx, std::string_view key, std::string_view group, std::string_view tail) {
  std::string msg = "NOGROUP No such key '";
  msg.append(key);
  msg.append("' or consumer group '");
  msg.append(group);
  msg.append(tail);
  ctx.out.error(msg);
}

void reply_stream_id(Context& ctx, const StreamID& id) {
  char buf[types::kStreamIdBuf];
  ctx.out.bulk(types::stream_id_format(id, buf));
}

void reply_stream_entry(Context& ctx, const StreamIter& it) {
  ctx.out.array(2);
  reply_stream_id(ctx, it.id());
  ctx.out.array(static_cast<std::size_t>(it.num_fields()) * 2);
  it.for_each_pair([&](const types::Listpack::Entry& f, const types::Listpack::Entry& v) {
    for (const auto* e : {&f, &v}) {
      if (e->is_int) {
        ctx.out.bulk_int(e->i);
      } else {
        ctx.out.bulk(e->str);
      }
    }
  });
}

void DeferredLen::set(std::size_t n) {
  char head[32];
  head[0] = prefix_;
  char* p = std::to_chars(head + 1, head + 24, n).ptr;
  *p++ = '\r';
  *p++ = '\n';
  out_.insert(at_, head, static_cast<std::size_t>(p - head));
}

std::size_t reply_stream_range(Context& ctx, const Stream* s, const StreamID& start,
                               const StreamID& end, std::size_t count, bool rev) {
  DeferredLen len(ctx);
  std::size_t n = 0;
  StreamIter it(s, start, end, rev);
  while ((count == 0 || n < count) && it.next()) {
    reply_stream_entry(ctx, it);
    ++n;
  }
  len.set(n);
  return n;
}

bool parse_interval(Context& ctx, std::string_view arg, StreamID& id, bool& ex,
                    std::uint64_t missing_seq) {
  ex = arg.size() > 1 && arg[0] == '(';
  if (ex) return parse_stream_id(ctx, arg.substr(1), missing_seq, true, id);
  return parse_stream_id(ctx, arg, missing_seq, false, id);
}

namespace {

types::StreamLimits stream_limits(Context& ctx) {
  const Config& c = ctx.shard.config();
  return {c.stream_node_max_bytes, static_cast<std::int64_t>(c.stream_node_max_entries)};
}

// ---------------------------------------------------------------------------------------
// XADD / XTRIM options (streamParseAddOrTrimArgsOrReply).

struct AddTrimArgs {
  StreamTrim trim;
  ParsedStreamId id;
  bool id_given = false;
  bool no_mkstream = false;
  std::size_t trim_arg = 0;  // the MAXLEN/MINID value's position
};

constexpr std::string_view kBothStrategies =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";

// Returns the ID's position (XADD) or the end (XTRIM); 0 after replying an error.
std::size_t parse_add_trim(Context& ctx, AddTrimArgs& a, bool xadd) {
  std::size_t i = 2;
  bool limit_given = false;
  const std::size_t argc = ctx.argc();
  for (; i < argc; ++i) {
    const std::size_t more = argc - 1 - i;
    const std::string_view opt = ctx.args[i];
    if (xadd && opt == "*") break;
    const bool maxlen = iequals(opt, "maxlen"), minid = iequals(opt, "minid");
    if ((maxlen || minid) && more != 0) {
      if (a.trim.strategy != StreamTrim::kNone) {
        ctx.out.error(kBothStrategies);
        return 0;
      }
      a.trim.approx = false;
      const std::string_view next = ctx.args[i + 1];
      if (more >= 2 && next == "~") {
        a.trim.approx = true;
        ++i;
      } else if (more >= 2 && next == "=") {
        ++i;
      }
      if (maxlen) {
        if (!parse_ll(ctx, ctx.args[i + 1], a.trim.maxlen)) return 0;
        if (a.trim.maxlen < 0) {
          ctx.out.error("ERR The MAXLEN argument must be >= 0.");
          return 0;
        }
        a.trim.strategy = StreamTrim::kMaxLen;
      } else {
        if (!parse_stream_id(ctx, ctx.args[i + 1], 0, true, a.trim.minid)) return 0;
        a.trim.strategy = StreamTrim::kMinId;
      }
      ++i;
      a.trim_arg = i;
    } else if (iequals(opt, "limit") && more != 0) {
      if (!parse_ll(ctx, ctx.args[i + 1], a.trim.limit)) return 0;
      if (a.trim.limit < 0) {
        ctx.out.error("ERR The LIMIT argument must be >= 0.");
        return 0;
      }
      limit_given = true;
      ++i;
    } else if (xadd && iequals(opt, "nomkstream")) {
      a.no_mkstream = true;
    } else if (xadd) {
      if (!types::stream_id_parse(opt, 0, true, true, a.id)) {
        ctx.out.error(kInvalidStreamId);
        return 0;
      }
      a.id_given = true;
      break;
    } else {
      ctx.out.error(err::kSyntax);
      return 0;
    }
  }
  if (a.trim.limit != 0 && a.trim.strategy == StreamTrim::kNone) {
    ctx.out.error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return 0;
  }
  if (!xadd && a.trim.strategy == StreamTrim::kNone) {
    ctx.out.error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return 0;
  }
  if (limit_given) {
    if (!a.trim.approx) {
      ctx.out.error("ERR syntax error, LIMIT cannot be used without the special ~ option");
      return 0;
    }
  } else if (a.trim.approx) {
    std::int64_t lim = 100 * stream_limits(ctx).node_max_entries;
    if (lim <= 0 || lim > 10000) lim = 10000;
    a.trim.limit = lim;
  } else {
    a.trim.limit = 0;
  }
  return i;
}

// The exact trim an approximate one amounted to (streamRewriteTrimArgument): MAXLEN = the
// length left, MINID = the first entry left. Replay trims exactly that, with no LIMIT.
std::string exact_trim_value(const Stream* s, const StreamTrim& t) {
  if (t.strategy == StreamTrim::kMaxLen) return std::to_string(s->length);
  char buf[types::kStreamIdBuf];
  return std::string(types::stream_id_format(types::stream_edge_id(s, true), buf));
}

void xadd(Context& ctx) {
  AddTrimArgs a;
  const std::size_t idpos = parse_add_trim(ctx, a, true);
  if (idpos == 0) return;
  const std::size_t field_pos = idpos + 1;
  if (field_pos > ctx.argc() || ctx.argc() - field_pos < 2 || (ctx.argc() - field_pos) % 2 == 1) {
    ctx.out.error("ERR wrong number of arguments for 'xadd' command");
    return;
  }
  if (a.id_given && a.id.seq_given && a.id.id.zero()) {
    ctx.out.error("ERR The ID specified in XADD must be greater than 0-0");
    return;
  }
  const std::string_view key = ctx.args[1];
  store::WriteHandle h = ctx.db().open(key, Type::kStream, ctx.now_ms());
  if (h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return;
  }
  if (!h) {
    if (a.no_mkstream) {
      ctx.out.null();
      return;
    }
    h.set(types::stream_create(h.heap()));
  }
  Stream* s = h.mut_as<Stream>();
  if (s->last_id == types::kStreamMaxId) {
    ctx.out.error("ERR The stream has exhausted the last possible ID, unable to add more items");
    return;
  }
  StreamID id;
  const auto r =
      types::stream_append(h.heap(), s, a.id_given ? &a.id : nullptr, ctx.args.subspan(field_pos),
                           stream_limits(ctx), ctx.now_ms(), &id);
  if (r != types::StreamAppend::kOk) {
    h.notify_as(0, {});  // refused: nothing was added
    // A sequence that cannot grow past "<ms>-*": 7.0.15 picks its text by a stale errno
    // (EDOM if the last failure left it, else this one); a fresh connection gets this one.
    const bool seq_overflow = r == types::StreamAppend::kIdTooSmall && a.id_given &&
                              !a.id.seq_given && s->last_id.ms == a.id.id.ms;
    if (r == types::StreamAppend::kIdTooSmall && !seq_overflow) {
      ctx.out.error(
          "ERR The ID specified in XADD is equal or smaller than the target stream top item");
    } else {
      ctx.out.error("ERR Elements are too large to be stored");
    }
    return;
  }
  h.changed();
  reply_stream_id(ctx, id);
  const bool trimmed =
      a.trim.strategy != StreamTrim::kNone && types::stream_trim(h.heap(), s, a.trim) != 0;

  // The effect: the ID as generated, an approximate trim as the exact one it was.
  static thread_local std::vector<std::string_view> eff;
  char idbuf[types::kStreamIdBuf];
  std::string trim_value;
  eff.assign(ctx.args.begin(), ctx.args.end());
  if (a.trim.approx) {
    trim_value = exact_trim_value(s, a.trim);
    eff[a.trim_arg - 1] = "=";
    eff[a.trim_arg] = trim_value;
    // LIMIT n (two arguments) goes: exact trims take no LIMIT.
    for (std::size_t j = 2; j + 1 < idpos; ++j) {
      if (iequals(eff[j], "limit") && j != a.trim_arg) {
        eff.erase(eff.begin() + static_cast<std::ptrdiff_t>(j),
                  eff.begin() + static_cast<std::ptrdiff_t>(j + 2));
        break;
      }
    }
  }
  const std::size_t shift = ctx.argc() - eff.size();
  eff[idpos - shift] = types::stream_id_format(id, idbuf);
  ctx.log_as(std::span<const std::string_view>(eff));
  h.release();  // "xadd", then "xtrim" when the trim removed entries, as Redis
  if (trimmed) ctx.notify(kNotifyStream, "xtrim", key);
}

// ---------------------------------------------------------------------------------------
// XDEL / XTRIM / XSETID.

void xdel(Context& ctx) {
  store::WriteHandle h = ctx.db().open(ctx.args[1], Type::kStream, ctx.now_ms());
  if (h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return;
  }
  if (!h) {
    ctx.out.integer(0);
    return;
  }
  static thread_local std::vector<StreamID> ids;
  ids.clear();
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    StreamID id;
    if (!parse_stream_id(ctx, ctx.args[j], 0, true, id)) return;
    ids.push_back(id);
  }
  Stream* s = h.mut_as<Stream>();
  std::int64_t deleted = 0;
  bool first_entry = false;
  for (const StreamID& id : ids) {
    // Only a deletion writes: a miss leaves WATCH and the WAL untouched.
    StreamIter probe(s, id, id, false);
    if (!probe.next()) continue;
    types::stream_delete(h.heap(), s, id);
    h.changed();
    if (id == s->first_id) first_entry = true;
    if (id > s->max_deleted_id) s->max_deleted_id = id;
    ++deleted;
  }
  if (deleted != 0) {
    if (s->length == 0) {
      s->first_id = types::kStreamMinId;
    } else if (first_entry) {
      s->first_id = types::stream_edge_id(s, true);
    }
  }
  ctx.out.integer(deleted);
}

void xtrim(Context& ctx) {
  AddTrimArgs a;
  if (parse_add_trim(ctx, a, false) == 0) return;
  store::WriteHandle h = ctx.db().open(ctx.args[1], Type::kStream, ctx.now_ms());
  if (h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return;
  }
  if (!h) {
    ctx.out.integer(0);
    return;
  }
  // Trim a copy of the decision first: only a trim that removes something writes.
  Stream* s = h.mut_as<Stream>();
  if (a.trim.strategy == StreamTrim::kMaxLen &&
      s->length <= static_cast<std::uint64_t>(a.trim.maxlen)) {
    ctx.out.integer(0);
    return;
  }
  if (a.trim.strategy == StreamTrim::kMinId &&
      (s->length == 0 || types::stream_edge_id(s, true) >= a.trim.minid)) {
    ctx.out.integer(0);
    return;
  }
  const std::int64_t deleted = types::stream_trim(h.heap(), s, a.trim);
  if (deleted != 0) h.changed();
  if (deleted != 0 && a.trim.approx) {
    static thread_local std::vector<std::string_view> eff;
    eff.assign(ctx.args.begin(), ctx.args.end());
    const std::string value = exact_trim_value(s, a.trim);
    eff[a.trim_arg - 1] = "=";
    eff[a.trim_arg] = value;
    for (std::size_t j = 2; j + 1 < eff.size(); ++j) {
      if (iequals(eff[j], "limit") && j != a.trim_arg) {
        eff.erase(eff.begin() + static_cast<std::ptrdiff_t>(j),
                  eff.begin() + static_cast<std::ptrdiff_t>(j + 2));
        break;
      }
    }
    ctx.log_as(std::span<const std::string_view>(eff));
  }
  ctx.out.integer(deleted);
}

void xsetid(Context& ctx) {
  StreamID id, max_xdel;
  std::int64_t entries_added = -1;
  if (!parse_stream_id(ctx, ctx.args[2], 0, true, id)) return;
  for (std::size_t i = 3; i < ctx.argc();) {
    const bool more = ctx.argc() - 1 - i > 0;
    const std::string_view opt = ctx.args[i];
    if (iequals(opt, "entriesadded") && more) {
      if (!parse_ll(ctx, ctx.args[i + 1], entries_added)) return;
      if (entries_added < 0) {
        ctx.out.error("ERR entries_added must be positive");
        return;
      }
      i += 2;
    } else if (iequals(opt, "maxdeletedid") && more) {
      if (!parse_stream_id(ctx, ctx.args[i + 1], 0, true, max_xdel)) return;
      if (id < max_xdel) {
        ctx.out.error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
        return;
      }
      i += 2;
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  store::WriteHandle h = ctx.db().open(ctx.args[1], Type::kStream, ctx.now_ms());
  if (h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return;
  }
  if (!h) {
    ctx.out.error(err::kNoSuchKey);
    return;
  }
  Stream* s = h.mut_as<Stream>();
  if (s->length > 0) {
    if (id < types::stream_edge_id(s, false)) {
      ctx.out.error("ERR The ID specified in XSETID is smaller than the target stream top item");
      return;
    }
    if (entries_added != -1 && s->length > static_cast<std::uint64_t>(entries_added)) {
      ctx.out.error(
          "ERR The entries_added specified in XSETID is smaller than the target stream length");
      return;
    }
  }
  s->last_id = id;
  if (entries_added != -1) s->entries_added = static_cast<std::uint64_t>(entries_added);
  if (!max_xdel.zero()) s->max_deleted_id = max_xdel;
  h.changed_unsignalled();  // Redis: dirty++, no signalModifiedKey
  ctx.out.ok();
}

// ---------------------------------------------------------------------------------------
// The declaration table (XGROUP and XINFO dispatch in the executor, so each subcommand's own
// flags decide: XGROUP CREATE is a write the WAL records): each row its decl (stream_decls.hpp),
// its handler and Ruvio's own traits.

const CommandDef kXGroupSubs[] = {
    {&decl::xgroup_create, xgroup_create},
    {&decl::xgroup_setid, xgroup_setid},
    {&decl::xgroup_destroy, xgroup_destroy},
    {&decl::xgroup_createconsumer, xgroup_createconsumer},
    {&decl::xgroup_delconsumer, xgroup_delconsumer},
    {&decl::xgroup_help, xgroup_help},
};

const CommandDef kXInfoSubs[] = {
    {&decl::xinfo_stream, xinfo_stream},
    {&decl::xinfo_groups, xinfo_groups},
    {&decl::xinfo_consumers, xinfo_consumers},
    {&decl::xinfo_help, xinfo_help},
};

const CommandDef kStreamCommands[] = {
    {&decl::xadd, xadd},
    {&decl::xrange, xrange},
    {&decl::xrevrange, xrevrange},
    {&decl::xlen, xlen},
    {&decl::xdel, xdel},
    {&decl::xtrim, xtrim},
    {.decl = &decl::xread, .handler = xread, .blocking = &kBlockXread},
    {.decl = &decl::xgroup, .handler = nullptr, .subcommands = kXGroupSubs},
    {.decl = &decl::xreadgroup, .handler = xreadgroup, .blocking = &kBlockXreadgroup},
    {&decl::xack, xack},
    {&decl::xpending, xpending},
    {&decl::xclaim, xclaim},
    {&decl::xautoclaim, xautoclaim},
    {.decl = &decl::xinfo, .handler = nullptr, .subcommands = kXInfoSubs},
    {&decl::xsetid, xsetid},
};

}  // namespace
}  // namespace streams

std::span<const CommandDef> stream_commands() {
  return streams::kStreamCommands;
}

}  // namespace ruvio::worker
