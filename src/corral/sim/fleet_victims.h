#pragma once
// Phase 2 of fleet binding preemption inside a simulation (fleet/preemption_phase2.h): the victims
// on a member are chosen by simulating on the member's real nodes, as Karmada's
// scheduler-estimator would answer the proposal's SelectVictims call. In `corral simulate` every
// member is real, so every cluster is simulated.
//
// Contract of FitsWithout(cluster, preemptor, replicas, removed):
//  (1) The member's live nodes that are schedulable, whose NoSchedule/NoExecute taints the
//      preemptor's pod template tolerates and whose labels its nodeSelector and required node
//      affinity match, each hold as many copies of the template as their free tracked resources
//      (cpu, memory, extended resources, pod slots) allow. Free = allocatable less the requests of
//      the pods bound there, plus the requests of the pods of `removed` work items' copies on this
//      member (their pods are gone in the trial).
//  (2) It fits when the copies summed over those nodes reach `replicas` — all of them at once, so
//      a gang preemptor fits whole or not at all. Nothing in the member changes.
//  (3) Only the preemptor's own copies contend in the trial; the scenario reader refuses
//      `victims: simulation` for fleet workloads whose pods contend otherwise (host ports,
//      required inter-pod affinity, DoNotSchedule spread, volumes or claims), as it refuses the
//      accurate estimator.
// Errors: the preemptor requests a resource the simulation does not track.

#include <cstdint>
#include <functional>
#include <span>

#include <absl/container/flat_hash_map.h>

#include "corral/api/cluster.h"
#include "corral/fleet/preemption_phase2.h"

namespace corral::sim {

struct World;

class SimVictimSimulator final : public fleet::VictimSimulator {
 public:
  // `group_of(work, member)`: the group of pods of that work item's copy on the member (kNone:
  // none). `w` and the function's captures must outlive the simulator.
  SimVictimSimulator(World& w,
                     std::function<uint32_t(const api::FleetWork* work, uint32_t member)> group_of);

  bool Simulates(const api::Cluster& cluster,
                 std::span<const api::FleetWork* const> candidates) const override;
  Result<bool> FitsWithout(const api::Cluster& cluster, const api::FleetWork& preemptor,
                           int32_t replicas,
                           std::span<const api::FleetWork* const> removed) const override;

  // Trials run.
  int64_t trials() const { return trials_; }

 private:
  uint32_t MemberOf(const api::Cluster& cluster) const;

  World& w_;
  std::function<uint32_t(const api::FleetWork*, uint32_t)> group_of_;
  absl::flat_hash_map<Symbol, uint32_t> member_of_;
  mutable int64_t trials_ = 0;
};

}  // namespace corral::sim
