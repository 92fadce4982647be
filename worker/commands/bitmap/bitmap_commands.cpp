// Bitmap family: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO, on string values.
//
// Replies, errors and the order in which checks fail follow Redis 7.0's bitops.c: BITCOUNT and
// BITPOS look the key up before parsing their range (a missing key answers 0 / -1 whatever
// the range says), BITFIELD parses every operation before it looks at the key. Writes edit
// the string in place through store::StringHandle (grown zero-filled to the highest bit
// written, an integer-encoded string edited as its text), never read-copy-SET.
//
// The WAL: SETBIT and BITOP are deterministic given the keyspace, so the command is its own
// effect. BITFIELD is logged as SETRANGE of the bytes its writes covered: one record that
// replays the exact result (growth included) without re-running overflow arithmetic.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "worker/commands/bitmap/bitfield_args.hpp"
#include "worker/commands/bitmap/bitmap_decls.hpp"
#include "worker/engine/command.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"
#include "worker/engine/lookup.hpp"
#include "worker/types/bitmap/bitmap.hpp"

namespace ruvio::worker {
namespace {

namespace bm = types::bitmap;
using store::Entry;
using types::Type;

constexpr std::string_view kBitValueErr = "ERR bit is not an integer or out of range";
constexpr std::string_view kBitArgErr = "ERR The bit argument must be 1 or 0.";

// A string entry's bytes; an integer is formatted into `buf` (24 bytes).
std::string_view bytes_of(Entry e, char* buf) {
  return e.is_int() ? format_int64(e.int_value(), buf) : e.str();
}

const std::uint8_t* u8(std::string_view s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

// ---- SETBIT / GETBIT ------------------------------------------------------------------------

void setbit(Context& ctx) {
  auto offset = bitfield::parse_offset(ctx.args[2], false, 0);
  if (!offset) {
    ctx.out.error(bitfield::kOffsetErr);
    return;
  }
  auto on = parse_int64(ctx.args[3]);
  if (!on || (*on & ~std::int64_t{1}) != 0) {
    ctx.out.error(kBitValueErr);
    return;
  }
  store::StringHandle h = ctx.db().open_string(ctx.args[1], ctx.now_ms());
  if (h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return;
  }
  const std::size_t byte = static_cast<std::size_t>(*offset >> 3);
  const bool grows = !h || h.view().size() <= byte;
  const unsigned shift = 7 - static_cast<unsigned>(*offset & 7);
  if (!grows) {
    // Redis writes (and signals: WATCH, tracking, "setbit", the WAL) only a bit that changes.
    const bool was = (static_cast<std::uint8_t>(h.view()[byte]) >> shift) & 1;
    if (was == (*on != 0)) {
      h.unshare();  // raw all the same, as Redis's lookupStringForBitCommand leaves it
      ctx.out.integer(was ? 1 : 0);
      return;
    }
  }
  std::span<char> b = grows ? h.resize(byte + 1) : h.bytes();
  auto& c = reinterpret_cast<std::uint8_t&>(b[byte]);
  const bool old = (c >> shift) & 1;
  c = static_cast<std::uint8_t>((c & ~(1u << shift)) | (static_cast<unsigned>(*on) << shift));
  ctx.out.integer(old ? 1 : 0);
}

void getbit(Context& ctx) {
  auto offset = bitfield::parse_offset(ctx.args[2], false, 0);
  if (!offset) {
    ctx.out.error(bitfield::kOffsetErr);
    return;
  }
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kString, Access::kRead, e)) return;
  if (!e) {
    ctx.out.integer(0);
    return;
  }
  char buf[24];
  std::string_view s = bytes_of(e, buf);
  const std::uint64_t byte = *offset >> 3;
  int bit = 0;
  if (byte < s.size()) bit = (u8(s)[byte] >> (7 - (*offset & 7))) & 1;
  ctx.out.integer(bit);
}

// ---- BITCOUNT / BITPOS ----------------------------------------------------------------------

// A range in bytes after Redis's clamping; with BIT units, the masks of the bits of the first
// and last byte that lie outside the range.
struct Range {
  std::int64_t start = 0, end = -1;
  std::uint8_t first_mask = 0, last_mask = 0;
};

void clamp(Range& r, std::int64_t totlen, bool isbit) {
  if (isbit) totlen <<= 3;
  if (r.start < 0) r.start += totlen;
  if (r.end < 0) r.end += totlen;
  if (r.start < 0) r.start = 0;
  if (r.end < 0) r.end = 0;
  if (r.end >= totlen) r.end = totlen - 1;
  if (isbit && r.start <= r.end) {
    r.first_mask = static_cast<std::uint8_t>(~((1u << (8 - (r.start & 7))) - 1) & 0xFF);
    r.last_mask = static_cast<std::uint8_t>((1u << (7 - (r.end & 7))) - 1);
    r.start >>= 3;
    r.end >>= 3;
  }
}

// BIT / BYTE; nullopt (a syntax error) for anything else.
std::optional<bool> parse_unit(std::string_view s) {
  if (iequals(s, "bit")) return true;
  if (iequals(s, "byte")) return false;
  return std::nullopt;
}

void bitcount(Context& ctx) {
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kString, Access::kRead, e)) return;
  if (!e) {
    ctx.out.integer(0);
    return;
  }
  char buf[24];
  std::string_view s = bytes_of(e, buf);
  const auto len = static_cast<std::int64_t>(s.size());
  Range r;
  const std::size_t argc = ctx.argc();
  if (argc == 4 || argc == 5) {
    auto start = parse_int64(ctx.args[2]);
    auto end = start ? parse_int64(ctx.args[3]) : std::nullopt;
    if (!start || !end) {
      ctx.out.error(err::kNotInt);
      return;
    }
    if (*start < 0 && *end < 0 && *start > *end) {
      ctx.out.integer(0);
      return;
    }
    bool isbit = false;
    if (argc == 5) {
      auto unit = parse_unit(ctx.args[4]);
      if (!unit) {
        ctx.out.error(err::kSyntax);
        return;
      }
      isbit = *unit;
    }
    r.start = *start;
    r.end = *end;
    clamp(r, len, isbit);
  } else if (argc == 2) {
    r.end = len - 1;
  } else {
    ctx.out.error(err::kSyntax);
    return;
  }
  if (r.start > r.end) {
    ctx.out.integer(0);
    return;
  }
  const std::uint8_t* p = u8(s);
  std::uint64_t count = bm::popcount(p + r.start, static_cast<std::size_t>(r.end - r.start + 1));
  // The edge bits outside a BIT range were counted with their bytes: take them back out.
  if (r.first_mask != 0)
    count -= static_cast<unsigned>(__builtin_popcount(p[r.start] & r.first_mask));
  if (r.last_mask != 0) count -= static_cast<unsigned>(__builtin_popcount(p[r.end] & r.last_mask));
  ctx.out.integer(static_cast<std::int64_t>(count));
}

void bitpos(Context& ctx) {
  auto bit_arg = parse_int64(ctx.args[2]);
  if (!bit_arg) {
    ctx.out.error(err::kNotInt);
    return;
  }
  if (*bit_arg != 0 && *bit_arg != 1) {
    ctx.out.error(kBitArgErr);
    return;
  }
  const int bit = static_cast<int>(*bit_arg);
  Entry e;
  if (!lookup_or_wrongtype(ctx, ctx.args[1], Type::kString, Access::kRead, e)) return;
  if (!e) {
    ctx.out.integer(bit ? -1 : 0);
    return;
  }
  char buf[24];
  std::string_view s = bytes_of(e, buf);
  const auto len = static_cast<std::int64_t>(s.size());
  Range r;
  bool end_given = false;
  const std::size_t argc = ctx.argc();
  if (argc >= 4 && argc <= 6) {
    auto start = parse_int64(ctx.args[3]);
    if (!start) {
      ctx.out.error(err::kNotInt);
      return;
    }
    bool isbit = false;
    if (argc == 6) {
      auto unit = parse_unit(ctx.args[5]);
      if (!unit) {
        ctx.out.error(err::kSyntax);
        return;
      }
      isbit = *unit;
    }
    r.start = *start;
    if (argc >= 5) {
      auto end = parse_int64(ctx.args[4]);
      if (!end) {
        ctx.out.error(err::kNotInt);
        return;
      }
      r.end = *end;
      end_given = true;
    } else {
      r.end = len - 1;
    }
    clamp(r, len, isbit);
  } else if (argc == 3) {
    r.end = len - 1;
  } else {
    ctx.out.error(err::kSyntax);
    return;
  }
  if (r.start > r.end) {
    ctx.out.integer(-1);
    return;
  }
  const std::uint8_t* p = u8(s);
  std::int64_t bytes = r.end - r.start + 1;
  std::int64_t start = r.start;
  std::int64_t pos = -1;
  // The masked edge bytes are searched as copies with their outside bits forced to the value
  // not looked for; the middle is searched in place (Redis's three steps, same answers).
  auto masked = [&](std::uint8_t c, std::uint8_t mask) {
    return static_cast<std::uint8_t>(bit ? c & ~mask : c | mask);
  };
  do {
    if (r.first_mask != 0) {
      std::uint8_t c = masked(p[start], r.first_mask);
      if (r.last_mask != 0 && bytes == 1) c = masked(c, r.last_mask);
      pos = bm::first_bit(&c, 1, bit);
      if (bytes == 1 || (pos != -1 && pos != 8)) break;
      ++start;
      --bytes;
    }
    const std::int64_t mid = bytes - (r.last_mask != 0 ? 1 : 0);
    if (mid > 0) {
      pos = bm::first_bit(p + start, static_cast<std::size_t>(mid), bit);
      if (bytes == mid || (pos != -1 && pos != mid * 8)) break;
      start += mid;
      bytes -= mid;
    }
    std::uint8_t c = masked(p[r.end], r.last_mask);
    pos = bm::first_bit(&c, 1, bit);
  } while (false);
  // With an explicit end, the zero padding past the range does not count as a clear bit.
  if (end_given && bit == 0 && pos == bytes * 8) {
    ctx.out.integer(-1);
    return;
  }
  if (pos != -1) pos += start * 8;
  ctx.out.integer(pos);
}

// ---- BITOP ----------------------------------------------------------------------------------

void bitop(Context& ctx) {
  std::string_view name = ctx.args[1];
  bm::Op op;
  if (iequals(name, "and")) {
    op = bm::Op::kAnd;
  } else if (iequals(name, "or")) {
    op = bm::Op::kOr;
  } else if (iequals(name, "xor")) {
    op = bm::Op::kXor;
  } else if (iequals(name, "not")) {
    op = bm::Op::kNot;
  } else {
    ctx.out.error(err::kSyntax);
    return;
  }
  if (op == bm::Op::kNot && ctx.argc() != 4) {
    ctx.out.error("ERR BITOP NOT must be called with a single source key.");
    return;
  }
  // First pass: the lookups (lazy expiry, hit/miss counts, the type check). Second pass: the
  // bytes, through peek, which changes nothing, so no view is invalidated by a later lookup.
  const std::size_t n = ctx.argc() - 3;
  for (std::size_t j = 0; j < n; ++j) {
    Entry e;
    if (!lookup_or_wrongtype(ctx, ctx.args[3 + j], Type::kString, Access::kRead, e)) return;
  }
  static thread_local std::vector<std::string_view> srcs;
  static thread_local std::vector<std::string> ints;  // integer-encoded sources as text
  static thread_local std::string out;
  srcs.clear();
  ints.clear();
  ints.reserve(n);
  std::size_t maxlen = 0;
  for (std::size_t j = 0; j < n; ++j) {
    Entry e = ctx.db().peek(ctx.args[3 + j]);
    std::string_view s;
    if (e && e.is_int()) {
      char buf[24];
      s = ints.emplace_back(format_int64(e.int_value(), buf));
    } else if (e) {
      s = e.str();
    }
    maxlen = std::max(maxlen, s.size());
    srcs.push_back(s);
  }
  std::string_view dest = ctx.args[2];
  if (maxlen == 0) {
    if (ctx.db().erase(dest)) ctx.notify(kNotifyGeneric, "del", dest);
    ctx.out.integer(0);
    return;
  }
  out.resize(maxlen);
  bm::combine(op, srcs, reinterpret_cast<std::uint8_t*>(out.data()));
  store::SetOptions opt;
  opt.as_text = true;  // Redis stores the result as a raw string, never as an integer
  opt.raw = true;
  ctx.db().set_string(dest, out, opt);
  ctx.notify(kNotifyString, "set", dest);
  ctx.out.integer(static_cast<std::int64_t>(maxlen));
}

// ---- BITFIELD -------------------------------------------------------------------------------

// A GET reads up to 9 bytes into a zero-padded buffer: a field past the end of the string
// (the writes grow it only as far as they reach) reads as zeros.
void reply_get(Context& ctx, std::string_view s, const bitfield::Op& op) {
  std::uint8_t win[9] = {};
  const std::uint64_t byte = op.offset >> 3;
  for (std::uint64_t i = 0; i < 9 && byte + i < s.size(); ++i) win[i] = u8(s)[byte + i];
  const std::uint64_t off = op.offset & 7;
  if (op.sign) {
    ctx.out.integer(bm::get_signed(win, off, op.bits));
  } else {
    ctx.out.integer(static_cast<std::int64_t>(bm::get_unsigned(win, off, op.bits)));
  }
}

void bitfield_generic(Context& ctx, bool read_only) {
  static thread_local std::vector<bitfield::Op> ops;
  ops.clear();
  bitfield::Parsed parsed = bitfield::parse(ctx.args.subspan(2), ops);
  if (!parsed.error.empty()) {
    ctx.out.error(parsed.error);
    return;
  }
  std::string_view key = ctx.args[1];
  if (!parsed.writes) {
    Entry e;
    if (!lookup_or_wrongtype(ctx, key, Type::kString, Access::kRead, e)) return;
    char buf[24];
    std::string_view s = e ? bytes_of(e, buf) : std::string_view();
    ctx.out.array(ops.size());
    for (const bitfield::Op& op : ops) reply_get(ctx, s, op);
    return;
  }
  if (read_only) {
    ctx.out.error("ERR BITFIELD_RO only supports the GET subcommand");
    return;
  }
  store::StringHandle h = ctx.db().open_string(key, ctx.now_ms());
  h.notify_as(kNotifyString, "setbit");  // BITFIELD's writes, as Redis
  if (h.wrong_type()) {
    ctx.out.error(err::kWrongType);
    return;
  }
  const std::size_t need = static_cast<std::size_t>(parsed.highest_write >> 3) + 1;
  const bool grows = !h || h.view().size() < need;
  std::span<char> b = grows ? h.resize(need) : h.bytes();
  auto* p = reinterpret_cast<std::uint8_t*>(b.data());
  // Redis 7.0 publishes "setbit" only when a write ran (not an OVERFLOW FAIL) on a string that
  // grew or changed that field's value.
  bool changed = false;
  ctx.out.array(ops.size());
  for (const bitfield::Op& op : ops) {
    if (op.kind == bitfield::Kind::kGet) {
      reply_get(ctx, std::string_view(b.data(), b.size()), op);
      continue;
    }
    const bool incr = op.kind == bitfield::Kind::kIncrBy;
    if (op.sign) {
      const std::int64_t old = bm::get_signed(p, op.offset, op.bits);
      std::int64_t wrapped = 0;
      std::int64_t nv = incr ? static_cast<std::int64_t>(static_cast<std::uint64_t>(old) +
                                                         static_cast<std::uint64_t>(op.value))
                             : op.value;
      const int of = bm::check_signed(incr ? old : op.value, incr ? op.value : 0, op.bits,
                                      op.overflow, &wrapped);
      if (of != 0) nv = wrapped;
      if (of != 0 && op.overflow == bm::Overflow::kFail) {
        ctx.out.null();
        continue;
      }
      ctx.out.integer(incr ? nv : old);
      changed = changed || grows || nv != old;
      bm::set_bits(p, op.offset, op.bits, static_cast<std::uint64_t>(nv));
    } else {
      const std::uint64_t old = bm::get_unsigned(p, op.offset, op.bits);
      std::uint64_t wrapped = 0;
      const auto v = static_cast<std::uint64_t>(op.value);
      std::uint64_t nv = incr ? old + v : v;
      const int of =
          bm::check_unsigned(incr ? old : v, incr ? op.value : 0, op.bits, op.overflow, &wrapped);
      if (of != 0) nv = wrapped;
      if (of != 0 && op.overflow == bm::Overflow::kFail) {
        ctx.out.null();
        continue;
      }
      ctx.out.integer(static_cast<std::int64_t>(incr ? nv : old));
      changed = changed || grows || nv != old;
      bm::set_bits(p, op.offset, op.bits, nv);
    }
  }
  if (!changed && !grows) {  // no WATCH, tracking, event or WAL record, as Redis
    h.unchanged();
    return;
  }
  if (!changed) {
    // Only OVERFLOW FAIL ops on a key made or grown for them: Redis creates or grows the
    // string without signalling it; the WAL still records the bytes so a replay has them.
    h.notify_as(0, {});
    h.unsignalled();
  }
  // The effect: the bytes from the lowest to the highest one a write could touch.
  const std::size_t lo = static_cast<std::size_t>(parsed.lowest_write >> 3);
  char num[24];
  ctx.log_as({"SETRANGE", key, format_int64(static_cast<std::int64_t>(lo), num),
              std::string_view(b.data() + lo, need - lo)});
}

void bitfield_cmd(Context& ctx) {
  bitfield_generic(ctx, false);
}
void bitfield_ro(Context& ctx) {
  bitfield_generic(ctx, true);
}

// ---------------------------------------------------------------------------------------

const CommandDef kBitmapCommands[] = {
    {&decl::setbit, setbit},
    {&decl::getbit, getbit},
    {&decl::bitcount, bitcount},
    {&decl::bitpos, bitpos},
    {&decl::bitop, bitop},
    {.decl = &decl::bitfield, .handler = bitfield_cmd, .acl_args = AclArgs::kBitfieldKeys},
    {&decl::bitfield_ro, bitfield_ro},
};

}  // namespace

std::span<const CommandDef> bitmap_commands() {
  return kBitmapCommands;
}

}  // namespace ruvio::worker
