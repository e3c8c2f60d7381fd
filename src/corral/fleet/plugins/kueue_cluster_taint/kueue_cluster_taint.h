#pragma once
// Kueue's cluster taint plugins of the composable MultiKueue dispatcher KEP-8692 (MultiKueueCluster
// taints are NoSchedule or PreferNoSchedule; the workload's clusterTolerations are
// core/v1 tolerations):
//
//   - ClusterTaints (filter): an untolerated NoSchedule taint rejects the cluster with kube's
//     TaintToleration message "cluster(s) had untolerated taint(s)".
//   - ClusterTaintScore (score): the number of untolerated PreferNoSchedule taints, normalized in
//     reverse so the cluster with the fewest scores 100 and the one with the most 0.

#include <cstdint>
#include <span>
#include <string_view>

#include "corral/api/cluster.h"
#include "corral/framework/status.h"

namespace corral::fleet {

class KueueClusterTaints {
 public:
  static constexpr std::string_view kName = "ClusterTaints";
  static constexpr std::string_view kReason = "cluster(s) had untolerated taint(s)";
  framework::Status Filter(const api::FleetWork& work, const api::Cluster& cluster) const;
};

class KueueClusterTaintScore {
 public:
  static constexpr std::string_view kName = "ClusterTaintScore";
  int64_t Score(const api::FleetWork& work, const api::Cluster& cluster) const;
  void NormalizeScore(std::span<int64_t> scores) const;
};

}  // namespace corral::fleet
