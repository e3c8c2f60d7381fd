#pragma once
// Replica division as Karmada's scheduler does it (pkg/scheduler/core/assignment.go,
// division_algorithm.go, common.go AssignReplicas, pkg/util/helper/binding.go Dispenser):
//
//   - Duplicated: every candidate gets all replicas.
//   - StaticWeight (Divided + Weighted without dynamicWeight): each candidate's weight is the
//     largest weight of the staticWeightList rules whose targetCluster matches it; candidates of
//     weight 0 are left out; when no candidate has a weight, all weigh 1. Replicas are dealt by
//     Webster's method with the tie-break of the binding's UID (webster.h). No capacity check.
//   - DynamicWeight (dynamicWeight: AvailableReplicas) and Aggregated: weights are the estimator's
//     available replicas. In Steady mode a scale-up deals only the extra replicas over the
//     clusters' allocatable replicas and adds them to the previous assignment; a scale-down
//     re-deals the new total by the previous assignment; an unchanged total keeps it. Fresh mode (a
//     reschedule triggered after the last schedule) re-deals everything over allocatable + held
//     replicas. Aggregated first keeps the shortest prefix of clusters (previously used ones first,
//     then by available replicas descending) whose capacity covers the target.
//   - Too little capacity: "Clusters available replicas N are not enough to schedule.", wrapped
//     as "failed to scale up: …", "failed to scale down: …" or "failed to do fresh scale: …".
//
// Results drop clusters left with zero replicas (removeZeroReplicasCluster). Where Karmada appends
// the previously held clusters of a merge in Go map order, Corral keeps their previous order.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/interner.h"
#include "corral/fleet/cluster_detail.h"
#include "corral/fleet/webster.h"

namespace corral::fleet {

// The outcome of a division: the assignment, or an error message. `unschedulable` marks Karmada's
// UnschedulableError (not enough capacity), as opposed to an invalid request.
struct Division {
  std::vector<TargetReplicas> clusters;
  std::string error;
  bool unschedulable = false;
  bool ok() const { return error.empty(); }
};

enum class DivisionStrategy { kDuplicated, kAggregated, kStaticWeight, kDynamicWeight };
enum class AssignmentMode { kSteady, kFresh };

// newAssignState's strategy: no replicaScheduling or Duplicated → kDuplicated; Divided with
// Aggregated → kAggregated; Divided with Weighted → kDynamicWeight when dynamicWeight is set, else
// kStaticWeight. Divided with no division preference has no strategy (std::nullopt).
std::optional<DivisionStrategy> StrategyOf(const api::Placement& placement);

// ---- the dispenser ------------------------------------------------------------------------------

struct ClusterWeightInfo {
  std::string cluster_name;
  int64_t weight = 0;
  int32_t last_replicas = 0;
  bool operator==(const ClusterWeightInfo&) const = default;
};

int64_t WeightSum(std::span<const ClusterWeightInfo> list);

// helper.Dispenser: deals `num_replicas` on top of an initial result.
class Dispenser {
 public:
  Dispenser(int32_t num_replicas, std::vector<TargetReplicas> init, std::string_view uid);
  // Done: nothing left to deal and a result exists.
  bool Done() const { return num_replicas_ == 0 && !result_.empty(); }
  // AllocateByWeight: deals the replicas over `weights` (Webster), keeping the initial seats; the
  // result lists every party by name ascending. No-op when done or when all weights are 0.
  void AllocateByWeight(std::span<const ClusterWeightInfo> weights);
  // The same with each target's replicas as its weight.
  void AllocateByTargetReplicas(std::span<const TargetReplicas> targets);

  int32_t num_replicas() const { return num_replicas_; }
  const std::vector<TargetReplicas>& result() const { return result_; }
  std::vector<TargetReplicas> TakeResult() && { return std::move(result_); }

 private:
  void AllocateByVotes(std::span<const std::pair<std::string_view, int64_t>> votes);

  int32_t num_replicas_;
  std::vector<TargetReplicas> result_;
  NameOrder order_;
};

// GetStaticWeightInfoListByTargetClusters: each target cluster weighs its replicas; last_replicas
// comes from `scheduled`.
std::vector<ClusterWeightInfo> StaticWeightInfoListByTargetClusters(
    std::span<const TargetReplicas> targets, std::span<const TargetReplicas> scheduled);

// SpreadReplicasByTargetClusters: deals `num_replicas` weighted by the targets' replicas, on top
// of `init`.
std::vector<TargetReplicas> SpreadReplicasByTargetClusters(int32_t num_replicas,
                                                           std::span<const TargetReplicas> targets,
                                                           std::span<const TargetReplicas> init,
                                                           std::string_view uid);

// ---- strategies ---------------------------------------------------------------------------------

// What one division needs from the work item.
struct DivisionRequest {
  int32_t replicas = 0;                  // spec.replicas
  std::vector<TargetReplicas> previous;  // spec.clusters
  std::string uid;                       // the resource template's UID (the tie-break)
  AssignmentMode mode = AssignmentMode::kSteady;
};

// assignByDuplicatedStrategy.
std::vector<TargetReplicas> AssignByDuplicated(std::span<const ClusterDetail> candidates,
                                               int32_t replicas);

// assignByStaticWeightStrategy. `preference` null means the default (every candidate weighs 1).
// Candidates must carry `cluster` when a rule has selectors other than names.
std::vector<TargetReplicas> AssignByStaticWeight(std::span<const ClusterDetail> candidates,
                                                 const api::ClusterPreferences* preference,
                                                 const DivisionRequest& request,
                                                 const Interner& interner);

// dynamicDivideReplicas: deals `target` over `available` (name, weight) in the given order;
// Aggregated first cuts the list to the shortest covering prefix, with clusters of `scheduled`
// holding replicas moved to the front. The result is merged onto `scheduled`.
Division DynamicDivideReplicas(DivisionStrategy strategy, std::vector<TargetReplicas> available,
                               int32_t target, std::span<const TargetReplicas> scheduled,
                               std::string_view uid);

// assignByDynamicStrategy (kAggregated or kDynamicWeight).
Division AssignByDynamic(DivisionStrategy strategy, std::span<const ClusterDetail> candidates,
                         const DivisionRequest& request);

// Only the steady scale-up step (dynamicScaleUp), for the tests that exercise it alone.
Division DynamicScaleUp(DivisionStrategy strategy, std::span<const ClusterDetail> candidates,
                        const DivisionRequest& request);

// core.AssignReplicas: "no clusters available to schedule" without candidates; a work item with no
// replicas and no replica requirements goes to every candidate with 0 replicas; with
// `overflow` (ClusterAffinities with overflow affinities in effect) candidates are taken tier by
// tier of overflow_order, each tier given min(remaining, its available replicas), failing with
// "Clusters available replicas are not enough to schedule." when all tiers fall short. Zero-replica
// clusters are dropped from the result.
Division AssignReplicas(std::span<const ClusterDetail> candidates, const api::Placement& placement,
                        bool has_replica_requirements, bool overflow,
                        const DivisionRequest& request, const Interner& interner);

}  // namespace corral::fleet
