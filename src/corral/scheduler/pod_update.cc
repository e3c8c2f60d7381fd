// The update of a pending pod as the scheduler sees it: kube's eventhandlers.go
// updatePodInSchedulingQueue and its queue's PriorityQueue.Update with SchedulerQueueingHints. The
// pod's derived data and signatures follow the new object; a pod in the unschedulable pool asks
// the plugins that rejected it whether its own update may make it schedulable.

#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

void Scheduler::UpdatePendingPod(const api::Pod* pod, const api::Pod& old) {
  auto it = pods_.find(pod);
  if (it == pods_.end()) return;  // another scheduler's pod
  QueuedPod* qp = it->second.get();
  if (const Symbol node = cache_.NodeOf(&qp->info); !node.empty()) {
    // Assumed, in its binding cycle: kube's queue ignores the update (the bound pod's update
    // reaches the cache later); Corral's cache holds the object itself, so its node re-accounts it.
    const bool assumed = cache_.IsAssumed(&qp->info);
    cache_.RemovePod(&qp->info);
    framework::ComputePodInfo(qp->info, options_.gates, &interner_);
    cache_.AddPod(&qp->info, node, assumed);
    return;
  }
  framework::ComputePodInfo(qp->info, options_.gates, &interner_);
  if (qp->fwk != nullptr) {
    qp->signature = qp->fwk->SignPod(qp->info);
    if (filter_memo_ != nullptr && !qp->fwk->signatures_enabled()) {
      qp->memo_signature = qp->fwk->Signature(qp->info);
    }
  }
  if (qp->where != QueueLocation::kUnschedulable && qp->where != QueueLocation::kGated) return;
  // The hints see the pod before the update as the pending pod and the updated one as the
  // subject, as kube's hint functions get (pod, oldObj, newObj).
  framework::PodInfo before;
  before.pod = &old;
  before.id = qp->info.id;
  framework::ComputePodInfo(before, options_.gates, &interner_);
  before.group_priority = qp->info.group_priority;
  const framework::ClusterEvent event{framework::EventResource::kUnscheduledPod,
                                      framework::ActionType::kUpdate};
  queue_->Update(qp, [&](QueuedPod* p, const std::string& plugin_name) {
    auto [ext, reg] = Registration(p->fwk, plugin_name, event);
    if (ext == nullptr) return framework::QueueingHint::kQueue;  // every event may help
    if (reg == nullptr) return framework::QueueingHint::kQueueSkip;
    return ext->Hint(before, event, pod);
  });
}

}  // namespace corral::scheduler
