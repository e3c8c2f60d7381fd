#include "corral/fleet/queue.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::fleet {
namespace {

constexpr int64_t kS = kQueueSecond;

QueueOptions WithBackoff(int64_t initial, int64_t max) {
  QueueOptions o;
  o.initial_backoff_ns = initial;
  o.max_backoff_ns = max;
  return o;
}

// Karmada TestBackoffQueue_getBackoffTime.
TEST(FleetQueueTest, BackoffTime) {
  struct Case {
    std::string name;
    int64_t initial, max;
    int32_t attempts;
    int64_t want;  // relative to the timestamp
  };
  const int64_t t0 = 1'000 * kS;
  const Case cases[] = {
      {"no backoff", 1 * kS, 32 * kS, 0, 0},
      {"normal backoff within max backoff duration", 1 * kS, 32 * kS, 4, 8 * kS},
      {"zero maxBackoffDuration means no backoff", 0, 0, 5, 0},
  };
  for (const Case& c : cases) {
    FleetQueue q(WithBackoff(c.initial, c.max));
    QueuedWork w;
    w.timestamp_ns = t0;
    w.attempts = c.attempts;
    EXPECT_EQ(q.BackoffTime(w), t0 + c.want) << c.name;
  }
}

// Karmada TestBackoffQueue_calculateBackoffDuration.
TEST(FleetQueueTest, CalculateBackoffDuration) {
  struct Case {
    std::string name;
    int64_t initial, max;
    int32_t attempts;
    int64_t want;
  };
  const int64_t max32 = std::numeric_limits<int32_t>::max();
  const int64_t max64 = std::numeric_limits<int64_t>::max();
  const Case cases[] = {
      {"no backoff", 1, 32, 0, 0},
      {"normal", 1, 32, 3, 4},
      {"hitting max backoff duration", 1, 32, 16, 32},
      {"overflow_32bit", 1, max32, 32, max32},
      {"overflow_64bit", 1, max64, 64, max64},
  };
  for (const Case& c : cases) {
    FleetQueue q(WithBackoff(c.initial, c.max));
    EXPECT_EQ(q.BackoffDuration(c.attempts), c.want) << c.name;
  }
}

// Karmada TestBackoffQueueOrdering: which bindings have completed their backoff, in the backoffQ's
// order (backoff time, then priority, then timestamp).
TEST(FleetQueueTest, BackoffQueueOrdering) {
  const int64_t now = 1'000 * kS;
  auto binding = [&](uint32_t id, int32_t prio, int64_t ago, int32_t attempts) {
    QueuedWork w;
    w.id = id;
    w.priority = prio;
    w.timestamp_ns = now - ago;
    w.attempts = attempts;
    return w;
  };
  const QueuedWork b1 = binding(1, 10, 6 * kS, 4);  // 8 s: backoff not completed
  const QueuedWork b2 = binding(2, 1, 2 * kS, 1);   // 1 s: completed
  const QueuedWork b3 = binding(3, 2, 2 * kS, 1);   // 1 s: completed
  const QueuedWork b4 = binding(4, 2, 3 * kS, 2);   // 2 s: completed
  struct Case {
    std::string name;
    std::vector<QueuedWork> in_backoff;
    std::vector<uint32_t> want;
  };
  const Case cases[] = {
      {"backoffQueue is empty, and no binding moved to activeQ", {}, {}},
      {"high priority binding with long backoff duration should not block lower priority "
       "bindings from being moved to activeQ",
       {b1, b2},
       {2}},
      {"bindings with the same backoff time should be sorted by priority", {b2, b3}, {3, 2}},
      {"bindings with the same backoff time and priority should be sorted by timestamp",
       {b3, b4},
       {4, 3}},
  };
  for (const Case& c : cases) {
    FleetQueue q;
    for (const QueuedWork& w : c.in_backoff) q.InjectBackoff(w);
    EXPECT_EQ(q.PeekBackoffCompleted(now), c.want) << c.name;
  }
}

std::vector<uint32_t> PopAll(FleetQueue& q) {
  std::vector<uint32_t> out;
  while (auto id = q.Pop()) out.push_back(*id);
  return out;
}

// Karmada TestFlushBackoffQCompletedPriorityOrder: completed items enter activeQ in priority order,
// not in order of backoff expiry; the one still backing off stays.
TEST(FleetQueueTest, FlushBackoffQCompletedPriorityOrder) {
  const int64_t now = 1'000 * kS;
  FleetQueue q;
  q.InjectBackoff({.id = 0, .priority = 1, .timestamp_ns = now - 10 * kS, .attempts = 1});  // low
  q.InjectBackoff({.id = 1, .priority = 10, .timestamp_ns = now - 2 * kS, .attempts = 1});  // high
  q.InjectBackoff({.id = 2, .priority = 100, .timestamp_ns = now, .attempts = 3});  // not ready
  q.FlushBackoffQCompleted(now);
  EXPECT_EQ(q.active_len(), 2u);
  EXPECT_EQ(q.backoff_len(), 1u);
  EXPECT_EQ(q.state(2), QueueState::kBackoff);
  EXPECT_EQ(PopAll(q), (std::vector<uint32_t>{1, 0}));
}

// Karmada TestFlushUnschedulableBindingsLeftoverPriorityOrder.
TEST(FleetQueueTest, FlushUnschedulableLeftoverPriorityOrder) {
  const int64_t now = 10'000 * kS;
  const int64_t stale = now - 600 * kS;
  FleetQueue q;
  q.InjectUnschedulable({.id = 0, .priority = 1, .timestamp_ns = stale});   // low
  q.InjectUnschedulable({.id = 1, .priority = 5, .timestamp_ns = stale});   // med
  q.InjectUnschedulable({.id = 2, .priority = 10, .timestamp_ns = stale});  // high
  q.InjectUnschedulable({.id = 3, .priority = 100, .timestamp_ns = now});   // fresh
  q.FlushUnschedulableLeftover(now);
  EXPECT_EQ(q.state(3), QueueState::kUnschedulable);
  EXPECT_EQ(q.unschedulable_len(), 1u);
  EXPECT_EQ(PopAll(q), (std::vector<uint32_t>{2, 1, 0}));
}

// Karmada TestPriorityQueue: the highest priority first; equal priorities in push order.
TEST(FleetQueueTest, PriorityQueue) {
  {
    FleetQueue q;
    q.Push(1, 2, 0);
    q.Push(2, 3, 0);
    EXPECT_EQ(q.Pop(), 2u);
  }
  {
    FleetQueue q;
    q.Push(1, 0, 0);
    q.Push(2, 0, 0);
    EXPECT_EQ(q.Pop(), 1u);
  }
}

// activequeue's dirty/processing rules: a push while processing comes back at Done, stamped then,
// and keeps its attempts; handleErr does not pool an item pushed meanwhile.
TEST(FleetQueueTest, PushWhileProcessingComesBackAtDone) {
  FleetQueue q;
  q.Push(7, 0, 0);
  ASSERT_EQ(q.Pop(), 7u);
  EXPECT_EQ(q.state(7), QueueState::kProcessing);
  q.Push(7, 0, 5 * kS);
  q.PushUnschedulableIfNotPresent(7);
  EXPECT_EQ(q.unschedulable_len(), 0u);
  q.Done(7, 6 * kS);
  EXPECT_EQ(q.state(7), QueueState::kActive);
  EXPECT_EQ(q.info(7).timestamp_ns, 6 * kS);
  EXPECT_EQ(q.info(7).attempts, 1);
}

// A failure backs off from the item's last push: 1 s after the first attempt, 2 s after the second,
// moved by the 1-second flush grid.
TEST(FleetQueueTest, BackoffDoublesAndFlushesOnTheGrid) {
  FleetQueue q;
  q.Push(0, 0, 500'000'000);
  ASSERT_EQ(q.Pop(), 0u);
  q.PushBackoffIfNotPresent(0);
  q.Done(0, 500'000'000);
  EXPECT_EQ(q.NextDeadline(500'000'000), 2 * kS);  // backoff ends 1.5 s, next tick 2 s
  q.OnTick(1 * kS);
  EXPECT_EQ(q.active_len(), 0u);
  q.OnTick(2 * kS);
  ASSERT_EQ(q.Pop(), 0u);  // re-stamped at 2 s, attempts 2
  q.PushBackoffIfNotPresent(0);
  q.Done(0, 2 * kS);
  EXPECT_EQ(q.NextDeadline(2 * kS), 4 * kS);
}

// An unschedulable item waits for a cluster event or for 5 minutes (strictly more), on the 30 s
// grid; a cluster event pushes it afresh (attempts restart).
TEST(FleetQueueTest, UnschedulableMovedByEventOrLeftoverFlush) {
  FleetQueue q;
  q.Push(0, 0, 10 * kS);
  q.Push(1, 0, 10 * kS);
  ASSERT_EQ(q.Pop(), 0u);
  q.PushUnschedulableIfNotPresent(0);
  q.Done(0, 10 * kS);
  ASSERT_EQ(q.Pop(), 1u);
  q.PushUnschedulableIfNotPresent(1);
  q.Done(1, 10 * kS);
  EXPECT_EQ(q.NextDeadline(10 * kS), 330 * kS);  // > 310 s on the 30 s grid
  q.MoveUnschedulable([](uint32_t id) { return id == 1; }, 20 * kS);
  EXPECT_EQ(q.state(1), QueueState::kActive);
  EXPECT_EQ(q.info(1).attempts, 0);
  EXPECT_EQ(q.state(0), QueueState::kUnschedulable);
  q.OnTick(300 * kS);
  EXPECT_EQ(q.state(0), QueueState::kUnschedulable);
  q.OnTick(330 * kS);
  EXPECT_EQ(q.state(0), QueueState::kActive);
  EXPECT_EQ(q.info(0).attempts, 1);
}

TEST(FleetQueueTest, DeleteLeavesEveryPool) {
  FleetQueue q;
  q.Push(3, 0, 0);
  q.Delete(3);
  EXPECT_EQ(q.state(3), QueueState::kAbsent);
  EXPECT_EQ(q.Pop(), std::nullopt);
}

}  // namespace
}  // namespace corral::fleet
