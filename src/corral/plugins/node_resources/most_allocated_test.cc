#include "corral/plugins/node_resources/most_allocated.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/node_resources/test_util.h"

namespace corral::plugins {
namespace {

using testutil::Reqs;
using testutil::RunScores;
using testutil::ScoreCase;

constexpr const char* kExt = "intel.com/foo";

// kube's TestMostAllocatedScoringStrategy. "cpu": "4000" is 4000 cores, as in kube's tests.
TEST(MostAllocatedTest, MatchesKube) {
  const Reqs n4000_10000 = {{"cpu", "4000"}, {"memory", "10000"}};
  const Reqs n6000_10000 = {{"cpu", "6000"}, {"memory", "10000"}};
  const Reqs n10000_20000 = {{"cpu", "10000"}, {"memory", "20000"}};
  const std::vector<Reqs> pod3000_5000 = {{{"cpu", "1000"}, {"memory", "2000"}},
                                          {{"cpu", "2000"}, {"memory", "3000"}}};
  const ScoreCase cases[] = {
      // (0*100)/4000 = 0, (0*100)/10000 = 0 -> 0.
      {"nothing_scheduled_nothing_requested",
       {},
       {n4000_10000, n4000_10000},
       {},
       DefaultResourceSpecs(),
       {0, 0}},
      // node1: cpu 3000*100/4000 = 75, memory 5000*100/10000 = 50 -> (75+50)/2 = 62.
      // node2: cpu 3000*100/6000 = 50, memory 50 -> 50.
      {"nothing_scheduled_resources_requested_differently_sized_nodes",
       pod3000_5000,
       {n4000_10000, n6000_10000},
       {},
       DefaultResourceSpecs(),
       {62, 50}},
      // node1: cpu 6000*100/10000 = 60, memory 0 -> 30. node2: cpu 60, memory 5000*100/20000 = 25
      // -> 42.
      {"no_resources_requested_pods_scheduled_with_resources",
       {},
       {n10000_20000, n10000_20000},
       {{0, {{{"cpu", "3000"}, {"memory", "0"}}}},
        {0, {{{"cpu", "3000"}, {"memory", "0"}}}},
        {1, {{{"cpu", "3000"}, {"memory", "0"}}}},
        {1, {{{"cpu", "3000"}, {"memory", "5000"}}}}},
       DefaultResourceSpecs(),
       {30, 42}},
      // node1: cpu 6000*100/10000 = 60, memory 5000*100/20000 = 25 -> 42.
      // node2: cpu 60, memory 10000*100/20000 = 50 -> 55.
      {"resources_requested_pods_scheduled_with_resources",
       pod3000_5000,
       {n10000_20000, n10000_20000},
       {{0, {{{"cpu", "3000"}, {"memory", "0"}}}}, {1, {{{"cpu", "3000"}, {"memory", "5000"}}}}},
       DefaultResourceSpecs(),
       {42, 55}},
      // node1: cpu 5000*100/5000 = 100, memory 9000*100/10000 = 90 -> 95.
      // node2: cpu 5000*100/10000 = 50, memory 9000*100/9000 = 100 -> 75.
      {"resources_requested_equal_node_capacity",
       {{{"cpu", "2000"}, {"memory", "4000"}}, {{"cpu", "3000"}, {"memory", "5000"}}},
       {{{"cpu", "5000"}, {"memory", "10000"}}, {{"cpu", "10000"}, {"memory", "9000"}}},
       {},
       DefaultResourceSpecs(),
       {95, 75}},
      // node1: (75*1 + 50*2) / 3 = 58; node2: (50*1 + 50*2) / 3 = 50.
      {"different_weights_on_cpu_and_memory",
       pod3000_5000,
       {n4000_10000, n6000_10000},
       {},
       {{"memory", 2}, {"cpu", 1}},
       {58, 50}},
      // Containers without requests count 100m / 200Mi (non-zero defaults).
      // node1: cpu 300m clamped to 250m -> 100, memory 600Mi*100/1000Mi = 60 -> 80.
      // node2: cpu 100m*100/250m = 40, memory 200Mi*100/1000Mi = 20 -> 30.
      {"no_resources_requested_pods_scheduled_nonzero_request_for_resource",
       {{}},
       {{{"cpu", "250m"}, {"memory", "1000Mi"}}, {{"cpu", "250m"}, {"memory", "1000Mi"}}},
       {{0, {{}}}, {0, {{}}}},
       DefaultResourceSpecs(),
       {80, 30}},
      // The pod does not request intel.com/foo, so it is left out: (50 + 50) / 2 = 50.
      {"bypass_extended_resource_if_the_pod_does_not_request",
       pod3000_5000,
       {{{"cpu", "6000"}, {"memory", "10000"}},
        {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}}},
       {},
       {{"cpu", 1}, {"memory", 1}, {kExt, 1}},
       {50, 50}},
      // intel.com/foo: node1 2*100/4 = 50, node2 2*100/10 = 20. node1: (50+50+50)/3 = 50; node2:
      // 120/3 = 40.
      {"honor_extended_resource_if_the_pod_requests",
       {{{"cpu", "3000"}, {"memory", "5000"}, {kExt, "2"}}},
       {{{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}},
        {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "10"}}},
       {},
       {{"cpu", 1}, {"memory", 1}, {kExt, 1}},
       {50, 40}},
      // cpu 3000*100/6000 = 50, memory 4000*100/10000 = 40 -> 45.
      {"if_the_node_does_not_have_a_resource",
       {{{"cpu", "3000"}, {"memory", "4000"}}},
       {{{"cpu", "6000"}, {"memory", "10000"}},
        {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}}},
       {},
       {{kExt, 2}, {"cpu", 1}, {"memory", 1}},
       {45, 45}},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RunScores(c, kMostAllocated), c.want);
  }
}

TEST(MostAllocatedTest, RequestedScore) {
  EXPECT_EQ(noderesources::MostRequestedScore(3000, 4000), 75);   // 3000*100/4000
  EXPECT_EQ(noderesources::MostRequestedScore(5000, 4000), 100);  // clamped to capacity
  EXPECT_EQ(noderesources::MostRequestedScore(7, 0), 0);          // no capacity
}

}  // namespace
}  // namespace corral::plugins
