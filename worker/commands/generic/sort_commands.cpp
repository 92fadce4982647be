// SORT and SORT_RO: the elements of a list, set or sorted set, ordered by their own value or by
// keys a BY pattern names, optionally replaced by the values GET patterns name, replied or
// STOREd as a list.
//
// The decisions are Redis 7.0's sort.c, in its order: options are parsed before the key is
// looked up (so a syntax error beats WRONGTYPE); a BY pattern without '*' means "do not sort"
// (a set is then still sorted ALPHA when STOREd, so the stored list does not depend on the
// set's iteration order); a sorted set is converted to a skiplist first, as Redis does
// destructively; with "do not sort" a list or sorted set keeps its own order, DESC walks it
// from the end and LIMIT picks the range; numeric weights are strtod of the whole text (a
// missing BY key weighs 0, a bad one fails the whole command); equal weights fall back to
// the bytes of the elements; ALPHA compares as strcoll in the C locale (bytes up to a NUL), or
// whole bytes when STOREing; ALPHA BY puts missing weights first.
//
// Ownership: the handler runs on the worker that owns the sorted key. A BY or GET pattern may
// name a key another worker owns; that key cannot be read or written here, so the command
// answers an error naming it before anything is replied or written (so does a STORE
// destination there, which the key finders refuse first: sort_getkeys gives the router, the
// transactions, scripts, ACL and the cluster check the STORE key, as Redis's sortGetKeys
// does, and a SORT … STORE across owners is -CROSSSLOT). Keys under the sorted key's hash tag
// always live here. On the direct (cluster) ports BY and GET are refused as Redis Cluster
// refuses them.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "shared/slots.hpp"
#include "shared/topology.hpp"
#include "worker/commands/generic/sort_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/types/hash/hash.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::worker {
namespace {

using store::Entry;
using types::Listpack;
using types::Type;

struct SortItem {
  std::string elem;
  double score = 0;
  std::optional<std::string> weight;  // ALPHA BY: the BY value, absent when the key is missing
};

struct SortOptions {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;
  std::int64_t limit_start = 0;
  std::int64_t limit_count = -1;
  std::optional<std::string_view> by;
  std::optional<std::string_view> store;
  std::vector<std::string_view> gets;
};

// C-string views of a pattern: Redis searches it with strchr/strstr, which stop at a NUL.
std::string_view c_prefix(std::string_view s) {
  return s.substr(0, std::min(s.find('\0'), s.size()));
}

bool foreign_key(Context& ctx, std::string_view key) {
  const Topology* t = ctx.shard.topology;
  return t != nullptr && !t->worker_owns(ctx.shard.worker_id(), key_slot(key));
}

// lookupKeyByPattern: the value `pattern` names for element `subst`, nullopt when there is
// none. `foreign` is set (and nullopt returned) when the key it names lives on another worker.
class PatternLookup {
 public:
  PatternLookup(Context& ctx, bool writing) : ctx_(ctx), writing_(writing) {}

  std::optional<std::string> get(std::string_view pattern, std::string_view subst) {
    const std::string_view c = c_prefix(pattern);
    if (c == "#") return std::string(subst);
    const std::size_t star = c.find('*');
    if (star == std::string_view::npos) return std::nullopt;
    std::size_t fieldlen = 0;
    std::string_view field;
    const std::size_t arrow = c.find("->", star + 1);
    if (arrow != std::string_view::npos && arrow + 2 < c.size()) {
      fieldlen = pattern.size() - arrow - 2;
      field = pattern.substr(arrow + 2, fieldlen);
    }
    const std::size_t postfix = pattern.size() - star - 1 - (fieldlen ? fieldlen + 2 : 0);
    key_.assign(pattern.substr(0, star));
    key_.append(subst);
    key_.append(pattern.substr(star + 1, postfix));
    if (foreign_key(ctx_, key_)) {
      foreign = key_;
      return std::nullopt;
    }
    const Entry e = lookup(ctx_, key_, writing_ ? Access::kWrite : Access::kRead);
    if (!e) return std::nullopt;
    if (fieldlen) {
      if (e.type() != Type::kHash) return std::nullopt;
      Listpack::IntBuf buf;
      const auto v = types::hash::get(static_cast<const types::hash::Hash*>(e.object()), field, buf,
                                      ctx_.now_ms());
      if (!v) return std::nullopt;
      return std::string(*v);
    }
    if (e.type() != Type::kString) return std::nullopt;
    char buf[32];
    return std::string(e.is_int() ? format_int64(e.int_value(), buf) : e.str());
  }

  std::optional<std::string> foreign;

 private:
  Context& ctx_;
  bool writing_;
  std::string key_;
};

void reply_foreign(Context& ctx, std::string_view what, std::string_view key) {
  std::string e = "ERR SORT ";
  e.append(what).append(" key '").append(key).append("' is owned by another worker");
  ctx.out.error(e);
}

// False after an error reply.
bool parse_options(Context& ctx, bool readonly, SortOptions& o) {
  // BY/GET patterns reach keys no ACL pattern was checked against: Redis allows them only
  // to a user with read access to every key for this command.
  const bool full_access = ctx.client.user == nullptr || !ctx.client.user->restricted ||
                           acl::full_key_access(*ctx.client.user, *ctx.command, ctx.args);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const std::string_view a = ctx.args[j];
    const std::size_t left = ctx.argc() - j - 1;
    if (iequals(a, "asc")) {
      o.desc = false;
    } else if (iequals(a, "desc")) {
      o.desc = true;
    } else if (iequals(a, "alpha")) {
      o.alpha = true;
    } else if (iequals(a, "limit") && left >= 2) {
      const auto s = parse_int64(ctx.args[j + 1]);
      const auto c = s ? parse_int64(ctx.args[j + 2]) : std::nullopt;
      if (!s || !c) {
        ctx.out.error(err::kNotInt);
        return false;
      }
      o.limit_start = *s;
      o.limit_count = *c;
      j += 2;
    } else if (!readonly && iequals(a, "store") && left >= 1) {
      o.store = ctx.args[++j];
    } else if (iequals(a, "by") && left >= 1) {
      o.by = ctx.args[++j];
      if (c_prefix(*o.by).find('*') == std::string_view::npos) {
        o.dontsort = true;
      } else if (ctx.client.cluster_mode) {
        ctx.out.error("ERR BY option of SORT denied in Cluster mode.");
        return false;
      } else if (!full_access) {
        ctx.out.error("ERR BY option of SORT denied due to insufficient ACL permissions.");
        return false;
      }
    } else if (iequals(a, "get") && left >= 1) {
      if (ctx.client.cluster_mode) {
        ctx.out.error("ERR GET option of SORT denied in Cluster mode.");
        return false;
      }
      if (!full_access) {
        ctx.out.error("ERR GET option of SORT denied due to insufficient ACL permissions.");
        return false;
      }
      o.gets.push_back(ctx.args[++j]);
    } else {
      ctx.out.error(err::kSyntax);
      return false;
    }
  }
  return true;
}

// The elements of the sorted key in its own order; for a list or zset under "do not sort", only
// ranks [start, end] (walked from the end with DESC).
void load(Context& ctx, const Entry& e, bool ranged, bool desc, std::int64_t start,
          std::int64_t end, std::vector<SortItem>& items) {
  Listpack::IntBuf buf;
  if (e.type() == Type::kList) {
    types::ListObject scratch;  // the view of a list inline in its record
    const types::Quicklist ql(ctx.db().heap(),
                              const_cast<types::ListObject*>(types::list_view(e.object(), scratch)),
                              ctx.shard.config().list_max_listpack_size);
    auto text = [&](types::ListPos p) { return std::string(ql.lp(p.node).get_str(p.pos, buf)); };
    if (!ranged) {
      for (types::ListPos p = ql.first(); p; p = ql.next(p))
        items.push_back(SortItem{text(p), 0, std::nullopt});
      return;
    }
    // BY nosort: the list's own order (from the tail with DESC), only ranks [start, end].
    if (end < start) return;
    types::ListPos p = ql.seek(desc ? -start - 1 : start);
    for (std::int64_t i = start; i <= end && p; ++i) {
      items.push_back(SortItem{text(p), 0, std::nullopt});
      p = desc ? ql.prev(p) : ql.next(p);
    }
    return;
  }
  if (e.type() == Type::kSet) {
    types::set::for_each(static_cast<const types::SetObject*>(e.object()),
                         [&](const types::SetElem& m) {
                           items.push_back(SortItem{std::string(m.text(buf)), 0, std::nullopt});
                         });
    return;
  }
  const auto* z = static_cast<const types::ZSet*>(e.object());
  const auto n = static_cast<std::int64_t>(types::zset_size(z));
  if (!ranged) {
    for (types::ZCursor c = types::zset_at(z, 0); c.valid(); c.next())
      items.push_back(SortItem{std::string(c.member(buf)), 0, std::nullopt});
    return;
  }
  if (end < start) return;
  types::ZCursor c = types::zset_at(z, static_cast<std::size_t>(desc ? n - 1 - start : start));
  for (std::int64_t i = start; i <= end && c.valid(); ++i) {
    items.push_back(SortItem{std::string(c.member(buf)), 0, std::nullopt});
    if (desc) {
      c.prev();
    } else {
      c.next();
    }
  }
}

// strtod of the whole text as Redis reads a weight; false for trailing bytes, overflow, NaN.
bool weight_of(const std::string& s, double& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(out);
}

void sort_generic(Context& ctx, bool readonly) {
  SortOptions o;
  if (!parse_options(ctx, readonly, o)) return;
  const bool storing = o.store.has_value();
  if (storing && foreign_key(ctx, *o.store)) {
    reply_foreign(ctx, "STORE destination", *o.store);
    return;
  }
  const std::string_view key = ctx.args[1];
  Entry e = lookup(ctx, key, storing ? Access::kWrite : Access::kRead);
  if (e && e.type() != Type::kSet && e.type() != Type::kZSet && e.type() != Type::kList) {
    ctx.out.error(err::kWrongType);
    return;
  }
  if (o.dontsort && e && e.type() == Type::kSet && storing) {
    o.dontsort = false;
    o.alpha = true;
    o.by.reset();
  }
  if (e && e.type() == Type::kZSet) {
    // Redis converts a listpack zset for SORT, for good (OBJECT ENCODING shows it afterwards);
    // not a logical change, so nothing is signalled.
    store::WriteHandle h = ctx.db().open(key, Type::kZSet, ctx.now_ms());
    types::zset_to_skiplist(h.heap(), h.mut_as<types::ZSet>());
    h.reencoded();
  }
  if (e) e = ctx.db().find(key, ctx.now_ms());

  std::int64_t len = 0;
  if (e) {
    if (e.type() == Type::kSet) {
      len = static_cast<std::int64_t>(
          types::set::size(static_cast<const types::SetObject*>(e.object())));
    } else if (e.type() == Type::kZSet) {
      len =
          static_cast<std::int64_t>(types::zset_size(static_cast<const types::ZSet*>(e.object())));
    } else {
      types::ListObject scratch;
      len = static_cast<std::int64_t>(types::list_view(e.object(), scratch)->count);
    }
  }
  std::int64_t start = o.limit_start < 0 ? 0 : o.limit_start;
  // start + count - 1 computed without overflow: a huge count reaches the end, as it does in
  // redis-server (whose long arithmetic there is undefined, but compiles to this).
  std::int64_t end = len - 1;
  if (o.limit_count >= 0 && o.limit_count < len - start) end = start + o.limit_count - 1;
  if (start >= len) {
    start = len - 1;
    end = len - 2;
  }
  if (end >= len) end = len - 1;

  static std::vector<SortItem> items;
  items.clear();
  const bool ranged = e && (e.type() == Type::kZSet || e.type() == Type::kList) && o.dontsort;
  if (e) load(ctx, e, ranged, o.desc, start, end, items);
  if (ranged) {
    end -= start;
    start = 0;
  }

  PatternLookup pl(ctx, storing);
  bool bad_weight = false;
  if (!o.dontsort) {
    for (SortItem& it : items) {
      std::optional<std::string> by;
      if (o.by) {
        by = pl.get(*o.by, it.elem);
        if (pl.foreign) {
          reply_foreign(ctx, "BY pattern", *pl.foreign);
          return;
        }
        if (!by) continue;
      }
      const std::string& w = o.by ? *by : it.elem;
      if (o.alpha) {
        if (o.by) it.weight = std::move(by);
      } else if (!weight_of(w, it.score)) {
        bad_weight = true;
      }
    }
    const bool alpha = o.alpha, by = o.by.has_value(), desc = o.desc;
    // ALPHA compares with strcoll (the C locale's byte order, up to a NUL) unless STOREing,
    // where Redis compares the whole bytes.
    auto text_compare = [storing](std::string_view a, std::string_view b) {
      return storing ? a.compare(b) : c_prefix(a).compare(c_prefix(b));
    };
    std::stable_sort(items.begin(), items.end(), [&](const SortItem& a, const SortItem& b) {
      int cmp;
      if (!alpha) {
        cmp = a.score > b.score ? 1 : a.score < b.score ? -1 : a.elem.compare(b.elem);
      } else if (by) {
        if (!a.weight || !b.weight) {
          cmp = a.weight.has_value() == b.weight.has_value() ? 0 : !a.weight ? -1 : 1;
        } else {
          cmp = text_compare(*a.weight, *b.weight);
        }
      } else {
        cmp = text_compare(a.elem, b.elem);
      }
      return desc ? cmp > 0 : cmp < 0;
    });
  }
  if (bad_weight) {
    ctx.out.error("ERR One or more scores can't be converted into double");
    return;
  }

  // The output, GETs resolved first so a foreign key is refused before anything is sent.
  const std::size_t rows = end >= start ? static_cast<std::size_t>(end - start + 1) : 0;
  static std::vector<std::optional<std::string>> out;
  out.clear();
  for (std::size_t j = 0; j < rows; ++j) {
    const SortItem& it = items[static_cast<std::size_t>(start) + j];
    if (o.gets.empty()) {
      out.emplace_back(it.elem);
      continue;
    }
    for (std::string_view g : o.gets) {
      out.push_back(pl.get(g, it.elem));
      if (pl.foreign) {
        reply_foreign(ctx, "GET pattern", *pl.foreign);
        return;
      }
    }
  }
  if (!storing) {
    ctx.out.array(out.size());
    for (const auto& v : out) {
      if (v) {
        ctx.out.bulk(*v);
      } else {
        ctx.out.null();
      }
    }
    return;
  }
  const std::string_view dst = *o.store;
  if (out.empty()) {
    if (ctx.db().erase(dst, ctx.shard.config().lazyfree_lazy_server_del)) {
      ctx.notify(kNotifyGeneric, "del", dst);
      ctx.log_as({"DEL", dst});
    }
    ctx.out.integer(0);
    return;
  }
  // STORE writes a new list over whatever dst held (a missing GET stores ""). Logged as the
  // SORT itself, as Redis replicates it: replay sorts the same data to the same list.
  // Built apart and stored over dst (Redis's setKey: "new" only when dst did not exist).
  store::Db& db = ctx.db();
  auto* list = static_cast<types::ListObject*>(types::Quicklist::create(db.heap()));
  {
    types::Quicklist ql(db.heap(), list, ctx.shard.config().list_max_listpack_size);
    for (const auto& v : out) types::list_push(ql, types::ListEnd::kTail, v ? *v : std::string());
  }
  db.set_object(dst, list, store::SetOptions{});
  ctx.notify(kNotifyList, "sortstore", dst);
  ctx.out.integer(static_cast<std::int64_t>(out.size()));
}

void cmd_sort(Context& ctx) {
  sort_generic(ctx, false);
}

void cmd_sort_ro(Context& ctx) {
  sort_generic(ctx, true);
}

// Redis 7.0's sortGetKeys: the sorted key and the destination of the last STORE, which no key
// spec can find (STORE may come anywhere; MIGRATE's migrate_getkeys is the other such finder).
// Words are skipped as Redis skips them: LIMIT with two arguments, GET and BY with one, anything
// else alone, so a STORE's key is itself read as the next word (SORT k STORE GET STORE x stores
// into "GET", as Redis's finder says).
KeysFound sort_getkeys(const CommandDef& def, std::span<const std::string_view> args,
                       KeyVisitor visit) {
  if (args.size() < 2) return KeysFound::kInvalid;
  std::size_t store = 0;
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (iequals(args[i], "limit")) {
      i += 2;
    } else if (iequals(args[i], "get") || iequals(args[i], "by")) {
      i += 1;
    } else if (iequals(args[i], "store") && i + 1 < args.size()) {
      store = i + 1;
    }
  }
  visit.fn(visit.context, 1, def.decl->keys[0]);
  if (store != 0) visit.fn(visit.context, store, def.decl->keys[2]);
  // The keys BY and GET patterns name come from the sorted data: still unknown here.
  return KeysFound::kIncomplete;
}

const CommandDef kSortCommands[] = {
    {.decl = &decl::sort, .handler = cmd_sort, .getkeys = sort_getkeys},
    {&decl::sort_ro, cmd_sort_ro},
};

}  // namespace

std::span<const CommandDef> sort_commands() {
  return kSortCommands;
}

}  // namespace ruvio::worker
