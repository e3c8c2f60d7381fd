#pragma once
// GangScheduling (kube's gangscheduling plugin, KEP-4671): all-or-nothing scheduling of the members
// of a gang pod group, for both API generations (v1alpha1 Workload.spec.podGroups +
// pod.spec.workloadRef, and the standalone PodGroup + pod.spec.schedulingGroup).
//   PreEnqueue         barrier: the group object exists and at least minCount members are known; a
//                      group whose members disagree on schedulerName is rejected as a whole
//   Reserve/Unreserve  the member counts as assumed / no longer assumed
//   Permit             Wait (activating the unscheduled siblings) until assumed + bound ≥ minCount,
//                      with the group's shared deadline (5 minutes from the first Permit) as the
//                      timeout; then allow every waiting member
//   PlacementFeasible  the workload cycle's early reject / commit test (basic groups: minCount 1)
// Pods of basic groups and pods without a group pass every point.

#include <memory>
#include <string_view>
#include <vector>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"
#include "corral/plugins/names.h"

namespace corral::plugins {

class GangScheduling final : public framework::PreEnqueuePlugin,
                             public framework::ReservePlugin,
                             public framework::PermitPlugin,
                             public framework::PlacementFeasiblePlugin,
                             public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kName = names::kGangScheduling;

  // Takes no args.
  static Result<std::unique_ptr<framework::Plugin>> New(const framework::PluginArgs* args,
                                                        framework::Handle& handle);
  explicit GangScheduling(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  framework::Status PreEnqueue(const framework::PodInfo& pod) override;
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod, Symbol node) override;
  framework::Status Permit(framework::CycleState& state, const framework::PodInfo& pod, Symbol node,
                           Duration* timeout) override;
  framework::Status PlacementFeasible(const framework::PodGroupState& group,
                                      const framework::ResolvedPodGroup& resolved,
                                      const framework::PlacementProgress& progress) override;

  // Pod/Add (a new member may complete the quorum), PodGroup/Add and Workload/Add (the group object
  // appears); hints queue only members of the same group.
  std::vector<framework::ClusterEvent> EventsToRegister() const override;
  framework::QueueingHint Hint(const framework::PodInfo& pod, const framework::ClusterEvent& event,
                               const void* subject) const override;

 private:
  framework::Handle& handle_;
};
static_assert(
    framework::kImplements<GangScheduling, framework::PreEnqueuePlugin, framework::ReservePlugin,
                           framework::PermitPlugin, framework::PlacementFeasiblePlugin,
                           framework::EnqueueExtensions>);

static_assert(std::derived_from<GangScheduling, framework::PermitPlugin>);

}  // namespace corral::plugins
