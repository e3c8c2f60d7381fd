#include "corral/state/cluster_cache.h"

#include <limits>

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace corral::state {
namespace {

using testing::TestWorld;

std::vector<std::string> Order(TestWorld& w, ClusterCache& c) {
  std::vector<std::string> out;
  for (const auto* n : c.snapshot().nodes()) out.emplace_back(w.in.Str(n->name()));
  return out;
}

TEST(ClusterCacheTest, NodeListInterleavesZonesLikeKubeNodeTree) {
  TestWorld w;
  ClusterCache c;
  // Zones in order of first appearance: a, b, then nodes without zone labels ("" zone).
  for (auto [name, zone] : std::vector<std::pair<const char*, const char*>>{
           {"a1", "a"}, {"a2", "a"}, {"b1", "b"}, {"a3", "a"}, {"x1", nullptr}}) {
    auto nb = w.Node(name);
    if (zone != nullptr) nb.Label("topology.kubernetes.io/zone", zone);
    c.AddNode(&nb.Obj());
  }
  EXPECT_EQ(Order(w, c), (std::vector<std::string>{"a1", "b1", "x1", "a2", "a3"}));
  c.RemoveNode(w.S("b1"));
  EXPECT_EQ(Order(w, c), (std::vector<std::string>{"a1", "x1", "a2", "a3"}));
}

TEST(ClusterCacheTest, MinPodPriorityFollowsAddsAndRemovals) {
  TestWorld w;
  ClusterCache c;
  c.AddNode(&w.Node("n1").Obj());
  EXPECT_EQ(c.MinPodPriority(), std::numeric_limits<int32_t>::max());  // no pods
  const auto& low = w.Info(w.Pod("low").Priority(-5).Obj());
  const auto& mid = w.Info(w.Pod("mid").Priority(10).Obj());
  const auto& mid2 = w.Info(w.Pod("mid2").Priority(10).Obj());
  c.AddPod(&mid, w.S("n1"), /*assumed=*/false);
  c.AddPod(&mid2, w.S("gone"), /*assumed=*/true);  // waiting for its node: still counted
  EXPECT_EQ(c.MinPodPriority(), 10);
  c.AddPod(&low, w.S("n1"), /*assumed=*/true);
  EXPECT_EQ(c.MinPodPriority(), -5);
  ASSERT_TRUE(c.RemovePod(&low));
  EXPECT_EQ(c.MinPodPriority(), 10);
  ASSERT_TRUE(c.RemovePod(&mid));
  EXPECT_EQ(c.MinPodPriority(), 10);  // mid2 has the same priority
  ASSERT_TRUE(c.RemovePod(&mid2));
  EXPECT_EQ(c.MinPodPriority(), std::numeric_limits<int32_t>::max());
}

TEST(ClusterCacheTest, PodsOnUnknownNodesAttachWhenTheNodeArrives) {
  TestWorld w;
  ClusterCache c;
  auto& pod = w.Pod("p").Req({{"cpu", "1"}}).Obj();
  const auto& info = w.Info(pod);
  c.AddPod(&info, w.S("n1"), /*assumed=*/true);
  EXPECT_TRUE(c.IsAssumed(&info));
  auto& node = w.Node("n1").Capacity({{"cpu", "4"}}).Image("nginx:1", 100).Obj();
  c.AddNode(&node);
  ASSERT_NE(c.GetNode(w.S("n1")), nullptr);
  EXPECT_EQ(c.GetNode(w.S("n1"))->requested().milli_cpu, 1000);
  EXPECT_EQ(c.snapshot().ImageNumNodes(w.S("nginx:1")), 1);
  c.ConfirmPod(&info);
  EXPECT_FALSE(c.IsAssumed(&info));
  EXPECT_TRUE(c.RemovePod(&info));
  EXPECT_EQ(c.GetNode(w.S("n1"))->requested().milli_cpu, 0);
  EXPECT_FALSE(c.RemovePod(&info));
  c.RemoveNode(w.S("n1"));
  EXPECT_EQ(c.snapshot().ImageNumNodes(w.S("nginx:1")), 0);
  EXPECT_EQ(c.snapshot().Get(w.S("n1")), nullptr);
}

}  // namespace
}  // namespace corral::state
