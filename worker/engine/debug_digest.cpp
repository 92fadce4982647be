#include "worker/engine/debug_digest.hpp"

#include <nettle/sha1.h>

#include <charconv>
#include <cstdio>
#include <string_view>
#include <unordered_set>

#include "worker/types/hash/hash.hpp"
#include "worker/types/list/list.hpp"
#include "worker/types/set/set.hpp"
#include "worker/types/stream/stream.hpp"
#include "worker/types/zset/zset.hpp"

namespace ruvio::worker {
namespace {

using types::Listpack;

void xor_digest(Digest& d, std::string_view data) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, data.size(), reinterpret_cast<const std::uint8_t*>(data.data()));
  std::uint8_t h[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, h);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] ^= h[i];
}

void mix_digest(Digest& d, std::string_view data) {
  xor_digest(d, data);
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, d.size(), d.data());
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, d.data());
}

void mix_u32(Digest& d, std::uint32_t v) {
  const char be[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                      static_cast<char>(v >> 8), static_cast<char>(v)};
  mix_digest(d, std::string_view(be, 4));
}

std::string_view entry_text(const Listpack::Entry& e, Listpack::IntBuf& buf) {
  if (!e.is_int) return e.str;
  // IntBuf is exactly 20 bytes: to_chars, since snprintf would cut INT64_MIN's 20th digit
  // for its NUL.
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), e.i);
  return {buf.data(), static_cast<std::size_t>(r.ptr - buf.data())};
}

// One member/score or field/value pair, xored into the value digest.
void xor_pair(Digest& d, std::string_view a, std::string_view b) {
  Digest e{};
  mix_digest(e, a);
  mix_digest(e, b);
  xor_digest(d, std::string_view(reinterpret_cast<const char*>(e.data()), e.size()));
}

// OBJ_* of server.h (streams are 6: 5 is OBJ_MODULE).
std::uint32_t redis_type(types::Type t) {
  return t == types::Type::kStream ? 6u : static_cast<std::uint32_t>(t);
}

void digest_object(const store::Entry& e, Digest& d) {
  const types::Object* o = e.object();
  Listpack::IntBuf buf;
  switch (e.type()) {
    case types::Type::kList: {
      types::ListObject scratch;
      const types::ListObject* l = types::list_view(o, scratch);
      for (std::uint32_t n = 0; n < l->nnodes; ++n) {
        const Listpack lp = types::Quicklist::lp(l, n);
        for (Listpack::Pos p = lp.first(); p != Listpack::kNone; p = lp.next(p)) {
          mix_digest(d, lp.get_str(p, buf));
        }
      }
      break;
    }
    case types::Type::kSet:
      types::set::for_each(static_cast<const types::SetObject*>(o),
                           [&](const types::SetElem& m) { xor_digest(d, m.text(buf)); });
      break;
    case types::Type::kZSet: {
      const auto* z = static_cast<const types::ZSet*>(o);
      char score[64];
      for (types::ZCursor c = types::zset_at(z, 0); c.valid(); c.next()) {
        const int n = std::snprintf(score, sizeof score, "%.17g", c.score());
        xor_pair(d, c.member(buf), std::string_view(score, static_cast<std::size_t>(n)));
      }
      break;
    }
    case types::Type::kHash:
      types::hash::for_each(static_cast<const types::hash::Hash*>(o), INT64_MIN,
                            [&](std::string_view f, std::string_view v) { xor_pair(d, f, v); });
      break;
    case types::Type::kStream: {
      types::StreamIter it(static_cast<const types::Stream*>(o), types::kStreamMinId,
                           types::kStreamMaxId, false);
      char id[48];
      Listpack::IntBuf vb;
      while (it.next()) {
        const int n =
            std::snprintf(id, sizeof id, "%llu.%llu", static_cast<unsigned long long>(it.id().ms),
                          static_cast<unsigned long long>(it.id().seq));
        mix_digest(d, std::string_view(id, static_cast<std::size_t>(n)));
        it.for_each_pair([&](const Listpack::Entry& f, const Listpack::Entry& v) {
          mix_digest(d, entry_text(f, buf));
          mix_digest(d, entry_text(v, vb));
        });
      }
      break;
    }
    default:
      break;
  }
}

}  // namespace

void digest_value(const store::Entry& e, Digest& d) {
  mix_u32(d, redis_type(e.type()));
  if (e.type() == types::Type::kString) {
    char buf[24];
    if (e.is_int()) {
      const int n = std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(e.int_value()));
      mix_digest(d, std::string_view(buf, static_cast<std::size_t>(n)));
    } else {
      mix_digest(d, e.str());
    }
  } else {
    digest_object(e, d);
  }
  if (e.expire_at() != store::kNoExpire) xor_digest(d, "!!expire!!");
}

std::vector<std::optional<Digest>> digest_parts(Shard& shard) {
  std::vector<std::optional<Digest>> parts(static_cast<std::size_t>(shard.databases()));
  for (int j = 0; j < shard.databases(); ++j) {
    store::Db& db = shard.db(j);
    if (db.size() == 0) continue;
    Digest& x = parts[static_cast<std::size_t>(j)].emplace();
    // SCAN may return a key twice across a resize; the xor must see each once.
    std::unordered_set<std::string> seen;
    std::uint64_t cursor = 0;
    do {
      cursor = db.scan(cursor, 100, [&](store::Entry e) {
        if (!seen.emplace(e.key()).second) return;
        Digest kd{};
        mix_digest(kd, e.key());
        digest_value(e, kd);
        xor_digest(x, std::string_view(reinterpret_cast<const char*>(kd.data()), kd.size()));
      });
    } while (cursor != 0);
  }
  return parts;
}

Digest digest_combine(std::span<const std::optional<Digest>> dbs) {
  Digest final{};
  for (std::size_t j = 0; j < dbs.size(); ++j) {
    if (!dbs[j]) continue;
    mix_u32(final, static_cast<std::uint32_t>(j));
    for (std::size_t i = 0; i < final.size(); ++i) final[i] ^= (*dbs[j])[i];
  }
  return final;
}

Digest digest_dataset(Shard& shard) {
  const std::vector<std::optional<Digest>> parts = digest_parts(shard);
  return digest_combine(parts);
}

std::optional<Digest> digest_from_hex(std::string_view hex) {
  if (hex.size() != 40) return std::nullopt;
  Digest d{};
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < 20; ++i) {
    const int hi = nibble(hex[2 * i]);
    const int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    d[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return d;
}

std::string digest_hex(const Digest& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(40);
  for (std::uint8_t b : d) {
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 15]);
  }
  return s;
}

}  // namespace ruvio::worker
