#include "worker/engine/shard.hpp"

#include <mimalloc.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "worker/types/value.hpp"

namespace ruvio::worker {

std::int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Shard::change_repl_id() {
  std::random_device rd;
  repl_id_.clear();
  for (int i = 0; i < 40; ++i) repl_id_.push_back("0123456789abcdef"[rd() % 16]);
}

Shard::Shard(const Config& config, int worker_id) : config_(config), worker_id_(worker_id) {
  types::register_builtin_types();
  start_ms_ = wall_clock_ms();
  set_now_ms(start_ms_);
  change_repl_id();
  const int n = config_.databases > 0 ? config_.databases : 1;
  dbs_.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) dbs_.push_back(std::make_unique<store::Db>(&events_));
  apply_lazyfree();
  apply_maxmemory_policy();
  apply_notify();
  // Redis's order: requirepass, then the config file's `user` lines, then the aclfile.
  acl_.set_default_password(config_.requirepass);
  acl_.log_max_len = static_cast<std::size_t>(config_.acllog_max_len);
  acl_error_ = acl_.load_at_startup(config_.acl_users, config_.aclfile);
}

void Shard::lru_pass_step() {
  if (store::is_lfu(policy_)) return;
  store::LruClock& clock = events_.lru;
  if (!clock.passing() && !clock.wants_pass()) return;
  lru_dbs_.clear();
  std::size_t keys = 0;
  for (auto& db : dbs_) {
    lru_dbs_.push_back(db.get());
    keys += db->size();
  }
  store::lru_pass_step(clock, lru_dbs_, now_ms_, store::lru_pass_budget(keys));
}

std::size_t Shard::used_memory() const {
  std::size_t total = 0;
  for (const auto& db : dbs_) total += db->used_memory();
  return total;
}

// mimalloc 2.0 decommits freed pages lazily (after decommit_delay, on a later allocator
// call), so an idle worker would keep a flushed keyspace resident. With the delays at zero
// for this one collection, the pages go back to the OS now; the normal delays, which save
// churn on busy workers, return afterwards.
void Shard::release_memory() {
  const long page_delay = mi_option_get(mi_option_decommit_delay);
  const long segment_delay = mi_option_get(mi_option_segment_decommit_delay);
  mi_option_set(mi_option_decommit_delay, 0);
  mi_option_set(mi_option_segment_decommit_delay, 0);
  mi_collect(true);
  mi_option_set(mi_option_decommit_delay, page_delay);
  mi_option_set(mi_option_segment_decommit_delay, segment_delay);
}

}  // namespace ruvio::worker
