#include "corral/framework/feature_gates.h"

#include <string>

#include <fmt/format.h>
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

// kube's featureSpecAtEmulationVersion: the last spec at or before the version, PreAlpha (off)
// before the first one. DRAExtendedResource: alpha in v1.34, beta and on in v1.36, GA and locked in
// v1.37 (pkg/features/kube_features.go).
TEST(FeatureGatesTest, VersionedSpecLookup) {
  struct Case {
    Feature feature;
    int minor;
    PreRelease pre_release;
    bool default_value;
    bool locked;
  };
  const Case cases[] = {
      {Feature::kDRAExtendedResource, 33, PreRelease::kPreAlpha, false, false},
      {Feature::kDRAExtendedResource, 34, PreRelease::kAlpha, false, false},
      {Feature::kDRAExtendedResource, 35, PreRelease::kAlpha, false, false},
      {Feature::kDRAExtendedResource, 36, PreRelease::kBeta, true, false},
      {Feature::kDRAExtendedResource, 37, PreRelease::kGA, true, true},
      {Feature::kDRAExtendedResource, 40, PreRelease::kGA, true, true},
      {Feature::kNodeDeclaredFeatures, 34, PreRelease::kPreAlpha, false, false},
      {Feature::kNodeDeclaredFeatures, 35, PreRelease::kAlpha, false, false},
      {Feature::kNodeDeclaredFeatures, 36, PreRelease::kBeta, true, false},
      {Feature::kNodeDeclaredFeatures, 37, PreRelease::kGA, true, true},
      {Feature::kSchedulerQueueingHints, 33, PreRelease::kBeta, true, false},
      {Feature::kSchedulerQueueingHints, 34, PreRelease::kGA, true, true},
      {Feature::kDynamicResourceAllocation, 34, PreRelease::kGA, true, false},
      {Feature::kDynamicResourceAllocation, 35, PreRelease::kGA, true, true},
      {Feature::kStorageCapacityScoring, 36, PreRelease::kAlpha, false, false},
      {Feature::kStorageCapacityScoring, 37, PreRelease::kBeta, true, false},
      {Feature::kOpportunisticBatching, 34, PreRelease::kPreAlpha, false, false},
      {Feature::kCorralFilterMemo, 34, PreRelease::kBeta, true, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{} at 1.{}", SpecOf(c.feature).name, c.minor));
    VersionedSpec at = SpecOf(c.feature).At(KubeVersion{1, c.minor});
    EXPECT_EQ(at.pre_release, c.pre_release);
    EXPECT_EQ(at.default_value, c.default_value);
    EXPECT_EQ(at.locked, c.locked);
  }
}

// The table is kube's shape: versions ascending, no transition without a change, never unlocked
// after a lock, and every gate known at v1.37 (kube's AddVersioned checks).
TEST(FeatureGatesTest, VersionedSpecsAreWellFormed) {
  for (size_t i = 0; i < static_cast<size_t>(Feature::kCount); ++i) {
    const FeatureSpec& spec = SpecOf(static_cast<Feature>(i));
    SCOPED_TRACE(std::string(spec.name));
    ASSERT_FALSE(spec.specs.empty());
    EXPECT_LE(spec.specs.front().version, kBinaryVersion);
    for (size_t k = 1; k < spec.specs.size(); ++k) {
      const VersionedSpec& a = spec.specs[k - 1];
      const VersionedSpec& b = spec.specs[k];
      EXPECT_LT(a.version, b.version);
      EXPECT_FALSE(a.pre_release == b.pre_release && a.default_value == b.default_value &&
                   a.locked == b.locked);
      EXPECT_FALSE(a.locked && !b.locked);
      EXPECT_GE(static_cast<int>(b.pre_release), static_cast<int>(a.pre_release));
    }
  }
}

// The gates' defaults at each emulated version; Corral's GenericWorkload and
// TopologyAwareWorkloadScheduling are on wherever kube has them (docs/deviations.md).
TEST(FeatureGatesTest, DefaultsAtEmulatedVersions) {
  struct Case {
    int minor;
    Feature feature;
    bool enabled;
  };
  const Case cases[] = {
      {37, Feature::kDRAExtendedResource, true},
      {36, Feature::kDRAExtendedResource, true},
      {35, Feature::kDRAExtendedResource, false},
      {34, Feature::kDRAExtendedResource, false},
      {37, Feature::kNodeDeclaredFeatures, true},
      {36, Feature::kNodeDeclaredFeatures, true},
      {35, Feature::kNodeDeclaredFeatures, false},
      {36, Feature::kStorageCapacityScoring, false},
      {37, Feature::kStorageCapacityScoring, true},
      {34, Feature::kOpportunisticBatching, false},
      {35, Feature::kOpportunisticBatching, true},
      {34, Feature::kGenericWorkload, false},
      {35, Feature::kGenericWorkload, true},
      {37, Feature::kGenericWorkload, true},
      {35, Feature::kTopologyAwareWorkloadScheduling, false},
      {36, Feature::kTopologyAwareWorkloadScheduling, true},
      {36, Feature::kDRADeviceTaintRules, false},
      {37, Feature::kDRADeviceTaintRules, true},
      {35, Feature::kDRADeviceBindingConditions, false},
      {36, Feature::kDRADeviceBindingConditions, true},
      {34, Feature::kCorralPreemptionMemo, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{} at 1.{}", SpecOf(c.feature).name, c.minor));
    FeatureGates g(KubeVersion{1, c.minor});
    EXPECT_EQ(g.Enabled(c.feature), c.enabled);
    EXPECT_TRUE(g.NonDefault().empty());
  }
  EXPECT_EQ(FeatureGates().emulation_version(), kBinaryVersion);
}

// Setting gates at an emulated version: kube's locked-at-version and PreAlpha errors
// (component-base featuregate's unsafeSetFromMap), and Corral's values it does not model.
TEST(FeatureGatesTest, SetAtEmulatedVersion) {
  struct Case {
    int minor;
    std::string flag;
    std::string error;  // empty: accepted
  };
  const Case cases[] = {
      {37, "DRAExtendedResource=false",
       "cannot set feature gate DRAExtendedResource to false, feature is locked to true"},
      {36, "DRAExtendedResource=false", ""},
      {34, "DRAExtendedResource=true", ""},
      {37, "NodeDeclaredFeatures=false",
       "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true"},
      {37, "NodeDeclaredFeatures=true", ""},
      {36, "NodeDeclaredFeatures=false", ""},
      {34, "NodeDeclaredFeatures=false",
       "cannot set feature gate NodeDeclaredFeatures to false, feature is PreAlpha at emulated "
       "version 1.34, min compatibility version 1.33"},
      // Locked since v1.34, the lowest version Corral (as kube v1.37) emulates.
      {34, "SchedulerQueueingHints=false",
       "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true"},
      {36, "CompositePodGroup=true",
       "cannot set feature gate CompositePodGroup to true, feature is PreAlpha at emulated version "
       "1.36, min compatibility version 1.35"},
      {34, "DynamicResourceAllocation=false", ""},
      {35, "DynamicResourceAllocation=false",
       "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"},
      {36, "DRAPrioritizedList=false",
       "feature gate DRAPrioritizedList=false is not modelled by Corral: Corral's DRA allocator "
       "always honours firstAvailable (kube's behaviour with the gate on)"},
      {34, "InPlacePodVerticalScaling=false",
       "feature gate InPlacePodVerticalScaling=false is not modelled by Corral: Corral's pods "
       "always carry their resize state (kube's behaviour with the gate on)"},
      {36, "NoSuchGate=true", "unrecognized feature gate: NoSuchGate"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{} at 1.{}", c.flag, c.minor));
    FeatureGates g(KubeVersion{1, c.minor});
    Result<void> st = g.ParseFlag(c.flag);
    if (c.error.empty()) {
      EXPECT_TRUE(st.ok()) << st.error().message;
    } else {
      ASSERT_FALSE(st.ok());
      EXPECT_EQ(st.error().message, c.error);
    }
  }
  FeatureGates g(KubeVersion{1, 36});
  ASSERT_TRUE(g.ParseFlag("DRAExtendedResource=false,NodeDeclaredFeatures=false").ok());
  EXPECT_FALSE(g.Enabled(Feature::kDRAExtendedResource));
  EXPECT_FALSE(g.Enabled(Feature::kNodeDeclaredFeatures));
  EXPECT_EQ(g.NonDefault(),
            (std::vector<std::string>{"DRAExtendedResource=false", "NodeDeclaredFeatures=false"}));
}

// kube's SetEmulationVersion: the gates set so far are set again at the new version; a failure
// leaves the gates as they were.
TEST(FeatureGatesTest, SetEmulationVersionReappliesTheSetGates) {
  FeatureGates g;
  ASSERT_TRUE(g.ParseFlag("OpportunisticBatching=false").ok());
  ASSERT_TRUE(g.SetEmulationVersion(KubeVersion{1, 36}).ok());
  EXPECT_EQ(g.emulation_version(), (KubeVersion{1, 36}));
  EXPECT_FALSE(g.Enabled(Feature::kOpportunisticBatching));
  EXPECT_FALSE(g.Enabled(Feature::kStorageCapacityScoring));  // v1.36's default
  ASSERT_TRUE(g.ParseFlag("DRAExtendedResource=false").ok());
  Result<void> st = g.SetEmulationVersion(kBinaryVersion);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "cannot set feature gate DRAExtendedResource to false, feature is locked to true");
  EXPECT_EQ(g.emulation_version(), (KubeVersion{1, 36}));
  EXPECT_FALSE(g.Enabled(Feature::kDRAExtendedResource));
  st = g.SetEmulationVersion(KubeVersion{1, 34});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "cannot set feature gate OpportunisticBatching to false, feature is PreAlpha at "
            "emulated version 1.34, min compatibility version 1.33");
}

// kube-scheduler's --emulated-version: component-base's toVersionMap and effectiveVersion.Validate
// with apimachinery's version parser (registry_test.go, version_test.go).
TEST(FeatureGatesTest, ParseEmulatedVersion) {
  struct Case {
    std::string flag;
    int minor;          // the version when accepted
    std::string error;  // empty: accepted
  };
  const Case cases[] = {
      {"", 37, ""},
      {"1.36", 36, ""},
      {"kube=1.35", 35, ""},
      {" kube = 1.34 ", 34, ""},
      {"1.37", 37, ""},
      {"v1.36", 36, ""},
      {"1.36.0", 36, ""},
      {"1.33", 0, "emulation version 1.33 is not between [1.34, 1.37.0]"},
      {"1.38", 0, "emulation version 1.38 is not between [1.34, 1.37.0]"},
      {"2.36", 0, "emulation version 2.36 is not between [1.34, 1.37.0]"},
      {"1.36.1", 0, "patch version not allowed, got: kube=1.36.1"},
      {"wardle=1.2", 0, "component not registered: wardle"},
      {"kube=1.36,kube=1.35", 0, "duplicate version flag, kube=1.36 and kube=1.35"},
      {"1", 0, "illegal version string \"1\""},
      {"foo", 0, "could not parse \"foo\" as version"},
      {"01.36", 0, "illegal zero-prefixed version component \"01\" in \"01.36\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.flag);
    Result<KubeVersion> v = ParseEmulatedVersion(c.flag);
    if (c.error.empty()) {
      ASSERT_TRUE(v.ok()) << v.error().message;
      EXPECT_EQ(*v, (KubeVersion{1, c.minor}));
    } else {
      ASSERT_FALSE(v.ok());
      EXPECT_EQ(v.error().message, c.error);
    }
  }
}

}  // namespace
}  // namespace corral::framework
