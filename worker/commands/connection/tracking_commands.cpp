// CLIENT TRACKING and its neighbours: arguments checked in Redis 7.0's order with its error
// texts (networking.c clientCommand), state kept in the Shard's Tracking (tracking.hpp).
#include "worker/commands/connection/tracking_commands.hpp"

#include <string>
#include <vector>

#include "worker/engine/common.hpp"
#include "worker/engine/context.hpp"

namespace ruvio::worker {
namespace {

using F = Tracking::Flag;

bool client_exists(Context& ctx, std::uint64_t id) {
  if (id == ctx.client.id) return true;
  bool found = false;
  ctx.shard.host().for_each_client([&](const ClientInfo& c) { found = found || c.id == id; });
  return found;
}

// checkPrefixCollisionsOrReply: no prefix of the client may be a prefix of another.
bool prefixes_ok(Context& ctx, const Tracking::Client* current,
                 const std::vector<std::string_view>& prefixes) {
  auto overlap = [](std::string_view a, std::string_view b) {
    return a.starts_with(b) || b.starts_with(a);
  };
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    if (current != nullptr) {
      for (const std::string& p : current->prefixes) {
        if (overlap(p, prefixes[i]) && p != prefixes[i]) {
          ctx.out.error("ERR Prefix '" + std::string(prefixes[i]) +
                        "' overlaps with an existing prefix '" + p +
                        "'. Prefixes for a single client must not overlap.");
          return false;
        }
      }
    }
    for (std::size_t j = i + 1; j < prefixes.size(); ++j) {
      if (overlap(prefixes[i], prefixes[j])) {
        ctx.out.error("ERR Prefix '" + std::string(prefixes[i]) + "' overlaps with another " +
                      "provided prefix '" + std::string(prefixes[j]) +
                      "'. Prefixes for a single client must not overlap.");
        return false;
      }
    }
  }
  return true;
}

}  // namespace

// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
void client_tracking(Context& ctx) {
  std::uint32_t options = 0;
  std::int64_t redirect = 0;
  std::vector<std::string_view> prefixes;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const bool more = j + 1 < ctx.argc();
    const std::string_view a = ctx.args[j];
    if (iequals(a, "redirect") && more) {
      ++j;
      if (redirect != 0) {
        ctx.out.error("ERR A client can only redirect to a single other client");
        return;
      }
      auto id = parse_int64(ctx.args[j]);
      if (!id) {
        ctx.out.error(err::kNotInt);
        return;
      }
      redirect = *id;
      // A client of another worker (the proxy port spreads a client's connections): the
      // router asked its worker before this ran (Where::kRedirect). Inside EXEC nobody
      // asked, and it is taken on trust.
      const auto target = static_cast<std::uint64_t>(redirect);
      const bool exists = redirect <= 0 ? false
                          : ctx.shard.tracking.remote(target)
                              ? ctx.client.redirect_asked != target ||
                                    ctx.client.redirect_answer == ClientInfo::kClientExists
                              : client_exists(ctx, target);
      ctx.client.redirect_asked = 0;  // a later CLIENT TRACKING asks again
      if (!exists) {
        ctx.out.error("ERR The client ID you want redirect to does not exist");
        return;
      }
    } else if (iequals(a, "bcast")) {
      options |= F::kBcast;
    } else if (iequals(a, "optin")) {
      options |= F::kOptin;
    } else if (iequals(a, "optout")) {
      options |= F::kOptout;
    } else if (iequals(a, "noloop")) {
      options |= F::kNoloop;
    } else if (iequals(a, "prefix") && more) {
      prefixes.push_back(ctx.args[++j]);
    } else {
      ctx.out.error(err::kSyntax);
      return;
    }
  }
  Tracking& t = ctx.shard.tracking;
  const Tracking::Client* cur = t.find(ctx.client.id);
  const std::uint32_t flags = cur != nullptr ? cur->flags : 0;
  if (iequals(ctx.args[2], "on")) {
    if (!(options & F::kBcast) && !prefixes.empty()) {
      ctx.out.error("ERR PREFIX option requires BCAST mode to be enabled");
      return;
    }
    if (cur != nullptr && ((flags & F::kBcast) != 0) != ((options & F::kBcast) != 0)) {
      ctx.out.error(
          "ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
          "and then re-enabling it with a different mode.");
      return;
    }
    if ((options & F::kBcast) && (options & (F::kOptin | F::kOptout))) {
      ctx.out.error("ERR OPTIN and OPTOUT are not compatible with BCAST");
      return;
    }
    if ((options & F::kOptin) && (options & F::kOptout)) {
      ctx.out.error("ERR You can't specify both OPTIN mode and OPTOUT mode");
      return;
    }
    if (((options & F::kOptin) && (flags & F::kOptout)) ||
        ((options & F::kOptout) && (flags & F::kOptin))) {
      ctx.out.error(
          "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
          "and then re-enabling it with a different mode.");
      return;
    }
    if ((options & F::kBcast) && !prefixes_ok(ctx, cur, prefixes)) return;
    t.enable(ctx.client.id, static_cast<std::uint64_t>(redirect), options, prefixes);
  } else if (iequals(ctx.args[2], "off")) {
    t.disable(ctx.client.id);
  } else {
    ctx.out.error(err::kSyntax);
    return;
  }
  const Tracking::Client* now = t.find(ctx.client.id);
  ctx.client.tracking = now != nullptr && (now->flags & F::kOn);
  ctx.client.tracking_bcast = ctx.client.tracking && (now->flags & F::kBcast);
  ctx.client.tracking_redir = ctx.client.tracking ? now->redirect : 0;
  ctx.shard.update_listener();
  ctx.out.ok();
}

void client_caching(Context& ctx) {
  Tracking& t = ctx.shard.tracking;
  const Tracking::Client* cur = t.find(ctx.client.id);
  if (cur == nullptr) {
    ctx.out.error(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN "
        "or OPTOUT mode enabled");
    return;
  }
  const std::string_view opt = ctx.args[2];
  if (iequals(opt, "yes")) {
    if (!(cur->flags & F::kOptin)) {
      ctx.out.error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
      return;
    }
  } else if (iequals(opt, "no")) {
    if (!(cur->flags & F::kOptout)) {
      ctx.out.error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
      return;
    }
  } else {
    ctx.out.error(err::kSyntax);
    return;
  }
  t.set_caching(ctx.client.id);
  ctx.out.ok();
}

void client_getredir(Context& ctx) {
  const Tracking::Client* cur = ctx.shard.tracking.find(ctx.client.id);
  ctx.out.integer(cur != nullptr ? static_cast<std::int64_t>(cur->redirect) : -1);
}

void client_trackinginfo(Context& ctx) {
  const Tracking::Client* cur = ctx.shard.tracking.find(ctx.client.id);
  const std::uint32_t f = cur != nullptr ? cur->flags : 0;
  std::vector<std::string_view> flags;
  flags.push_back(cur != nullptr ? "on" : "off");
  if (f & F::kBcast) flags.push_back("bcast");
  if (f & F::kOptin) {
    flags.push_back("optin");
    if (f & F::kCaching) flags.push_back("caching-yes");
  }
  if (f & F::kOptout) {
    flags.push_back("optout");
    if (f & F::kCaching) flags.push_back("caching-no");
  }
  if (f & F::kNoloop) flags.push_back("noloop");
  if (f & F::kBrokenRedir) flags.push_back("broken_redirect");
  ctx.out.map(3);
  ctx.out.bulk("flags");
  ctx.out.set(flags.size());
  for (std::string_view s : flags) ctx.out.bulk(s);
  ctx.out.bulk("redirect");
  ctx.out.integer(cur != nullptr ? static_cast<std::int64_t>(cur->redirect) : -1);
  ctx.out.bulk("prefixes");
  const std::size_t n = cur != nullptr ? cur->prefixes.size() : 0;
  ctx.out.array(n);
  for (std::size_t i = 0; i < n; ++i) ctx.out.bulk(cur->prefixes[i]);
}

}  // namespace ruvio::worker
