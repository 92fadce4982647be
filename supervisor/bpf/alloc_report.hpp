// What the allocation tracer reports for a worker: the data behind `GET /alloc`, the
// ruvio_alloc_* metrics and `ruvioctl alloc`. Plain data with cereal field names, so the
// JSON the admin port serves is exactly these fields.
#pragma once

#include <cereal/cereal.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ruvio::supervisor {

struct AllocSizeClass {
  std::uint64_t size = 0;  // usable bytes of the block (mimalloc's size class)
  std::int64_t bytes = 0;  // live bytes (sampled: weighted estimate)
  std::int64_t count = 0;  // live blocks (sampled: samples)
  template <class A>
  void serialize(A& ar) {
    ar(CEREAL_NVP(size), CEREAL_NVP(bytes), CEREAL_NVP(count));
  }
};

struct AllocStack {
  std::int64_t bytes = 0;
  std::int64_t count = 0;
  std::vector<std::string> frames;  // innermost first: "symbol+0x1f (binary)"
  template <class A>
  void serialize(A& ar) {
    ar(CEREAL_NVP(bytes), CEREAL_NVP(count), CEREAL_NVP(frames));
  }
};

struct AllocWorker {
  int id = 0;
  int pid = 0;
  bool traced = false;  // the probes are attached to this incarnation
  std::int64_t live_bytes = 0;
  std::int64_t live_count = 0;
  std::vector<AllocSizeClass> by_size_class;  // largest bytes first
  std::vector<AllocStack> top_stacks;         // largest bytes first
  template <class A>
  void serialize(A& ar) {
    ar(CEREAL_NVP(id), CEREAL_NVP(pid), CEREAL_NVP(traced), CEREAL_NVP(live_bytes),
       CEREAL_NVP(live_count), CEREAL_NVP(by_size_class), CEREAL_NVP(top_stacks));
  }
};

struct AllocReport {
  std::string state = "off";     // "on" or "off"
  std::string reason;            // why it is off ("" when on)
  std::string mode = "sampled";  // "sampled" or "full"
  std::uint64_t sample_interval_bytes = 0;
  double seconds = 0;  // full mode: how long the probes were attached
  std::vector<AllocWorker> workers;
  template <class A>
  void serialize(A& ar) {
    ar(CEREAL_NVP(state), CEREAL_NVP(reason), CEREAL_NVP(mode), CEREAL_NVP(sample_interval_bytes),
       CEREAL_NVP(seconds), CEREAL_NVP(workers));
  }
};

}  // namespace ruvio::supervisor
