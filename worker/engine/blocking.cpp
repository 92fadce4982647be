#include "worker/engine/blocking.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "worker/engine/common.hpp"

namespace ruvio::worker {
namespace {

bool is_end(std::string_view s) {
  return iequals(s, "left") || iequals(s, "right");
}

bool blmove_ok(std::span<const std::string_view> a) {
  return is_end(a[3]) && is_end(a[4]);
}

// BLMPOP timeout numkeys key... LEFT|RIGHT [COUNT n]: lmpopGenericCommand's checks.
bool blmpop_ok(std::span<const std::string_view> a) {
  const auto n = parse_int64(a[2]);
  if (!n || *n < 1 || static_cast<std::uint64_t>(*n) >= a.size()) return false;
  std::size_t j = 3 + static_cast<std::size_t>(*n);
  if (j >= a.size() || !is_end(a[j])) return false;
  bool count = false;
  for (++j; j < a.size(); ++j) {
    if (count || !iequals(a[j], "count") || j + 1 >= a.size()) return false;
    const auto c = parse_int64(a[++j]);
    if (!c || *c < 1) return false;
    count = true;
  }
  return true;
}

// BZMPOP timeout numkeys key... MIN|MAX [COUNT n]: zmpopGenericCommand's checks.
bool bzmpop_ok(std::span<const std::string_view> a) {
  const auto n = parse_int64(a[2]);
  if (!n || *n < 1 || static_cast<std::uint64_t>(*n) >= a.size()) return false;
  std::size_t j = 3 + static_cast<std::size_t>(*n);
  if (j >= a.size() || !(iequals(a[j], "min") || iequals(a[j], "max"))) return false;
  bool count = false;
  for (++j; j < a.size(); ++j) {
    if (count || !iequals(a[j], "count") || j + 1 >= a.size()) return false;
    const auto c = parse_int64(a[++j]);
    if (!c || *c < 1) return false;
    count = true;
  }
  return true;
}

}  // namespace

const BlockingSpec kBlockList{-1, types::Type::kList, nullptr};
const BlockingSpec kBlockBlmove{-1, types::Type::kList, blmove_ok};
const BlockingSpec kBlockBlmpop{1, types::Type::kList, blmpop_ok};
const BlockingSpec kBlockZset{-1, types::Type::kZSet, nullptr};
const BlockingSpec kBlockBzmpop{1, types::Type::kZSet, bzmpop_ok};

namespace {

// What Redis 7.0.15 does with a timeout of `ms` milliseconds: negative is an error, 0 waits
// for ever, and so does one whose deadline (now + ms) overflows: Redis's sum wraps negative
// and its timeout table (unsigned) never reaches it. Its "timeout is out of range" check came
// later (7.2).
Timeout from_ms(std::int64_t ms, std::int64_t now_ms) {
  Timeout t;
  if (ms < 0) {
    t.error = "ERR timeout is negative";
    return t;
  }
  t.deadline_ms = ms > 0 && ms <= LLONG_MAX - now_ms ? now_ms + ms : 0;
  return t;
}

}  // namespace

Timeout parse_timeout(std::string_view arg, std::int64_t now_ms) {
  const auto v = parse_long_double(arg);
  if (!v || std::isnan(*v)) {
    Timeout t;
    t.error = "ERR timeout is not a float or out of range";
    return t;
  }
  // (long long) ceill(seconds * 1000): a part of a millisecond is a whole one (0.0001 waits
  // 1 ms, -0.0001 is 0: for ever), and a value past long long converts as x86 converts it,
  // to LLONG_MIN: "negative" (1e20, inf).
  const long double ms = std::ceil(*v * 1000.0L);
  const bool fits = ms > -0x1p63L && ms < 0x1p63L;
  return from_ms(fits ? static_cast<std::int64_t>(ms) : LLONG_MIN, now_ms);
}

Timeout parse_timeout_ms(std::string_view arg, std::int64_t now_ms) {
  const auto v = parse_int64(arg);
  if (!v) {
    Timeout t;
    t.error = "ERR timeout is not an integer or out of range";
    return t;
  }
  return from_ms(*v, now_ms);
}

std::string Blocking::slot_key(int db, std::string_view key) {
  std::string s = std::to_string(db);
  s.push_back(':');
  s.append(key);
  return s;
}

void Blocking::add(std::uint64_t token, int db, std::span<const std::string_view> keys,
                   std::int64_t deadline_ms, types::Type type, bool ends_when_not_type) {
  remove(token);
  Waiter& w = waiters_[token];
  w.db = db;
  w.seq = next_seq_++;
  w.deadline_ms = deadline_ms;
  w.type = type;
  w.ends_when_not_type = ends_when_not_type;
  for (std::string_view k : keys) {
    w.keys.emplace_back(k);
    std::vector<std::uint64_t>& q = keys_[slot_key(db, k)];
    // BLPOP k k waits once on k.
    if (q.empty() || q.back() != token) q.push_back(token);
  }
}

bool Blocking::remove(std::uint64_t token) {
  auto it = waiters_.find(token);
  if (it == waiters_.end()) return false;
  for (const std::string& k : it->second.keys) {
    auto kit = keys_.find(slot_key(it->second.db, k));
    if (kit == keys_.end()) continue;
    std::erase(kit->second, token);
    if (kit->second.empty()) keys_.erase(kit);
  }
  if (!it->second.memo.empty()) {
    ended_token_ = token;
    ended_memo_ = std::move(it->second.memo);
  }
  waiters_.erase(it);
  return true;
}

void Blocking::key_ready(int db, std::string_view key) {
  if (keys_.count(slot_key(db, key)) == 0) return;
  for (const ReadyKey& r : ready_) {
    if (r.db == db && r.key == key) return;
  }
  ready_.push_back({db, std::string(key)});
}

void Blocking::db_ready(int db) {
  // keys_ is unordered: the waiters' keys are queued in blocking order instead.
  std::vector<std::pair<std::uint64_t, const Waiter*>> order;
  for (const auto& [t, w] : waiters_) {
    if (w.db == db) order.emplace_back(w.seq, &w);
  }
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [seq, w] : order) {
    for (const std::string& k : w->keys) key_ready(db, k);
  }
}

const std::vector<std::uint64_t>* Blocking::waiting_on(int db, std::string_view key) const {
  auto it = keys_.find(slot_key(db, key));
  return it == keys_.end() ? nullptr : &it->second;
}

bool Blocking::earlier_waiter(std::uint64_t token, int db, std::string_view key,
                              types::Type type) const {
  const std::vector<std::uint64_t>* q = waiting_on(db, key);
  if (q == nullptr) return false;
  for (std::uint64_t t : *q) {
    if (t == token) return false;
    if (waiters_.at(t).type == type) return true;
  }
  return false;
}

void Blocking::due(std::int64_t now_ms, std::vector<std::uint64_t>& out) const {
  out.clear();
  for (const auto& [t, w] : waiters_) {
    if (w.deadline_ms != 0 && w.deadline_ms <= now_ms) out.push_back(t);
  }
  std::sort(out.begin(), out.end(), [this](std::uint64_t a, std::uint64_t b) {
    return waiters_.at(a).seq < waiters_.at(b).seq;
  });
}

bool Blocking::unblock_client(std::uint64_t id, bool error) {
  for (auto& [token, w] : waiters_) {
    if ((token & ((std::uint64_t{1} << 48) - 1)) != id) continue;  // WatchRegistry::watcher
    w.deadline_ms = 1;                                             // due at the next poll
    w.error = error;
    return true;
  }
  return false;
}

void Blocking::drop_stale(std::int64_t before_ms) {
  std::vector<std::uint64_t> stale;
  for (const auto& [t, w] : waiters_) {
    if (w.deadline_ms != 0 && w.deadline_ms < before_ms) stale.push_back(t);
  }
  for (std::uint64_t t : stale) remove(t);
}

std::int64_t Blocking::next_deadline() const {
  std::int64_t next = INT64_MAX;
  for (const auto& [token, w] : waiters_) {
    if (w.deadline_ms != 0 && w.deadline_ms < next) next = w.deadline_ms;
  }
  return next;
}

std::size_t Blocking::with_deadline() const {
  return static_cast<std::size_t>(std::count_if(
      waiters_.begin(), waiters_.end(), [](const auto& w) { return w.second.deadline_ms != 0; }));
}

}  // namespace ruvio::worker
