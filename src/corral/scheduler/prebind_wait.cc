// Pods held in their binding cycle by a PreBind plugin (framework/prebind_wait.h). kube runs the
// binding cycle in a goroutine, so a PreBind that blocks (DynamicResources waiting for device
// binding conditions) delays only that pod while scheduling goes on. Corral parks the pod instead:
// it stays assumed in the cache, with its CycleState, and the plugin's PreBind runs again every
// poll interval on the injected clock until it returns something other than Wait.

#include "corral/framework/prebind_wait.h"

#include <algorithm>
#include <utility>

#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

bool Scheduler::ParkPreBind(QueuedPod* qp, framework::Framework& fwk, framework::CycleState& state,
                            Symbol node, TimePoint wall_start, size_t resume,
                            std::string_view plugin) {
  const auto* waiter = dynamic_cast<const framework::PreBindWaitPlugin*>(fwk.GetPlugin(plugin));
  if (waiter == nullptr) return false;
  auto w = std::make_unique<PreBindWaiting>();
  w->qp = qp;
  w->fwk = &fwk;
  w->state = std::move(state);
  w->node = node;
  w->wall_start = wall_start;
  w->resume = resume;
  w->interval = waiter->PreBindPollInterval();
  w->next = clock_.Now() + w->interval;
  qp->where = QueueLocation::kInFlight;
  prebind_waits_.push_back(std::move(w));
  return true;
}

void Scheduler::PollPreBindWaits() {
  if (prebind_waits_.empty()) return;
  const TimePoint now = clock_.Now();
  std::vector<std::unique_ptr<PreBindWaiting>> due;
  auto keep = prebind_waits_.begin();
  for (auto& w : prebind_waits_) {
    if (w->next <= now) {
      due.push_back(std::move(w));
    } else {
      *keep++ = std::move(w);
    }
  }
  prebind_waits_.erase(keep, prebind_waits_.end());
  // A pod that still waits is parked again (at the end, one interval from now).
  for (auto& w : due) BindAssumed(w->qp, *w->fwk, w->state, w->node, w->wall_start, w->resume);
}

bool Scheduler::DropPreBindWait(const framework::PodInfo* pod) {
  auto it = std::find_if(prebind_waits_.begin(), prebind_waits_.end(),
                         [&](const auto& w) { return &w->qp->info == pod; });
  if (it == prebind_waits_.end()) return false;
  (*it)->fwk->RunReservePluginsUnreserve((*it)->state, *pod, (*it)->node);
  prebind_waits_.erase(it);
  return true;
}

std::optional<TimePoint> Scheduler::NextPreBindPoll() const {
  std::optional<TimePoint> next;
  for (const auto& w : prebind_waits_) {
    if (!next.has_value() || w->next < *next) next = w->next;
  }
  return next;
}

bool Scheduler::UpdateClaimDeviceStatus(Symbol ns, Symbol name,
                                        std::vector<api::resource::AllocatedDeviceStatus> devices) {
  if (!dra_.UpdateDeviceStatus(ns, name, std::move(devices))) return false;
  // kube: a ResourceClaim/Update event. A pod waiting for a claim status change (its deallocation)
  // may now be schedulable; the event carries no pod, which every hint treats as "may help".
  FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kDelete}, nullptr);
  return true;
}

}  // namespace corral::scheduler
