#pragma once
// Karmada's ClusterLocality score (pkg/scheduler/framework/plugins/clusterlocality): 100 for a
// cluster that already holds the work (it is in spec.clusters), else 0; no normalization.

#include <cstdint>
#include <string_view>

#include "corral/api/cluster.h"
#include "corral/fleet/plugins/normalize.h"

namespace corral::fleet {

class ClusterLocality {
 public:
  static constexpr std::string_view kName = "ClusterLocality";
  int64_t Score(const api::FleetWork& work, const api::Cluster& cluster) const {
    if (work.clusters.empty()) return kMinClusterScore;
    return work.TargetContains(cluster.meta.name) ? kMaxClusterScore : kMinClusterScore;
  }
};

}  // namespace corral::fleet
