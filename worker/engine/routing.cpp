// routing_of: the proxy port's route of a command, read from its declaration only.
#include <utility>

#include "worker/engine/command.hpp"

namespace ruvio::worker {

// Where `def` runs on the proxy port, read from its declaration: a Ruvio routing declared on
// the command wins; otherwise Redis's request_policy/response_policy tips decide.
Routing routing_of(const CommandDef& def) {
  Routing r = def.routing;
  if (r.where == Where::kTips) {
    if (def.has_tip(Tip::kRequestAllShards) || def.has_tip(Tip::kRequestAllNodes)) {
      r.where = Where::kAllWorkers;
    } else if (def.has_tip(Tip::kRequestMultiShard)) {
      r.where = Where::kSplit;
    } else if (def.has_tip(Tip::kRequestSpecial)) {
      r.where = Where::kHere;  // special, and no Ruvio way declared: this worker answers
    } else {
      r.where = Where::kKeyOwner;
    }
  }
  if (r.merge == Merge::kTips) {
    static constexpr std::pair<Tip, Merge> kResponse[] = {
        {Tip::kResponseOneSucceeded, Merge::kOneOk},
        {Tip::kResponseAllSucceeded, Merge::kFirstError},
        {Tip::kResponseAggLogicalAnd, Merge::kAnd},
        {Tip::kResponseAggLogicalOr, Merge::kOr},
        {Tip::kResponseAggMin, Merge::kMin},
        {Tip::kResponseAggMax, Merge::kMax},
        {Tip::kResponseAggSum, Merge::kSum},
    };
    for (auto [tip, merge] : kResponse) {
      if (def.has_tip(tip)) r.merge = merge;
    }
    if (r.merge == Merge::kTips) {
      if (def.has_tip(Tip::kResponseSpecial) && r.where == Where::kAllWorkers) {
        r.where = Where::kHere;  // special, and no Ruvio merge declared
      }
      r.merge = r.where == Where::kSplit ? Merge::kKeyOrder : Merge::kConcat;
    }
  }
  return r;
}

}  // namespace ruvio::worker
