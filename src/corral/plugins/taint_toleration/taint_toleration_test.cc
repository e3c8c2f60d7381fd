#include "corral/plugins/taint_toleration/taint_toleration.h"

#include <string>
#include <vector>

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

struct T {  // a taint or toleration in a test table
  std::string key, value;
  TolerationOp op = TolerationOp::kEqual;
  TaintEffect effect = TaintEffect::kNone;
};

class TaintTolerationTest : public ::testing::Test {
 protected:
  TaintTolerationTest() {
    auto made = TaintToleration::New(nullptr, h_);
    EXPECT_TRUE(made.ok());
    plugin_ = std::move(*made);
  }
  TaintToleration& Plugin() { return dynamic_cast<TaintToleration&>(*plugin_); }

  api::Pod& PodWith(const std::vector<T>& tolerations) {
    auto b = w_.Pod("pod1");
    for (const auto& t : tolerations) b.Toleration(t.key, t.value, t.op, t.effect);
    return b.Obj();
  }
  api::Node& NodeWith(const std::string& name, const std::vector<T>& taints) {
    auto b = w_.Node(name);
    for (const auto& t : taints) b.Taint(t.key, t.value, t.effect);
    return b.Obj();
  }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
  std::unique_ptr<framework::Plugin> plugin_;
};

// kube's TestTaintTolerationScore.
TEST_F(TaintTolerationTest, Score) {
  const auto kPrefer = TaintEffect::kPreferNoSchedule;
  const auto kNoSchedule = TaintEffect::kNoSchedule;
  struct Case {
    std::string name;
    std::vector<T> tolerations;
    std::vector<std::vector<T>> node_taints;  // nodes nodeA, nodeB, ...
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      // raw: A 0, B 1 (foo=blah untolerated); max 1 → A 100-0 = 100, B 100-100*1/1 = 0.
      {"node with taints tolerated by the pod, gets a higher score than those node with "
       "intolerable taints",
       {{"foo", "bar", TolerationOp::kEqual, kPrefer}},
       {{{"foo", "bar", {}, kPrefer}}, {{"foo", "blah", {}, kPrefer}}},
       {100, 0}},
      // raw: all 0 → reverse with max 0 gives every node 100.
      {"the nodes that all of their taints are tolerated by the pod, get the same score, no matter "
       "how many "
       "tolerable taints a node has",
       {{"cpu-type", "arm64", TolerationOp::kEqual, kPrefer},
        {"disk-type", "ssd", TolerationOp::kEqual, kPrefer}},
       {{},
        {{"cpu-type", "arm64", {}, kPrefer}},
        {{"cpu-type", "arm64", {}, kPrefer}, {"disk-type", "ssd", {}, kPrefer}}},
       {100, 100, 100}},
      // raw: A 0, B 1, C 2; max 2 → 100-0, 100-100*1/2 = 50, 100-100 = 0.
      {"the more intolerable taints a node has, the lower score it gets.",
       {{"foo", "bar", TolerationOp::kEqual, kPrefer}},
       {{},
        {{"cpu-type", "arm64", {}, kPrefer}},
        {{"cpu-type", "arm64", {}, kPrefer}, {"disk-type", "ssd", {}, kPrefer}}},
       {100, 50, 0}},
      // NoSchedule tolerations are dropped by PreScore; B's NoSchedule taint is not counted. raw:
      // 0, 0, 2.
      {"only taints and tolerations that have effect PreferNoSchedule are checked by "
       "taints-tolerations priority "
       "function",
       {{"cpu-type", "arm64", TolerationOp::kEqual, kNoSchedule},
        {"disk-type", "ssd", TolerationOp::kEqual, kNoSchedule}},
       {{},
        {{"cpu-type", "arm64", {}, kNoSchedule}},
        {{"cpu-type", "arm64", {}, kPrefer}, {"disk-type", "ssd", {}, kPrefer}}},
       {100, 100, 0}},
      // raw: 0, 1; max 1 → 100, 0.
      {"Default behaviour No taints and tolerations, lands on node with no taints",
       {},
       {{}, {{"cpu-type", "arm64", {}, kPrefer}}},
       {100, 0}},
      // An empty-effect toleration tolerates PreferNoSchedule too. raw: 0, 0.
      {"toleration with empty effect counts for PreferNoSchedule",
       {{"foo", "", TolerationOp::kExists, TaintEffect::kNone}},
       {{}, {{"foo", "x", {}, kPrefer}}},
       {100, 100}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto& pod = w_.Info(PodWith(tc.tolerations));
    std::vector<const framework::NodeInfo*> nodes;
    for (size_t i = 0; i < tc.node_taints.size(); ++i) {
      nodes.push_back(&w_.NodeWith(
          NodeWith("node" + std::string(1, static_cast<char>('A' + i)), tc.node_taints[i])));
    }
    framework::CycleState state;
    ASSERT_TRUE(Plugin().PreScore(state, 3, pod, nodes).ok());
    std::vector<framework::NodeScore> scores;
    for (const auto* n : nodes) {
      int64_t s = -1;
      ASSERT_TRUE(Plugin().Score(state, 3, pod, *n, &s).ok());
      scores.push_back({n->name(), s});
    }
    ASSERT_TRUE(Plugin().NormalizeScore(state, 3, pod, scores).ok());
    std::vector<int64_t> got;
    for (const auto& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, tc.want);
  }
}

TEST_F(TaintTolerationTest, ScoreWithoutPreScoreIsAnError) {
  framework::CycleState state;
  int64_t s = 0;
  auto st = Plugin().Score(state, 0, w_.Info(PodWith({})), w_.NodeWith(NodeWith("n", {})), &s);
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "failed to read \"PreScoreTaintToleration\" from cycleState: not found");
}

// kube's TestTaintTolerationFilter (v1.35+ reason text).
TEST_F(TaintTolerationTest, Filter) {
  const auto kNoSchedule = TaintEffect::kNoSchedule;
  const auto kPrefer = TaintEffect::kPreferNoSchedule;
  struct Case {
    std::string name;
    std::vector<T> tolerations;
    std::vector<T> taints;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"A pod having no tolerations can't be scheduled onto a node with nonempty taints",
       {},
       {{"dedicated", "user1", {}, kNoSchedule}},
       false},
      {"A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
       {{"dedicated", "user1", TolerationOp::kEqual, kNoSchedule}},
       {{"dedicated", "user1", {}, kNoSchedule}},
       true},
      {"A pod which can't be scheduled on a dedicated node assigned to user2 with effect "
       "NoSchedule",
       {{"dedicated", "user2", TolerationOp::kEqual, kNoSchedule}},
       {{"dedicated", "user1", {}, kNoSchedule}},
       false},
      {"A pod can be scheduled onto the node, with a toleration uses operator Exists that "
       "tolerates the taints on "
       "the node",
       {{"foo", "", TolerationOp::kExists, kNoSchedule}},
       {{"foo", "bar", {}, kNoSchedule}},
       true},
      {"A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, "
       "pod can be "
       "scheduled onto the node",
       {{"dedicated", "user2", TolerationOp::kEqual, kNoSchedule},
        {"foo", "", TolerationOp::kExists, kNoSchedule}},
       {{"dedicated", "user2", {}, kNoSchedule}, {"foo", "bar", {}, kNoSchedule}},
       true},
      {"A pod has a toleration that keys and values match the taint on the node, but (non-empty) "
       "effect doesn't "
       "match, can't be scheduled onto the node",
       {{"foo", "bar", TolerationOp::kEqual, kPrefer}},
       {{"foo", "bar", {}, kNoSchedule}},
       false},
      {"The pod has a toleration that keys and values match the taint on the node, the effect of "
       "toleration is "
       "empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
       {{"foo", "bar", TolerationOp::kEqual, TaintEffect::kNone}},
       {{"foo", "bar", {}, kNoSchedule}},
       true},
      {"The pod has a toleration that key and value don't match the taint on the node, but the "
       "effect of taint on "
       "node is PreferNoSchedule. Pod can be scheduled onto the node",
       {{"dedicated", "user2", TolerationOp::kEqual, kNoSchedule}},
       {{"dedicated", "user1", {}, kPrefer}},
       true},
      {"The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be "
       "scheduled onto "
       "the node",
       {},
       {{"dedicated", "user1", {}, kPrefer}},
       true},
      {"NoExecute taints are filtered too", {}, {{"gone", "", {}, TaintEffect::kNoExecute}}, false},
      {"a taint with an empty value is untolerated like any other",
       {},
       {{"node-role.kubernetes.io/control-plane", "", {}, kNoSchedule}},
       false},
  };
  framework::CycleState state;
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto st = Plugin().Filter(state, 0, w_.Info(PodWith(tc.tolerations)),
                              w_.NodeWith(NodeWith("nodeA", tc.taints)));
    if (tc.fits) {
      EXPECT_TRUE(st.ok());
    } else {
      EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
      EXPECT_EQ(st.Message(), "node(s) had untolerated taint(s)");
    }
  }
}

TEST_F(TaintTolerationTest, RegistersNodeAndPodEvents) {
  auto events = Plugin().EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].resource, EventResource::kNode);
  EXPECT_EQ(static_cast<int>(events[0].action), 5);  // Add | Update
  EXPECT_EQ(events[1].resource, EventResource::kPod);
  EXPECT_EQ(events[1].action, ActionType::kUpdate);
}

// kube's TestIsSchedulableAfterNodeChange (cases expressible without the old node).
TEST_F(TaintTolerationTest, NodeHint) {
  auto& pod =
      w_.Info(PodWith({{"dedicated", "user2", TolerationOp::kEqual, TaintEffect::kNoSchedule}}));
  const framework::ClusterEvent add{EventResource::kNode, ActionType::kAdd};
  EXPECT_EQ(Plugin().Hint(pod, add,
                          &NodeWith("a", {{"dedicated", "user1", {}, TaintEffect::kNoSchedule}})),
            QueueingHint::kQueueSkip);  // skip-queue-on-untoleratedtaint-node-added
  EXPECT_EQ(Plugin().Hint(pod, add,
                          &NodeWith("b", {{"dedicated", "user2", {}, TaintEffect::kNoSchedule}})),
            QueueingHint::kQueue);  // queue-on-toleratedtaint-node-added
  const framework::ClusterEvent update{EventResource::kNode, ActionType::kUpdate};
  EXPECT_EQ(Plugin().Hint(pod, update,
                          &NodeWith("c", {{"dedicated", "user1", {}, TaintEffect::kNoSchedule},
                                          {"dedicated", "user3", {}, TaintEffect::kNoSchedule}})),
            QueueingHint::kQueueSkip);  // skip-unrelated-change
  EXPECT_EQ(Plugin().Hint(pod, update,
                          &NodeWith("d", {{"dedicated", "user2", {}, TaintEffect::kNoSchedule}})),
            QueueingHint::kQueue);  // queue-on-taint-change
}

// kube's Test_isSchedulableAfterPodTolerationChange, with kube's event filter folded in: the
// pending pod's own update (the target is the object before it) queues when it added a toleration.
TEST_F(TaintTolerationTest, PodHint) {
  auto& target = w_.Info(w_.Pod("pod-1").Namespace("ns-1").Obj());
  const framework::ClusterEvent ev{EventResource::kPod, ActionType::kUpdate};
  // skip-queue-on-other-pod-updated
  EXPECT_EQ(
      Plugin().Hint(target, ev,
                    &w_.Pod("pod-2")
                         .Namespace("ns-1")
                         .Toleration("foo", "bar", TolerationOp::kEqual, TaintEffect::kNoSchedule)
                         .Obj()),
      QueueingHint::kQueueSkip);
  // queue-on-the-unsched-pod-updated
  EXPECT_EQ(
      Plugin().Hint(target, ev,
                    &w_.Pod("pod-1")
                         .Namespace("ns-1")
                         .Toleration("foo", "bar", TolerationOp::kEqual, TaintEffect::kNoSchedule)
                         .Obj()),
      QueueingHint::kQueue);
  // An update that leaves the tolerations alone is not kube's UpdatePodToleration event.
  EXPECT_EQ(
      Plugin().Hint(target, ev, &w_.Pod("pod-1").Namespace("ns-1").Label("color", "green").Obj()),
      QueueingHint::kQueueSkip);
}

TEST_F(TaintTolerationTest, SignsTolerations) {
  std::vector<framework::SignFragment> f;
  ASSERT_TRUE(
      Plugin()
          .Sign(w_.Info(PodWith({{"b", "", TolerationOp::kExists, TaintEffect::kNone},
                                 {"a", "1", TolerationOp::kEqual, TaintEffect::kNoExecute}})),
                &f)
          .ok());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "v1.Pod.Spec.Tolerations");
  EXPECT_EQ(
      f[0].value,
      R"([{"key":"a","operator":"Equal","value":"1","effect":"NoExecute"},{"key":"b","operator":"Exists"}])");
}

}  // namespace
}  // namespace corral::plugins
