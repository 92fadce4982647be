// Geo family: GEOADD GEODIST GEOHASH GEOPOS GEOSEARCH GEOSEARCHSTORE GEORADIUS[BYMEMBER][_RO].
//
// A geo index is a sorted set whose scores are 52-bit geohashes (worker/containers/geohash.hpp);
// this file turns arguments into calls on the zset's public API and the geo search
// (geo_search.hpp), decision for decision as Redis 7.0's geo.c: which argument is checked
// first, which error wins (WRONGTYPE before any argument of a search), when a destination
// is deleted, and how numbers are printed (distances "%.4f", coordinates as
// addReplyHumanLongDouble, hashes as integers).
//
// Journal: GEOADD and the STORE forms are logged as themselves — both replay to the same
// zset (the geohash and the search are deterministic functions of the arguments and of the
// source zset, which the log has rebuilt by then), as ZRANGESTORE is.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "worker/commands/geo/geo_decls.hpp"
#include "worker/containers/geohash.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/types/geo/geo_search.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::worker {
namespace {

using store::Entry;
using types::Type;
using types::ZSet;
namespace geo = types::geo;

constexpr std::string_view kBadMember = "ERR could not decode requested zset member";

types::ZSetLimits limits(Context& ctx) {
  const Config& c = ctx.shard.config();
  return {c.zset_max_listpack_entries, c.zset_max_listpack_value};
}

const ZSet* zset_of(Entry e) {
  return static_cast<const ZSet*>(e.object());
}

// getDoubleFromObjectOrReply.
bool double_or_reply(Context& ctx, std::string_view s, double& out,
                     std::string_view msg = err::kNotFloat) {
  auto v = parse_double(s);
  if (!v) {
    ctx.out.error(msg);
    return false;
  }
  out = *v;
  return true;
}

// extractLongLatOrReply.
bool lonlat_or_reply(Context& ctx, std::size_t i, double& lon, double& lat) {
  if (!double_or_reply(ctx, ctx.args[i], lon) || !double_or_reply(ctx, ctx.args[i + 1], lat)) {
    return false;
  }
  if (lon < geo::kLonMin || lon > geo::kLonMax || lat < geo::kLatMin || lat > geo::kLatMax) {
    std::string msg = "ERR invalid longitude,latitude pair ";
    char buf[700];  // "%f" of 1.8e308 is 309 digits and the point and 6 more
    int n = std::snprintf(buf, sizeof(buf), "%f,%f", lon, lat);
    msg.append(buf, static_cast<std::size_t>(n));
    ctx.out.error(msg);
    return false;
  }
  return true;
}

// extractUnitOrReply: meters per unit, or < 0 after an error reply.
double unit_or_reply(Context& ctx, std::string_view u) {
  if (iequals(u, "m")) return 1;
  if (iequals(u, "km")) return 1000;
  if (iequals(u, "ft")) return 0.3048;
  if (iequals(u, "mi")) return 1609.34;
  ctx.out.error("ERR unsupported unit provided. please use M, KM, FT, MI");
  return -1;
}

// extractDistanceOrReply: `radius unit` at args[i].
bool radius_or_reply(Context& ctx, std::size_t i, geo::Shape& s) {
  double d = 0;
  if (!double_or_reply(ctx, ctx.args[i], d, "ERR need numeric radius")) return false;
  if (d < 0) {
    ctx.out.error("ERR radius cannot be negative");
    return false;
  }
  s.radius = d;
  const double to_m = unit_or_reply(ctx, ctx.args[i + 1]);
  if (to_m < 0) return false;
  s.conversion = to_m;
  return true;
}

// extractBoxOrReply: `width height unit` at args[i].
bool box_or_reply(Context& ctx, std::size_t i, geo::Shape& s) {
  double w = 0, h = 0;
  if (!double_or_reply(ctx, ctx.args[i], w, "ERR need numeric width") ||
      !double_or_reply(ctx, ctx.args[i + 1], h, "ERR need numeric height")) {
    return false;
  }
  if (h < 0 || w < 0) {
    ctx.out.error("ERR height or width cannot be negative");
    return false;
  }
  s.width = w;
  s.height = h;
  const double to_m = unit_or_reply(ctx, ctx.args[i + 2]);
  if (to_m < 0) return false;
  s.conversion = to_m;
  return true;
}

// addReplyDoubleDistance (7.0's fixedpoint_d2string with 4 digits): the distance times 10^4
// rounded by llrint (to nearest, ties to even) — not printf's "%.4f", which rounds the exact
// binary value and differs when d * 10^4 rounds to a .5 in double arithmetic.
void reply_distance(Context& ctx, double d) {
  char buf[48];
  char* p = buf;
  long long v = std::llrint(d * 10000.0);
  unsigned long long u = static_cast<unsigned long long>(v);
  if (v < 0) {
    *p++ = '-';
    u = 0 - u;
  }
  p = std::to_chars(p, buf + 40, u / 10000).ptr;
  *p++ = '.';
  const auto frac = static_cast<unsigned>(u % 10000);
  p[0] = static_cast<char>('0' + frac / 1000);
  p[1] = static_cast<char>('0' + frac / 100 % 10);
  p[2] = static_cast<char>('0' + frac / 10 % 10);
  p[3] = static_cast<char>('0' + frac % 10);
  ctx.out.bulk({buf, static_cast<std::size_t>(p + 4 - buf)});
}

// addReplyHumanLongDouble.
void reply_coord(Context& ctx, double v) {
  char buf[64];
  ctx.out.double_text(format_long_double_human(v, buf, sizeof(buf)));
}

// ---------------------------------------------------------------------------------------
// GEOADD key [NX|XX] [CH] lon lat member ... (geoaddCommand, then zaddCommand's work).

void geoadd(Context& ctx) {
  bool nx = false, xx = false, ch = false;
  std::size_t first = 2;
  for (; first < ctx.argc(); ++first) {
    std::string_view opt = ctx.args[first];
    if (iequals(opt, "nx")) {
      nx = true;
    } else if (iequals(opt, "xx")) {
      xx = true;
    } else if (iequals(opt, "ch")) {
      ch = true;
    } else {
      break;
    }
  }
  const std::size_t rest = ctx.argc() - first;
  // No triple at all reaches ZADD, whose answer is the same syntax error.
  if (rest % 3 != 0 || (nx && xx) || rest == 0) {
    ctx.out.error(err::kSyntax);
    return;
  }
  const std::size_t elements = rest / 3;
  static thread_local std::vector<double> scores;
  scores.clear();
  for (std::size_t j = 0; j < elements; ++j) {
    double lon = 0, lat = 0;
    if (!lonlat_or_reply(ctx, first + j * 3, lon, lat)) return;
    scores.push_back(static_cast<double>(geo::score_of(lon, lat)));
  }

  store::WriteHandle h;
  if (!open_or_reply(ctx, ctx.args[1], Type::kZSet, IfMissing::kNothing, h)) return;
  h.notify_as(kNotifyZset, "zadd");  // GEOADD is ZADD in Redis
  if (!h) {
    if (xx) {
      ctx.out.integer(0);
      return;
    }
    const types::ZSetLimits lim = limits(ctx);
    h.set(types::zset_create(h.heap(), elements, ctx.args[first + 2].size(), lim));
  } else if (elements > limits(ctx).max_entries &&
             types::kZSetOps.encoding(h.peek()) == "listpack") {
    // zsetTypeMaybeConvert. Asked through OBJECT ENCODING's name, not the zset's fields:
    // only a conversion may mark the key written (a GEOADD NX of present members is none).
    types::zset_maybe_convert(h.heap(), h.as<ZSet>(), elements, limits(ctx));
  }
  const types::ZSetLimits lim = limits(ctx);
  const unsigned flags = (nx ? unsigned{types::kZNx} : 0u) | (xx ? unsigned{types::kZXx} : 0u);
  std::size_t added = 0, updated = 0;
  // changed() only when something changes (a GEOADD NX of present members is no write).
  auto* z = h.mut_as<ZSet>();
  for (std::size_t j = 0; j < elements; ++j) {
    unsigned out = 0;
    types::zset_add(h.heap(), z, scores[j], ctx.args[first + j * 3 + 2], flags, &out, nullptr, lim);
    if (out & types::kZAdded) ++added;
    if (out & types::kZUpdated) ++updated;
  }
  if (added || updated) h.changed();
  ctx.out.integer(static_cast<std::int64_t>(ch ? added + updated : added));
}

// ---------------------------------------------------------------------------------------
// GEODIST, GEOHASH, GEOPOS.

void geodist(Context& ctx) {
  double to_m = 1;
  if (ctx.argc() == 5) {
    to_m = unit_or_reply(ctx, ctx.args[4]);
    if (to_m < 0) return;
  } else if (ctx.argc() > 5) {
    ctx.out.error(err::kSyntax);
    return;
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  if (!e) {
    ctx.out.null();
    return;
  }
  auto s1 = types::zset_score(zset_of(e), ctx.args[2]);
  auto s2 = s1 ? types::zset_score(zset_of(e), ctx.args[3]) : std::nullopt;
  double xy[4];
  if (!s2 || !geo::decode_score(*s1, xy[0], xy[1]) || !geo::decode_score(*s2, xy[2], xy[3])) {
    ctx.out.null();
    return;
  }
  reply_distance(ctx, geo::distance(xy[0], xy[1], xy[2], xy[3]) / to_m);
}

void geohash(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  ctx.out.array(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    std::optional<double> s;
    if (e) s = types::zset_score(zset_of(e), ctx.args[j]);
    if (!s) {
      ctx.out.null();
      continue;
    }
    char buf[11];
    geo::geohash_string(*s, buf);
    ctx.out.bulk({buf, sizeof(buf)});
  }
}

void geopos(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kZSet, Access::kRead, e)) return;
  ctx.out.array(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    std::optional<double> s;
    if (e) s = types::zset_score(zset_of(e), ctx.args[j]);
    double lon = 0, lat = 0;
    if (!s || !geo::decode_score(*s, lon, lat)) {
      ctx.out.null_array();
      continue;
    }
    ctx.out.array(2);
    reply_coord(ctx, lon);
    reply_coord(ctx, lat);
  }
}

// ---------------------------------------------------------------------------------------
// GEOSEARCH / GEOSEARCHSTORE / GEORADIUS* (georadiusGeneric).

enum SearchFlags : unsigned {
  kFromCoords = 1,   // GEORADIUS: lon lat radius unit
  kFromMember = 2,   // GEORADIUSBYMEMBER: member radius unit
  kNoStore = 4,      // the _RO forms: no STORE / STOREDIST
  kSearch = 8,       // GEOSEARCH's argument syntax
  kSearchStore = 16  // GEOSEARCHSTORE: destination first, STOREDIST without an argument
};
enum class Sort : std::uint8_t { kNone, kAsc, kDesc };

struct SearchArgs {
  geo::Shape shape;
  bool has_store = false;  // STORE, STOREDIST or GEOSEARCHSTORE: `store` is the destination
  std::string_view store;
  std::string_view store_event = "georadiusstore";  // GEOSEARCHSTORE's: "geosearchstore"
  bool storedist = false;
  bool withdist = false, withhash = false, withcoord = false;
  bool any = false;
  Sort sort = Sort::kNone;
  std::int64_t count = 0;  // 0: unlimited
};

// The member's position, or an error reply.
bool member_or_reply(Context& ctx, const ZSet* z, std::string_view member, geo::Shape& s) {
  auto score = types::zset_score(z, member);
  if (!score || !geo::decode_score(*score, s.lon, s.lat)) {
    ctx.out.error(kBadMember);
    return false;
  }
  return true;
}

// The options after the fixed arguments, in georadiusGeneric's order of checks. `z` is the
// source (nullptr when missing: FROMMEMBER is then accepted unchecked).
bool parse_search(Context& ctx, const ZSet* z, std::size_t base, unsigned flags, SearchArgs& a) {
  bool frommember = false, fromloc = false, byradius = false, bybox = false;
  const bool search = flags & kSearch;
  const bool may_store = !(flags & kNoStore) && !search;
  for (std::size_t i = base; i < ctx.argc(); ++i) {
    std::string_view arg = ctx.args[i];
    const std::size_t left = ctx.argc() - i - 1;  // arguments after this one
    if (iequals(arg, "withdist")) {
      a.withdist = true;
    } else if (iequals(arg, "withhash")) {
      a.withhash = true;
    } else if (iequals(arg, "withcoord")) {
      a.withcoord = true;
    } else if (iequals(arg, "any")) {
      a.any = true;
    } else if (iequals(arg, "asc")) {
      a.sort = Sort::kAsc;
    } else if (iequals(arg, "desc")) {
      a.sort = Sort::kDesc;
    } else if (iequals(arg, "count") && left >= 1) {
      auto v = parse_int64(ctx.args[i + 1]);
      if (!v) {
        ctx.out.error(err::kNotInt);
        return false;
      }
      if (*v <= 0) {
        ctx.out.error("ERR COUNT must be > 0");
        return false;
      }
      a.count = *v;
      ++i;
    } else if (iequals(arg, "store") && left >= 1 && may_store) {
      a.has_store = true;
      a.store = ctx.args[++i];
      a.storedist = false;
    } else if (iequals(arg, "storedist") && left >= 1 && may_store) {
      a.has_store = true;
      a.store = ctx.args[++i];
      a.storedist = true;
    } else if (iequals(arg, "storedist") && search && (flags & kSearchStore)) {
      a.storedist = true;
    } else if (iequals(arg, "frommember") && left >= 1 && search && !fromloc) {
      if (z != nullptr && !member_or_reply(ctx, z, ctx.args[i + 1], a.shape)) return false;
      frommember = true;
      ++i;
    } else if (iequals(arg, "fromlonlat") && left >= 2 && search && !frommember) {
      if (!lonlat_or_reply(ctx, i + 1, a.shape.lon, a.shape.lat)) return false;
      fromloc = true;
      i += 2;
    } else if (iequals(arg, "byradius") && left >= 2 && search && !bybox) {
      if (!radius_or_reply(ctx, i + 1, a.shape)) return false;
      a.shape.type = geo::Shape::kCircle;
      byradius = true;
      i += 2;
    } else if (iequals(arg, "bybox") && left >= 3 && search && !byradius) {
      if (!box_or_reply(ctx, i + 1, a.shape)) return false;
      a.shape.type = geo::Shape::kBox;
      bybox = true;
      i += 3;
    } else {
      ctx.out.error(err::kSyntax);
      return false;
    }
  }

  if (a.has_store && (a.withdist || a.withhash || a.withcoord)) {
    ctx.out.error((flags & kSearchStore) ? "ERR GEOSEARCHSTORE is not compatible with WITHDIST, "
                                           "WITHHASH and WITHCOORD options"
                                         : "ERR STORE option in GEORADIUS is not compatible with "
                                           "WITHDIST, WITHHASH and WITHCOORD options");
    return false;
  }
  if (search && !(frommember || fromloc)) {
    std::string msg = "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ";
    msg.append(ctx.args[0]);
    ctx.out.error(msg);
    return false;
  }
  if (search && !(byradius || bybox)) {
    std::string msg = "ERR exactly one of BYRADIUS and BYBOX can be specified for ";
    msg.append(ctx.args[0]);
    ctx.out.error(msg);
    return false;
  }
  if (a.any && a.count == 0) {
    ctx.out.error("ERR the ANY argument requires COUNT argument");
    return false;
  }
  return true;
}

// Writes the destination of a STORE form: the results' members with their hash (or, with
// STOREDIST, their distance in the unit) as scores; no results delete it.
void store_results(Context& ctx, const SearchArgs& a, const std::vector<geo::GeoPoint>& pts,
                   std::size_t n) {
  store::Db& db = ctx.db();
  if (n == 0) {
    if (db.erase_server(a.store)) ctx.notify(kNotifyGeneric, "del", a.store);
    ctx.out.integer(0);
    return;
  }
  // Copied out first: the destination may be the source.
  static thread_local std::vector<std::pair<std::string, double>> items;
  items.clear();
  std::size_t maxlen = 0;
  types::Listpack::IntBuf ib;
  for (std::size_t i = 0; i < n; ++i) {
    std::string_view m = pts[i].at.member(ib);
    maxlen = std::max(maxlen, m.size());
    items.emplace_back(std::string(m),
                       a.storedist ? pts[i].dist / a.shape.conversion : pts[i].score);
  }
  const types::ZSetLimits lim = limits(ctx);
  // Redis builds a skiplist and converts it when it fits a listpack: the same hints decide.
  ZSet* out = types::zset_create(db.heap(), n, maxlen, lim);
  for (const auto& [member, score] : items) {
    unsigned f = 0;
    types::zset_add(db.heap(), out, score, member, 0, &f, nullptr, lim);
  }
  db.set_object(a.store, out, store::SetOptions{});
  ctx.notify(kNotifyZset, a.store_event, a.store);
  ctx.out.integer(static_cast<std::int64_t>(n));
}

void reply_results(Context& ctx, const SearchArgs& a, const std::vector<geo::GeoPoint>& pts,
                   std::size_t n) {
  const std::size_t options = a.withdist + a.withhash + a.withcoord;
  types::Listpack::IntBuf ib;
  ctx.out.array(n);
  for (std::size_t i = 0; i < n; ++i) {
    const geo::GeoPoint& p = pts[i];
    if (options) ctx.out.array(options + 1);
    ctx.out.bulk(p.at.member(ib));
    if (a.withdist) reply_distance(ctx, p.dist / a.shape.conversion);
    if (a.withhash) ctx.out.integer(static_cast<std::int64_t>(p.score));
    if (a.withcoord) {
      ctx.out.array(2);
      reply_coord(ctx, p.lon);
      reply_coord(ctx, p.lat);
    }
  }
}

void search_generic(Context& ctx, std::size_t src, unsigned flags) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[src], Type::kZSet, Access::kRead, e)) return;
  const ZSet* z = e ? zset_of(e) : nullptr;

  SearchArgs a;
  std::size_t base = 2;
  if (flags & kFromCoords) {
    base = 6;
    if (!lonlat_or_reply(ctx, 2, a.shape.lon, a.shape.lat)) return;
    if (!radius_or_reply(ctx, 4, a.shape)) return;
  } else if (flags & kFromMember) {
    // A missing source still parses the options, to know which empty reply to give.
    base = 5;
    if (z != nullptr) {
      if (!member_or_reply(ctx, z, ctx.args[2], a.shape)) return;
      if (!radius_or_reply(ctx, 3, a.shape)) return;
    }
  } else if (flags & kSearchStore) {
    base = 3;
    a.has_store = true;
    a.store = ctx.args[1];
    a.store_event = "geosearchstore";
  }
  if (!parse_search(ctx, z, base, flags, a)) return;

  if (z == nullptr) {
    if (a.has_store) {
      if (ctx.db().erase_server(a.store)) ctx.notify(kNotifyGeneric, "del", a.store);
      ctx.out.integer(0);
    } else {
      ctx.out.array(0);
    }
    return;
  }
  // COUNT without ANY means "the nearest N": sorted even when no order was asked for.
  if (a.count != 0 && a.sort == Sort::kNone && !a.any) a.sort = Sort::kAsc;

  static thread_local std::vector<geo::GeoPoint> pts;
  pts.clear();
  geo::search(z, a.shape, a.any ? static_cast<std::size_t>(a.count) : 0, pts);
  if (pts.empty() && !a.has_store) {
    ctx.out.array(0);
    return;
  }
  const std::size_t n = (a.count == 0 || pts.size() < static_cast<std::uint64_t>(a.count))
                            ? pts.size()
                            : static_cast<std::size_t>(a.count);
  if (a.sort != Sort::kNone) geo::sort_by_distance(pts, a.sort == Sort::kDesc, n);
  if (!a.has_store) {
    reply_results(ctx, a, pts, n);
  } else {
    store_results(ctx, a, pts, n);
  }
}

void georadius(Context& ctx) {
  search_generic(ctx, 1, kFromCoords);
}
void georadiusbymember(Context& ctx) {
  search_generic(ctx, 1, kFromMember);
}
void georadius_ro(Context& ctx) {
  search_generic(ctx, 1, kFromCoords | kNoStore);
}
void georadiusbymember_ro(Context& ctx) {
  search_generic(ctx, 1, kFromMember | kNoStore);
}
void geosearch(Context& ctx) {
  search_generic(ctx, 1, kSearch);
}
void geosearchstore(Context& ctx) {
  search_generic(ctx, 2, kSearch | kSearchStore);
}

// ---------------------------------------------------------------------------------------
// The declaration table: each row its decl (<family>_decls.hpp, what Redis declares), its
// handler and Ruvio's own traits.

const CommandDef kGeoCommands[] = {
    {&decl::geoadd, geoadd},
    {&decl::geodist, geodist},
    {&decl::geohash, geohash},
    {&decl::geopos, geopos},
    {&decl::geosearch, geosearch},
    {&decl::geosearchstore, geosearchstore},
    {&decl::georadius, georadius},
    {&decl::georadiusbymember, georadiusbymember},
    {&decl::georadius_ro, georadius_ro},
    {&decl::georadiusbymember_ro, georadiusbymember_ro},
};

}  // namespace

std::span<const CommandDef> geo_commands() {
  return kGeoCommands;
}

}  // namespace ruvio::worker
