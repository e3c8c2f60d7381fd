#pragma once
// Kueue's ClusterFeasibility filter of the composable MultiKueue dispatcher (KEP-8692, kueue PR
// #10784): rejects a cluster that cannot admit the workload now. The KEP leaves it a no-op at
// alpha, blocked on worker capacity visibility (kueue#10105); Corral sees each member's state and
// asks the fleet's workload estimators (fleet/estimator.h) whether the whole workload (every pod
// of every pod set at once) fits:
//
//   - the general estimator answers from the cluster's resource summary (the workload's summed
//     request against allocatable − allocated − allocating, and one pod slot);
//   - the accurate estimator, for a cluster given as a folder of its nodes and pods, places the
//     pods through the member's own scheduler (node by node, gang and constraints included).
//
// A cluster fits when every estimator with an answer says so; one that says no rejects it with
// "cluster(s) had insufficient capacity for the workload"; a cluster no estimator answers for (a
// MultiKueueCluster has no summary of its own) is rejected with "cluster(s) had no capacity
// information", never passed unseen. The messages are Corral's: the KEP names none.

#include <span>
#include <string_view>

#include "corral/api/cluster.h"
#include "corral/fleet/estimator.h"
#include "corral/framework/status.h"

namespace corral::fleet {

class ClusterFeasibility {
 public:
  static constexpr std::string_view kName = "ClusterFeasibility";
  static constexpr std::string_view kInsufficient =
      "cluster(s) had insufficient capacity for the workload";
  static constexpr std::string_view kUnknown = "cluster(s) had no capacity information";

  explicit ClusterFeasibility(std::span<const WorkloadEstimator* const> estimators)
      : estimators_(estimators) {}
  framework::Status Filter(const api::FleetWork& work, const api::Cluster& cluster) const;

 private:
  std::span<const WorkloadEstimator* const> estimators_;
};

}  // namespace corral::fleet
