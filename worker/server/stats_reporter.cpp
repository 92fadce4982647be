#include "worker/server/stats_reporter.hpp"

#include <mimalloc.h>
#include <spdlog/spdlog.h>

#include "shared/log.hpp"
#include "worker/memory/alloc_sampler.hpp"
#include "worker/persist/service.hpp"

namespace ruvio::worker {

void start_alloc_sampler(const Config& config) {
  store::alloc_sampler().configure(config.alloc_trace ? store::AllocSampler::kDefaultInterval : 0);
}

control::StatsReport stats_report(Shard& shard, std::uint64_t seq) {
  control::StatsReport r;
  r.seq = seq;
  r.id = shard.worker_id();
  for (int i = 0; i < shard.databases(); ++i) {
    r.keys.push_back(shard.db(i).size());
    r.expires.push_back(shard.db(i).expires_size());
  }
  r.used_memory = shard.used_memory();
  r.commands_processed = shard.stats().commands_processed;
  r.ops_per_sec = shard.stats().instantaneous_ops_per_sec;
  r.connected_clients = shard.connected_clients;
  if (shard.persistence != nullptr) {
    r.wal_bytes = shard.persistence->wal_bytes();
    r.wal_lag_ms = shard.persistence->wal_lag_ms(shard.now_ms());
  }
  std::size_t elapsed = 0, user = 0, sys = 0, rss = 0, peak_rss = 0, commit = 0, peak_commit = 0,
              faults = 0;
  mi_process_info(&elapsed, &user, &sys, &rss, &peak_rss, &commit, &peak_commit, &faults);
  r.mi_current_rss = rss;
  r.mi_peak_rss = peak_rss;
  r.mi_current_commit = commit;
  r.mi_peak_commit = peak_commit;
  r.mi_page_faults = faults;
  const auto& sampler = store::alloc_sampler();
  r.sample_interval = sampler.interval();
  r.sampled_live_bytes = sampler.live_bytes();
  r.sampled_live_count = sampler.live_count();
  return r;
}

std::optional<control::Message> handle_ops_message(Shard& shard, const control::Message& msg) {
  if (const auto* req = std::get_if<control::StatsRequest>(&msg)) {
    return control::Message(stats_report(shard, req->seq));
  }
  if (const auto* figures = std::get_if<control::WorkerFigures>(&msg)) {
    shard.worker_memory = figures->workers;
    return std::nullopt;
  }
  if (std::holds_alternative<control::AllocTraceAttached>(msg)) {
    store::alloc_sampler().replay();
    return std::nullopt;
  }
  if (const auto* update = std::get_if<control::ConfigUpdate>(&msg)) {
    Config& config = shard.config();
    if (const auto level = parse_log_level(update->log_level)) {
      spdlog::set_level(*level);
      config.log_level = update->log_level;
    }
    config.maxmemory = update->maxmemory;
    config.maxmemory_policy = update->maxmemory_policy;
    shard.apply_maxmemory_policy();
    // New connections and AUTH see the new password; authenticated connections stay so,
    // as after CONFIG SET requirepass in Redis.
    if (config.requirepass != update->requirepass) {
      config.requirepass = update->requirepass;
      shard.acl().set_default_password(config.requirepass);
      shard.note_acl_change();
    }
    spdlog::info("configuration reloaded: log-level {}, maxmemory {}, maxmemory-policy {}",
                 config.log_level, config.maxmemory, config.maxmemory_policy);
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ruvio::worker
