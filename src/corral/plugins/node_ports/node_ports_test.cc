#include "corral/plugins/node_ports/node_ports.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using framework::ActionType;
using framework::Code;
using framework::EventResource;
using framework::QueueingHint;

class NodePortsTest : public ::testing::Test {
 protected:
  NodePortsTest() {
    auto made = NodePorts::New(nullptr, h_);
    EXPECT_TRUE(made.ok());
    plugin_ = std::move(*made);
  }
  NodePorts& Plugin() { return dynamic_cast<NodePorts&>(*plugin_); }

  // kube's newPod(host, "PROTO/IP/PORT"...): one container with those host ports.
  api::Pod& PortPod(std::string_view node_name, const std::vector<std::string>& ports) {
    auto b = w_.Pod("p" + std::to_string(w_.pods.size()));
    b.NodeName(node_name);
    b.Req({});
    for (const auto& spec : ports) {
      const size_t a = spec.find('/'), z = spec.rfind('/');
      const std::string proto = spec.substr(0, a);
      const api::Protocol p = proto == "UDP"    ? api::Protocol::kUDP
                              : proto == "SCTP" ? api::Protocol::kSCTP
                                                : api::Protocol::kTCP;
      b.HostPort(std::stoi(spec.substr(z + 1)), p, spec.substr(a + 1, z - a - 1));
    }
    return b.Obj();
  }
  framework::NodeInfo& NodeUsing(const std::vector<std::string>& ports) {
    return w_.NodeWith(w_.Node("n" + std::to_string(w_.nodes.size())).Obj(),
                       {&PortPod("m1", ports)});
  }
  // A pod whose only host port 8001/TCP is on an init container (a sidecar or not).
  api::Pod& InitPortPod(bool sidecar) {
    auto& pod = w_.Pod("init" + std::to_string(w_.pods.size())).InitReq({}, sidecar).Obj();
    pod.init_containers.back().ports.push_back(
        {Symbol(), 8001, 8001, api::Protocol::kTCP, Symbol()});
    return pod;
  }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
  std::unique_ptr<framework::Plugin> plugin_;
};

// kube's TestNodePorts.
TEST_F(NodePortsTest, PreFilterAndFilter) {
  enum Want { kSkip, kFits, kConflict };
  struct Case {
    std::string name;
    api::Pod* pod;
    framework::NodeInfo* node;
    Want want;
  };
  const std::vector<Case> cases = {
      {"skip filter", &w_.Pod("empty").Obj(), &NodeUsing({}), kSkip},
      {"other port", &PortPod("m1", {"UDP/127.0.0.1/8080"}), &NodeUsing({"UDP/127.0.0.1/9090"}),
       kFits},
      {"same udp port", &PortPod("m1", {"UDP/127.0.0.1/8080"}), &NodeUsing({"UDP/127.0.0.1/8080"}),
       kConflict},
      {"same tcp port", &PortPod("m1", {"TCP/127.0.0.1/8080"}), &NodeUsing({"TCP/127.0.0.1/8080"}),
       kConflict},
      {"different host ip", &PortPod("m1", {"TCP/127.0.0.1/8080"}),
       &NodeUsing({"TCP/127.0.0.2/8080"}), kFits},
      {"different protocol", &PortPod("m1", {"UDP/127.0.0.1/8080"}),
       &NodeUsing({"TCP/127.0.0.1/8080"}), kFits},
      {"second udp port conflict", &PortPod("m1", {"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"}),
       &NodeUsing({"UDP/127.0.0.1/8080"}), kConflict},
      {"first tcp port conflict", &PortPod("m1", {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"}),
       &NodeUsing({"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"}), kConflict},
      {"first tcp port conflict due to 0.0.0.0 hostIP", &PortPod("m1", {"TCP/0.0.0.0/8001"}),
       &NodeUsing({"TCP/127.0.0.1/8001"}), kConflict},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       &PortPod("m1", {"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"}),
       &NodeUsing({"TCP/127.0.0.1/8001"}), kConflict},
      {"second tcp port conflict to 0.0.0.0 hostIP", &PortPod("m1", {"TCP/127.0.0.1/8001"}),
       &NodeUsing({"TCP/0.0.0.0/8001"}), kConflict},
      {"second different protocol", &PortPod("m1", {"UDP/127.0.0.1/8001"}),
       &NodeUsing({"TCP/0.0.0.0/8001"}), kFits},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP", &PortPod("m1", {"UDP/127.0.0.1/8001"}),
       &NodeUsing({"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"}), kConflict},
      {"non-sidecar initContainer using hostPort", &InitPortPod(false),
       &NodeUsing({"TCP/0.0.0.0/8001"}), kSkip},
      {"TCP hostPort conflict from sidecar initContainer", &InitPortPod(true),
       &NodeUsing({"TCP/0.0.0.0/8001"}), kConflict},
      // Corral additions: an empty hostIP is the wildcard on either side.
      {"empty hostIP wanted conflicts with a specific IP", &PortPod("m1", {"TCP//80"}),
       &NodeUsing({"TCP/10.0.0.1/80"}), kConflict},
      {"empty hostIP used conflicts with a specific IP", &PortPod("m1", {"TCP/10.0.0.1/80"}),
       &NodeUsing({"TCP//80"}), kConflict},
      {"SCTP and TCP on the same port coexist", &PortPod("m1", {"SCTP//80"}),
       &NodeUsing({"TCP//80"}), kFits},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    framework::CycleState state;
    auto& pod = w_.Info(*tc.pod);
    auto pre = Plugin().PreFilter(state, 1, pod, h_.snapshot(), nullptr);
    if (tc.want == kSkip) {
      EXPECT_TRUE(pre.IsSkip());
      continue;
    }
    ASSERT_TRUE(pre.ok());
    auto st = Plugin().Filter(state, 1, pod, *tc.node);
    if (tc.want == kFits) {
      EXPECT_TRUE(st.ok()) << st.Message();
    } else {
      EXPECT_EQ(st.code(), Code::kUnschedulable);
      EXPECT_EQ(st.Message(), "node(s) didn't have free ports for the requested pod ports");
    }
  }
}

// kube's TestPreFilterDisabled.
TEST_F(NodePortsTest, FilterWithoutPreFilterIsAnError) {
  framework::CycleState state;
  auto st = Plugin().Filter(state, 0, w_.Info(w_.Pod("p").Obj()), NodeUsing({}));
  EXPECT_EQ(st.code(), Code::kError);
}

// kube's TestFits.
TEST_F(NodePortsTest, Fits) {
  struct Case {
    std::string name;
    std::vector<std::string> want, used;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"non-conflicting ports", {"TCP/127.0.0.1/80"}, {"TCP/127.0.0.1/9090"}, true},
      {"multiple non-conflicting ports",
       {"TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"},
       {"TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"},
       true},
      {"same ports on different protocols", {"TCP/127.0.0.1/80"}, {"UDP/127.0.0.1/80"}, true},
      {"conflicting ports", {"TCP/127.0.0.1/80"}, {"TCP/127.0.0.1/80"}, false},
      {"multiple ports, some conflicting",
       {"TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"},
       {"TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"},
       false},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    framework::CycleState state;
    auto& pod = w_.Info(PortPod("p", tc.want));
    ASSERT_TRUE(Plugin().PreFilter(state, 0, pod, h_.snapshot(), nullptr).ok());
    EXPECT_EQ(Plugin().Filter(state, 0, pod, NodeUsing(tc.used)).ok(), tc.fits);
  }
}

TEST_F(NodePortsTest, RegistersAssignedPodDeleteAndNodeAdd) {
  auto events = Plugin().EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].resource, EventResource::kAssignedPod);
  EXPECT_EQ(events[0].action, ActionType::kDelete);
  EXPECT_EQ(events[1].resource, EventResource::kNode);
  EXPECT_EQ(events[1].action, ActionType::kAdd);
}

// kube's Test_isSchedulableAfterAssignedPodDeleted.
TEST_F(NodePortsTest, AssignedPodDeletedHint) {
  auto& pod = w_.Info(PortPod("", {"TCP//8080"}));
  const framework::ClusterEvent ev{EventResource::kAssignedPod, ActionType::kDelete};
  EXPECT_EQ(Plugin().Hint(pod, ev, &w_.Pod("unscheduled").HostPort(8080).Obj()),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Plugin().Hint(pod, ev, &w_.Pod("no-ports").NodeName("fake-node").Obj()),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Plugin().Hint(pod, ev, &w_.Pod("unrelated").NodeName("fake-node").HostPort(8081).Obj()),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(Plugin().Hint(pod, ev, &w_.Pod("released").NodeName("fake-node").HostPort(8080).Obj()),
            QueueingHint::kQueue);
  auto& nominated = w_.Pod("nominated").HostPort(8080).Obj();
  nominated.nominated_node_name = w_.S("fake-node");
  EXPECT_EQ(Plugin().Hint(pod, ev, &nominated), QueueingHint::kQueue);
  const framework::ClusterEvent node_add{EventResource::kNode, ActionType::kAdd};
  EXPECT_EQ(Plugin().Hint(pod, node_add, &w_.Node("n").Obj()), QueueingHint::kQueue);
}

TEST_F(NodePortsTest, SignsHostPorts) {
  std::vector<framework::SignFragment> f;
  ASSERT_TRUE(
      Plugin()
          .Sign(w_.Info(PortPod("", {"TCP//8080", "UDP/1.2.3.4/53", "TCP/0.0.0.0/8080"})), &f)
          .ok());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "v1.Pod.Spec.HostPorts()");
  EXPECT_EQ(f[0].value, "[53,8080]");
}

}  // namespace
}  // namespace corral::plugins
