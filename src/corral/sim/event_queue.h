#pragma once
// EventQueue: the discrete-event simulator's agenda. A binary min-heap of plain 32-byte events
// keyed by (time, seq); seq is the insertion counter, so events at the same virtual time run in the
// order they were scheduled, which makes every run deterministic.
//
// Contract: Push and Pop are O(log n) and do not allocate once the heap's capacity covers the
// number of pending events (the vector only grows). Events are values; stale events (for a pod that
// has since gone) are recognized by the receiver through a generation number carried in
// the payload.

#include <cstdint>
#include <vector>

#include "corral/core/check.h"

namespace corral::sim {

enum class EventKind : uint8_t {
  kArrival,        // a = workload: next arrival of that stream
  kBindDone,       // a = pod slot, b = generation: binding finished, the pod starts running
  kPodDone,        // a = pod slot, b = generation: the pod's run time is over
  kFlushTick,      // lane: Scheduler::FlushUnschedulableLeftover, every 30 s
  kSampleTick,     // time-series sample
  kCollectorTick,  // scheduler_perf throughput collector sample
  kRetryTick,     // lane: wake the scheduler after it found nothing it could do (errors in backoff)
  kOpWake,        // the program's current op waited for a time
  kChurnTick,     // a = churn index
  kDeleteTick,    // a = deleter index: next pod deletion of a rate-limited deletePods op
  kUpdateTick,    // a = updater index: next node update of a rate-limited updateAny op
  kVictimGone,    // a = pod slot, b = generation: a preemption victim's grace period is over
  kPermitTimer,   // lane: the scheduler's earliest Permit deadline (gangs waiting for their quorum)
  kFleetTimer,    // a = generation: the fleet dispatcher's next timer (queue flushes, timeouts)
  kFleetRefresh,  // the cluster status refresh that the fleet dispatcher sees
  kFleetOutage,   // a = outage index, b = 1 when the member goes down, 0 when it comes back
  // The scheduler's API client under a rate limit (api_client.h), all on the member's lane:
  kBindLanded,    // a = pod slot, b = generation: its binding reached the API server
  kStatusLanded,  // a = pod slot, b = generation: its PodScheduled=False status patch did
  kApiUnblock,    // the scheduling loop's own call (a status patch) got its token
};

struct Event {
  int64_t time_ns = 0;
  uint64_t seq = 0;
  EventKind kind = EventKind::kArrival;
  uint16_t lane = 0;  // the member (cluster) a lane event (flush, retry, Permit timer) is for
  uint32_t a = 0;
  uint32_t b = 0;
};
static_assert(sizeof(Event) == 32);

class EventQueue {
 public:
  void Push(int64_t time_ns, EventKind kind, uint32_t a = 0, uint32_t b = 0, uint16_t lane = 0) {
    heap_.push_back(Event{time_ns, seq_++, kind, lane, a, b});
    SiftUp(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // REQUIRES: !empty().
  const Event& Top() const {
    CORRAL_DCHECK(!heap_.empty());
    return heap_[0];
  }
  Event Pop() {
    CORRAL_DCHECK(!heap_.empty());
    Event top = heap_[0];
    heap_[0] = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(0);
    return top;
  }
  void Reserve(size_t n) { heap_.reserve(n); }

 private:
  static bool Less(const Event& x, const Event& y) {
    return x.time_ns != y.time_ns ? x.time_ns < y.time_ns : x.seq < y.seq;
  }
  void SiftUp(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!Less(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    Event e = heap_[i];
    for (;;) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Less(heap_[child + 1], heap_[child])) ++child;
      if (!Less(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t seq_ = 0;
};

}  // namespace corral::sim
