#pragma once
// Karmada's ClusterAffinity plugin (pkg/scheduler/framework/plugins/clusteraffinity).
//
// Filter: with placement.clusterAffinity, the cluster must match it; otherwise with
// clusterAffinities, the term named by status.schedulerObservedAffinityName (plus, for workloads,
// its overflow affinities) must match; a failing cluster gets "cluster(s) did not match the
// placement cluster affinity constraint". With neither (or no term of the observed name) every
// cluster passes. Score: always kMinClusterScore (a no-op NormalizeScore).

#include <cstdint>
#include <string_view>

#include "corral/api/cluster.h"
#include "corral/framework/status.h"

namespace corral::fleet {

class ClusterAffinity {
 public:
  static constexpr std::string_view kName = "ClusterAffinity";
  static constexpr std::string_view kReason =
      "cluster(s) did not match the placement cluster affinity constraint";
  explicit ClusterAffinity(const Interner& interner) : interner_(interner) {}
  framework::Status Filter(const api::FleetWork& work, const api::Cluster& cluster) const;
  int64_t Score(const api::FleetWork& work, const api::Cluster& cluster) const;

 private:
  const Interner& interner_;
};

}  // namespace corral::fleet
