#pragma once
// Kueue's CapacityScore of the composable MultiKueue dispatcher (KEP-8692, kueue PR #10784):
// prefers the cluster with the most room left. The KEP leaves it unimplemented until worker
// capacity is visible (kueue#10105); Corral reads each cluster's resource summary (for a member
// given as a folder, computed from its nodes and pods) and scores as kube's LeastAllocated scores
// a node, one level up:
//
//   for each resource the workload requests (cpu in millicores, the others in units) whose
//   allocatable is positive: free = allocatable − allocated − allocating − request, and the
//   resource scores free × 100 / allocatable (0 when free < 0); the score is the sum over those
//   resources divided by their count (integer arithmetic, equal weights). A cluster without a
//   summary, or a workload that requests nothing, scores 0.
//
// Scores are already in [0, 100]; NormalizeScore leaves them as they are. Where ClusterFeasibility
// answers "can it run there at all", CapacityScore answers "where does it leave the most room".

#include <cstdint>
#include <span>
#include <string_view>

#include "corral/api/cluster.h"

namespace corral::fleet {

class CapacityScore {
 public:
  static constexpr std::string_view kName = "CapacityScore";
  int64_t Score(const api::FleetWork& work, const api::Cluster& cluster) const;
  void NormalizeScore(std::span<int64_t> scores) const { (void)scores; }
};

}  // namespace corral::fleet
