// EXPIRE / PEXPIRE / EXPIREAT / PEXPIREAT with NX|XX|GT|LT, the TTL readers and PERSIST.
// Order of checks and error texts follow Redis 7.0's expireGenericCommand: options first,
// then the number, then overflow, then the key.
#include <climits>
#include <cstdint>
#include <string>

#include "worker/commands/generic/key_family.hpp"
#include "worker/engine/common.hpp"

namespace ruvio::worker::keyfam {
namespace {

enum ExpireFlag : unsigned { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

void expire_generic(Context& ctx, std::int64_t basetime, bool seconds) {
  unsigned flags = 0;
  for (std::size_t i = 3; i < ctx.argc(); ++i) {
    const std::string_view opt = ctx.args[i];
    if (iequals(opt, "nx")) {
      flags |= kNx;
    } else if (iequals(opt, "xx")) {
      flags |= kXx;
    } else if (iequals(opt, "gt")) {
      flags |= kGt;
    } else if (iequals(opt, "lt")) {
      flags |= kLt;
    } else {
      std::string msg = "ERR Unsupported option ";
      msg.append(opt);
      ctx.out.error(msg);
      return;
    }
  }
  if ((flags & kNx) && (flags & (kXx | kGt | kLt))) {
    ctx.out.error("ERR NX and XX, GT or LT options at the same time are not compatible");
    return;
  }
  if ((flags & kGt) && (flags & kLt)) {
    ctx.out.error("ERR GT and LT options at the same time are not compatible");
    return;
  }
  const auto parsed = parse_int64(ctx.args[2]);
  if (!parsed) {
    ctx.out.error(err::kNotInt);
    return;
  }
  std::int64_t when = *parsed;
  auto invalid = [&] {
    std::string msg = "ERR invalid expire time in '";
    for (char c : ctx.args[0]) msg.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    msg.append("' command");
    ctx.out.error(msg);
  };
  if (seconds) {
    if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) return invalid();
    when *= 1000;
  }
  if (when > LLONG_MAX - basetime) return invalid();
  when += basetime;

  const std::string_view key = ctx.args[1];
  store::Db& db = ctx.db();
  const store::Entry e = db.find(key, ctx.now_ms());
  if (!e) {
    ctx.out.integer(0);
    return;
  }
  if (flags != 0) {
    const std::int64_t current = e.expire_at();  // kNoExpire (-1) counts as "infinite"
    if ((flags & kNx) && current != store::kNoExpire) return ctx.out.integer(0);
    if ((flags & kXx) && current == store::kNoExpire) return ctx.out.integer(0);
    if ((flags & kGt) && (current == store::kNoExpire || when <= current)) {
      return ctx.out.integer(0);
    }
    if ((flags & kLt) && current != store::kNoExpire && when >= current) {
      return ctx.out.integer(0);
    }
  }
  if (when <= ctx.now_ms()) {
    // Already in the past: Redis deletes the key right away and still answers 1.
    db.erase_expired(key);
    db.notify(kNotifyGeneric, "del", key);
    ctx.log_as({"DEL", key});
  } else {
    db.set_expire(key, when);
    db.notify(kNotifyGeneric, "expire", key);
    char buf[24];
    ctx.log_as({"PEXPIREAT", key, format_int64(when, buf)});  // absolute, whatever the form
  }
  ctx.out.integer(1);
}

enum class TtlForm { kSeconds, kMillis, kAtSeconds, kAtMillis };

void ttl_generic(Context& ctx, TtlForm form) {
  const store::Entry e = lookup_read_notouch(ctx, ctx.args[1]);
  if (!e) return ctx.out.integer(-2);
  const std::int64_t at = e.expire_at();
  if (at == store::kNoExpire) return ctx.out.integer(-1);
  switch (form) {
    case TtlForm::kAtSeconds:
      return ctx.out.integer(at / 1000);
    case TtlForm::kAtMillis:
      return ctx.out.integer(at);
    case TtlForm::kSeconds:
    case TtlForm::kMillis:
      break;
  }
  std::int64_t ttl = at - ctx.now_ms();
  if (ttl < 0) ttl = 0;
  ctx.out.integer(form == TtlForm::kMillis ? ttl : (ttl + 500) / 1000);
}

}  // namespace

void cmd_expire(Context& ctx) {
  expire_generic(ctx, ctx.now_ms(), true);
}
void cmd_pexpire(Context& ctx) {
  expire_generic(ctx, ctx.now_ms(), false);
}
void cmd_expireat(Context& ctx) {
  expire_generic(ctx, 0, true);
}
void cmd_pexpireat(Context& ctx) {
  expire_generic(ctx, 0, false);
}

void cmd_ttl(Context& ctx) {
  ttl_generic(ctx, TtlForm::kSeconds);
}
void cmd_pttl(Context& ctx) {
  ttl_generic(ctx, TtlForm::kMillis);
}
void cmd_expiretime(Context& ctx) {
  ttl_generic(ctx, TtlForm::kAtSeconds);
}
void cmd_pexpiretime(Context& ctx) {
  ttl_generic(ctx, TtlForm::kAtMillis);
}

void cmd_persist(Context& ctx) {
  store::Db& db = ctx.db();
  if (!db.find(ctx.args[1], ctx.now_ms())) return ctx.out.integer(0);
  const bool removed = db.persist(ctx.args[1]);
  if (removed) db.notify(kNotifyGeneric, "persist", ctx.args[1]);
  ctx.out.integer(removed ? 1 : 0);
}

}  // namespace ruvio::worker::keyfam
