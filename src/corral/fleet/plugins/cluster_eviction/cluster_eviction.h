#pragma once
// Karmada's ClusterEviction filter (pkg/scheduler/framework/plugins/clustereviction): a cluster
// the work is being gracefully evicted from is rejected with "cluster(s) is in the process of
// eviction".

#include <string_view>

#include "corral/api/cluster.h"
#include "corral/framework/status.h"

namespace corral::fleet {

class ClusterEviction {
 public:
  static constexpr std::string_view kName = "ClusterEviction";
  static constexpr std::string_view kReason = "cluster(s) is in the process of eviction";
  framework::Status Filter(const api::FleetWork& work, const api::Cluster& cluster) const {
    if (work.ClusterInGracefulEvictionTasks(cluster.meta.name)) {
      return framework::Status::Unschedulable(kReason);
    }
    return {};
  }
};

}  // namespace corral::fleet
