#include "corral/scheduler/queue.h"

#include <algorithm>

#include "corral/pipeline/backoff.h"

namespace corral::scheduler {

using framework::Code;

namespace {

// Drops the stale entries of one of the pool's order lists. An entry is live while its pod is
// pooled under that seq (a pod that left and came back has a newer entry further on).
void CompactOrder(const absl::flat_hash_set<QueuedPod*>& pool,
                  std::vector<std::pair<QueuedPod*, uint64_t>>& order) {
  std::erase_if(order, [&](const std::pair<QueuedPod*, uint64_t>& e) {
    return !pool.contains(e.first) || e.first->seq != e.second;
  });
}

}  // namespace

bool SchedulingQueue::ActiveLess::operator()(const QueuedPod* a, const QueuedPod* b) const {
  if ((a->gang_activation != 0 || b->gang_activation != 0) &&
      a->info.priority() == b->info.priority() && a->gang_activation != b->gang_activation) {
    if (a->gang_activation == 0) return false;
    if (b->gang_activation == 0) return true;
    return a->gang_activation < b->gang_activation;
  }
  framework::QueuedPodView va{&a->info, a->timestamp}, vb{&b->info, b->timestamp};
  if (a->fwk->Less(va, vb)) return true;
  if (a->fwk->Less(vb, va)) return false;
  return a->seq < b->seq;
}

bool SchedulingQueue::BackoffLess::operator()(const QueuedPod* a, const QueuedPod* b) const {
  if (a->backoff_expiry != b->backoff_expiry) return a->backoff_expiry < b->backoff_expiry;
  ActiveLess l;
  return l(a, b);
}

SchedulingQueue::SchedulingQueue(const Clock& clock, Options opts) : clock_(clock), opts_(opts) {}

Duration SchedulingQueue::BackoffDuration(const QueuedPod& pod) const {
  const int32_t count =
      pod.consecutive_errors > 0 ? pod.consecutive_errors : pod.unschedulable_count;
  // A pod group's members back off as one entity with the cap raised to max backoff × √(group size)
  // (backoff_scale; KEP-4671 notes that the pod max backoff is too low for groups).
  return pipeline::BackoffDuration(count, opts_.initial_backoff, opts_.max_backoff,
                                   pod.backoff_scale);
}

void SchedulingQueue::Unlink(QueuedPod* pod) {
  switch (pod->where) {
    case QueueLocation::kActive:
      active_.erase(pod);
      break;
    case QueueLocation::kBackoff:
      backoff_.erase(pod);
      break;
    case QueueLocation::kUnschedulable:
      unschedulable_.erase(pod);
      break;
    case QueueLocation::kGated:
      if (unschedulable_.erase(pod) > 0 && --num_gated_ == 0) {
        gating_plugins_.clear();
        gated_without_plugin_ = false;
      }
      break;
    default:
      break;
  }
  pod->where = QueueLocation::kNone;
}

void SchedulingQueue::ToActive(QueuedPod* pod) {
  Unlink(pod);
  pod->where = QueueLocation::kActive;
  active_.insert(pod);
}

void SchedulingQueue::ToBackoff(QueuedPod* pod) {
  Unlink(pod);
  pod->backoff_expiry = pod->timestamp + BackoffDuration(*pod);
  pod->where = QueueLocation::kBackoff;
  backoff_.insert(pod);
}

void SchedulingQueue::ToActiveOrBackoff(QueuedPod* pod) {
  if (pod->attempted && pod->timestamp + BackoffDuration(*pod) > clock_.Now()) {
    ToBackoff(pod);
  } else {
    ToActive(pod);
  }
}

void SchedulingQueue::Add(QueuedPod* pod) {
  pod->seq = ++seq_;
  pod->timestamp = clock_.Now();
  framework::Status s = pod->fwk->RunPreEnqueuePlugins(pod->info);
  if (!s.ok()) {
    Unlink(pod);
    pod->gated_message = s.Message();
    pod->unschedulable_plugins.clear();
    if (!s.plugin().empty()) pod->unschedulable_plugins.insert(std::string(s.plugin()));
    pod->where = QueueLocation::kGated;
    ToUnschedulablePool(pod);
    return;
  }
  pod->gated_message.clear();
  ToActive(pod);
}

void SchedulingQueue::Delete(QueuedPod* pod) {
  Unlink(pod);
}

void SchedulingQueue::FlushBackoffCompleted() {
  TimePoint now = clock_.Now();
  while (!backoff_.empty() && (*backoff_.begin())->backoff_expiry <= now) {
    ToActive(*backoff_.begin());
  }
}

QueuedPod* SchedulingQueue::Pop() {
  FlushBackoffCompleted();
  QueuedPod* pod = nullptr;
  if (!active_.empty()) {
    pod = *active_.begin();
  } else if (opts_.pop_from_backoff && !backoff_.empty()) {
    // Error-backoff pods are never popped early (kube); they stay until their expiry.
    for (QueuedPod* p : backoff_) {
      if (p->consecutive_errors == 0) {
        pod = p;
        break;
      }
    }
  }
  if (pod == nullptr) return nullptr;
  MarkInFlight(pod);
  return pod;
}

void SchedulingQueue::MarkInFlight(QueuedPod* pod) {
  Unlink(pod);
  pod->where = QueueLocation::kInFlight;
  pod->gang_activation = 0;
  if (!pod->attempted) {
    pod->attempted = true;
    pod->initial_attempt = clock_.Now();
  }
  ++pod->attempts;
}

void SchedulingQueue::Requeue(QueuedPod* pod, Code code, bool event_during_attempt) {
  pod->seq = ++seq_;
  pod->timestamp = clock_.Now();
  if (code == Code::kError) {
    ++pod->consecutive_errors;
    ToBackoff(pod);
    return;
  }
  pod->consecutive_errors = 0;
  if (code == Code::kPending) {
    ToActive(pod);
    return;
  }
  ++pod->unschedulable_count;
  if (event_during_attempt) {
    ToActiveOrBackoff(pod);
    return;
  }
  Unlink(pod);
  pod->where = QueueLocation::kUnschedulable;
  ToUnschedulablePool(pod);
}

void SchedulingQueue::NoteGatingPlugins(const QueuedPod* pod) {
  if (pod->unschedulable_plugins.empty()) gated_without_plugin_ = true;
  for (const auto& p : pod->unschedulable_plugins) {
    bool known = false;
    for (const auto& [fwk, name] : gating_plugins_) known |= fwk == pod->fwk && name == p;
    if (!known) gating_plugins_.emplace_back(pod->fwk, p);
  }
}

bool SchedulingQueue::GatedMayRequeue(const RegisteredFn* registered) const {
  if (num_gated_ == 0) return false;
  if (registered == nullptr || gated_without_plugin_) return true;
  for (const auto& [fwk, name] : gating_plugins_) {
    if ((*registered)(fwk, name)) return true;
  }
  return false;
}

void SchedulingQueue::OnEvent(const framework::ClusterEvent& event, const void* subject,
                              const HintFn& hint, const RegisteredFn* registered) {
  (void)event;
  (void)subject;
  // Deterministic order: by queue sequence (the gated pods left out when none may be requeued).
  std::vector<QueuedPod*> pods;
  if (GatedMayRequeue(registered)) {
    pods = UnschedulablePods();
  } else {
    // Only the list it reads: compacting the gated list here would cost O(gated pods) per event.
    CompactOrder(unschedulable_, unschedulable_order_);
    pods.reserve(unschedulable_order_.size());
    for (const auto& e : unschedulable_order_) pods.push_back(e.first);
  }
  for (QueuedPod* pod : pods) Reconsider(pod, hint);
}

void SchedulingQueue::Update(QueuedPod* pod, const HintFn& hint) {
  // kube's PriorityQueue.Update: a pod in activeQ or backoffQ is updated where it is (its
  // priority, the sort key, cannot change); one in the unschedulable pool is re-evaluated.
  if (pod->where == QueueLocation::kUnschedulable || pod->where == QueueLocation::kGated) {
    Reconsider(pod, hint);
  }
}

void SchedulingQueue::Reconsider(QueuedPod* pod, const HintFn& hint) {
  if (pod->where == QueueLocation::kGated) {
    // kube re-evaluates a gated pod only for events its gating PreEnqueue plugin registered and
    // hints Queue for (SchedulingGates: an update of the pod itself), then re-runs PreEnqueue.
    bool worth = pod->unschedulable_plugins.empty();
    for (const auto& p : pod->unschedulable_plugins) {
      if (hint(pod, p) == framework::QueueingHint::kQueue) {
        worth = true;
        break;
      }
    }
    if (!worth) return;
    framework::Status s = pod->fwk->RunPreEnqueuePlugins(pod->info);
    if (s.ok()) {
      pod->gated_message.clear();
      pod->timestamp = clock_.Now();
      ToActive(pod);
    } else if (!s.plugin().empty() &&
               !pod->unschedulable_plugins.contains(std::string(s.plugin()))) {
      pod->gated_message = s.Message();
      pod->unschedulable_plugins.clear();
      pod->unschedulable_plugins.insert(std::string(s.plugin()));
      NoteGatingPlugins(pod);
    }
    return;
  }
  bool queue = pod->unschedulable_plugins.empty() && pod->pending_plugins.empty();
  bool immediately = false;
  for (const auto& p : pod->pending_plugins) {
    if (hint(pod, p) == framework::QueueingHint::kQueue) {
      queue = true;
      immediately = true;
      break;
    }
  }
  if (!queue) {
    for (const auto& p : pod->unschedulable_plugins) {
      if (hint(pod, p) == framework::QueueingHint::kQueue) {
        queue = true;
        break;
      }
    }
  }
  if (!queue) return;
  if (immediately) {
    ToActive(pod);
  } else {
    ToActiveOrBackoff(pod);
  }
}

void SchedulingQueue::Activate(QueuedPod* pod, bool gang_first) {
  if (gang_first &&
      (pod->where == QueueLocation::kActive || pod->where == QueueLocation::kBackoff ||
       pod->where == QueueLocation::kUnschedulable)) {
    Unlink(pod);
    pod->gang_activation = ++gang_activations_;
    ToActive(pod);
    return;
  }
  if (pod->where == QueueLocation::kBackoff || pod->where == QueueLocation::kUnschedulable)
    ToActive(pod);
}

bool SchedulingQueue::TakeForGroup(QueuedPod* pod) {
  if (pod->where != QueueLocation::kActive && pod->where != QueueLocation::kBackoff &&
      pod->where != QueueLocation::kUnschedulable) {
    return false;
  }
  MarkInFlight(pod);
  return true;
}

void SchedulingQueue::RetryGated(QueuedPod* pod) {
  if (pod->where != QueueLocation::kGated) return;
  framework::Status s = pod->fwk->RunPreEnqueuePlugins(pod->info);
  if (!s.ok()) {
    pod->gated_message = s.Message();
    return;
  }
  pod->gated_message.clear();
  pod->timestamp = clock_.Now();
  ToActive(pod);
}

void SchedulingQueue::FlushUnschedulableLeftover(Duration max_wait) {
  TimePoint now = clock_.Now();
  for (QueuedPod* pod : UnschedulablePods()) {
    if (pod->where == QueueLocation::kUnschedulable && now - pod->timestamp > max_wait) {
      ToActiveOrBackoff(pod);
    }
  }
}

void SchedulingQueue::ToUnschedulablePool(QueuedPod* pod) {
  // Both callers give the pod a fresh seq just before (Add, Requeue), so appending keeps the order.
  unschedulable_.insert(pod);
  if (pod->where == QueueLocation::kGated) {
    ++num_gated_;
    NoteGatingPlugins(pod);
    gated_order_.emplace_back(pod, pod->seq);
  } else {
    unschedulable_order_.emplace_back(pod, pod->seq);
  }
  // Stale entries are dropped when events read the pool; bound them when none does.
  if (unschedulable_order_.size() + gated_order_.size() > 2 * unschedulable_.size() + 64) {
    CompactUnschedulableOrder();
  }
}

void SchedulingQueue::CompactUnschedulableOrder() const {
  CompactOrder(unschedulable_, unschedulable_order_);
  CompactOrder(unschedulable_, gated_order_);
}

std::vector<QueuedPod*> SchedulingQueue::UnschedulablePods() const {
  CompactUnschedulableOrder();
  // The two lists merged by seq (each is in seq order).
  std::vector<QueuedPod*> out;
  out.reserve(unschedulable_order_.size() + gated_order_.size());
  size_t i = 0, j = 0;
  while (i < unschedulable_order_.size() || j < gated_order_.size()) {
    if (j == gated_order_.size() || (i < unschedulable_order_.size() &&
                                     unschedulable_order_[i].second < gated_order_[j].second)) {
      out.push_back(unschedulable_order_[i++].first);
    } else {
      out.push_back(gated_order_[j++].first);
    }
  }
  return out;
}

}  // namespace corral::scheduler
