// In-place pod resize as the scheduler sees it (KEP-1287) and the scheduler's preemption for
// deferred resizes (KEP-5836, gate InPlacePodVerticalScalingSchedulerPreemption): kube's
// eventhandlers.go updatePod for assigned pods, its queue's handling of deferred pods, and the
// DeferredPodScheduling plugin's Permit, which parks a deferred resize that fits its node.

#include "corral/api/pod_resize.h"
#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

bool Scheduler::IsDeferredResize(const framework::PodInfo& pod) const {
  return options_.gates.Enabled(
             framework::Feature::kInPlacePodVerticalScalingSchedulerPreemption) &&
         pod.pod->IsBound() && api::IsPodResizeDeferred(*pod.pod, interner_) &&
         !api::IsPodResizePreemptionDisabled(*pod.pod, interner_);
}

void Scheduler::UpdateAssignedPod(const api::Pod* pod) {
  auto it = pods_.find(pod);
  if (it == pods_.end()) return;
  QueuedPod* qp = it->second.get();
  const Symbol node = cache_.NodeOf(&qp->info);
  const bool cached = cache_.RemovePod(&qp->info);
  framework::ComputePodInfo(qp->info, options_.gates, &interner_);
  if (cached) cache_.AddPod(&qp->info, node, /*assumed=*/false);
  FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kUpdate}, pod);
  const bool in_queue = qp->where != QueueLocation::kNone;
  if (IsDeferredResize(qp->info)) {
    if (in_queue) return;
    auto fwk = by_scheduler_name_.find(pod->scheduler_name);
    if (fwk == by_scheduler_name_.end()) return;  // another scheduler's pod
    // Scheduled alone and never batched: no signature.
    qp->fwk = fwk->second;
    qp->signature.reset();
    qp->memo_signature.reset();
    queue_->Add(qp);
    return;
  }
  if (in_queue) {
    // The resize was actuated, or is no longer the scheduler's: kube deletes it from the queue.
    nominator_.Delete(&qp->info);
    queue_->Delete(qp);
    last_failure_.erase(pod);
    qp->where = QueueLocation::kNone;
  }
}

}  // namespace corral::scheduler
