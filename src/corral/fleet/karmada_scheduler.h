#pragma once
// One scheduling attempt for one binding, as Karmada's generic scheduler makes it
// (pkg/scheduler/core/generic_scheduler.go Schedule, pkg/scheduler/scheduler.go
// scheduleResourceBindingWithClusterAffinities), read-only:
//
//   1. Filter every cluster not being deleted through APIEnablement, TaintToleration,
//      ClusterAffinity, SpreadConstraint and ClusterEviction, in that order, the first failure
//      deciding. No feasible cluster: "0/N clusters are available: <count> <reason>, ...." with the
//      reasons sorted as strings (N counts every cluster; "no cluster exists" when none
//      was filtered).
//   2. Score the feasible clusters: ClusterAffinity (always 0) + ClusterLocality (100 for a cluster
//      already in spec.clusters), unweighted.
//   3. Estimate available replicas with the estimators (minimum over them), group and select
//      clusters with the spread constraints (selection.h): "failed to select clusters: …".
//   4. Divide the replicas (division.h), Fresh when a reschedule was triggered after the last
//      schedule: "failed to assign replicas: …".
//   With clusterAffinities, the attempt runs for each term from the observed one (or the first, on
//   a triggered reschedule) until one succeeds; if none does, the first term's error is the result.
//
// Karmada builds its filter list from a Go map, so its order (and which plugin's reason a rejected
// cluster shows) varies between runs; Corral uses the registry's declaration order above.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/interner.h"
#include "corral/fleet/cluster_detail.h"
#include "corral/fleet/estimator.h"

namespace corral::fleet {

// One cluster as the attempt saw it.
struct ClusterVerdict {
  std::string name;
  bool deleting = false;       // skipped, as Karmada skips deleting clusters
  bool passed = false;         // passed every filter
  std::string filter_plugin;   // the rejecting plugin
  std::string reason;          // its reason
  int64_t affinity_score = 0;  // ClusterAffinity
  int64_t locality_score = 0;  // ClusterLocality
  int64_t score = 0;           // their sum
  int32_t allocatable_replicas = 0;
  int64_t available_replicas = 0;
  bool selected = false;
};

// Why an attempt failed, typed as Karmada's binding preemption needs it: only a shortage of
// capacity on clusters that passed every filter (selectBestClustersByCluster's "no enough resource"
// and the dynamic division's UnschedulableError) may trigger preemption; filter, spread-group and
// other division failures never do.
enum class FailureKind { kNone, kNoFeasibleCluster, kConstraint, kInsufficientCapacity };

struct BindingSchedule {
  std::vector<ClusterVerdict> clusters;  // in input order
  std::string affinity_name;             // the clusterAffinities term of the result, if any
  std::vector<TargetReplicas> result;    // spec.clusters as Karmada would write it
  std::string error;                     // empty on success
  FailureKind failure = FailureKind::kNone;
  bool ok() const { return error.empty(); }
};

// `clusters` is the snapshot; `estimators` are consulted for divided workloads.
BindingSchedule ScheduleBinding(const api::FleetWork& work, std::span<const api::Cluster> clusters,
                                std::span<const ReplicaEstimator* const> estimators,
                                const Interner& interner);

}  // namespace corral::fleet
