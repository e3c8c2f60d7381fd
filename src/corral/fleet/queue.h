#pragma once
// The fleet's scheduling queue, as Karmada's scheduler queue (pkg/scheduler/internal/queue,
// prioritySchedulingQueue) keeps its bindings:
//
//   - activeQ: a heap ordered by priority (higher first), then by the time the item was last
//     pushed (earlier first). Pop() counts an attempt and marks the item processing; a Push of an
//     item that is processing is remembered ("dirty") and re-adds it when Done() is called, with
//     its timestamp set to that moment, as activequeue.Done does.
//   - backoffQ: items that failed with an error. An item's backoff is the pipeline's
//     BackoffDuration of its attempts (initial 1 s doubled per attempt, capped at 10 s), counted
//     from its timestamp; FlushBackoffQCompleted, run every second, moves every item whose backoff
//     has completed to activeQ in priority order.
//   - unschedulable: items for which no cluster fits. FlushUnschedulableLeftover, run every 30 s,
//     moves those pushed more than 5 minutes ago to activeQ in priority order; a cluster event
//     (MoveUnschedulable) moves the affected ones at once.
//
// A Push (arrival, requeue on a cluster event) starts the item afresh: Karmada's event handlers
// push a new QueuedBindingInfo, so its attempts restart at 0; only the item popped and handed back
// through Done keeps its attempts.
//
// Times are nanoseconds of the caller's clock (the simulator's virtual time); the flush ticks run
// on grids that start at 0 (wait.Until runs its function at once, then every period). Items are
// dense ids chosen by the caller. Karmada orders equal timestamps by Go's clock, which never
// repeats in practice; Corral breaks the tie by push order so that equal virtual times
// stay deterministic.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace corral::fleet {

inline constexpr int64_t kQueueSecond = 1'000'000'000;

struct QueueOptions {
  int64_t initial_backoff_ns = 1 * kQueueSecond;         // DefaultBindingInitialBackoffDuration
  int64_t max_backoff_ns = 10 * kQueueSecond;            // DefaultBindingMaxBackoffDuration
  int64_t max_in_unschedulable_ns = 300 * kQueueSecond;  // ...MaxInUnschedulableBindingsDuration
  int64_t backoff_flush_period_ns = 1 * kQueueSecond;    // flushBackoffQCompleted
  int64_t unschedulable_flush_period_ns = 30 * kQueueSecond;  // flushUnschedulableBindingsLeftover
};

// Karmada's QueuedBindingInfo.
struct QueuedWork {
  uint32_t id = 0;
  int32_t priority = 0;
  int64_t timestamp_ns = 0;
  int64_t initial_attempt_ns = -1;  // the first push; -1 before it
  int32_t attempts = 0;
  uint64_t seq = 0;  // push order, the tie-break of equal timestamps
};

enum class QueueState : uint8_t { kAbsent, kActive, kBackoff, kUnschedulable, kProcessing };

class FleetQueue {
 public:
  explicit FleetQueue(QueueOptions options = {}) : opt_(options) {}

  // prioritySchedulingQueue.Push: to activeQ, out of backoffQ and the unschedulable pool; a fresh
  // item (attempts 0). An item already in activeQ stays as it is; one being processed is marked to
  // come back at Done.
  void Push(uint32_t id, int32_t priority, int64_t now_ns);
  // The highest-priority active item, now processing with one more attempt; nullopt when empty.
  std::optional<uint32_t> Pop();
  // Processing finished; an item pushed meanwhile goes back to activeQ stamped `now_ns`.
  void Done(uint32_t id, int64_t now_ns);
  // handleErr's two paths; no-ops when the item is already active or in the other pool.
  void PushUnschedulableIfNotPresent(uint32_t id);
  void PushBackoffIfNotPresent(uint32_t id);
  // Success: the item leaves backoffQ.
  void Forget(uint32_t id);
  // The work item is gone: out of every queue.
  void Delete(uint32_t id);

  void FlushBackoffQCompleted(int64_t now_ns);
  void FlushUnschedulableLeftover(int64_t now_ns);
  // A cluster event: every unschedulable item `affected` accepts goes to activeQ (as a fresh push),
  // in priority order.
  void MoveUnschedulable(const std::function<bool(uint32_t)>& affected, int64_t now_ns);
  // Runs the flushes whose tick falls at `now_ns` (both grids start at 0).
  void OnTick(int64_t now_ns);
  // The next tick at which a flush would move an item, or INT64_MAX.
  int64_t NextDeadline(int64_t now_ns) const;

  // calculateBackoffDuration and getBackoffTime.
  int64_t BackoffDuration(int32_t attempts) const;
  int64_t BackoffTime(const QueuedWork& w) const {
    return w.timestamp_ns + BackoffDuration(w.attempts);
  }

  // The pool an item is in; kProcessing when it is in none and is being processed.
  QueueState state(uint32_t id) const {
    if (id >= state_.size()) return QueueState::kAbsent;
    if (state_[id] == QueueState::kAbsent && processing_[id]) return QueueState::kProcessing;
    return state_[id];
  }
  const QueuedWork& info(uint32_t id) const { return info_[id]; }
  size_t active_len() const { return active_.size(); }
  size_t backoff_len() const { return backoff_.size(); }
  size_t unschedulable_len() const { return unschedulable_.size(); }

  // Test access: place an item directly in a pool with the given fields (the upstream tests fill
  // backoffQ and the pool the same way).
  void InjectBackoff(const QueuedWork& w);
  void InjectUnschedulable(const QueuedWork& w);
  // Test access: drain what a flush would move, in order, without moving it.
  std::vector<uint32_t> PeekBackoffCompleted(int64_t now_ns) const;

 private:
  // (−priority, timestamp, seq, id): the activeQ order of Less, ties by push order.
  using ActiveKey = std::tuple<int64_t, int64_t, uint64_t, uint32_t>;
  // (backoff time, −priority, timestamp, seq, id): lessBackoffCompletedWithPriority.
  using BackoffKey = std::tuple<int64_t, int64_t, int64_t, uint64_t, uint32_t>;

  void Ensure(uint32_t id);
  ActiveKey KeyOf(const QueuedWork& w) const {
    return {-static_cast<int64_t>(w.priority), w.timestamp_ns, w.seq, w.id};
  }
  BackoffKey BackoffKeyOf(const QueuedWork& w) const {
    return {BackoffTime(w), -static_cast<int64_t>(w.priority), w.timestamp_ns, w.seq, w.id};
  }
  // moveToActiveQ with activequeue.Push's dirty/processing rules.
  void MoveToActive(uint32_t id, int64_t now_ns, bool fresh);
  void RemoveFromPools(uint32_t id);
  // Sorts ids by Less (priority, timestamp, push order).
  void SortByPriority(std::vector<uint32_t>& ids) const;

  QueueOptions opt_;
  std::vector<QueuedWork> info_;
  std::vector<QueueState> state_;
  std::vector<uint8_t> processing_;  // popped, Done not yet called
  std::vector<uint8_t> dirty_;       // pushed while processing
  std::set<ActiveKey> active_;
  std::set<BackoffKey> backoff_;
  std::set<std::pair<int64_t, uint32_t>> unschedulable_;  // (timestamp, id)
  uint64_t seq_ = 0;
};

}  // namespace corral::fleet
