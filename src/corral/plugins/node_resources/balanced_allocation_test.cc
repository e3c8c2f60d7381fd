#include "corral/plugins/node_resources/balanced_allocation.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/node_resources/test_util.h"

namespace corral::plugins {
namespace {

using framework::Code;
using testutil::Existing;
using testutil::MakeNode;
using testutil::MakePod;
using testutil::Reqs;

constexpr const char* kGpu = "nvidia.com/gpu";

struct Case {
  std::string name;
  std::vector<Reqs> pod;
  std::vector<Reqs> nodes;
  std::vector<Existing> existing = {};
  std::vector<ResourceSpec> resources = DefaultResourceSpecs();
  std::vector<int64_t> want;
};

std::vector<int64_t> RunScores(const Case& c, bool run_pre_score) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  std::vector<framework::NodeInfo*> infos;
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    framework::NodeInfo& ni = w.NodeWith(MakeNode(w, "node" + std::to_string(i + 1), c.nodes[i]));
    for (const Existing& e : c.existing) {
      if (e.node == i)
        ni.AddPod(&w.Info(MakePod(w, "e" + std::to_string(w.pods.size()), e.containers)));
    }
    infos.push_back(&ni);
  }
  h.SetNodes(infos);
  NodeResourcesBalancedAllocationArgs args;
  args.resources = c.resources;
  auto plugin = NodeResourcesBalancedAllocation::New(&args, h);
  EXPECT_TRUE(plugin.ok());
  if (!plugin.ok()) return {};
  framework::PodInfo& pod = w.Info(MakePod(w, "pod", c.pod));
  return testutil::ScoreAll(**plugin, h, pod, run_pre_score);
}

// kube's TestNodeResourcesBalancedAllocation (v1.36+ formula). Each comment gives, per resource,
// the usage before -> after placing the pod, then the balance without -> with the pod, and the
// final 50 + (50 + with - without) / 2. cpu is in millicores, memory in bytes, as in
// kube's makeNode.
TEST(BalancedAllocationTest, MatchesKube) {
  const std::vector<Reqs> pod3000_5000 = {{{"cpu", "1000m"}, {"memory", "2000"}},
                                          {{"cpu", "2000m"}, {"memory", "3000"}}};
  const std::vector<Reqs> cpu_only = {{{"cpu", "1000m"}}, {{"cpu", "2000m"}}};
  const Case cases[] = {
      // node1: cpu 0 -> 3000/4000 (75%), memory 0 -> 5000/10000 (50%):
      //        balance 100 -> (1 - 0.125)*100 = 87: 50 + (50 + 87 - 100) / 2 = 50 + 37/2 = 68.
      // node2: cpu 0 -> 3000/6000 (50%), memory 50%: 100 -> 100: 50 + 50/2 = 75.
      {"nothing_scheduled_resources_requested_differently_sized_nodes",
       pod3000_5000,
       {{{"cpu", "4000m"}, {"memory", "10000"}}, {{"cpu", "6000m"}, {"memory", "10000"}}},
       {},
       DefaultResourceSpecs(),
       {68, 75}},
      // node1: cpu 30% -> 60%, memory 0% -> 25%: 85 -> 82: 50 + 47/2 = 73.
      // node2: cpu 30% -> 60%, memory 25% -> 50%: 97 -> 95: 50 + 48/2 = 74.
      {"resources_requested_pods_scheduled_with_resources",
       pod3000_5000,
       {{{"cpu", "10000m"}, {"memory", "20000"}}, {{"cpu", "10000m"}, {"memory", "20000"}}},
       {{0, cpu_only}, {1, pod3000_5000}},
       DefaultResourceSpecs(),
       {73, 74}},
      // node2: memory 5000 -> 10000 of 50000 (10% -> 20%): 90 -> 80: 50 + 40/2 = 70.
      {"resources_requested_pods_scheduled_with_resources_differently_sized_nodes",
       pod3000_5000,
       {{{"cpu", "10000m"}, {"memory", "20000"}}, {{"cpu", "10000m"}, {"memory", "50000"}}},
       {{0, cpu_only}, {1, pod3000_5000}},
       DefaultResourceSpecs(),
       {73, 70}},
      // node1: cpu 100% -> 100%, memory 0% -> 100%: 50 -> 100: 50 + 100/2 = 100.
      // node2: cpu 0% -> 0%, memory 0% -> 100%: 100 -> 50: 50 + 0/2 = 50.
      {"resources_requested_pods_scheduled_with_resources_nodes_to_reach_min_max_score",
       {{{"memory", "2000"}}, {{"memory", "3000"}}},
       {{{"cpu", "3000m"}, {"memory", "5000"}}, {{"cpu", "3000m"}, {"memory", "5000"}}},
       {{0, cpu_only}},
       DefaultResourceSpecs(),
       {100, 50}},
      // node1: cpu 50% -> 100%, memory 0%: 75 -> 50: 50 + 25/2 = 62.
      // node2: cpu 50% -> 100%, memory 50%: 100 -> 75: 50 + 25/2 = 62.
      {"requested_resources_at_node_capacity",
       cpu_only,
       {{{"cpu", "6000m"}, {"memory", "10000"}}, {{"cpu", "6000m"}, {"memory", "10000"}}},
       {{0, cpu_only}, {1, pod3000_5000}},
       DefaultResourceSpecs(),
       {62, 62}},
      // Three resources: population standard deviation.
      // node1: cpu 85.7%, memory 12.5%, gpu 3/8 -> 4/8: 69 -> 70: 50 + 51/2 = 75.
      // node2: cpu 85.7%, memory 12.5%, gpu 0 -> 1/8: 62 -> 65: 50 + 53/2 = 76.
      {"scalar_resource_is_included_if_pod_requests_it",
       {{{"cpu", "0"}, {"memory", "0"}, {kGpu, "1"}}},
       {{{"cpu", "3500m"}, {"memory", "40000"}, {kGpu, "8"}},
        {{"cpu", "3500m"}, {"memory", "40000"}, {kGpu, "8"}}},
       {{0,
         {{{"cpu", "1000m"}, {"memory", "2000"}},
          {{"cpu", "2000m"}, {"memory", "3000"}, {kGpu, "3"}}}},
        {1, pod3000_5000}},
       {{"cpu", 1}, {"memory", 1}, {kGpu, 1}},
       {75, 76}},
      // gpu is configured but not requested: left out. cpu 0 -> 85.7%, memory 0 -> 12.5%: 100 ->
      // 63: 50 + 13/2 = 56 on both nodes.
      {"scalar_resource_is_not_included_if_pod_does_not_request_it",
       pod3000_5000,
       {{{"cpu", "3500m"}, {"memory", "40000"}, {kGpu, "8"}},
        {{"cpu", "3500m"}, {"memory", "40000"}}},
       {},
       {{"cpu", 1}, {"memory", 1}, {kGpu, 1}},
       {56, 56}},
  };
  for (const Case& c : cases) {
    for (bool run_pre_score : {true, false}) {
      SCOPED_TRACE(c.name + (run_pre_score ? "" : "_without_prescore"));
      EXPECT_EQ(RunScores(c, run_pre_score), c.want);
    }
  }
}

TEST(BalancedAllocationTest, PreScoreSkipsBestEffortPods) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  h.SetNodes({&w.NodeWith(MakeNode(w, "node1", {{"cpu", "4000m"}, {"memory", "10000"}}))});
  auto plugin = NodeResourcesBalancedAllocation::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  auto* ba = dynamic_cast<NodeResourcesBalancedAllocation*>(plugin->get());
  framework::CycleState state;
  // No requests at all, and a container without requests (BalancedAllocation ignores the
  // non-zero defaults).
  for (const api::Pod* p : {&w.Pod("none").Obj(), &w.Pod("empty").Req({}).Obj()}) {
    framework::PodInfo& pod = w.Info(*p);
    EXPECT_EQ(ba->PreScore(state, 0, pod, h.snapshot().nodes()).code(), Code::kSkip);
    // Scoring anyway (without PreScore state) yields 0, as kube.
    int64_t score = -1;
    EXPECT_TRUE(ba->Score(state, 0, pod, *h.snapshot().nodes()[0], &score).ok());
    EXPECT_EQ(score, 0);
  }
}

TEST(BalancedAllocationTest, ResourceScore) {
  // Fewer than two resources: std 0.
  EXPECT_EQ(noderesources::BalancedResourceScore(std::vector<int64_t>{5}, std::vector<int64_t>{10}),
            100);
  // Over capacity counts as 100%: |1 - 0.5| / 2 = 0.25 -> 75.
  EXPECT_EQ(noderesources::BalancedResourceScore(std::vector<int64_t>{20, 5},
                                                 std::vector<int64_t>{10, 10}),
            75);
  // Resources the node does not offer are skipped.
  EXPECT_EQ(noderesources::BalancedResourceScore(std::vector<int64_t>{0, 5, 7},
                                                 std::vector<int64_t>{0, 10, 0}),
            100);
  // Three: fractions 0, 0.5, 1: mean 0.5, std sqrt((0.25 + 0 + 0.25) / 3) = 0.408 -> 59.
  EXPECT_EQ(noderesources::BalancedResourceScore(std::vector<int64_t>{0, 5, 10},
                                                 std::vector<int64_t>{10, 10, 10}),
            59);
}

TEST(BalancedAllocationTest, ArgsValidation) {
  NodeResourcesBalancedAllocationArgs args;
  EXPECT_TRUE(args.Validate().ok());
  args.resources = {{"cpu", 1}, {"cpu", 2}};
  ASSERT_FALSE(args.Validate().ok());
  EXPECT_EQ(args.Validate().error().message,
            "[resources[1].name: Duplicate value: \"cpu\", resources[1].weight: Invalid value: 2: "
            "must be 1]");
  testing::TestWorld w;
  testing::FakeHandle h(w);
  EXPECT_FALSE(NodeResourcesBalancedAllocation::New(&args, h).ok());
  const NodeResourcesFitArgs foreign;
  auto p = NodeResourcesBalancedAllocation::New(&foreign, h);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(
      p.error().message,
      "want args to be of type NodeResourcesBalancedAllocationArgs, got another plugin's args");
}

TEST(BalancedAllocationTest, SignMatchesFit) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  auto plugin = NodeResourcesBalancedAllocation::New(nullptr, h);
  ASSERT_TRUE(plugin.ok());
  framework::PodInfo& pod = w.Info(w.Pod("p").Req({{"cpu", "1"}, {"memory", "2000"}}).Obj());
  std::vector<framework::SignFragment> fragments;
  ASSERT_TRUE(dynamic_cast<framework::SignPlugin*>(plugin->get())->Sign(pod, &fragments).ok());
  ASSERT_EQ(fragments.size(), 1u);
  EXPECT_EQ(fragments[0].key, "v1.Pod.Spec.ContainerRequestsAndOverheads()");
  EXPECT_EQ(
      fragments[0].value,
      R"({"MilliCPU":1000,"Memory":2000,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":null})");
}

}  // namespace
}  // namespace corral::plugins
