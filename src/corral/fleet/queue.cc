#include "corral/fleet/queue.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "corral/pipeline/backoff.h"

namespace corral::fleet {

namespace {

// The first tick of a grid with `period` at or after `t` (ticks at 0, period, 2 × period, ...).
int64_t TickAtOrAfter(int64_t t, int64_t period) {
  if (t <= 0) return 0;
  const int64_t k = (t + period - 1) / period;
  return k > std::numeric_limits<int64_t>::max() / period ? std::numeric_limits<int64_t>::max()
                                                          : k * period;
}

}  // namespace

void FleetQueue::Ensure(uint32_t id) {
  if (id < info_.size()) return;
  const size_t old = info_.size();
  info_.resize(id + 1);
  state_.resize(id + 1, QueueState::kAbsent);
  processing_.resize(id + 1, 0);
  dirty_.resize(id + 1, 0);
  for (size_t i = old; i <= id; ++i) info_[i].id = static_cast<uint32_t>(i);
}

int64_t FleetQueue::BackoffDuration(int32_t attempts) const {
  return pipeline::BackoffDuration(attempts, Duration(opt_.initial_backoff_ns),
                                   Duration(opt_.max_backoff_ns), 1.0)
      .count();
}

void FleetQueue::RemoveFromPools(uint32_t id) {
  QueuedWork& w = info_[id];
  switch (state_[id]) {
    case QueueState::kActive:
      active_.erase(KeyOf(w));
      break;
    case QueueState::kBackoff:
      backoff_.erase(BackoffKeyOf(w));
      break;
    case QueueState::kUnschedulable:
      unschedulable_.erase({w.timestamp_ns, id});
      break;
    default:
      break;
  }
  state_[id] = QueueState::kAbsent;
}

void FleetQueue::MoveToActive(uint32_t id, int64_t now_ns, bool fresh) {
  QueuedWork& w = info_[id];
  // activequeue.Push: an item already active (or pushed while processing) is left alone.
  if (dirty_[id]) return;
  if (state_[id] == QueueState::kActive) return;
  RemoveFromPools(id);
  dirty_[id] = 1;
  if (processing_[id]) return;  // Done re-adds it
  if (fresh) {
    w.attempts = 0;
    w.initial_attempt_ns = -1;
  }
  w.timestamp_ns = now_ns;
  w.seq = seq_++;
  if (w.initial_attempt_ns < 0) w.initial_attempt_ns = now_ns;
  active_.insert(KeyOf(w));
  state_[id] = QueueState::kActive;
}

void FleetQueue::Push(uint32_t id, int32_t priority, int64_t now_ns) {
  Ensure(id);
  if (!dirty_[id] && state_[id] != QueueState::kActive && !processing_[id]) {
    // A fresh QueuedBindingInfo carries the binding's current priority.
    RemoveFromPools(id);
    info_[id].priority = priority;
  }
  MoveToActive(id, now_ns, /*fresh=*/true);
}

std::optional<uint32_t> FleetQueue::Pop() {
  if (active_.empty()) return std::nullopt;
  const uint32_t id = std::get<3>(*active_.begin());
  active_.erase(active_.begin());
  state_[id] = QueueState::kAbsent;
  ++info_[id].attempts;
  processing_[id] = 1;
  dirty_[id] = 0;
  return id;
}

void FleetQueue::Done(uint32_t id, int64_t now_ns) {
  if (id >= info_.size() || !processing_[id]) return;
  processing_[id] = 0;
  if (dirty_[id]) {
    QueuedWork& w = info_[id];
    RemoveFromPools(id);
    w.timestamp_ns = now_ns;
    w.seq = seq_++;
    active_.insert(KeyOf(w));
    state_[id] = QueueState::kActive;
  }
}

void FleetQueue::PushUnschedulableIfNotPresent(uint32_t id) {
  Ensure(id);
  if (state_[id] == QueueState::kBackoff || state_[id] == QueueState::kActive || dirty_[id]) return;
  RemoveFromPools(id);
  unschedulable_.insert({info_[id].timestamp_ns, id});
  state_[id] = QueueState::kUnschedulable;
}

void FleetQueue::PushBackoffIfNotPresent(uint32_t id) {
  Ensure(id);
  if (state_[id] == QueueState::kUnschedulable || state_[id] == QueueState::kActive || dirty_[id])
    return;
  RemoveFromPools(id);
  backoff_.insert(BackoffKeyOf(info_[id]));
  state_[id] = QueueState::kBackoff;
}

void FleetQueue::Forget(uint32_t id) {
  if (id < state_.size() && state_[id] == QueueState::kBackoff) RemoveFromPools(id);
}

void FleetQueue::Delete(uint32_t id) {
  if (id >= info_.size()) return;
  RemoveFromPools(id);
  processing_[id] = 0;
  dirty_[id] = 0;
}

void FleetQueue::SortByPriority(std::vector<uint32_t>& ids) const {
  std::sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
    const QueuedWork& x = info_[a];
    const QueuedWork& y = info_[b];
    if (x.priority != y.priority) return x.priority > y.priority;
    if (x.timestamp_ns != y.timestamp_ns) return x.timestamp_ns < y.timestamp_ns;
    return x.seq < y.seq;
  });
}

std::vector<uint32_t> FleetQueue::PeekBackoffCompleted(int64_t now_ns) const {
  std::vector<uint32_t> out;
  for (const BackoffKey& k : backoff_) {
    if (std::get<0>(k) > now_ns) break;  // isBindingBackingoff: backoff time after now
    out.push_back(std::get<4>(k));
  }
  return out;
}

void FleetQueue::FlushBackoffQCompleted(int64_t now_ns) {
  std::vector<uint32_t> move = PeekBackoffCompleted(now_ns);
  SortByPriority(move);
  for (uint32_t id : move) MoveToActive(id, now_ns, /*fresh=*/false);
}

void FleetQueue::FlushUnschedulableLeftover(int64_t now_ns) {
  std::vector<uint32_t> move;
  for (const auto& [ts, id] : unschedulable_) {
    if (now_ns - ts <= opt_.max_in_unschedulable_ns) break;
    move.push_back(id);
  }
  SortByPriority(move);
  for (uint32_t id : move) MoveToActive(id, now_ns, /*fresh=*/false);
}

void FleetQueue::MoveUnschedulable(const std::function<bool(uint32_t)>& affected, int64_t now_ns) {
  std::vector<uint32_t> move;
  for (const auto& [ts, id] : unschedulable_) {
    if (affected(id)) move.push_back(id);
  }
  SortByPriority(move);
  for (uint32_t id : move) {
    RemoveFromPools(id);
    MoveToActive(id, now_ns, /*fresh=*/true);
  }
}

void FleetQueue::OnTick(int64_t now_ns) {
  if (now_ns % opt_.backoff_flush_period_ns == 0) FlushBackoffQCompleted(now_ns);
  if (now_ns % opt_.unschedulable_flush_period_ns == 0) FlushUnschedulableLeftover(now_ns);
}

int64_t FleetQueue::NextDeadline(int64_t now_ns) const {
  int64_t next = std::numeric_limits<int64_t>::max();
  if (!backoff_.empty()) {
    const int64_t t = std::max(now_ns, std::get<0>(*backoff_.begin()));
    next = std::min(next, TickAtOrAfter(t, opt_.backoff_flush_period_ns));
  }
  if (!unschedulable_.empty()) {
    // The first tick strictly more than max_in_unschedulable after the oldest timestamp.
    const int64_t t =
        std::max(now_ns, unschedulable_.begin()->first + opt_.max_in_unschedulable_ns + 1);
    next = std::min(next, TickAtOrAfter(t, opt_.unschedulable_flush_period_ns));
  }
  return next;
}

void FleetQueue::InjectBackoff(const QueuedWork& w) {
  Ensure(w.id);
  RemoveFromPools(w.id);
  info_[w.id] = w;
  backoff_.insert(BackoffKeyOf(w));
  state_[w.id] = QueueState::kBackoff;
}

void FleetQueue::InjectUnschedulable(const QueuedWork& w) {
  Ensure(w.id);
  RemoveFromPools(w.id);
  info_[w.id] = w;
  unschedulable_.insert({w.timestamp_ns, w.id});
  state_[w.id] = QueueState::kUnschedulable;
}

}  // namespace corral::fleet
