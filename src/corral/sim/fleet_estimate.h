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
//      member, so a gang fits when every one of its pods does. Copies that contend with each other
//      through node resources and pod slots alone (scheduler::IndependentReplicas) are estimated
//      in place. Any other template (host ports, required pod (anti-)affinity, DoNotSchedule
//      spread, claims) is placed on a copy of the member as `corral dispatch` places it
//      (scheduler::EstimateReplicas: a new scheduler with the member's options, alive nodes and
//      bound pods); the copies tried are bounded by the work item's replicas, so such an answer
//      is at most the replicas the item asks for.
//  (3) The member's pending pods are not counted against the estimate (as Karmada's estimator
//      server counts only assigned pods): two items dispatched to one member at one instant may
//      both count on the same free room.
//  (4) Memoized per (member, replica template) and member generation (Member::epoch(), bumped by
//      every change of the member's state): a dispatch pass over many items of one shape costs one
//      estimate per member until that member changes.
//  (5) An unreachable member gives no answer (kUnauthenticReplica / nullopt), as an estimator
//      client that cannot reach the member's estimator server; so does a trial placement whose
//      copy of the member cannot be built (an estimate that fails).
//  (6) A work item with a required topology (FleetSpec::work_topology_key) fits whole only when
//      all its pods fit within one domain of that node label (scheduler::GangFits with the key).
//  (7) Every answer is counted (FleetResult::EstimateCounts): computed, from the memo, or
//      refused; the accurate estimator's also per member.

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

// Why copies of `tmpl` do not contend with each other through node resources and pod slots alone
// ("" when they do; scheduler::IndependentReplicas): the first of host ports, required inter-pod
// (anti-)affinity, a DoNotSchedule topology spread constraint, a volume or resource claim. The
// accurate estimator places such copies by trial; Phase 2 victim selection (fleet_victims.h)
// counts copies per node and refuses them.
std::string EstimatePodProblem(const api::Pod& tmpl);

using EstimateCounts = FleetResult::EstimateCounts;

class SimAccurateEstimator final : public fleet::ReplicaEstimator, public fleet::WorkloadEstimator {
 public:
  // `reachable(member)` tells whether the fleet can reach a member now.
  SimAccurateEstimator(World& w, std::function<bool(uint32_t)> reachable);

  std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const override;
  // Whether all `work.replicas` pods of the work item fit at once now (within one domain of its
  // required topology, when it has one).
  std::optional<bool> FitsWhole(const api::Cluster& cluster,
                                const api::FleetWork& work) const override;

  const EstimateCounts& counts() const { return counts_; }
  // Per member, in member order.
  const std::vector<EstimateCounts>& member_counts() const { return member_counts_; }

 private:
  // What the fleet spec says of the work items made from one template: the most replicas one asks
  // for (the bound of a trial placement) and its required topology key.
  struct TemplateInfo {
    int32_t replicas = 1;
    Symbol topology_key;
  };
  struct Memo {
    uint64_t epoch = 0;  // of `answer`
    int32_t answer = 0;
    uint64_t whole_epoch = 0;  // of `whole` (FitsWhole with a topology key)
    int8_t whole = -1;         // -1 no answer, 0 no, 1 yes
  };
  // The member behind `cluster` (UINT32_MAX: none).
  uint32_t MemberOf(const api::Cluster& cluster) const;
  const TemplateInfo& InfoOf(const api::Pod& tmpl) const;
  const api::Pod& PodOf(const api::Pod& tmpl) const;
  // The replicas member `m` can take of copies of `tmpl` (memoized), or kUnauthenticReplica.
  int32_t Estimate(uint32_t m, const api::Pod& tmpl, bool& memoized) const;
  // Whether `replicas` copies of `tmpl` fit member `m` within one domain of `key` (memoized).
  std::optional<bool> FitsInOneDomain(uint32_t m, const api::Pod& tmpl, int32_t replicas,
                                      Symbol key, bool& memoized) const;
  void Count(uint32_t m, bool answered, bool memoized) const;

  World& w_;
  std::function<bool(uint32_t)> reachable_;
  absl::flat_hash_map<Symbol, uint32_t> member_of_;
  absl::flat_hash_map<const api::Pod*, TemplateInfo> info_;
  mutable absl::flat_hash_map<std::pair<uint32_t, const api::Pod*>, Memo> memo_;
  mutable absl::flat_hash_map<const api::Pod*, api::Pod> pods_;  // EstimatePod per template
  mutable EstimateCounts counts_;
  mutable std::vector<EstimateCounts> member_counts_;
};

// The general estimator of a simulation's fleet, counted: fleet::GeneralEstimator, or what stands
// in its place (the general estimator less preemption claims, fleet_preemption.h).
class SimGeneralReplicaEstimator final : public fleet::ReplicaEstimator {
 public:
  SimGeneralReplicaEstimator(const fleet::ReplicaEstimator& general, EstimateCounts& counts)
      : general_(&general), counts_(counts) {}
  std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const override;
  void set_inner(const fleet::ReplicaEstimator& general) { general_ = &general; }

 private:
  const fleet::ReplicaEstimator* general_;
  EstimateCounts& counts_;
};

// The general estimator's answer to FitsWhole inside a simulation, where a fleet work item's
// requirements are one pod's: every one of its `replicas` pods fits the cluster's summary.
class SimGeneralWorkloadEstimator final : public fleet::WorkloadEstimator {
 public:
  SimGeneralWorkloadEstimator(const fleet::GeneralEstimator& general, EstimateCounts& counts)
      : general_(general), counts_(counts) {}
  std::optional<bool> FitsWhole(const api::Cluster& cluster,
                                const api::FleetWork& work) const override;

 private:
  const fleet::GeneralEstimator& general_;
  EstimateCounts& counts_;
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
  // The general estimator's answers so far (replicas and FitsWhole together).
  const EstimateCounts& general_counts() const { return general_counts_; }
  // Counts `general` as the general estimator in replica(): what stands in its place (it must
  // outlive this).
  void ReplaceGeneral(const fleet::ReplicaEstimator& general) {
    general_counted_.set_inner(general);
  }

 private:
  FleetEstimatorKind kind_;
  fleet::GeneralEstimator general_;
  EstimateCounts general_counts_;
  SimGeneralReplicaEstimator general_counted_;
  SimGeneralWorkloadEstimator general_whole_;
  std::unique_ptr<SimAccurateEstimator> accurate_;
  std::unique_ptr<ShadowEstimator> shadow_;
};

}  // namespace corral::sim
