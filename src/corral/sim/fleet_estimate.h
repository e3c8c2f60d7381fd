#pragma once
// The accurate estimator inside a simulation: each member answers through its own live scheduler
// how many replicas of a work item it can take now (Karmada's scheduler-estimator, answered by the
// member's real scheduler state instead of a node-resource sum), and whether a Kueue workload fits
// whole (the ClusterFeasibility filter's question).
//
// Contract:
//  (1) Read-only and in place: Scheduler::EstimateIndependentReplicas runs PreFilter once and
//      Filter on every node of the member's current snapshot, with the member's own profiles and
//      plugin arguments (its KubeSchedulerConfiguration), and adds up the copies each passing
//      node's free resources hold. Nothing the member later decides depends on the question.
//  (2) The replica pod is the fleet workload's own pod template (node selector, affinity,
//      tolerations, priority, scheduler name), without gang membership: a copy goes whole to one
//      member, so a gang fits when every one of its pods does. Only templates whose copies contend
//      with each other through node resources and pod slots alone can be estimated this way
//      (scheduler::IndependentReplicas); the scenario reader refuses the accurate estimator for any
//      other fleet workload (EstimatePodProblem).
//  (3) The member's pending pods are not counted against the estimate (as Karmada's estimator
//      server counts only assigned pods): two items dispatched to one member at one instant may
//      both count on the same free room.
//  (4) Memoized per (member, replica template) and member generation (Member::epoch(), bumped by
//      every change of the member's state): a dispatch pass over many items of one shape costs one
//      estimate per member until that member changes.
//  (5) An unreachable member gives no answer (kUnauthenticReplica / nullopt), as an estimator
//      client that cannot reach the member's estimator server.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/cluster.h"
#include "corral/api/types.h"
#include "corral/fleet/estimator.h"
#include "corral/sim/fleet_spec.h"

namespace corral::sim {

struct World;

// The pod the accurate estimator asks a member to place for one replica of a fleet workload whose
// pods are made from `tmpl`: the template without a node, nomination or gang membership.
api::Pod EstimatePod(const api::Pod& tmpl);

// Why copies of `tmpl` cannot be estimated in place ("" when they can): the first of host ports,
// required inter-pod (anti-)affinity, a DoNotSchedule topology spread constraint, a volume or
// resource claim.
std::string EstimatePodProblem(const api::Pod& tmpl);

class SimAccurateEstimator final : public fleet::ReplicaEstimator, public fleet::WorkloadEstimator {
 public:
  // `reachable(member)` tells whether the fleet can reach a member now.
  SimAccurateEstimator(World& w, std::function<bool(uint32_t)> reachable);

  std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const override;
  // Whether all `work.replicas` pods of the work item fit at once now.
  std::optional<bool> FitsWhole(const api::Cluster& cluster,
                                const api::FleetWork& work) const override;

  int64_t computed() const { return computed_; }
  int64_t memo_hits() const { return hits_; }

 private:
  // The member behind `cluster` (UINT32_MAX: none).
  uint32_t MemberOf(const api::Cluster& cluster) const;
  // The replicas member `m` can take of copies of `tmpl` (memoized).
  int32_t Estimate(uint32_t m, const api::Pod& tmpl) const;

  World& w_;
  std::function<bool(uint32_t)> reachable_;
  absl::flat_hash_map<Symbol, uint32_t> member_of_;
  struct Memo {
    uint64_t epoch = 0;
    int32_t answer = 0;
  };
  mutable absl::flat_hash_map<std::pair<uint32_t, const api::Pod*>, Memo> memo_;
  mutable absl::flat_hash_map<const api::Pod*, api::Pod> pods_;  // EstimatePod per template
  mutable int64_t computed_ = 0;
  mutable int64_t hits_ = 0;
};

// The general estimator's answer to FitsWhole inside a simulation, where a fleet work item's
// requirements are one pod's: every one of its `replicas` pods fits the cluster's summary.
class SimGeneralWorkloadEstimator final : public fleet::WorkloadEstimator {
 public:
  explicit SimGeneralWorkloadEstimator(const fleet::GeneralEstimator& general)
      : general_(general) {}
  std::optional<bool> FitsWhole(const api::Cluster& cluster,
                                const api::FleetWork& work) const override;

 private:
  const fleet::GeneralEstimator& general_;
};

// Asks `inner` at every call and answers nothing (kUnauthenticReplica / nullopt): a run with it
// beside the general estimator must decide exactly as a run without it (tests).
class ShadowEstimator final : public fleet::ReplicaEstimator, public fleet::WorkloadEstimator {
 public:
  explicit ShadowEstimator(const SimAccurateEstimator& inner) : inner_(inner) {}
  std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const override;
  std::optional<bool> FitsWhole(const api::Cluster& cluster,
                                const api::FleetWork& work) const override;

 private:
  const SimAccurateEstimator& inner_;
};

// The estimators of one fleet lane, by FleetSpec::estimator: the general estimator always (replicas
// from the summaries, and FitsWhole from them), the accurate estimator beside it (kAccurate) or
// asked and ignored (kShadow).
class FleetEstimators {
 public:
  FleetEstimators(World& w, FleetEstimatorKind kind, std::function<bool(uint32_t)> reachable);
  std::vector<const fleet::ReplicaEstimator*> replica() const;
  std::vector<const fleet::WorkloadEstimator*> workload() const;
  const SimAccurateEstimator* accurate() const { return accurate_.get(); }
  const fleet::GeneralEstimator& general() const { return general_; }

 private:
  FleetEstimatorKind kind_;
  fleet::GeneralEstimator general_;
  SimGeneralWorkloadEstimator general_whole_;
  std::unique_ptr<SimAccurateEstimator> accurate_;
  std::unique_ptr<ShadowEstimator> shadow_;
};

}  // namespace corral::sim
