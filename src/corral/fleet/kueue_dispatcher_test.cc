#include "corral/fleet/kueue_dispatcher.h"

#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

class KueueDispatcherTest : public ::testing::Test {
 protected:
  api::Cluster Cluster(const char* name, const char* accelerator) {
    api::Cluster c;
    c.source_kind = api::ClusterSourceKind::kMultiKueueCluster;
    c.meta.name = in_.Intern(name);
    c.meta.labels.Set(in_.Intern("kueue.x-k8s.io/accelerator"), in_.Intern(accelerator));
    return c;
  }
  api::LabelSelector Accelerator(const char* value) {
    api::LabelSelector s;
    s.match_labels.Set(in_.Intern("kueue.x-k8s.io/accelerator"), in_.Intern(value));
    return s;
  }
  Interner in_ = api::NewInterner();
};

// KEP-8692 story 2: a100 preferred (weight 10) with the default profile nominates the A100
// cluster; top-K adds the next by score, ties by name.
TEST_F(KueueDispatcherTest, PreferredAffinityNominatesTopOne) {
  std::vector<api::Cluster> clusters = {Cluster("h100-east", "h100"), Cluster("a100-west", "a100"),
                                        Cluster("h100-west", "h100")};
  api::FleetWork work;
  work.kueue_cluster_affinity.emplace();
  work.kueue_cluster_affinity->preferred = {{10, Accelerator("a100")}};
  api::DispatcherProfile profile = DefaultDispatcherProfile(in_);
  Nomination n = Nominate(work, clusters, profile, in_);
  ASSERT_TRUE(n.ok()) << n.error;
  EXPECT_EQ(n.nominated, std::vector<std::string>{"a100-west"});
  EXPECT_EQ(n.clusters[1].total, 100);
  profile.nomination = api::NominationMode::kTopK;
  profile.top_k = 2;
  n = Nominate(work, clusters, profile, in_);
  EXPECT_EQ(n.nominated, (std::vector<std::string>{"a100-west", "h100-east"}));
}

// KEP-8692: inactive clusters and untolerated NoSchedule taints are filtered; nothing feasible
// gives the FitError-style message.
TEST_F(KueueDispatcherTest, NoFeasibleCluster) {
  std::vector<api::Cluster> clusters = {Cluster("a", "a100"), Cluster("b", "a100")};
  clusters[0].active = false;
  clusters[1].taints = {{in_.Intern("maintenance"), {}, api::TaintEffect::kNoSchedule, {}}};
  Nomination n = Nominate(api::FleetWork{}, clusters, DefaultDispatcherProfile(in_), in_);
  EXPECT_EQ(n.error,
            "0/2 clusters are available: 1 cluster(s) had untolerated taint(s), 1 cluster(s) were "
            "not active.");
  EXPECT_EQ(n.clusters[0].filter_plugin, "ClusterHealth");
  EXPECT_EQ(n.clusters[1].filter_plugin, "ClusterTaints");
}

}  // namespace
}  // namespace corral::fleet
