#include "corral/plugins/default_binder/default_binder.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

TEST(DefaultBinderTest, BindsEveryPod) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto made = DefaultBinder::New(nullptr, h);
  ASSERT_TRUE(made.ok());
  auto& binder = dynamic_cast<framework::BindPlugin&>(**made);
  framework::CycleState state;
  EXPECT_TRUE(binder.Bind(state, w.Info(w.Pod("p").Obj()), w.S("n1")).ok());
  EXPECT_EQ((*made)->Name(), "DefaultBinder");
}

TEST(DefaultBinderTest, RejectsArgs) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  framework::PluginArgs args;
  EXPECT_FALSE(DefaultBinder::New(&args, h).ok());
}

}  // namespace
}  // namespace corral::plugins
