#pragma once
// Kueue's ClusterHealth filter (composable MultiKueue dispatcher KEP-8692): a MultiKueueCluster
// whose Active condition is not True is rejected. The KEP gives no message; Corral's, in the
// scheduler's "node(s) ..." style, is "cluster(s) were not active".

#include <string_view>

#include "corral/api/cluster.h"
#include "corral/framework/status.h"

namespace corral::fleet {

class ClusterHealth {
 public:
  static constexpr std::string_view kName = "ClusterHealth";
  static constexpr std::string_view kReason = "cluster(s) were not active";
  framework::Status Filter(const api::FleetWork&, const api::Cluster& cluster) const {
    if (!cluster.active) return framework::Status::Unschedulable(kReason);
    return {};
  }
};

}  // namespace corral::fleet
