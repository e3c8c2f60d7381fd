#include "corral/pipeline/backoff.h"

#include <gtest/gtest.h>

namespace corral::pipeline {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// kube's TestPriorityQueue_calculateBackoffDuration shapes (initial 1s, max 10s).
TEST(BackoffTest, DoublesFromInitialUpToTheCap) {
  const Duration initial = seconds(1), max = seconds(10);
  EXPECT_EQ(BackoffDuration(0, initial, max, 1.0), Duration::zero());
  EXPECT_EQ(BackoffDuration(1, initial, max, 1.0), seconds(1));
  EXPECT_EQ(BackoffDuration(2, initial, max, 1.0), seconds(2));
  EXPECT_EQ(BackoffDuration(4, initial, max, 1.0), seconds(8));
  EXPECT_EQ(BackoffDuration(5, initial, max, 1.0), seconds(10));
  EXPECT_EQ(BackoffDuration(1000, initial, max, 1.0), seconds(10));  // no overflow
  EXPECT_EQ(BackoffDuration(3, initial, Duration::zero(), 1.0), Duration::zero());
}

TEST(BackoffTest, ScaleRaisesTheCapOnly) {
  const Duration initial = seconds(1), max = seconds(10);
  EXPECT_EQ(BackoffDuration(2, initial, max, 2.0), seconds(2));
  EXPECT_EQ(BackoffDuration(6, initial, max, 2.0), seconds(20));
  EXPECT_EQ(BackoffDuration(6, initial, max, 1.5), seconds(15));
  EXPECT_EQ(BackoffDuration(1, milliseconds(500), max, 3.0), milliseconds(500));
}

}  // namespace
}  // namespace corral::pipeline
