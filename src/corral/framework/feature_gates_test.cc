#include "corral/framework/feature_gates.h"

#include <string>

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

// Every gate of the table is found by its kube name, and the four DRA gates of v1.37 each switch
// their feature on and off.
TEST(FeatureGatesTest, EveryGateIsFoundAndTheDraGatesSwitch) {
  for (size_t i = 0; i < static_cast<size_t>(Feature::kCount); ++i) {
    const FeatureSpec& spec = SpecOf(static_cast<Feature>(i));
    EXPECT_EQ(FindFeature(spec.name), &spec);
  }
  EXPECT_EQ(FindFeature("NoSuchGate"), nullptr);
  FeatureGates g;
  ASSERT_TRUE(g.ParseFlag("DRADeviceCompatibilityGroups=true,DRAWorkloadResourceClaims=true,"
                          "DRADeviceBindingConditions=false")
                  .ok());
  EXPECT_TRUE(g.Enabled(Feature::kDRADeviceCompatibilityGroups));
  EXPECT_TRUE(g.Enabled(Feature::kDRAWorkloadResourceClaims));
  EXPECT_FALSE(g.Enabled(Feature::kDRADeviceBindingConditions));
  Result<void> locked = g.ParseFlag("DRAResourceClaimDeviceStatus=false");
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().message,
            "cannot set feature gate DRAResourceClaimDeviceStatus to false, feature is locked to "
            "true");
}

}  // namespace
}  // namespace corral::framework
