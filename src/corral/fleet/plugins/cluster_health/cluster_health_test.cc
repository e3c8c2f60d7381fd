#include "corral/fleet/plugins/cluster_health/cluster_health.h"

#include <gtest/gtest.h>

namespace corral::fleet {
namespace {

// KEP-8692 ClusterHealth: "Rejects clusters whose Active condition is not True".
TEST(ClusterHealthTest, Filter) {
  api::Cluster active;
  EXPECT_TRUE(ClusterHealth().Filter(api::FleetWork{}, active).ok());
  api::Cluster inactive;
  inactive.active = false;
  framework::Status s = ClusterHealth().Filter(api::FleetWork{}, inactive);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "cluster(s) were not active");
}

}  // namespace
}  // namespace corral::fleet
