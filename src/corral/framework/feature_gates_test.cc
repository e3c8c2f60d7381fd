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

// A gate Corral does not model accepts its default and refuses the other value, naming what is
// missing: a policy must not change behind the user's back. Checked for every unlocked gate that
// still has an unmodelled note (a locked gate gives kube's locked message first).
TEST(FeatureGatesTest, UnmodelledGateRefusesItsOtherValue) {
  for (size_t i = 0; i < static_cast<size_t>(Feature::kCount); ++i) {
    const FeatureSpec& spec = SpecOf(static_cast<Feature>(i));
    if (spec.unmodelled.empty() || spec.locked) continue;
    SCOPED_TRACE(spec.name);
    FeatureGates g;
    const std::string name(spec.name);
    const std::string other = spec.default_value ? "false" : "true";
    EXPECT_TRUE(g.ParseFlag(name + "=" + (spec.default_value ? "true" : "false")).ok());
    Result<void> set = g.ParseFlag(name + "=" + other);
    ASSERT_FALSE(set.ok());
    EXPECT_EQ(set.error().message,
              "feature gate " + name + "=" + other +
                  " is not modelled by Corral: " + std::string(spec.unmodelled));
    EXPECT_EQ(g.Enabled(static_cast<Feature>(i)), spec.default_value);
  }
  EXPECT_EQ(FindFeature("NoSuchGate"), nullptr);
}

// DRADeviceCompatibilityGroups is modelled (the DRA allocator's compatibility-group check): either
// value is accepted.
TEST(FeatureGatesTest, CompatibilityGroupsGateIsModelled) {
  FeatureGates g;
  EXPECT_FALSE(g.Enabled(Feature::kDRADeviceCompatibilityGroups));
  ASSERT_TRUE(g.ParseFlag("DRADeviceCompatibilityGroups=true").ok());
  EXPECT_TRUE(g.Enabled(Feature::kDRADeviceCompatibilityGroups));
  EXPECT_TRUE(FindFeature("DRADeviceCompatibilityGroups")->unmodelled.empty());
}

}  // namespace
}  // namespace corral::framework
