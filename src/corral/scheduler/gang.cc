// The scheduler's side of gang scheduling: Permit waiting (pods held assumed until
// allowed, rejected or timed out), the deferred binding cycle, the Handle methods plugins use to
// reach waiting pods and pod groups, and the PreEnqueue retry of gated members once their group's
// quorum is known.

#include <fmt/format.h>

#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {

using framework::Code;
using framework::PodInfo;
using framework::Status;

const api::Workload* Scheduler::GetWorkload(Symbol ns, Symbol name) const {
  return wm_.GetWorkload(ns, name);
}

const api::PodGroup* Scheduler::GetPodGroup(Symbol ns, Symbol name) const {
  return wm_.GetPodGroup(ns, name);
}

framework::PodGroupState* Scheduler::GetPodGroupState(const PodInfo& pod) {
  return wm_.GroupOf(pod);
}

void Scheduler::IterateWaitingPods(const std::function<void(const PodInfo&)>& fn) const {
  waiting_.ForEachWaiting(fn);
}

bool Scheduler::AllowWaitingPod(const PodInfo& pod, std::string_view plugin) {
  return waiting_.Allow(&pod, plugin);
}

bool Scheduler::RejectWaitingPod(const PodInfo& pod, std::string_view plugin, std::string message) {
  return waiting_.Reject(&pod, plugin, std::move(message));
}

bool Scheduler::IsWaitingOnPermit(const api::Pod* pod) const {
  auto it = pods_.find(pod);
  return it != pods_.end() && waiting_.Contains(&it->second->info);
}

std::optional<TimePoint> Scheduler::NextTimerDeadline() const {
  std::optional<TimePoint> permit = waiting_.NextDeadline();
  std::optional<TimePoint> poll = NextPreBindPoll();
  if (!permit.has_value()) return poll;
  if (!poll.has_value()) return permit;
  return std::min(*permit, *poll);
}

std::optional<Duration> Scheduler::PendingBackoff(const api::Pod* pod) const {
  auto it = pods_.find(pod);
  if (it == pods_.end() || it->second->where == QueueLocation::kNone ||
      it->second->where == QueueLocation::kInFlight) {
    return std::nullopt;
  }
  return queue_->BackoffDuration(*it->second);
}

void Scheduler::FireTimers() {
  waiting_.ExpireUntil(clock_.Now());
  ProcessWaitingOutcomes();
  PollPreBindWaits();
}

void Scheduler::OnGroupMemberAdded(framework::PodGroupState& group) {
  // kube requeues gated members on UnscheduledPod/Add through GangScheduling's hint; Corral re-runs
  // PreEnqueue for the gated members of this group only, when the member count reaches the quorum
  // (or the group just became unschedulable as a whole), which is when their PreEnqueue can change.
  framework::ResolvedPodGroup resolved;
  if (group.all.empty() ||
      !framework::ResolvePodGroup(*this, *group.all.front()->pod, &resolved).ok())
    return;
  if (const api::CompositePodGroup* root = CompositeRootOf(resolved)) {
    // KEP-6012: members wait for the whole tree; when this group becomes ready the root's
    // readiness may change, so every gated member of the hierarchy re-runs PreEnqueue.
    if (group.all.size() == static_cast<size_t>(resolved.MinCount())) RetryGatedInHierarchy(*root);
    return;
  }
  if (group.all.size() != static_cast<size_t>(resolved.MinCount()) && !group.mixed_scheduler_names)
    return;
  for (const PodInfo* p : group.all) {
    auto it = pods_.find(p->pod);
    if (it != pods_.end() && it->second->where == QueueLocation::kGated)
      queue_->RetryGated(it->second.get());
  }
}

bool Scheduler::BindAssumed(QueuedPod* qp, framework::Framework& fwk, framework::CycleState& state,
                            Symbol node, TimePoint wall_start, size_t pre_bind_from) {
  const PodInfo& pod = qp->info;
  size_t resume = pre_bind_from;
  Status pb = fwk.RunPreBindPlugins(state, pod, node, &resume);
  if (pb.code() == Code::kWait) {
    if (ParkPreBind(qp, fwk, state, node, wall_start, resume, pb.plugin())) return false;
    pb = Status::Error(fmt::format("running PreBind plugin {:?}: plugin returned Wait without "
                                   "being a PreBindWaitPlugin",
                                   pb.plugin()))
             .WithPlugin(pb.plugin());
  }
  if (pb.ok()) pb = fwk.RunBindPlugins(state, pod, node);
  if (!pb.ok() && !pb.IsSkip()) {
    ForgetAndRequeue(qp, fwk, state, node, Code::kError, pb.Message(), pb.plugin());
    return false;
  }
  cache_.ConfirmPod(&qp->info);
  nominator_.Delete(&qp->info);  // a bound pod is no longer nominated (workload-cycle members keep
                                 // theirs until now)
  wm_.MarkBound(&qp->info);
  fwk.RunPostBindPlugins(state, pod, node);
  ++stats_.scheduled;
  const TimePoint saved = cycle_start_;
  cycle_start_ = wall_start;
  RecordAttempt(fwk, "scheduled");
  cycle_start_ = saved;
  qp->where = QueueLocation::kNone;
  last_failure_.erase(pod.pod);
  if (observer_ != nullptr) observer_->OnScheduled(*pod.pod, node, fwk.profile_name());
  FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kAdd}, pod.pod);
  return true;
}

void Scheduler::ForgetAndRequeue(QueuedPod* qp, framework::Framework& fwk,
                                 framework::CycleState& state, Symbol node, Code code,
                                 std::string message, std::string_view plugin) {
  fwk.RunReservePluginsUnreserve(state, qp->info, node);
  if (cache_.RemovePod(&qp->info)) {
    // kube: MoveAllToActiveOrBackoffQueue(AssignedPodDelete): the freed capacity may help other
    // pods. kube's event carries the assumed copy (with its nodeName); Corral's pod objects are
    // immutable, so the event has no subject, which every hint treats as "may help".
    FireEvent({framework::EventResource::kAssignedPod, framework::ActionType::kDelete}, nullptr);
  }
  if (code == Code::kError) {
    ++stats_.errors;
  } else {
    ++stats_.unschedulable_attempts;
  }
  RecordAttempt(fwk, code == Code::kError ? "error" : "unschedulable");
  qp->unschedulable_plugins.clear();
  qp->pending_plugins.clear();
  if (!plugin.empty()) qp->unschedulable_plugins.insert(std::string(plugin));
  last_failure_[qp->info.pod] = message;
  if (observer_ != nullptr) observer_->OnUnschedulable(*qp->info.pod, message);
  queue_->Requeue(qp, code, /*event_during_attempt=*/false);
}

void Scheduler::PermitAndBind(QueuedPod* qp, framework::CycleState state, Symbol node,
                              TimePoint wall_start) {
  framework::Framework& fwk = *qp->fwk;
  Duration timeout{};
  std::vector<std::pair<std::string_view, Duration>> waits;
  Status perm = fwk.RunPermitPlugins(state, qp->info, node, &timeout, &waits);
  if (perm.code() == Code::kWait) {
    auto wp = std::make_unique<WaitingPod>();
    wp->qp = qp;
    wp->fwk = &fwk;
    wp->state = std::move(state);
    wp->node = node;
    wp->wall_start = wall_start;
    const TimePoint now = clock_.Now();
    for (const auto& [plugin, t] : waits) wp->pending.push_back({plugin, now + t, t});
    waiting_.Add(&qp->info, std::move(wp));
    qp->where = QueueLocation::kInFlight;
    return;
  }
  if (!perm.ok()) {
    ForgetAndRequeue(qp, fwk, state, node,
                     perm.code() == Code::kError ? Code::kError : Code::kUnschedulable,
                     perm.Message(), perm.plugin());
    return;
  }
  BindAssumed(qp, fwk, state, node, wall_start);
}

void Scheduler::ProcessWaitingOutcomes() {
  for (;;) {
    std::vector<const PodInfo*> resolved = waiting_.TakeResolved();
    if (resolved.empty()) return;
    for (const PodInfo* p : resolved) {
      std::unique_ptr<WaitingPod> wp = waiting_.Take(p);
      if (wp == nullptr) continue;
      if (wp->outcome == WaitingPod::Outcome::kAllowed) {
        BindAssumed(wp->qp, *wp->fwk, wp->state, wp->node, wp->wall_start);
      } else {
        ForgetAndRequeue(wp->qp, *wp->fwk, wp->state, wp->node, Code::kUnschedulable,
                         wp->reject_message, wp->reject_plugin);
      }
    }
  }
}

}  // namespace corral::scheduler
