#include "corral/fleet/plugins/kueue_cluster_affinity/kueue_cluster_affinity.h"

#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

class KueueClusterAffinityTest : public ::testing::Test {
 protected:
  api::Cluster Cluster(const char* accelerator, const char* region) {
    api::Cluster c;
    c.meta.labels.Set(in_.Intern("kueue.x-k8s.io/accelerator"), in_.Intern(accelerator));
    c.meta.labels.Set(in_.Intern("kueue.x-k8s.io/region"), in_.Intern(region));
    return c;
  }
  api::LabelSelector Is(const char* key, const char* value) {
    api::LabelSelector s;
    s.match_labels.Set(in_.Intern(key), in_.Intern(value));
    return s;
  }
  Interner in_ = api::NewInterner();
};

// KEP-8692: the ClusterAffinity filter evaluates clusterSelector and the required terms (OR
// across terms, AND within one); with neither it is a no-op.
TEST_F(KueueClusterAffinityTest, Filter) {
  api::Cluster a100 = Cluster("a100", "us-west-2");
  api::Cluster h100 = Cluster("h100", "us-east-1");
  KueueClusterAffinity plugin;
  EXPECT_TRUE(plugin.Filter(api::FleetWork{}, a100).ok());

  api::FleetWork selector;
  selector.cluster_selector.Set(in_.Intern("kueue.x-k8s.io/accelerator"), in_.Intern("a100"));
  EXPECT_TRUE(plugin.Filter(selector, a100).ok());
  framework::Status s = plugin.Filter(selector, h100);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "cluster(s) didn't match Workload's cluster affinity/selector");

  api::FleetWork required;
  required.kueue_cluster_affinity.emplace();
  required.kueue_cluster_affinity->required = std::vector<api::LabelSelector>{
      Is("kueue.x-k8s.io/region", "eu-west-1"), Is("kueue.x-k8s.io/accelerator", "h100")};
  EXPECT_FALSE(plugin.Filter(required, a100).ok());
  EXPECT_TRUE(plugin.Filter(required, h100).ok());
  // Both must hold.
  required.cluster_selector = selector.cluster_selector;
  EXPECT_FALSE(plugin.Filter(required, h100).ok());
  // Zero required terms match nothing.
  api::FleetWork no_terms;
  no_terms.kueue_cluster_affinity.emplace();
  no_terms.kueue_cluster_affinity->required = std::vector<api::LabelSelector>{};
  EXPECT_FALSE(plugin.Filter(no_terms, a100).ok());
}

// KEP-8692 story 2: preferring accelerator a100 (weight 10) scores the A100 cluster higher; the
// raw sum of matched weights is normalized proportionally to [0, 100].
TEST_F(KueueClusterAffinityTest, ScoreAndNormalize) {
  api::FleetWork work;
  work.kueue_cluster_affinity.emplace();
  work.kueue_cluster_affinity->preferred = {{10, Is("kueue.x-k8s.io/accelerator", "a100")},
                                            {5, Is("kueue.x-k8s.io/region", "us-west-2")}};
  KueueClusterAffinityScore plugin;
  std::vector<int64_t> scores = {plugin.Score(work, Cluster("a100", "us-west-2")),
                                 plugin.Score(work, Cluster("a100", "us-east-1")),
                                 plugin.Score(work, Cluster("h100", "us-west-2")),
                                 plugin.Score(work, Cluster("h100", "us-east-1"))};
  EXPECT_EQ(scores, (std::vector<int64_t>{15, 10, 5, 0}));
  plugin.NormalizeScore(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{100, 66, 33, 0}));
  EXPECT_EQ(plugin.Score(api::FleetWork{}, Cluster("a100", "x")), 0);
}

}  // namespace
}  // namespace corral::fleet
