#pragma once
// Phase 2 of binding preemption for `corral dispatch` (fleet/preemption_phase2.h): the victims on a
// member given as a folder of its nodes and pods are chosen by simulating on its real nodes through
// its own scheduler (scheduler/estimate.h), as Karmada's scheduler-estimator answers the
// proposal's SelectVictims call.
//
// A binding's pods on a member are the pods labelled resourcebinding.karmada.io/permanent-id with
// the value of the binding's own label of that key (the label Karmada's resource interpreter
// injects into the pod template, RevisePodTemplate). A member is simulated for a set of candidates
// only when every candidate has the label and owns at least one pod there; otherwise Phase 1
// decides (the proposal's fallback for candidates missing the pod label).
//
// FitsWithout builds a copy of the member without the removed bindings' pods and asks whether all
// the preemptor's copies fit at once (scheduler::GangFits: a gang's replicas are placed together).

#include <span>
#include <string_view>

#include "corral/app/dispatch_members.h"
#include "corral/fleet/preemption_phase2.h"

namespace corral::app {

inline constexpr std::string_view kPermanentIdLabel = "resourcebinding.karmada.io/permanent-id";

class MemberVictimSimulator final : public fleet::VictimSimulator {
 public:
  // `members` must outlive the simulator.
  explicit MemberVictimSimulator(Members& members) : members_(members) {}

  bool Simulates(const api::Cluster& cluster,
                 std::span<const api::FleetWork* const> candidates) const override;
  Result<bool> FitsWithout(const api::Cluster& cluster, const api::FleetWork& preemptor,
                           int32_t replicas,
                           std::span<const api::FleetWork* const> removed) const override;

  // Trial placements run (each on a fresh copy of a member).
  int64_t trials() const { return trials_; }

 private:
  Members& members_;
  ManualClock clock_;
  mutable int64_t trials_ = 0;
};

}  // namespace corral::app
