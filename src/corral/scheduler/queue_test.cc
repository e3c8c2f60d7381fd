// SchedulingQueue backoff: kube's pod backoff, and the longer cap of a failed pod group.

#include "corral/scheduler/queue.h"

#include <cmath>

#include <gtest/gtest.h>

namespace corral::scheduler {
namespace {

using std::chrono::seconds;

TEST(SchedulingQueueBackoffTest, PodBackoffDoublesUpToTheMax) {
  ManualClock clock;
  SchedulingQueue q(clock, {});
  QueuedPod p;
  EXPECT_EQ(q.BackoffDuration(p), Duration::zero());
  p.unschedulable_count = 1;
  EXPECT_EQ(q.BackoffDuration(p), seconds(1));
  p.unschedulable_count = 4;
  EXPECT_EQ(q.BackoffDuration(p), seconds(8));
  p.unschedulable_count = 5;
  EXPECT_EQ(q.BackoffDuration(p), seconds(10));
  p.unschedulable_count = 30;
  EXPECT_EQ(q.BackoffDuration(p), seconds(10));
}

TEST(SchedulingQueueBackoffTest, FailedGroupMembersBackOffUpToMaxTimesSqrtSize) {
  ManualClock clock;
  SchedulingQueue q(clock, {});
  QueuedPod p;
  p.backoff_scale = std::sqrt(9.0);  // a group of 9: cap 30 s
  p.unschedulable_count = 1;
  EXPECT_EQ(q.BackoffDuration(p), seconds(1));
  p.unschedulable_count = 5;
  EXPECT_EQ(q.BackoffDuration(p), seconds(16));
  p.unschedulable_count = 6;
  EXPECT_EQ(q.BackoffDuration(p), seconds(30));
  p.unschedulable_count = 60;
  EXPECT_EQ(q.BackoffDuration(p), seconds(30));
}

}  // namespace
}  // namespace corral::scheduler
