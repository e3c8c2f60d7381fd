#pragma once
// Kueue's cluster placement plugins of the composable MultiKueue dispatcher KEP-8692, over
// MultiKueueCluster labels:
//
//   - ClusterAffinity (filter): the workload's clusterSelector (every pair present, as
//     pod.spec.nodeSelector) and clusterAffinity.required (any term matches) must both hold;
//     with neither set the plugin passes every cluster. A failing cluster gets, in the style of
//     kube's NodeAffinity, "cluster(s) didn't match Workload's cluster affinity/selector".
//   - ClusterAffinityScore (score): the sum of the weights of the preferred terms the cluster
//     matches, normalized proportionally to [0, 100] over the candidates (DefaultNormalizeScore).

#include <cstdint>
#include <span>
#include <string_view>

#include "corral/api/cluster.h"
#include "corral/framework/status.h"

namespace corral::fleet {

class KueueClusterAffinity {
 public:
  static constexpr std::string_view kName = "ClusterAffinity";
  static constexpr std::string_view kReason =
      "cluster(s) didn't match Workload's cluster affinity/selector";
  framework::Status Filter(const api::FleetWork& work, const api::Cluster& cluster) const;
};

class KueueClusterAffinityScore {
 public:
  static constexpr std::string_view kName = "ClusterAffinityScore";
  int64_t Score(const api::FleetWork& work, const api::Cluster& cluster) const;
  void NormalizeScore(std::span<int64_t> scores) const;
};

}  // namespace corral::fleet
