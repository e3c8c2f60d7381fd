#include "corral/fleet/plugins/kueue_cluster_taint/kueue_cluster_taint.h"

#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

// KEP-8692 story 3: a NoSchedule maintenance taint filters the cluster unless tolerated.
TEST(KueueClusterTaintsTest, Filter) {
  Interner in = api::NewInterner();
  api::Cluster c;
  c.taints = {{in.Intern("kueue.x-k8s.io/under-maintenance"),
               in.Intern("true"),
               api::TaintEffect::kNoSchedule,
               {}}};
  framework::Status s = KueueClusterTaints().Filter(api::FleetWork{}, c);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "cluster(s) had untolerated taint(s)");
  api::FleetWork tolerating;
  tolerating.placement.cluster_tolerations = {{in.Intern("kueue.x-k8s.io/under-maintenance"),
                                               api::TolerationOp::kExists,
                                               {},
                                               api::TaintEffect::kNone,
                                               {}}};
  EXPECT_TRUE(KueueClusterTaints().Filter(tolerating, c).ok());
  // PreferNoSchedule never filters.
  c.taints[0].effect = api::TaintEffect::kPreferNoSchedule;
  EXPECT_TRUE(KueueClusterTaints().Filter(api::FleetWork{}, c).ok());
}

// KEP-8692 ClusterTaintScore: the count of untolerated PreferNoSchedule taints, inverted so the
// fewest scores 100 and the most 0.
TEST(KueueClusterTaintScoreTest, ScoreAndNormalize) {
  Interner in = api::NewInterner();
  auto soft = [&](const char* key) {
    return api::Taint{in.Intern(key), {}, api::TaintEffect::kPreferNoSchedule, {}};
  };
  api::Cluster none, one, two;
  one.taints = {soft("a")};
  two.taints = {soft("a"), soft("b"),
                api::Taint{in.Intern("c"), {}, api::TaintEffect::kNoSchedule, {}}};
  api::FleetWork work;
  KueueClusterTaintScore plugin;
  std::vector<int64_t> scores = {plugin.Score(work, none), plugin.Score(work, one),
                                 plugin.Score(work, two)};
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 1, 2}));
  plugin.NormalizeScore(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 50, 0}));
  // Tolerating "b" leaves one untolerated taint on each tainted cluster.
  work.placement.cluster_tolerations = {
      {in.Intern("b"), api::TolerationOp::kExists, {}, api::TaintEffect::kNone, {}}};
  EXPECT_EQ(plugin.Score(work, two), 1);
  // With no untolerated taint anywhere, every cluster scores 100.
  std::vector<int64_t> zeros = {0, 0};
  plugin.NormalizeScore(zeros);
  EXPECT_EQ(zeros, (std::vector<int64_t>{100, 100}));
}

}  // namespace
}  // namespace corral::fleet
