#include "corral/plugins/volume_restrictions/volume_restrictions.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

TEST(VolumeRestrictionsTest, SkipsEveryPodAndSignsVolumes) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto made = VolumeRestrictions::New(nullptr, h);
  ASSERT_TRUE(made.ok());
  auto& pl = dynamic_cast<VolumeRestrictions&>(**made);
  EXPECT_EQ(pl.Name(), "VolumeRestrictions");
  auto& plain = w.Info(w.Pod("plain").Obj());
  auto& with_claim = w.Pod("claim").Obj();
  with_claim.volumes.push_back({w.S("data"), api::VolumeKind::kPersistentVolumeClaim, w.S("c1")});
  auto& claim = w.Info(with_claim);
  framework::CycleState state;
  EXPECT_TRUE(pl.PreFilter(state, 0, plain, h.snapshot(), nullptr).IsSkip());
  EXPECT_TRUE(pl.PreFilter(state, 0, claim, h.snapshot(), nullptr).IsSkip());
  EXPECT_TRUE(pl.Filter(state, 0, claim, w.NodeWith(w.Node("n").Obj())).ok());
  std::vector<framework::SignFragment> f;
  ASSERT_TRUE(pl.Sign(claim, &f).ok());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "v1.Pod.Spec.Volumes.NonSyntheticSources()");
  EXPECT_EQ(f[0].value, R"(["{\"persistentVolumeClaim\":{\"claimName\":\"c1\"}}"])");
}

TEST(VolumeRestrictionsTest, RejectsArgs) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  framework::PluginArgs args;
  EXPECT_FALSE(VolumeRestrictions::New(&args, h).ok());
}

}  // namespace
}  // namespace corral::plugins
