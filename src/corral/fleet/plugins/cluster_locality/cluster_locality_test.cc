#include "corral/fleet/plugins/cluster_locality/cluster_locality.h"

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

// Karmada TestClusterLocality_Score.
TEST(ClusterLocalityTest, Score) {
  Interner in = api::NewInterner();
  api::Cluster cluster1;
  cluster1.meta.name = in.Intern("cluster1");
  const Symbol c1 = in.Intern("cluster1"), c2 = in.Intern("cluster2"), c3 = in.Intern("cluster3");
  api::FleetWork none;  // "no clusters in spec"
  EXPECT_EQ(ClusterLocality().Score(none, cluster1), kMinClusterScore);
  api::FleetWork in_spec;  // "cluster in spec"
  in_spec.clusters = {{c1, 0}, {c2, 0}};
  EXPECT_EQ(ClusterLocality().Score(in_spec, cluster1), kMaxClusterScore);
  api::FleetWork not_in_spec;  // "cluster not in spec"
  not_in_spec.clusters = {{c2, 0}, {c3, 0}};
  EXPECT_EQ(ClusterLocality().Score(not_in_spec, cluster1), kMinClusterScore);
}

}  // namespace
}  // namespace corral::fleet
