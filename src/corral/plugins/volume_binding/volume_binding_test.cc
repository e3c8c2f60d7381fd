#include "corral/plugins/volume_binding/volume_binding.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using framework::Code;

class VolumeBindingTest : public ::testing::Test {
 protected:
  VolumeBindingTest() {
    auto made = VolumeBinding::New(nullptr, h_);
    EXPECT_TRUE(made.ok());
    plugin_ = std::move(*made);
  }
  VolumeBinding& Plugin() { return dynamic_cast<VolumeBinding&>(*plugin_); }
  framework::PodInfo& PodWithVolume(api::VolumeKind kind) {
    auto& pod = w_.Pod("p").Obj();
    pod.volumes.push_back(
        {w_.S("v"), kind, kind == api::VolumeKind::kPersistentVolumeClaim ? w_.S("c") : Symbol()});
    return w_.Info(pod);
  }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
  std::unique_ptr<framework::Plugin> plugin_;
};

TEST_F(VolumeBindingTest, PodsWithoutClaimsAreSkipped) {
  framework::CycleState state;
  auto& plain = w_.Info(w_.Pod("plain").Obj());
  EXPECT_TRUE(Plugin().PreFilter(state, 0, plain, h_.snapshot(), nullptr).IsSkip());
  EXPECT_TRUE(
      Plugin()
          .PreFilter(state, 0, PodWithVolume(api::VolumeKind::kOther), h_.snapshot(), nullptr)
          .IsSkip());
  EXPECT_TRUE(Plugin().Filter(state, 0, plain, w_.NodeWith(w_.Node("n").Obj())).ok());
  EXPECT_TRUE(Plugin().PreScore(state, 0, plain, {}).IsSkip());
}

TEST_F(VolumeBindingTest, PodsWithClaimsOrEphemeralVolumesAreReported) {
  framework::CycleState state;
  for (auto kind : {api::VolumeKind::kPersistentVolumeClaim, api::VolumeKind::kEphemeral}) {
    auto& pod = PodWithVolume(kind);
    auto st = Plugin().PreFilter(state, 0, pod, h_.snapshot(), nullptr);
    EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(
        st.Message(),
        "pod has unbound PersistentVolumeClaims: volume scheduling is not modelled by Corral");
    EXPECT_EQ(Plugin().Filter(state, 0, pod, w_.NodeWith(w_.Node("n").Obj())).code(),
              Code::kUnschedulableAndUnresolvable);
  }
}

TEST_F(VolumeBindingTest, RegistersNoEvents) {
  EXPECT_TRUE(Plugin().EventsToRegister().empty());
}

TEST_F(VolumeBindingTest, ReserveAndPreBindAreNoOps) {
  framework::CycleState state;
  auto& pod = w_.Info(w_.Pod("p").Obj());
  EXPECT_TRUE(Plugin().Reserve(state, pod, w_.S("n")).ok());
  Plugin().Unreserve(state, pod, w_.S("n"));
  EXPECT_TRUE(Plugin().PreBind(state, pod, w_.S("n")).ok());
  int64_t score = -1;
  EXPECT_TRUE(Plugin().Score(state, 0, pod, w_.NodeWith(w_.Node("n").Obj()), &score).ok());
  EXPECT_EQ(score, 0);
}

TEST_F(VolumeBindingTest, Args) {
  VolumeBindingArgs args;
  EXPECT_TRUE(VolumeBinding::New(&args, h_).ok());
  args.bind_timeout_seconds = -1;
  auto made = VolumeBinding::New(&args, h_);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message,
            "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a "
            "negative value");
  EXPECT_EQ(args.Validate("profiles[0].pluginConfig[1].args").error().message,
            "profiles[0].pluginConfig[1].args.bindTimeoutSeconds: Invalid value: -1: invalid "
            "BindTimeoutSeconds, "
            "should not be a negative value");
  framework::PluginArgs foreign;
  auto bad = VolumeBinding::New(&foreign, h_);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "args are not of type VolumeBindingArgs");
}

}  // namespace
}  // namespace corral::plugins
