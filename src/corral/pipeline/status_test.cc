#include "corral/pipeline/status.h"

#include <gtest/gtest.h>

namespace corral::pipeline {
namespace {

TEST(StatusTest, DefaultIsSuccessWithoutReasons) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(s.reasons().empty());
  EXPECT_EQ(s.Message(), "");
}

TEST(StatusTest, OwnedReasonsSurviveCopiesAndGrowth) {
  Status s = Status::WithOwnedReason(Code::kUnschedulable, "node(s) had untolerated taint {a: b}");
  for (int i = 0; i < 20; ++i) s.AddOwnedReason("reason " + std::to_string(i));
  Status copy = s;
  s = Status();
  ASSERT_EQ(copy.reasons().size(), 21u);
  EXPECT_EQ(copy.reasons()[0], "node(s) had untolerated taint {a: b}");
  EXPECT_EQ(copy.reasons()[20], "reason 19");
  EXPECT_TRUE(copy.IsRejected());
  EXPECT_EQ(copy.WithPlugin("TaintToleration").plugin(), "TaintToleration");
}

TEST(StatusTest, MessageJoinsReasons) {
  Status s = Status::Unschedulable("Insufficient cpu");
  s.AddReason("Insufficient memory");
  EXPECT_EQ(s.Message(), "Insufficient cpu, Insufficient memory");
  EXPECT_EQ(CodeName(s.code()), "Unschedulable");
}

}  // namespace
}  // namespace corral::pipeline
