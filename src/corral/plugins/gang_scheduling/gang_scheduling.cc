#include "corral/plugins/gang_scheduling/gang_scheduling.h"

#include <string>

#include <fmt/format.h>

#include "corral/plugins/common/plugin_util.h"

namespace corral::plugins {

using framework::Code;
using framework::Status;

Result<std::unique_ptr<framework::Plugin>> GangScheduling::New(const framework::PluginArgs* args,
                                                               framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<GangScheduling>(handle));
}

Status GangScheduling::PreEnqueue(const framework::PodInfo& pod) {
  if (!framework::PodGroupKeyOf(*pod.pod).has_value()) return {};
  framework::ResolvedPodGroup resolved;
  Status s = framework::ResolvePodGroup(handle_, *pod.pod, &resolved);
  if (!s.ok()) return s;
  framework::PodGroupState* group = handle_.GetPodGroupState(pod);
  if (group != nullptr && group->mixed_scheduler_names) {
    return Status::Unresolvable("pods of the pod group have different schedulerNames");
  }
  // kube's preEnqueueWithHierarchies: a child of a CompositePodGroup waits for its whole tree.
  if (resolved.pod_group != nullptr && !resolved.pod_group->parent_name.empty() &&
      handle_.features().Enabled(framework::Feature::kCompositePodGroup)) {
    return handle_.CompositeHierarchyReady(*resolved.pod_group);
  }
  if (!resolved.IsGang()) return {};
  if (group == nullptr || group->all.size() < static_cast<size_t>(resolved.policy.min_count)) {
    return Status::Unresolvable(
        "waiting for minCount pods from a gang to appear in scheduling queue");
  }
  return {};
}

Status GangScheduling::Reserve(framework::CycleState&, const framework::PodInfo& pod, Symbol) {
  if (framework::PodGroupState* group = handle_.GetPodGroupState(pod)) group->AssumePod(&pod);
  return {};
}

void GangScheduling::Unreserve(framework::CycleState&, const framework::PodInfo& pod, Symbol) {
  if (framework::PodGroupState* group = handle_.GetPodGroupState(pod)) group->ForgetPod(&pod);
}

Status GangScheduling::Permit(framework::CycleState&, const framework::PodInfo& pod, Symbol,
                              Duration* timeout) {
  if (!framework::PodGroupKeyOf(*pod.pod).has_value()) return {};
  framework::ResolvedPodGroup resolved;
  Status s = framework::ResolvePodGroup(handle_, *pod.pod, &resolved);
  if (!s.ok())
    return Status::Error(s.Message());  // kube: the group object went away; retry with backoff
  if (!resolved.IsGang()) return {};
  framework::PodGroupState* group = handle_.GetPodGroupState(pod);
  if (group == nullptr) return Status::Error("pod group state not found");
  const size_t ready = group->assumed.size() + group->assigned.size();
  if (ready < static_cast<size_t>(resolved.policy.min_count)) {
    // Siblings that were waiting for this pod (backoff, unschedulable) are tried soon.
    std::vector<const framework::PodInfo*> unscheduled = group->UnscheduledPods();
    handle_.Activate(unscheduled);
    *timeout = group->SchedulingTimeout(handle_.clock().Now());
    return {Code::kWait, "waiting for minCount pods from a gang to be waiting on permit"};
  }
  // Quorum: allow every waiting member of the group (this pod proceeds with Success).
  std::vector<const framework::PodInfo*> waiting;
  handle_.IterateWaitingPods([&](const framework::PodInfo& p) {
    if (group->assumed.contains(&p)) waiting.push_back(&p);
  });
  for (const framework::PodInfo* p : waiting) handle_.AllowWaitingPod(*p, kName);
  return {};
}

Status GangScheduling::PlacementFeasible(const framework::PodGroupState&,
                                         const framework::ResolvedPodGroup& resolved,
                                         const framework::PlacementProgress& progress) {
  const int32_t min_count = resolved.MinCount();
  if (progress.remaining + progress.scheduled < min_count) {
    return Status::WithOwnedReason(
        Code::kUnschedulable,
        fmt::format("minCount ({}) cannot be satisfied: {} scheduled, {} remaining", min_count,
                    progress.scheduled, progress.remaining));
  }
  if (progress.scheduled < min_count) {
    return Status::WithOwnedReason(
        Code::kWait, fmt::format("minCount ({}) is not yet satisfied: {} scheduled, {} remaining",
                                 min_count, progress.scheduled, progress.remaining));
  }
  return {};
}

std::vector<framework::ClusterEvent> GangScheduling::EventsToRegister() const {
  return {{framework::EventResource::kPod, framework::ActionType::kAdd},
          {framework::EventResource::kPodGroup, framework::ActionType::kAdd},
          {framework::EventResource::kWorkload, framework::ActionType::kAdd}};
}

framework::QueueingHint GangScheduling::Hint(const framework::PodInfo& pod,
                                             const framework::ClusterEvent& event,
                                             const void* subject) const {
  auto key = framework::PodGroupKeyOf(*pod.pod);
  if (!key.has_value()) return framework::QueueingHint::kQueueSkip;
  if (subject == nullptr) return framework::QueueingHint::kQueue;
  switch (event.resource) {
    case framework::EventResource::kPodGroup: {
      const auto* pg = static_cast<const api::PodGroup*>(subject);
      return !key->legacy && pg->meta.namespace_ == key->namespace_ &&
                     pg->meta.name == key->pod_group
                 ? framework::QueueingHint::kQueue
                 : framework::QueueingHint::kQueueSkip;
    }
    case framework::EventResource::kWorkload: {
      const auto* w = static_cast<const api::Workload*>(subject);
      return key->legacy && w->meta.namespace_ == key->namespace_ && w->meta.name == key->workload
                 ? framework::QueueingHint::kQueue
                 : framework::QueueingHint::kQueueSkip;
    }
    default: {
      auto added = framework::PodGroupKeyOf(*PodSubject(subject));
      return added.has_value() && *added == *key ? framework::QueueingHint::kQueue
                                                 : framework::QueueingHint::kQueueSkip;
    }
  }
}

}  // namespace corral::plugins
