// The volume plugins Corral accepts by name (common/unmodeled_volume_plugin.h), table-driven: each
// skips every pod, passes Filter, signs the pod's volumes as kube does, and rejects args.

#include "corral/plugins/common/unmodeled_volume_plugin.h"

#include <gtest/gtest.h>

#include "corral/plugins/node_volume_limits/node_volume_limits.h"
#include "corral/plugins/volume_restrictions/volume_restrictions.h"
#include "corral/plugins/volume_zone/volume_zone.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using Factory = Result<std::unique_ptr<framework::Plugin>> (*)(const framework::PluginArgs*,
                                                               framework::Handle&);
struct Case {
  std::string_view name;
  Factory make;
};

constexpr Case kCases[] = {
    {"VolumeZone", &VolumeZone::New},
    {"VolumeRestrictions", &VolumeRestrictions::New},
    {"NodeVolumeLimits", &NodeVolumeLimits::New},
};

TEST(UnmodeledVolumePluginTest, SkipsEveryPodPassesFilterAndSignsVolumes) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    testing::FakeHandle h(w);
    auto made = c.make(nullptr, h);
    ASSERT_TRUE(made.ok());
    auto& pl = dynamic_cast<UnmodeledVolumePlugin&>(**made);
    EXPECT_EQ(pl.Name(), c.name);
    auto& plain = w.Info(w.Pod("plain").Obj());
    auto& with_claim = w.Pod("claim").Obj();
    with_claim.volumes.push_back({w.S("data"), api::VolumeKind::kPersistentVolumeClaim, w.S("c1")});
    auto& claim = w.Info(with_claim);
    framework::CycleState state;
    EXPECT_TRUE(pl.PreFilter(state, 0, plain, h.snapshot(), nullptr).IsSkip());
    EXPECT_TRUE(pl.PreFilter(state, 0, claim, h.snapshot(), nullptr).IsSkip());
    EXPECT_TRUE(pl.Filter(state, 0, claim, w.NodeWith(w.Node("n").Obj())).ok());
    EXPECT_TRUE(pl.FilterIsNodeLocal(claim));
    std::vector<framework::SignFragment> f;
    ASSERT_TRUE(pl.Sign(claim, &f).ok());
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].key, "v1.Pod.Spec.Volumes.NonSyntheticSources()");
    EXPECT_EQ(f[0].value, R"(["{\"persistentVolumeClaim\":{\"claimName\":\"c1\"}}"])");
  }
}

TEST(UnmodeledVolumePluginTest, RejectArgs) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    testing::FakeHandle h(w);
    framework::PluginArgs args;
    EXPECT_FALSE(c.make(&args, h).ok());
  }
}

}  // namespace
}  // namespace corral::plugins
