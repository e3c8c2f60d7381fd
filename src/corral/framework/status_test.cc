#include "corral/framework/status.h"

#include <gtest/gtest.h>

#include "corral/framework/feature_gates.h"

namespace corral::framework {
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

TEST(FeatureGatesTest, DefaultsParseAndErrors) {
  FeatureGates g;
  EXPECT_TRUE(g.Enabled(Feature::kOpportunisticBatching));
  EXPECT_FALSE(g.Enabled(Feature::kCompositePodGroup));
  ASSERT_TRUE(g.ParseFlag("OpportunisticBatching=false, CompositePodGroup=true").ok());
  EXPECT_FALSE(g.Enabled(Feature::kOpportunisticBatching));
  EXPECT_TRUE(g.Enabled(Feature::kCompositePodGroup));
  EXPECT_EQ(g.NonDefault(),
            (std::vector<std::string>{"CompositePodGroup=true", "OpportunisticBatching=false"}));
  Result<void> unknown = g.ParseFlag("NoSuchGate=true");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "unrecognized feature gate: NoSuchGate");
  Result<void> locked = g.ParseFlag("SidecarContainers=false");
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().message,
            "cannot set feature gate SidecarContainers to false, feature is locked to true");
  EXPECT_FALSE(g.ParseFlag("OpportunisticBatching=maybe").ok());
}

}  // namespace
}  // namespace corral::framework
