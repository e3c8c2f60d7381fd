#pragma once
// Replica estimators: how many replicas of a work item each member cluster can still take.
//
// GeneralEstimator is Karmada's general estimator (pkg/estimator/client/general.go), which reads
// only the cluster's reported ResourceSummary:
//   1. no summary → 0;
//   2. the pod budget allocatable.pods − allocated.pods − allocating.pods (0 when ≤ 0) caps
//      everything; without replica requirements it is the answer;
//   3. with CustomizedClusterResourceModeling (beta, on by default) and allocatableModelings
//      present, the resource-model estimate (below) capped by the pod budget is the answer, unless
//      the cluster's models are unusable, in which case step 4 applies;
//   4. otherwise, for every requested resource with Value() > 0: (allocatable − allocated −
//      allocating) / request, in milli-units for cpu and units otherwise; a requested resource the
//      summary lacks, or has none left of, gives 0; the answer is the minimum over resources and
//      the pod budget.
//
// The resource-model estimate builds, for each grade in ascending order, allocatableModelings'
// count of nodes whose capacity is the grade's range minimums (and 110 pods), and places replicas
// first-fit. Karmada places one replica at a time; for identical replicas first-fit fills each node
// to its limit before the next, so the estimate is the sum over nodes of the replicas each node can
// hold (MaxDivided: the minimum over cpu, memory, ephemeral-storage and scalar resources of
// capacity / request, and the pod capacity), which Corral computes directly.
//
// Karmada's SchedulingOvercommitProtection (alpha, off by default: deducting in-flight assumed
// workloads) and multi-template component sets are not implemented.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"

namespace corral::fleet {

// estimatorclient.UnauthenticReplica: an estimator's "no answer" for a cluster.
inline constexpr int32_t kUnauthenticReplica = -1;

// One estimator of the fleet (Karmada's estimatorclient.ReplicaEstimator).
class ReplicaEstimator {
 public:
  virtual ~ReplicaEstimator() = default;
  // For each cluster, in order, the replicas it can still take, or kUnauthenticReplica.
  // `requirements` null means the work item asks for nothing per replica.
  virtual std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const = 0;
};

// Whether a work item dispatched whole (every pod of every pod set at once, a Kueue workload) fits
// in a cluster now: what Kueue's ClusterFeasibility filter asks.
class WorkloadEstimator {
 public:
  virtual ~WorkloadEstimator() = default;
  // nullopt when this estimator has no answer for the cluster.
  virtual std::optional<bool> FitsWhole(const api::Cluster& cluster,
                                        const api::FleetWork& work) const = 0;
};

class GeneralEstimator final : public ReplicaEstimator, public WorkloadEstimator {
 public:
  // `interner` must come from api::NewInterner() (well-known resource names).
  explicit GeneralEstimator(const Interner& interner,
                            bool customized_cluster_resource_modeling = true)
      : interner_(interner), resource_modeling_(customized_cluster_resource_modeling) {}

  std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const override;

  // The estimate for one cluster (steps 1–4 above).
  int32_t MaxAvailableReplicas(const api::Cluster& cluster,
                               const api::ReplicaRequirements* requirements) const;

  // The summary's answer for the whole work item as one replica (its requirements hold the sum
  // over its pod sets): at least one replica fits. nullopt for a cluster without a summary.
  std::optional<bool> FitsWhole(const api::Cluster& cluster,
                                const api::FleetWork& work) const override;

 private:
  const Interner& interner_;
  bool resource_modeling_;
};

// getAllowedPodNumber: the pod budget, 0 when not positive.
int64_t AllowedPodNumber(const api::ResourceSummary& summary);

// getMaximumReplicasBasedOnClusterSummary (step 4 without the pod budget); INT64_MAX when nothing
// is requested.
int64_t MaxReplicasBasedOnClusterSummary(const api::ResourceSummary& summary,
                                         const api::ReplicaRequirements& requirements,
                                         const Interner& interner);

// getMaximumReplicasBasedOnResourceModels. Errors as Karmada's: "resource summary is nil", "no
// resource models defined", "negative node count for grade N".
Result<int64_t> MaxReplicasBasedOnResourceModels(const api::Cluster& cluster,
                                                 const api::ReplicaRequirements& requirements,
                                                 const Interner& interner);

// min over estimators as calAvailableReplicas merges them: each cluster starts at INT32_MAX, takes
// the minimum of the estimators' authentic answers, and a cluster still at INT32_MAX gets
// `replicas`. A work item with no replicas is not estimated (every cluster gets INT32_MAX and then
// `replicas`, i.e. 0).
std::vector<int32_t> CalAvailableReplicas(std::span<const ReplicaEstimator* const> estimators,
                                          std::span<const api::Cluster* const> clusters,
                                          int32_t replicas,
                                          const api::ReplicaRequirements* requirements);

}  // namespace corral::fleet
