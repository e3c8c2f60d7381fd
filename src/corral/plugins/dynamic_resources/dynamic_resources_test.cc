#include "corral/plugins/dynamic_resources/dynamic_resources.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

TEST(DynamicResourcesTest, RejectsPodsWithClaimsAndSkipsOthers) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto plugin = DynamicResources::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  auto& dra = dynamic_cast<DynamicResources&>(**plugin);
  auto& plain = w.Pod("plain").Obj();
  auto& claims = w.Pod("claims").Obj();
  claims.resource_claims.push_back(w.S("gpu-claim"));
  framework::CycleState state;
  framework::PreFilterResult r;
  EXPECT_TRUE(dra.PreFilter(state, 0, w.Info(plain), h.snapshot(), &r).IsSkip());
  framework::Status s = dra.PreFilter(state, 0, w.Info(claims), h.snapshot(), &r);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), DynamicResources::kReason);
  std::vector<framework::SignFragment> f;
  EXPECT_TRUE(dra.Sign(w.Info(plain), &f).ok());
  EXPECT_EQ(dra.Sign(w.Info(claims), &f).code(), framework::Code::kUnschedulable);
  framework::PluginArgs* foreign = nullptr;
  EXPECT_TRUE(DynamicResources::New(foreign, h).ok());
}

}  // namespace
}  // namespace corral::plugins
