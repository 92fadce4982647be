// HyperLogLog family: PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST, as Redis 7.0's
// hyperloglog.c answers them. The HLL is a string value (worker/types/hll/hll.hpp draws its
// bytes); writes go through store::StringHandle. PFADD edits the HLL where it lies, dense or
// sparse (the opcodes grow and shrink the string through the handle), and only once an
// element changes a register, so an add that changes nothing is no write (no WAL record, no
// WATCH invalidation), as in Redis. PFMERGE builds its result in a reused buffer.
//
// The WAL: every PF* write is deterministic given the keyspace (the hash has a fixed seed, the
// opcode rewrite is exact), so the command is logged as it is. PFCOUNT's cache update is a
// read command's side effect and is not logged: after a restart the cache is recomputed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "worker/commands/hyperloglog/hll_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/types/hll/hll.hpp"

namespace ruvio::worker {
namespace {

namespace hll = types::hll;
using store::Entry;
using types::Type;

constexpr std::string_view kNotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr std::string_view kCorrupt = "INVALIDOBJ Corrupted HLL object detected";
// Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT: a longer string is "raw" whatever its history.
constexpr std::size_t kEmbstrLimit = 44;

std::size_t sparse_max(Context& ctx) {
  return ctx.shard.config().hll_sparse_max_bytes;
}

// isHLLObjectOrReply for an existing string entry: an integer-encoded string is no HLL.
bool is_hll(Entry e) {
  return !e.is_int() && hll::looks_valid(e.str());
}

// The reused buffer sparse HLLs are edited in.
std::string& scratch() {
  static thread_local std::string s;
  return s;
}

// Stores `bytes` as the handle's value (assign: a sparse HLL stays in the record, where
// PFCOUNT's header read finds it on the line the lookup touched).
void store_back(store::StringHandle& h, const std::string& bytes) {
  h.assign(bytes);
}

// An HLL edited where it lies in the keyspace: the handle's bytes, grown and shrunk as the
// sparse opcodes need. Reading changes nothing; the first write takes the bytes for writing,
// which marks the key written, so an add that changes no register is no write at all (no WAL
// record, no WATCH invalidation), as in Redis.
class HandleBuffer final : public hll::Buffer {
 public:
  explicit HandleBuffer(store::StringHandle& h) : h_(h) {}
  const char* view() const override { return taken_ ? b_.data() : h_.view().data(); }
  char* data() override {
    if (!taken_) {
      b_ = h_.bytes();
      taken_ = true;
    }
    return b_.data();
  }
  std::size_t size() const override { return taken_ ? b_.size() : h_.view().size(); }
  void resize(std::size_t n) override {
    b_ = h_.resize(n);
    taken_ = true;
  }

 private:
  store::StringHandle& h_;
  std::span<char> b_;
  bool taken_ = false;
};

void pfadd(Context& ctx) {
  store::StringHandle h = ctx.db().open_string(ctx.args[1], ctx.now_ms());
  if (h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return;
  }
  int updated = 0;
  if (!h) {
    std::string& s = scratch();
    hll::make_empty(s);
    store_back(h, s);
    updated = 1;
  } else if (h.is_int() || !hll::looks_valid(h.view())) {
    ctx.out.error(kNotHll);
    return;
  } else {
    h.unshare();  // Redis's dbUnshareStringValue: "raw" even when no register changes
  }
  HandleBuffer b(h);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const int r = hll::add(b, ctx.args[j], sparse_max(ctx));
    if (r < 0) {
      // Redis edits in place: what the elements before this one changed stays.
      h.notify_as(0, {});
      ctx.out.error(kCorrupt);
      return;
    }
    updated += r;
  }
  if (updated != 0) hll::invalidate(b.data());
  if (updated == 0) h.notify_as(0, {});  // "pfadd" only when a register changed
  ctx.out.integer(updated != 0 ? 1 : 0);
}

void pfcount(Context& ctx) {
  if (ctx.argc() > 2) {
    // The union: registers merged one byte each, then one estimate (its histogram kept as
    // the registers rise).
    static thread_local hll::Union u;
    u.clear();
    for (std::size_t j = 1; j < ctx.argc(); ++j) {
      Entry e;
      if (!lookup_or_wrongtype(ctx, ctx.args[j], Type::kString, Access::kRead, e)) return;
      if (!e) continue;
      if (!is_hll(e)) {
        ctx.out.error(kNotHll);
        return;
      }
      if (!u.add(e.str())) {
        ctx.out.error(kCorrupt);
        return;
      }
    }
    ctx.out.integer(static_cast<std::int64_t>(u.count()));
    return;
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kString, Access::kRead, e)) return;
  if (!e) {
    ctx.out.integer(0);
    return;
  }
  // The cached path reads the record's header and the HLL's 16-byte header, nothing else.
  std::string_view v;
  bool shared = false;
  if (!e.str_bytes(&v, &shared) || !hll::looks_valid(v)) {
    ctx.out.error(kNotHll);
    return;
  }
  if (hll::cache_valid(v)) {
    const auto card = static_cast<std::int64_t>(hll::cached(v));
    // Redis's PFCOUNT of one key unshares the value first (dbUnshareStringValue), so an HLL
    // that came in embedded (SET, RESTORE) reports "raw" afterwards. Once, and not a change.
    if (shared && v.size() <= kEmbstrLimit) [[unlikely]] {
      ctx.db().open_string(ctx.args[1], ctx.now_ms()).unshare();
    }
    ctx.out.integer(card);
    return;
  }
  bool invalid = false;
  const std::uint64_t card = hll::count(v, &invalid);
  if (invalid) {
    ctx.out.error(kCorrupt);
    return;
  }
  // Redis writes the cache back and counts it as a change of the key (WATCH sees it).
  store::StringHandle h = ctx.db().open_string(ctx.args[1], ctx.now_ms());
  hll::set_cache(h.bytes().data(), card);
  ctx.out.integer(static_cast<std::int64_t>(card));
}

void pfmerge(Context& ctx) {
  static thread_local std::uint8_t max[hll::kRegisters];
  std::memset(max, 0, sizeof max);
  bool use_dense = false;
  for (std::size_t j = 1; j < ctx.argc(); ++j) {
    Entry e;
    if (!lookup_or_wrongtype(ctx, ctx.args[j], Type::kString, Access::kRead, e)) return;
    if (!e) continue;
    if (!is_hll(e)) {
      ctx.out.error(kNotHll);
      return;
    }
    if (hll::is_dense(e.str())) use_dense = true;
    if (!hll::merge(max, e.str())) {
      ctx.out.error(kCorrupt);
      return;
    }
  }
  store::StringHandle h = ctx.db().open_string(ctx.args[1], ctx.now_ms());
  h.notify_as(kNotifyString, "pfadd");  // as Redis's PFMERGE
  std::string& s = scratch();
  if (!h) {
    hll::make_empty(s);
  } else {
    s.assign(h.view());  // checked as a source above
  }
  if (use_dense && !hll::to_dense(s)) {
    ctx.out.error(kCorrupt);
    return;
  }
  // Register by register in index order, as Redis does, so a sparse result has its bytes.
  for (std::size_t j = 0; j < hll::kRegisters; ++j) {
    if (max[j] != 0) hll::set(s, j, max[j], sparse_max(ctx));
  }
  hll::invalidate(s.data());
  store_back(h, s);
  ctx.out.ok();
}

void pfdebug(Context& ctx) {
  std::string_view sub = ctx.args[1];
  store::StringHandle h = ctx.db().open_string(ctx.args[2], ctx.now_ms());
  h.notify_as(0, {});  // TODENSE converts without an event, as Redis
  h.unsignalled();     // and without signalModifiedKey (no WATCH, no tracking)
  if (h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return;
  }
  if (!h) {
    ctx.out.error("ERR The specified key does not exist");
    return;
  }
  if (h.is_int() || !hll::looks_valid(h.view())) {
    ctx.out.error(kNotHll);
    return;
  }
  h.unshare();  // as Redis, before any subcommand (ENCODING and DECODE too)
  std::string& s = scratch();
  const bool dense = hll::is_dense(h.view());
  if (iequals(sub, "getreg") || iequals(sub, "todense")) {
    const bool getreg = iequals(sub, "getreg");
    if (!dense) {
      s.assign(h.view());
      if (!hll::to_dense(s)) {
        ctx.out.error(kCorrupt);
        return;
      }
      store_back(h, s);
    }
    if (!getreg) {
      ctx.out.integer(dense ? 0 : 1);
      return;
    }
    std::string_view v = h.view();
    ctx.out.array(hll::kRegisters);
    for (std::size_t j = 0; j < hll::kRegisters; ++j) ctx.out.integer(hll::dense_get(v.data(), j));
  } else if (iequals(sub, "decode")) {
    if (dense) {
      ctx.out.error("ERR HLL encoding is not sparse");
      return;
    }
    std::string_view v = h.view();
    const auto* p = reinterpret_cast<const std::uint8_t*>(v.data()) + hll::kHeaderBytes;
    const auto* end = reinterpret_cast<const std::uint8_t*>(v.data()) + v.size();
    std::string out;
    char buf[32];
    while (p < end) {
      int n;
      if ((*p & 0xc0) == 0) {
        n = std::snprintf(buf, sizeof buf, "z:%d ", (*p & 0x3f) + 1);
        p += 1;
      } else if ((*p & 0xc0) == 0x40) {
        const unsigned b1 = p + 1 < end ? p[1] : 0;
        n = std::snprintf(buf, sizeof buf, "Z:%u ", (((*p & 0x3fu) << 8) | b1) + 1);
        p += 2;
      } else {
        n = std::snprintf(buf, sizeof buf, "v:%d,%d ", ((*p >> 2) & 0x1f) + 1, (*p & 3) + 1);
        p += 1;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    ctx.out.bulk(out);
  } else if (iequals(sub, "encoding")) {
    ctx.out.simple(dense ? "dense" : "sparse");
  } else {
    std::string msg = "ERR Unknown PFDEBUG subcommand '";
    msg.append(sub).append("'");
    ctx.out.error(msg);
  }
}

// PFSELFTEST: the register accessors keep every register apart, and the sparse and dense
// forms of the same adds estimate the same cardinality within the expected error.
void pfselftest(Context& ctx) {
  std::string dense(hll::kDenseBytes, '\0');
  std::memcpy(dense.data(), "HYLL", 4);
  static thread_local std::uint8_t expect[hll::kRegisters];
  std::uint64_t rng = 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(ctx.now_ms());
  auto next = [&] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  for (int cycle = 0; cycle < 1000; ++cycle) {
    std::memset(dense.data() + hll::kHeaderBytes, 0, hll::kDenseBytes - hll::kHeaderBytes);
    for (std::size_t i = 0; i < hll::kRegisters; ++i) {
      expect[i] = static_cast<std::uint8_t>(next() & 63);
      hll::dense_set(dense.data(), i, expect[i]);
    }
    for (std::size_t i = 0; i < hll::kRegisters; ++i) {
      if (hll::dense_get(dense.data(), i) != expect[i]) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "TESTFAILED Register %zu should be %d but is %u", i,
                      expect[i], hll::dense_get(dense.data(), i));
        ctx.out.error(buf);
        return;
      }
    }
  }
  std::memset(dense.data() + hll::kHeaderBytes, 0, hll::kDenseBytes - hll::kHeaderBytes);
  std::string sparse;
  hll::make_empty(sparse);
  const double relerr = 1.04 / std::sqrt(static_cast<double>(hll::kRegisters));
  const std::uint64_t seed = next();
  std::uint64_t checkpoint = 1;
  bool invalid = false;
  for (std::uint64_t j = 1; j <= 10000000; ++j) {
    std::uint64_t ele = j ^ seed;
    std::string_view e(reinterpret_cast<const char*>(&ele), sizeof ele);
    hll::add(dense, e, sparse_max(ctx));
    hll::add(sparse, e, sparse_max(ctx));
    if (j != checkpoint) continue;
    if (j < sparse_max(ctx) / 2 && hll::is_dense(sparse)) {
      ctx.out.error("TESTFAILED sparse encoding not used");
      return;
    }
    const std::uint64_t d = hll::count(dense, &invalid);
    if (d != hll::count(sparse, &invalid)) {
      ctx.out.error("TESTFAILED dense/sparse disagree");
      return;
    }
    const auto abserr = static_cast<std::uint64_t>(
        std::llabs(static_cast<long long>(checkpoint) - static_cast<long long>(d)));
    auto maxerr = static_cast<std::uint64_t>(std::ceil(relerr * 6 * static_cast<double>(j)));
    if (j == 10) maxerr = 1;
    if (abserr > maxerr) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "TESTFAILED Too big error. card:%llu abserr:%llu",
                    static_cast<unsigned long long>(checkpoint),
                    static_cast<unsigned long long>(abserr));
      ctx.out.error(buf);
      return;
    }
    checkpoint *= 10;
  }
  ctx.out.ok();
}

// clang-format off
const CommandDef kHllCommands[] = {
    {&decl::pfadd, pfadd},
    {&decl::pfcount, pfcount},
    {&decl::pfmerge, pfmerge},
    {&decl::pfdebug, pfdebug},
    {&decl::pfselftest, pfselftest},
};
// clang-format on

}  // namespace

std::span<const CommandDef> hll_commands() {
  return kHllCommands;
}

}  // namespace ruvio::worker
