#pragma once
// A candidate cluster as cluster selection hands it to replica division
// (Karmada's spreadconstraint.ClusterDetailInfo).

#include <cstdint>
#include <string>

#include "corral/api/cluster.h"

namespace corral::fleet {

struct ClusterDetail {
  std::string name;
  const api::Cluster* cluster = nullptr;  // may be null where only the name matters
  int64_t score = 0;
  // 0 for clusters of the primary affinity, 1, 2, ... for successive overflow affinities.
  int32_t overflow_order = 0;
  // The replicas the cluster could hold: its allocatable replicas plus those it already holds.
  int64_t available_replicas = 0;
  // The estimator's answer for this work item: replicas the cluster can still take.
  int32_t allocatable_replicas = 0;
};

// One cluster of an assignment (Karmada's TargetCluster, with a string name so that name orders
// are lexicographic).
struct TargetReplicas {
  std::string name;
  int32_t replicas = 0;
  bool operator==(const TargetReplicas&) const = default;
};

}  // namespace corral::fleet
