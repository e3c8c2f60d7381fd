#include "corral/plugins/node_unschedulable/node_unschedulable.h"

#include <string>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using api::TaintEffect;
using api::TolerationOp;
using framework::ActionType;
using framework::Code;
using framework::EventResource;
using framework::QueueingHint;

class NodeUnschedulableTest : public ::testing::Test {
 protected:
  NodeUnschedulableTest() {
    auto made = NodeUnschedulable::New(nullptr, h_);
    EXPECT_TRUE(made.ok());
    plugin_ = std::move(*made);
  }
  const NodeUnschedulable& Plugin() const {
    return dynamic_cast<const NodeUnschedulable&>(*plugin_);
  }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
  std::unique_ptr<framework::Plugin> plugin_;
};

// kube's TestNodeUnschedulable, plus an Exists-everything toleration.
TEST_F(NodeUnschedulableTest, Filter) {
  struct Case {
    std::string name;
    bool unschedulable;
    bool tolerate;      // node.kubernetes.io/unschedulable:NoSchedule
    bool tolerate_all;  // operator Exists, empty key and effect
    bool fits;
  };
  const Case cases[] = {
      {"Does not schedule pod to unschedulable node", true, false, false, false},
      {"Schedule pod to normal node", false, false, false, true},
      {"Schedule pod with toleration to unschedulable node", true, true, false, true},
      {"Schedule pod tolerating everything to unschedulable node", true, false, true, true},
  };
  framework::CycleState state;
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto& node = w_.NodeWith(w_.Node("n").Unschedulable(tc.unschedulable).Obj());
    auto pb = w_.Pod("p");
    if (tc.tolerate) {
      pb.Toleration("node.kubernetes.io/unschedulable", "", TolerationOp::kEqual,
                    TaintEffect::kNoSchedule);
    }
    if (tc.tolerate_all) pb.Toleration("", "", TolerationOp::kExists, TaintEffect::kNone);
    auto st = Plugin().Filter(state, 0, w_.Info(pb.Obj()), node);
    if (tc.fits) {
      EXPECT_TRUE(st.ok());
    } else {
      EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
      EXPECT_EQ(st.Message(), "node(s) were unschedulable");
    }
  }
}

TEST_F(NodeUnschedulableTest, RegistersNodeAndPodEvents) {
  auto events = Plugin().EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].resource, EventResource::kNode);
  EXPECT_EQ(static_cast<int>(events[0].action), 5);  // Add | Update
  EXPECT_EQ(events[1].resource, EventResource::kPod);
  EXPECT_EQ(events[1].action, ActionType::kUpdate);
}

// kube's TestIsSchedulableAfterNodeChange (add/update cases expressible without the old node).
TEST_F(NodeUnschedulableTest, NodeHintQueuesSchedulableNodes) {
  auto& pod = w_.Info(w_.Pod("p").Obj());
  const framework::ClusterEvent add{EventResource::kNode, ActionType::kAdd};
  EXPECT_EQ(Plugin().Hint(pod, add, &w_.Node("a").Obj()), QueueingHint::kQueue);
  EXPECT_EQ(Plugin().Hint(pod, add, &w_.Node("b").Unschedulable().Obj()), QueueingHint::kQueueSkip);
  const framework::ClusterEvent update{EventResource::kNode, ActionType::kUpdate};
  EXPECT_EQ(Plugin().Hint(pod, update, &w_.Node("c").Obj()), QueueingHint::kQueue);
}

// kube's TestIsSchedulableAfterPodTolerationChange.
TEST_F(NodeUnschedulableTest, PodHintQueuesWhenTheTargetNowTolerates) {
  auto& target = w_.Info(w_.Pod("p").Obj());
  const framework::ClusterEvent ev{EventResource::kPod, ActionType::kUpdate};
  const api::Pod& now_tolerates = w_.Pod("p")
                                      .Toleration("node.kubernetes.io/unschedulable", "",
                                                  TolerationOp::kExists, TaintEffect::kNoSchedule)
                                      .Obj();
  EXPECT_EQ(Plugin().Hint(target, ev, &now_tolerates), QueueingHint::kQueue);
  const api::Pod& unrelated =
      w_.Pod("p").Toleration("foo", "", TolerationOp::kExists, TaintEffect::kNoSchedule).Obj();
  EXPECT_EQ(Plugin().Hint(target, ev, &unrelated), QueueingHint::kQueueSkip);
  const api::Pod& other_pod = w_.Pod("q")
                                  .Toleration("node.kubernetes.io/unschedulable", "",
                                              TolerationOp::kExists, TaintEffect::kNoSchedule)
                                  .Obj();
  EXPECT_EQ(Plugin().Hint(target, ev, &other_pod), QueueingHint::kQueueSkip);
  // An update that leaves the tolerations alone is not kube's UpdatePodToleration event: a pod
  // that already tolerates the taint (rejected by another plugin) is not queued by this one.
  auto& tolerating = w_.Info(w_.Pod("r")
                                 .Toleration("node.kubernetes.io/unschedulable", "",
                                             TolerationOp::kExists, TaintEffect::kNoSchedule)
                                 .Obj());
  const api::Pod& relabelled = w_.Pod("r")
                                   .Label("color", "green")
                                   .Toleration("node.kubernetes.io/unschedulable", "",
                                               TolerationOp::kExists, TaintEffect::kNoSchedule)
                                   .Obj();
  EXPECT_EQ(Plugin().Hint(tolerating, ev, &relabelled), QueueingHint::kQueueSkip);
}

TEST_F(NodeUnschedulableTest, SignsTolerations) {
  std::vector<framework::SignFragment> f;
  auto& pod = w_.Info(
      w_.Pod("p").Toleration("k", "v", TolerationOp::kEqual, TaintEffect::kNoSchedule).Obj());
  ASSERT_TRUE(Plugin().Sign(pod, &f).ok());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "v1.Pod.Spec.Tolerations");
  EXPECT_EQ(f[0].value, R"([{"key":"k","operator":"Equal","value":"v","effect":"NoSchedule"}])");
}

}  // namespace
}  // namespace corral::plugins
