#include "corral/fleet/plugins/taint_toleration/taint_toleration.h"

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

// Karmada TestTaintToleration_Filter.
TEST(TaintTolerationTest, Filter) {
  Interner in = api::NewInterner();
  const api::Taint key1 = {
      in.Intern("key1"), in.Intern("value1"), api::TaintEffect::kNoSchedule, {}};
  TaintToleration plugin(in);

  // "cluster already in target clusters"
  api::FleetWork held;
  held.clusters = {{in.Intern("cluster1"), 0}};
  api::Cluster cluster1;
  cluster1.meta.name = in.Intern("cluster1");
  cluster1.taints = {key1};
  EXPECT_TRUE(plugin.Filter(held, cluster1).ok());

  // "no taints"
  EXPECT_TRUE(plugin.Filter(api::FleetWork{}, api::Cluster{}).ok());

  // "tolerated taint"
  api::Cluster tainted;
  tainted.taints = {key1};
  api::FleetWork tolerating;
  tolerating.placement.cluster_tolerations = {
      {key1.key, api::TolerationOp::kEqual, key1.value, api::TaintEffect::kNoSchedule, {}}};
  EXPECT_TRUE(plugin.Filter(tolerating, tainted).ok());

  // "untolerated taint"
  framework::Status s = plugin.Filter(api::FleetWork{}, tainted);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "cluster(s) had untolerated taint {key1=value1:NoSchedule}");
}

// Only NoSchedule and NoExecute taints filter; corev1 Taint.ToString's forms.
TEST(TaintTolerationTest, EffectsAndTaintStrings) {
  Interner in = api::NewInterner();
  TaintToleration plugin(in);
  api::Cluster c;
  c.taints = {{in.Intern("soft"), {}, api::TaintEffect::kPreferNoSchedule, {}}};
  EXPECT_TRUE(plugin.Filter(api::FleetWork{}, c).ok());
  c.taints.push_back({in.Intern("gone"), {}, api::TaintEffect::kNoExecute, {}});
  EXPECT_EQ(plugin.Filter(api::FleetWork{}, c).Message(),
            "cluster(s) had untolerated taint {gone:NoExecute}");
  EXPECT_EQ(TaintToString({in.Intern("k"), {}, api::TaintEffect::kNone, {}}, in), "k");
  EXPECT_EQ(TaintToString({in.Intern("k"), in.Intern("v"), api::TaintEffect::kNone, {}}, in),
            "k=v:");
}

}  // namespace
}  // namespace corral::fleet
