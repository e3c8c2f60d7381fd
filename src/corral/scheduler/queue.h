#pragma once
// SchedulingQueue: kube's PriorityQueue (pkg/scheduler/backend/queue) on an injected clock.
//   activeQ        ordered by the QueueSort plugin (priority desc, then queue timestamp)
//   backoffQ       pods rejected by plugins, until their backoff expires: initial << (count − 1)
//                  capped at max (× backoff_scale for members of a failed pod group cycle), count =
//                  unschedulable attempts (or consecutive errors if any)
//   unschedulable  pods that failed and wait for a cluster event that may help (QueueingHints: only
//                  the plugins that rejected the pod are consulted), and pods gated by PreEnqueue
// Pop takes the head of activeQ; with SchedulerPopFromBackoffQ (default on) an empty activeQ pops
// the head of backoffQ instead of waiting.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "corral/core/clock.h"
#include "corral/framework/framework.h"

namespace corral::scheduler {

enum class QueueLocation : uint8_t { kNone, kActive, kBackoff, kUnschedulable, kGated, kInFlight };

struct QueuedPod {
  framework::PodInfo info;
  framework::Framework* fwk = nullptr;
  TimePoint timestamp;        // last (re)add to the queue; QueueSort tie-break
  TimePoint initial_attempt;  // first pop
  bool attempted = false;
  int32_t attempts = 0;
  int32_t unschedulable_count = 0;
  int32_t consecutive_errors = 0;
  absl::flat_hash_set<std::string> unschedulable_plugins;
  absl::flat_hash_set<std::string> pending_plugins;
  std::optional<std::string> signature;  // KEP-5598, computed once at enqueue
  // The signature the filter memo keys on when `signature` is not computed (OpportunisticBatching
  // off, CorralFilterMemo on); see Scheduler::MemoSignature.
  std::optional<std::string> memo_signature;
  std::string gated_message;  // PreEnqueue rejection, when gated
  QueueLocation where = QueueLocation::kNone;
  TimePoint backoff_expiry;
  // Set when a waiting gang member activated this pod (GangScheduling Permit): among pods of equal
  // priority, activated pods are popped first, in activation order (docs/deviations.md). Cleared
  // on pop.
  uint64_t gang_activation = 0;
  // Members of a pod group whose workload cycle failed back off together, with the backoff cap
  // scaled by this factor (√ of the group size; 1 for pods outside a failed group cycle). Corral's
  // choice: kube's KEP-4671 applies the pod backoff to groups and notes the 10 s cap may be too
  // low (docs/deviations.md).
  double backoff_scale = 1.0;
  uint64_t seq = 0;  // insertion sequence, final tie-break for deterministic ordering
};

class SchedulingQueue {
 public:
  struct Options {
    Duration initial_backoff = std::chrono::seconds(1);
    Duration max_backoff = std::chrono::seconds(10);
    bool pop_from_backoff = true;
  };
  SchedulingQueue(const Clock& clock, Options opts);

  // Adds a new pending pod: runs PreEnqueue; gated pods go to the unschedulable pool.
  void Add(QueuedPod* pod);
  // Removes a pod from wherever it is (deleted). Safe for pods not queued.
  void Delete(QueuedPod* pod);
  // The next pod to schedule, or null. Moves completed backoffs first.
  QueuedPod* Pop();
  // After a failed attempt: kUnschedulable/UU/Pending ⇒ unschedulable pool (or active/backoff if an
  // event arrived during the attempt that may help); kError ⇒ backoff.
  void Requeue(QueuedPod* pod, framework::Code code, bool event_during_attempt);
  // A cluster event: consult the rejecting plugins of every unschedulable pod; move those that may
  // now fit to activeQ (or backoffQ if still backing off). Gated pods re-run PreEnqueue.
  // `registered(fwk, plugin)`, when given, says whether the plugin registered for this event at all
  // (false means its hint is QueueSkip for every pod). The gated pods are then visited only when
  // some plugin that gates one of them registered for the event; otherwise none of them could be
  // re-evaluated, so skipping them changes nothing.
  using HintFn = std::function<framework::QueueingHint(QueuedPod*, const std::string& plugin)>;
  using RegisteredFn =
      std::function<bool(const framework::Framework* fwk, const std::string& plugin)>;
  void OnEvent(const framework::ClusterEvent& event, const void* subject, const HintFn& hint,
               const RegisteredFn* registered = nullptr);
  // The update of a queued pod (kube's PriorityQueue.Update, its pod's own UnscheduledPod/Update
  // event): a pod in the unschedulable pool (gated included) is re-evaluated with `hint` as OnEvent
  // does; a pod elsewhere stays where it is.
  void Update(QueuedPod* pod, const HintFn& hint);
  // Moves the given pods to activeQ (Handle::Activate). `gang_first`: the pod goes ahead of pods of
  // equal priority (a forming gang completes before another starts).
  void Activate(QueuedPod* pod, bool gang_first = false);
  // Takes a queued (not gated) member out of the queue for its group's workload cycle, as Pop does.
  // False if the pod is not in activeQ, backoffQ or the unschedulable pool.
  bool TakeForGroup(QueuedPod* pod);
  // Re-runs PreEnqueue for a gated pod (its group's quorum may now be known); admitted pods go
  // to activeQ.
  void RetryGated(QueuedPod* pod);
  // kube flushUnschedulablePodsLeftover: pods that have waited in the unschedulable pool longer
  // than `max_wait` (kube: 5 minutes) move to active/backoff.
  void FlushUnschedulableLeftover(Duration max_wait);

  size_t ActiveSize() const { return active_.size(); }
  size_t BackoffSize() const { return backoff_.size(); }
  size_t UnschedulableSize() const { return unschedulable_.size(); }
  std::vector<QueuedPod*> UnschedulablePods() const;
  Duration BackoffDuration(const QueuedPod& pod) const;

 private:
  struct ActiveLess {
    bool operator()(const QueuedPod* a, const QueuedPod* b) const;
  };
  struct BackoffLess {
    bool operator()(const QueuedPod* a, const QueuedPod* b) const;
  };
  // Adds `pod` to the unschedulable pool (membership and sequence order). Precondition: pod->seq
  // was just drawn, so it is the largest in the pool.
  void ToUnschedulablePool(QueuedPod* pod);
  // Drops the entries of unschedulable_order_ and gated_order_ whose pod left the pool (or
  // re-entered it later).
  void CompactUnschedulableOrder() const;
  // Records that a gated pod in the pool is gated by its current unschedulable plugins.
  void NoteGatingPlugins(const QueuedPod* pod);
  // Whether some gated pod of the pool may be worth re-evaluating for the event (see OnEvent).
  bool GatedMayRequeue(const RegisteredFn* registered) const;
  // OnEvent's verdict for one pod of the unschedulable pool: moves it when a hint says Queue.
  void Reconsider(QueuedPod* pod, const HintFn& hint);
  void ToActive(QueuedPod* pod);
  void ToBackoff(QueuedPod* pod);
  void ToActiveOrBackoff(QueuedPod* pod);
  void Unlink(QueuedPod* pod);
  // Takes `pod` out of its list for an attempt: in flight, attempt counted (the first one timed).
  void MarkInFlight(QueuedPod* pod);
  void FlushBackoffCompleted();

  const Clock& clock_;
  Options opts_;
  uint64_t seq_ = 0;
  uint64_t gang_activations_ = 0;
  std::set<QueuedPod*, ActiveLess> active_;
  std::set<QueuedPod*, BackoffLess> backoff_;
  absl::flat_hash_set<QueuedPod*> unschedulable_;  // includes gated pods
  // The pool in queue-sequence order, so that events visit it deterministically without a sort
  // per event: a pod always enters the pool with a fresh (largest) seq, so appending keeps the
  // order. Entries of pods that left (or left and came back under a newer seq) are dropped lazily
  // by CompactUnschedulableOrder.
  // Pods of the kUnschedulable kind only; the gated pods of the pool have their own list, kept the
  // same way, so that events their gating plugins ignore do not visit them.
  mutable std::vector<std::pair<QueuedPod*, uint64_t>> unschedulable_order_;
  mutable std::vector<std::pair<QueuedPod*, uint64_t>> gated_order_;
  // Gated pods in the pool, and a superset of the (framework, plugin) pairs that gate them (a pair
  // is forgotten only when no gated pod is left); `gated_without_plugin_`: some gated pod names no
  // plugin (always re-evaluated).
  size_t num_gated_ = 0;
  std::vector<std::pair<const framework::Framework*, std::string>> gating_plugins_;
  bool gated_without_plugin_ = false;
};

}  // namespace corral::scheduler
