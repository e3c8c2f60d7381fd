#include "corral/plugins/node_declared_features/node_declared_features.h"

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

bool Always(const api::Pod& pod) {
  (void)pod;
  return true;
}
bool Never(const api::Pod& pod) {
  (void)pod;
  return false;
}

class NodeDeclaredFeaturesTest : public ::testing::Test {
 protected:
  // A plugin whose nodes declare `node_features` (Corral's nodes carry no declared features of
  // their own; the driver states them for every node).
  NodeDeclaredFeatures Make(std::vector<ndf::Feature> features, ndf::Version version,
                            const std::vector<std::string>& node_features = {}) {
    std::vector<Symbol> declared;
    for (const auto& f : node_features) declared.push_back(w_.S(f));
    return NodeDeclaredFeatures(w_.in, ndf::FeatureRegistry(std::move(features)),
                                std::move(declared), version);
  }
  framework::NodeInfo& AnyNode() { return w_.NodeWith(w_.Node("node-1").Obj()); }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
};

// kube's TestPreFilter (nodedeclaredfeatures_test.go); "plugin disabled" has no counterpart: the
// gate is locked on in v1.37.
TEST_F(NodeDeclaredFeaturesTest, PreFilter) {
  struct Case {
    std::string name;
    std::vector<ndf::Feature> features;
    ndf::Version version;
    bool skip;
    std::vector<std::string> want;
  };
  const ndf::Version v135{1, 35, 0};
  const Case cases[] = {
      {"Pod with feature requirements",
       {{"TestFeature1", std::nullopt, &Always}, {"TestFeature2", std::nullopt, &Never}},
       v135,
       false,
       {"TestFeature1"}},
      {"Pod with multiple feature requirements",
       {{"TestFeature1", ndf::Version{1, 38, 0}, &Always},
        {"TestFeature2", ndf::Version{1, 38, 0}, &Always}},
       v135,
       false,
       {"TestFeature1", "TestFeature2"}},
      {"Pod with no requirements",
       {{"TestFeature1", std::nullopt, &Never}, {"TestFeature2", std::nullopt, &Never}},
       v135,
       true,
       {}},
      {"Feature not required, version > MaxVersion",
       {{"TestFeature1", ndf::Version{1, 33, 0}, &Always}, {"TestFeature2", std::nullopt, &Never}},
       ndf::Version{1, 34, 0},
       true,
       {}},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeDeclaredFeatures pl = Make(tc.features, tc.version, tc.want);
    EXPECT_EQ(pl.registry().InferForPodScheduling(w_.Pod("test-pod").Obj(), tc.version), tc.want);
    for (const auto& f : tc.want) w_.S(f);
    framework::CycleState state;
    framework::PreFilterResult result;
    const auto& info = w_.Info(w_.Pod("test-pod").Obj());
    const framework::Status st = pl.PreFilter(state, 0, info, h_.snapshot(), &result);
    EXPECT_FALSE(result.node_names.has_value());
    if (tc.skip) {
      EXPECT_EQ(st.code(), Code::kSkip);
    } else {
      EXPECT_TRUE(st.ok());
      // The recorded requirements: a node declaring exactly them fits.
      EXPECT_TRUE(pl.Filter(state, 0, info, AnyNode()).ok());
    }
  }
}

// kube's TestFilter; "plugin disabled" has no counterpart (the gate is locked on in v1.37).
TEST_F(NodeDeclaredFeaturesTest, Filter) {
  struct Case {
    std::string name;
    std::vector<std::string> node_features;
    std::vector<std::string> required;  // empty: no PreFilter state
    bool fits;
    Code code;
    std::string message;
  };
  const std::string unsatisfied = "node(s) didn't match Pod's required features";
  const Case cases[] = {
      {"Node matches requirements",
       {"FeatureA", "FeatureB"},
       {"FeatureA"},
       true,
       Code::kSuccess,
       ""},
      {"Node does not match requirements",
       {"FeatureB"},
       {"FeatureA"},
       false,
       Code::kUnschedulableAndUnresolvable,
       unsatisfied},
      {"Node with multiple features, pod requires subset",
       {"FeatureA", "FeatureB", "FeatureC"},
       {"FeatureA", "FeatureC"},
       true,
       Code::kSuccess,
       ""},
      {"Node has no declared features",
       {},
       {"FeatureA"},
       false,
       Code::kUnschedulableAndUnresolvable,
       unsatisfied},
      {"Node with some but not all required features",
       {"FeatureA"},
       {"FeatureA", "FeatureB"},
       false,
       Code::kUnschedulableAndUnresolvable,
       unsatisfied},
      {"Error getting pre-filter state",
       {},
       {},
       false,
       Code::kError,
       "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::vector<ndf::Feature> features;
    for (const char* f : {"FeatureA", "FeatureB", "FeatureC"}) {
      w_.S(f);
      bool (*infer)(const api::Pod&) = &Never;
      for (const auto& r : tc.required) {
        if (r == f) infer = &Always;
      }
      features.push_back({f, std::nullopt, infer});
    }
    NodeDeclaredFeatures pl = Make(features, ndf::Version{1, 35, 0}, tc.node_features);
    framework::CycleState state;
    const auto& info = w_.Info(w_.Pod("test-pod").Obj());
    if (!tc.required.empty()) {
      framework::PreFilterResult result;
      ASSERT_TRUE(pl.PreFilter(state, 0, info, h_.snapshot(), &result).ok());
    }
    const framework::Status st = pl.Filter(state, 0, info, AnyNode());
    EXPECT_EQ(st.code(), tc.code);
    if (!tc.fits) {
      EXPECT_EQ(st.Message(), tc.message);
    }
  }
}

// A required feature whose name no object ever interned is declared by no node.
TEST_F(NodeDeclaredFeaturesTest, FeatureNoNodeNamesFitsNowhere) {
  NodeDeclaredFeatures pl = Make({{"NeverInternedFeatureName", std::nullopt, &Always}},
                                 ndf::Version{1, 37, 0}, {"FeatureA"});
  framework::CycleState state;
  framework::PreFilterResult result;
  const auto& info = w_.Info(w_.Pod("p").Obj());
  ASSERT_TRUE(pl.PreFilter(state, 0, info, h_.snapshot(), &result).ok());
  EXPECT_EQ(pl.Filter(state, 0, info, AnyNode()).code(), Code::kUnschedulableAndUnresolvable);
}

// kube's TestEventsToRegister ("plugin enabled": two events).
TEST_F(NodeDeclaredFeaturesTest, EventsToRegister) {
  NodeDeclaredFeatures pl = Make({}, ndf::kSchedulerVersion);
  auto events = pl.EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].resource, EventResource::kNode);
  EXPECT_EQ(static_cast<int>(events[0].action), 5);  // Add | Update
  EXPECT_EQ(events[1].resource, EventResource::kPod);
  EXPECT_EQ(events[1].action, ActionType::kUpdate);
}

// kube's TestEnqueueExtensionsNodeUpdate, as far as a hint that sees only the new node can follow
// it: a node that declares what the pod needs queues it, one that does not is skipped.
TEST_F(NodeDeclaredFeaturesTest, NodeEventHint) {
  const auto& info = w_.Info(w_.Pod("test-pod").Obj());
  const api::Node node = w_.Node("node-1").Obj();
  const framework::ClusterEvent add{EventResource::kNode, ActionType::kAdd};
  NodeDeclaredFeatures with =
      Make({{"FeatureA", std::nullopt, &Always}}, ndf::kSchedulerVersion, {"FeatureA"});
  EXPECT_EQ(with.Hint(info, add, &node), QueueingHint::kQueue);
  NodeDeclaredFeatures without =
      Make({{"FeatureA", std::nullopt, &Always}}, ndf::kSchedulerVersion, {"FeatureB"});
  EXPECT_EQ(without.Hint(info, add, &node), QueueingHint::kQueueSkip);
}

// The default registry infers nothing for the pods Corral's loader accepts.
TEST(NodeDeclaredFeaturesRegistry, DefaultInfersNothingForLoadablePods) {
  testing::TestWorld w;
  const ndf::FeatureRegistry reg = ndf::DefaultRegistry();
  EXPECT_EQ(reg.features().size(), 4u);
  api::Pod pod = w.Pod("p").Obj();
  pod.host_network = true;
  pod.resources = api::ResourceRequirements{};
  EXPECT_TRUE(reg.InferForPodScheduling(pod, ndf::kSchedulerVersion).empty());
}

// kube's scheduler_perf nodedeclaredfeatures mock: every feature is required by pods with
// pod-level resources; nodes declare the names sorted as strings.
TEST(NodeDeclaredFeaturesRegistry, PerfMock) {
  testing::TestWorld w;
  const ndf::FeatureRegistry reg = ndf::PerfMockRegistry(12);
  api::Pod pod = w.Pod("p").Obj();
  EXPECT_TRUE(reg.InferForPodScheduling(pod, ndf::kSchedulerVersion).empty());
  pod.resources = api::ResourceRequirements{};
  EXPECT_EQ(reg.InferForPodScheduling(pod, ndf::kSchedulerVersion).size(), 12u);
  const std::vector<std::string> names = ndf::PerfMockFeatureNames(12);
  EXPECT_EQ(names.front(), "Feature1");
  EXPECT_EQ(names[1], "Feature10");
  EXPECT_EQ(names.back(), "Feature9");
  EXPECT_EQ(reg.InferForPodScheduling(pod, ndf::kSchedulerVersion), names);
}

}  // namespace
}  // namespace corral::plugins
