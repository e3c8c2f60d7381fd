#include "corral/fleet/plugins/cluster_eviction/cluster_eviction.h"

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

// Karmada TestClusterEviction_Filter.
TEST(ClusterEvictionTest, Filter) {
  Interner in = api::NewInterner();
  api::Cluster cluster1;
  cluster1.meta.name = in.Intern("cluster1");
  api::FleetWork evicting;  // "cluster is in graceful eviction tasks"
  evicting.graceful_eviction_clusters = {in.Intern("cluster1")};
  framework::Status s = ClusterEviction().Filter(evicting, cluster1);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "cluster(s) is in the process of eviction");
  api::FleetWork other;  // "cluster is not in graceful eviction tasks"
  other.graceful_eviction_clusters = {in.Intern("cluster2")};
  EXPECT_TRUE(ClusterEviction().Filter(other, cluster1).ok());
  EXPECT_TRUE(ClusterEviction().Filter(api::FleetWork{}, cluster1).ok());  // "no ... tasks"
}

}  // namespace
}  // namespace corral::fleet
