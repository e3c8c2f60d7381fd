#include "corral/framework/pod_info.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace corral::framework {
namespace {

using testing::TestWorld;

TEST(PodInfoTest, RequestIsMaxOfContainersAndInitPeaksPlusOverhead) {
  TestWorld w;
  // containers: 1 + 2 = 3 cpu; init peak: 4 cpu ⇒ 4 cpu; + overhead 100m ⇒ 4100m.
  auto& pod = w.Pod("p")
                  .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                  .Req({{"cpu", "2"}})
                  .InitReq({{"cpu", "4"}, {"memory", "512Mi"}})
                  .Overhead({{"cpu", "100m"}})
                  .Obj();
  PodInfo& info = w.Info(pod);
  EXPECT_EQ(info.request.milli_cpu, 4100);
  EXPECT_EQ(info.request.memory, 1LL << 30);
  // Non-zero: the second container has no memory request ⇒ +200Mi; 1Gi + 200Mi = 1254Mi.
  EXPECT_EQ(info.non_zero_milli_cpu, 4100);
  EXPECT_EQ(info.non_zero_memory, (1LL << 30) + 200LL * 1024 * 1024);
}

TEST(PodInfoTest, SidecarsAddToContainersAndToLaterInitContainers) {
  TestWorld w;
  // sidecar 1 cpu (restartable), then init 2 cpu ⇒ init peak 1 + 2 = 3; containers 1 + sidecar 1 =
  // 2; max(2, 3) = 3 cpu.
  auto& pod = w.Pod("p")
                  .InitReq({{"cpu", "1"}}, /*sidecar=*/true)
                  .InitReq({{"cpu", "2"}})
                  .Req({{"cpu", "1"}})
                  .Obj();
  EXPECT_EQ(w.Info(pod).request.milli_cpu, 3000);
}

TEST(PodInfoTest, HostPortsFromAllContainers) {
  TestWorld w;
  auto& pod = w.Pod("p").HostPort(80).HostPort(8080, api::Protocol::kUDP, "127.0.0.1").Obj();
  PodInfo& info = w.Info(pod);
  ASSERT_EQ(info.host_ports.size(), 2u);
  EXPECT_EQ(info.host_ports[1].port, 8080);
  EXPECT_EQ(info.host_ports[1].protocol, api::Protocol::kUDP);
}

TEST(NodeInfoTest, AddRemoveKeepsAggregates) {
  TestWorld w;
  auto& node = w.Node("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj();
  auto& a = w.Pod("a").Req({{"cpu", "1"}}).HostPort(80).Obj();
  auto& b = w.Pod("b").Req({{"cpu", "500m"}, {"memory", "1Gi"}}).Obj();
  NodeInfo& ni = w.NodeWith(node, {&a, &b});
  EXPECT_EQ(ni.allocatable().milli_cpu, 4000);
  EXPECT_EQ(ni.allocatable().allowed_pod_number, 110);
  EXPECT_EQ(ni.requested().milli_cpu, 1500);
  EXPECT_EQ(ni.non_zero_requested().memory, 200LL * 1024 * 1024 + (1LL << 30));
  EXPECT_EQ(ni.used_ports().size(), 1u);
  ASSERT_TRUE(ni.RemovePod(ni.pods()[0]));
  EXPECT_EQ(ni.requested().milli_cpu, 500);
  EXPECT_TRUE(ni.used_ports().empty());
  EXPECT_EQ(ni.pods().size(), 1u);
}

}  // namespace
}  // namespace corral::framework
