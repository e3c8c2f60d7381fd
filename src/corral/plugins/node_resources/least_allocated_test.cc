#include "corral/plugins/node_resources/least_allocated.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/node_resources/fit.h"
#include "corral/plugins/node_resources/test_util.h"

namespace corral::plugins {
namespace {

using testutil::Reqs;
using testutil::RunScores;
using testutil::ScoreCase;

constexpr const char* kExt = "intel.com/foo";

// kube's TestLeastAllocatedScoringStrategy. "cpu": "4000" is 4000 cores, as in kube's tests.
TEST(LeastAllocatedTest, MatchesKube) {
  const Reqs n4000_10000 = {{"cpu", "4000"}, {"memory", "10000"}};
  const Reqs n6000_10000 = {{"cpu", "6000"}, {"memory", "10000"}};
  const Reqs n10000_20000 = {{"cpu", "10000"}, {"memory", "20000"}};
  const std::vector<Reqs> pod3000_5000 = {{{"cpu", "1000"}, {"memory", "2000"}},
                                          {{"cpu", "2000"}, {"memory", "3000"}}};
  const ScoreCase cases[] = {
      // A pod without containers requests nothing, not even the non-zero defaults:
      // cpu (4000-0)*100/4000 = 100, memory 100 -> 100.
      {"nothing_scheduled_nothing_requested",
       {},
       {n4000_10000, n4000_10000},
       {},
       DefaultResourceSpecs(),
       {100, 100}},
      // node1: cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50 -> (25+50)/2 = 37.
      // node2: cpu (6000-3000)*100/6000 = 50, memory 50 -> 50.
      {"nothing_scheduled_resources_requested_differently_sized_nodes",
       pod3000_5000,
       {n4000_10000, n6000_10000},
       {},
       DefaultResourceSpecs(),
       {37, 50}},
      // Pods without containers request nothing, even with the non-zero defaults.
      {"no_resources_requested_pods_scheduled",
       {},
       {n4000_10000, n4000_10000},
       {{0, {}}, {0, {}}, {1, {}}, {1, {}}},
       DefaultResourceSpecs(),
       {100, 100}},
      // node1: cpu (10000-6000)*100/10000 = 40, memory (20000-0)*100/20000 = 100 -> 70.
      // node2: cpu 40, memory (20000-5000)*100/20000 = 75 -> (40+75)/2 = 57.
      {"no_resources_requested_pods_scheduled_with_resources",
       {},
       {n10000_20000, n10000_20000},
       {{0, {{{"cpu", "3000"}, {"memory", "0"}}}},
        {0, {{{"cpu", "3000"}, {"memory", "0"}}}},
        {1, {{{"cpu", "3000"}, {"memory", "0"}}}},
        {1, {{{"cpu", "3000"}, {"memory", "5000"}}}}},
       DefaultResourceSpecs(),
       {70, 57}},
      // node1: cpu (10000-6000)*100/10000 = 40, memory (20000-5000)*100/20000 = 75 -> 57.
      // node2: cpu 40, memory (20000-10000)*100/20000 = 50 -> 45.
      {"resources_requested_pods_scheduled_with_resources",
       pod3000_5000,
       {n10000_20000, n10000_20000},
       {{0, {{{"cpu", "3000"}, {"memory", "0"}}}}, {1, {{{"cpu", "3000"}, {"memory", "5000"}}}}},
       DefaultResourceSpecs(),
       {57, 45}},
      // node2: memory (50000-10000)*100/50000 = 80 -> (40+80)/2 = 60.
      {"resources_requested_pods_scheduled_with_resources_differently_sized_nodes",
       pod3000_5000,
       {n10000_20000, {{"cpu", "10000"}, {"memory", "50000"}}},
       {{0, {{{"cpu", "3000"}, {"memory", "0"}}}}, {1, {{{"cpu", "3000"}, {"memory", "5000"}}}}},
       DefaultResourceSpecs(),
       {57, 60}},
      // cpu 6000 > 4000 -> 0. node1: memory 100 -> 50;
      // node2: memory (10000-5000)*100/10000 = 50 -> 25.
      {"requested_resources_exceed_node_capacity",
       {{{"cpu", "3000"}, {"memory", "0"}}},
       {n4000_10000, n4000_10000},
       {{0, {{{"cpu", "3000"}, {"memory", "0"}}}}, {1, {{{"cpu", "3000"}, {"memory", "5000"}}}}},
       DefaultResourceSpecs(),
       {50, 25}},
      // Nodes offer no cpu or memory: every resource is skipped -> 0.
      {"zero_node_resources_pods_scheduled_with_resources",
       {},
       {{}, {}},
       {{0, {{{"cpu", "3000"}, {"memory", "0"}}}}, {1, {{{"cpu", "3000"}, {"memory", "5000"}}}}},
       DefaultResourceSpecs(),
       {0, 0}},
      // node1: (25*1 + 50*2) / 3 = 41; node2: (50*1 + 50*2) / 3 = 50.
      {"different_weights_on_cpu_and_memory",
       pod3000_5000,
       {n4000_10000, n6000_10000},
       {},
       {{"memory", 2}, {"cpu", 1}},
       {41, 50}},
      // The pod does not request intel.com/foo, so it is left out: (50 + 50) / 2 = 50 on
      // both nodes.
      {"bypass_extended_resource_if_the_pod_does_not_request",
       pod3000_5000,
       {{{"cpu", "6000"}, {"memory", "10000"}},
        {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}}},
       {},
       {{"cpu", 1}, {"memory", 1}, {kExt, 1}},
       {50, 50}},
      // intel.com/foo: node1 (4-2)*100/4 = 50, node2 (10-2)*100/10 = 80.
      // node1: (50+50+50)/3 = 50; node2: (50+50+80)/3 = 60.
      {"honor_extended_resource_if_the_pod_requests",
       {{{"cpu", "3000"}, {"memory", "5000"}, {kExt, "2"}}},
       {{{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}},
        {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "10"}}},
       {},
       {{"cpu", 1}, {"memory", 1}, {kExt, 1}},
       {50, 60}},
      // The pod does not request intel.com/foo: cpu (6000-3000)*100/6000 = 50, memory 60 ->
      // (50+60)/2 = 55.
      {"if_the_node_does_not_have_a_resource",
       {{{"cpu", "3000"}, {"memory", "4000"}}},
       {{{"cpu", "6000"}, {"memory", "10000"}},
        {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}}},
       {},
       {{kExt, 2}, {"cpu", 1}, {"memory", 1}},
       {55, 55}},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RunScores(c, kLeastAllocated), c.want);
  }
}

TEST(LeastAllocatedTest, ResourceWeightsOutOfRangeAreRejected) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  const std::pair<std::vector<ResourceSpec>, std::string> cases[] = {
      {{{"memory", -1}, {"cpu", 1}},
       "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in "
       "valid range "
       "(0, 100]"},
      {{{"memory", 1}, {"cpu", 0}},
       "scoringStrategy.resources[1].weight: Invalid value: 0: resource weight of cpu not in valid "
       "range (0, "
       "100]"},
      {{{"memory", 1}, {"cpu", 101}},
       "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in "
       "valid range "
       "(0, 100]"},
  };
  for (const auto& [resources, want] : cases) {
    NodeResourcesFitArgs args;
    args.scoring_strategy->resources = resources;
    auto p = NodeResourcesFit::New(&args, h);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().message, want);
  }
}

TEST(LeastAllocatedTest, RequestedScore) {
  EXPECT_EQ(noderesources::LeastRequestedScore(3000, 4000), 25);  // (4000-3000)*100/4000
  EXPECT_EQ(noderesources::LeastRequestedScore(5000, 4000), 0);   // over capacity
  EXPECT_EQ(noderesources::LeastRequestedScore(0, 0), 0);         // no capacity
  EXPECT_EQ(noderesources::LeastRequestedScore(1, 3), 66);        // 2*100/3 = 66 (truncated)
}

}  // namespace
}  // namespace corral::plugins
