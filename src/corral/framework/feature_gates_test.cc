#include "corral/framework/feature_gates.h"

#include <gtest/gtest.h>

namespace corral::framework {
namespace {

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

// A gate Corral does not model accepts its default and refuses the other value, naming what is
// missing: a policy must not change behind the user's back.
TEST(FeatureGatesTest, UnmodelledGateRefusesItsOtherValue) {
  FeatureGates g;
  EXPECT_TRUE(g.ParseFlag("DRADeviceCompatibilityGroups=false").ok());
  Result<void> on = g.ParseFlag("DRADeviceCompatibilityGroups=true");
  ASSERT_FALSE(on.ok());
  EXPECT_EQ(on.error().message,
            "feature gate DRADeviceCompatibilityGroups=true is not modelled by Corral: DRA device "
            "compatibility groups are not modelled");
  EXPECT_FALSE(g.Enabled(Feature::kDRADeviceCompatibilityGroups));
  ASSERT_NE(FindFeature("DRAWorkloadResourceClaims"), nullptr);
  EXPECT_TRUE(FindFeature("DRAWorkloadResourceClaims")->unmodelled.empty());  // modelled
  EXPECT_EQ(FindFeature("NoSuchGate"), nullptr);
}

}  // namespace
}  // namespace corral::framework
