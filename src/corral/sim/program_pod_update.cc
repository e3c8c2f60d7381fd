// scheduler_perf's updateAny of Pods on the virtual clock: the op's objects are applied one per
// tick at updatePerSecond (Program::OnUpdateTick, shared with the node and resize updates), each
// to the live pod of its name in the op's namespace. The API server's side (validation, the stored
// object) is the op's update_pod (sim/input/perf_pod_update.cc); this file hands the stored object
// to the pod's scheduler as kube's informer would: a bound pod's update re-accounts it and fires
// an AssignedPod/Update event (Scheduler::UpdateAssignedPod), a pending pod's goes through the
// scheduling queue's update path with the pod's own queueing hints (Scheduler::UpdatePendingPod).

#include <fmt/format.h>

#include "corral/sim/member.h"
#include "corral/sim/program.h"

namespace corral::sim {

void Program::UpdateOnePod(const Op& op, int64_t index) {
  Pods& pods = *w_.pods;
  uint32_t slot = kNone;
  auto live = [&](Symbol name) -> const api::Pod* {
    for (uint32_t i = 0; i < pods.slots(); ++i) {
      const PodSlot& s = pods.Pod(i);
      if (s.state == PodState::kFree || s.pod.meta.name != name ||
          s.pod.meta.namespace_ != op.pod_namespace) {
        continue;
      }
      slot = i;
      return &s.pod;
    }
    return nullptr;
  };
  auto r = op.update_pod(index, live);
  if (!r.ok()) {
    w_.Fail(r.error().message);
    return;
  }
  PodSlot& s = pods.Pod(slot);
  Member& m = *w_.members[s.member];
  if (s.state == PodState::kPending) {
    // kube's UpdateStatus writes the template's empty status, so the pod loses its PodScheduled
    // condition until the scheduler tries it again (scheduler_perf's Attempted stage reads it).
    const api::Pod old = s.pod;
    s.pod = std::move(r).value();
    s.attempted = false;
    m.sched().UpdatePendingPod(&s.pod, old);
  } else {
    s.pod = std::move(r).value();
    m.sched().UpdateAssignedPod(&s.pod);
  }
  if (w_.logging()) w_.Log(m.index(), "pod-update", w_.PodKey(s.pod));
  m.Touch();
}

}  // namespace corral::sim
