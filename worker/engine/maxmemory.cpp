// maxmemory enforcement on the command path (Redis's performEvictions and the OOM part of
// processCommand). Which key goes is the store's business (worker/store/evict.hpp); this file
// decides when, logs each eviction as a WAL deletion, counts it and tells the key event hook.
//
// Redis evicts before every command while over the limit, not only before denyoom ones, and
// refuses with -OOM only the denyoom commands (and, inside MULTI, the queueing of anything but
// EXEC/DISCARD/QUIT/RESET) when nothing could be freed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "worker/engine/command_table.hpp"
#include "worker/engine/common.hpp"
#include "worker/engine/executor.hpp"

namespace ruvio::worker {
namespace {

// Redis's evictionTimeLimitUs: 50 µs per point of maxmemory-eviction-tenacity up to 10 (the
// default: 500 µs), then +15% per point; 100 means no limit.
std::chrono::microseconds eviction_time_limit(int tenacity) {
  if (tenacity <= 10) return std::chrono::microseconds(50 * std::max(tenacity, 0));
  if (tenacity < 100) {
    return std::chrono::microseconds(static_cast<long>(500.0 * std::pow(1.15, tenacity - 10)));
  }
  return std::chrono::microseconds::max();
}

}  // namespace

// The latency monitor's eviction events since `start`, in ms (Redis's performEvictions):
// "eviction-cycle" the whole pass, "eviction-del" one key's deletion, "eviction-lazyfree" the
// wait for lazily freed values when nothing was left to evict.
void Executor::note_eviction(const char* event, std::chrono::steady_clock::time_point start) {
  const std::int64_t threshold = shard_.config().latency_monitor_threshold;
  if (threshold == 0) return;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  latency_.add_if_needed(threshold, event, ms.count());
}

// Redis waits (at most the cycle's time limit) for its lazyfree thread when nothing is left
// to evict; Ruvio's queue is freed on this thread, so the wait is freeing it here. True once
// under the limit.
bool Executor::evict_lazyfreed(std::span<store::Db* const> dbs, std::uint64_t limit,
                               std::chrono::steady_clock::time_point start,
                               std::chrono::microseconds time_limit) {
  constexpr std::size_t kStep = 4096;  // as the lazyfree timer's steps
  const auto wait = std::chrono::steady_clock::now();
  bool under = false;
  for (store::Db* db : dbs) {
    while (db->lazyfree_pending() > 0 && !under &&
           std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                 start) < time_limit) {
      db->lazyfree_step(kStep);
      under = shard_.counted_memory() <= limit;
    }
  }
  note_eviction("eviction-lazyfree", wait);
  return under;
}

Executor::EvictResult Executor::evict() {
  const std::uint64_t limit = shard_.maxmemory_share();
  eviction_pending_ = false;
  if (limit == 0) return EvictResult::kOk;
  std::size_t used = shard_.counted_memory();
  if (used <= limit) return EvictResult::kOk;
  const store::EvictPolicy policy = shard_.evict_policy();
  if (policy == store::EvictPolicy::kNoEviction) return EvictResult::kFail;
  const std::size_t to_free = used - limit;
  std::size_t freed = 0, keys = 0;
  store::Db* dbs[256];
  const auto n = static_cast<std::size_t>(std::min(shard_.databases(), 256));
  for (std::size_t i = 0; i < n; ++i) dbs[i] = &shard_.db(static_cast<int>(i));
  const auto start = std::chrono::steady_clock::now();
  const auto time_limit = eviction_time_limit(shard_.config().maxmemory_eviction_tenacity);
  const auto samples = static_cast<std::size_t>(std::max(shard_.config().maxmemory_samples, 1));
  // Timing a deletion costs two clock reads: only with the latency monitor on.
  const bool timed = shard_.config().latency_monitor_threshold != 0;
  std::string unused;
  proto::ReplyWriter sink(unused);
  while (freed < to_free) {
    store::EvictionCandidate c;
    if (!shard_.evictor.pick(std::span<store::Db* const>(dbs, n), policy, samples, shard_.now_ms(),
                             &c)) {
      // Nothing evictable left: lazily freed values may still bring the count under.
      bool pending = false;
      for (std::size_t i = 0; i < n; ++i) pending = pending || dbs[i]->lazyfree_pending() > 0;
      if (pending &&
          evict_lazyfreed(std::span<store::Db* const>(dbs, n), limit, start, time_limit)) {
        note_eviction("eviction-cycle", start);
        return EvictResult::kOk;
      }
      break;
    }
    const std::string_view del[] = {"DEL", c.key};
    // The deletion is logged as DEL would be; a WAL that refuses it stops the eviction (the
    // key stays, and the command gets -OOM as it would with nothing to evict).
    if (journal_ != nullptr && !journal_->before_write(del, sink)) break;
    if (!timed) [[likely]] {
      freed += dbs[c.db]->evict(c.key, c.hash);
    } else {
      const auto del_start = std::chrono::steady_clock::now();
      freed += dbs[c.db]->evict(c.key, c.hash);
      note_eviction("eviction-del", del_start);
    }
    if (journal_ != nullptr) journal_->after_write(c.db, del);
    ++shard_.stats().evicted_keys;
    dbs[c.db]->notify(kNotifyEvicted, "evicted", c.key);  // keyspace notification
    if (++keys % 16 == 0) {
      // Lazily freed values leave the heap later: stop as soon as the count is under.
      if (shard_.config().lazyfree_lazy_eviction && shard_.counted_memory() <= limit) break;
      if (std::chrono::steady_clock::now() - start > time_limit) {
        eviction_pending_ = true;
        note_eviction("eviction-cycle", start);
        return EvictResult::kRunning;  // the command runs, the timer evicts on
      }
    }
  }
  note_eviction("eviction-cycle", start);
  return freed >= to_free || shard_.counted_memory() <= limit ? EvictResult::kOk
                                                              : EvictResult::kFail;
}

// Redis's performEvictions with its update_metrics: the time spent over the limit with the
// eviction unfinished (running or failed) is INFO's eviction exceeded time.
bool Executor::perform_evictions() {
  const EvictResult r = evict();
  Stats& s = shard_.stats();
  if (r != EvictResult::kOk) {
    if (s.eviction_exceeded_since_us == 0) s.eviction_exceeded_since_us = Stats::steady_us();
  } else if (s.eviction_exceeded_since_us != 0) {
    s.total_eviction_exceeded_us += Stats::steady_us() - s.eviction_exceeded_since_us;
    s.eviction_exceeded_since_us = 0;
  }
  return r != EvictResult::kFail;
}

bool Executor::admit(const ClientInfo& client, const CommandDef& def, proto::ReplyWriter& out) {
  if (client.obey) return true;
  const bool oom = !perform_evictions();
  oom_at_start_ = oom;
  if (!oom || !(def.flags & kDenyOom)) return true;
  out.error(err::kOom);
  return false;
}

bool Executor::refuses_queueing(const ClientInfo& client, proto::ReplyWriter& out) {
  if (shard_.config().maxmemory == 0 || client.obey) return false;
  const bool oom = !perform_evictions();
  oom_at_start_ = oom;
  if (!oom) return false;
  out.error(err::kOom);
  return true;
}

}  // namespace ruvio::worker
