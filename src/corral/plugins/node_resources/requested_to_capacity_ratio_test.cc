#include "corral/plugins/node_resources/requested_to_capacity_ratio.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/node_resources/test_util.h"

namespace corral::plugins {
namespace {

using testutil::Reqs;
using testutil::RunScores;
using testutil::ScoreCase;

// kube's TestRequestedToCapacityRatioScoringStrategy: shape {0: 10, 100: 0}, scaled to {0: 100,
// 100: 0}, i.e. f(u) = 100 - u.
TEST(RequestedToCapacityRatioTest, MatchesKube) {
  const std::vector<UtilizationShapePoint> shape = {{0, 10}, {100, 0}};
  const Reqs n4000_10000 = {{"cpu", "4000"}, {"memory", "10000"}};
  const Reqs n6000_10000 = {{"cpu", "6000"}, {"memory", "10000"}};
  const ScoreCase cases[] = {
      // Utilization 0 everywhere: f(0) = 100.
      {"nothing_scheduled_nothing_requested",
       {},
       {n4000_10000, n4000_10000},
       {},
       DefaultResourceSpecs(),
       {100, 100}},
      // node1: cpu 3000*100/4000 = 75 -> 25, memory 50 -> 50: round(75/2 = 37.5) = 38.
      // node2: cpu 3000*100/6000 = 50 -> 50, memory 50: 50.
      {"nothing_scheduled_resources_requested_differently_sized_nodes",
       {{{"cpu", "1000"}, {"memory", "2000"}}, {{"cpu", "2000"}, {"memory", "3000"}}},
       {n4000_10000, n6000_10000},
       {{0, {}}, {0, {}}},
       DefaultResourceSpecs(),
       {38, 50}},
      {"no_resources_requested_pods_scheduled_with_resources",
       {},
       {n4000_10000, n6000_10000},
       {{0, {{{"cpu", "3000"}, {"memory", "5000"}}}}, {1, {{{"cpu", "3000"}, {"memory", "5000"}}}}},
       DefaultResourceSpecs(),
       {38, 50}},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RunScores(c, kRequestedToCapacityRatio, shape), c.want);
  }
}

// kube's TestResourceBinPackingSingleExtended: intel.com/foo weight 1, shape {0: 0, 100: 1} -> {0:
// 0, 100: 10}.
TEST(RequestedToCapacityRatioTest, BinPackingSingleExtended) {
  const std::vector<UtilizationShapePoint> shape = {{0, 0}, {100, 1}};
  const std::vector<ResourceSpec> resources = {{"intel.com/foo", 1}};
  const Reqs node1 = {{"cpu", "4"}, {"memory", "10000Mi"}, {"intel.com/foo", "8"}};
  const Reqs node2 = {{"cpu", "4"}, {"memory", "10000Mi"}, {"intel.com/foo", "4"}};
  const ScoreCase cases[] = {
      // The pod does not request intel.com/foo: nothing scores.
      {"nothing_scheduled_nothing_requested", {}, {node1, node2}, {}, resources, {0, 0}},
      // node1: 2*100/8 = 25 -> 10*25/100 = 2; node2: 2*100/4 = 50 -> 5.
      {"resources_requested_pods_scheduled_with_less_resources",
       {{{"intel.com/foo", "2"}}},
       {node1, node2},
       {{0, {}}},
       resources,
       {2, 5}},
      // node2: (2+2)*100/4 = 100 -> 10.
      {"resources_requested_pods_scheduled_with_resources_on_node_with_existing_pod_running",
       {{{"intel.com/foo", "2"}}},
       {node1, node2},
       {{1, {{{"intel.com/foo", "2"}}}}},
       resources,
       {2, 10}},
      // node1: 4*100/8 = 50 -> 5; node2: 4*100/4 = 100 -> 10.
      {"resources_requested_pods_scheduled_with_more_resources",
       {{{"intel.com/foo", "4"}}},
       {node1, node2},
       {{0, {}}},
       resources,
       {5, 10}},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RunScores(c, kRequestedToCapacityRatio, shape), c.want);
  }
}

// kube's TestResourceBinPackingMultipleExtended: intel.com/foo weight 3, intel.com/bar weight 5.
TEST(RequestedToCapacityRatioTest, BinPackingMultipleExtended) {
  const std::vector<UtilizationShapePoint> shape = {{0, 0}, {100, 1}};
  const std::vector<ResourceSpec> resources = {{"intel.com/foo", 3}, {"intel.com/bar", 5}};
  const Reqs node1 = {
      {"cpu", "4"}, {"memory", "10000Mi"}, {"intel.com/foo", "8"}, {"intel.com/bar", "4"}};
  const Reqs node2 = {
      {"cpu", "4"}, {"memory", "10000Mi"}, {"intel.com/foo", "4"}, {"intel.com/bar", "8"}};
  const Reqs pod1 = {{"intel.com/foo", "2"}, {"intel.com/bar", "2"}};
  const Reqs pod2 = {{"intel.com/foo", "4"}, {"intel.com/bar", "2"}};
  const ScoreCase cases[] = {
      {"nothing_scheduled_nothing_requested", {}, {node1, node2}, {}, resources, {0, 0}},
      // node1: foo 2/8 = 25% -> 2, bar 2/4 = 50% -> 5: round((2*3 + 5*5) / 8 = 3.875) = 4.
      // node2: foo 2/4 -> 5, bar 2/8 -> 2: round((5*3 + 2*5) / 8 = 3.125) = 3.
      {"resources_requested_pods_scheduled_with_less_resources",
       {pod1},
       {node1, node2},
       {{0, {}}},
       resources,
       {4, 3}},
      // node2 runs pod2: foo (4+2)/4 > 100% -> f(100) = 10, bar (2+2)/8 = 50% -> 5:
      // round((10*3 + 5*5) / 8 = 6.875) = 7.
      {"resources_requested_pods_scheduled_with_resources_on_node_with_existing_pod_running",
       {pod1},
       {node1, node2},
       {{1, {pod2}}},
       resources,
       {4, 7}},
      // node1: foo 4/8 -> 5, bar 2/4 -> 5: (15 + 25) / 8 = 5. node2: foo 4/4 -> 10, bar 2/8 -> 2:
      // (30 + 10) / 8 = 5.
      {"resources_requested_pods_scheduled_with_more_resources",
       {pod2},
       {node1, node2},
       {{0, {}}},
       resources,
       {5, 5}},
  };
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RunScores(c, kRequestedToCapacityRatio, shape), c.want);
  }
}

TEST(RequestedToCapacityRatioTest, RoundsHalfAwayFromZero) {
  // Two resources at f = 25 and 50: (25 + 50) / 2 = 37.5 -> 38; weights 1 and 2: (25 + 100) / 3
  // = 41.67 -> 42.
  const std::vector<helper::FunctionShapePoint> shape =
      noderesources::ScaleShape(std::vector<UtilizationShapePoint>{{0, 10}, {100, 0}});
  noderesources::NodeResourceVectors v;
  v.Resize(2);
  v.requested[0] = 75;
  v.requested[1] = 50;
  v.allocatable[0] = 100;
  v.allocatable[1] = 100;
  noderesources::ResourceRequests r(2);
  r[0].weight = 1;
  r[1].weight = 1;
  EXPECT_EQ(noderesources::RequestedToCapacityRatioScore(v, r, shape), 38);
  r[1].weight = 2;
  EXPECT_EQ(noderesources::RequestedToCapacityRatioScore(v, r, shape), 42);
  // Over capacity uses f(100) = 0, which does not count towards the average.
  v.requested[0] = 150;
  r[1].weight = 1;
  EXPECT_EQ(noderesources::RequestedToCapacityRatioScore(v, r, shape), 50);
}

}  // namespace
}  // namespace corral::plugins
