// InterPodAffinity args, signing, queueing hints (kube's plugin_test.go) and the affinity terms
// that ComputePodInfo derives for it (kube's framework.NewPodInfo plus the API server's
// matchLabelKeys merge).

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/inter_pod_affinity/test_util.h"

namespace corral::plugins::inter_pod_affinity {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::EventResource;
using framework::QueueingHint;
using testing::PodBuilder;
using testing::TestWorld;
using testutil::Cluster;
using testutil::Kind;

// ---- args ----

TEST(InterPodAffinityArgsTest, Validation) {
  InterPodAffinityArgs ok;
  EXPECT_TRUE(ValidateInterPodAffinityArgs(ok).ok());
  InterPodAffinityArgs zero;
  zero.hard_pod_affinity_weight = 0;
  EXPECT_TRUE(ValidateInterPodAffinityArgs(zero).ok());
  InterPodAffinityArgs high;
  high.hard_pod_affinity_weight = 101;
  auto r = ValidateInterPodAffinityArgs(high);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]");
  InterPodAffinityArgs low;
  low.hard_pod_affinity_weight = -1;
  r = ValidateInterPodAffinityArgs(low, "profiles[0].pluginConfig[0].args");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: -1: not in "
            "valid range [0, 100]");

  Cluster c;
  EXPECT_FALSE(InterPodAffinity::New(&high, c.handle()).ok());
  EXPECT_TRUE(InterPodAffinity::New(nullptr, c.handle()).ok());
  struct Other final : framework::PluginArgs {};
  Other other;
  auto foreign = InterPodAffinity::New(&other, c.handle());
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().message, "want args to be of type InterPodAffinityArgs");
}

// ---- signing ----

TEST(InterPodAffinitySignTest, LabelsOrUnsignable) {
  Cluster c;
  c.Build({}, {});
  auto pl = c.Plugin();
  std::vector<framework::SignFragment> frags;
  const auto& labelled =
      c.Incoming([](TestWorld&, PodBuilder& p) { p.Label("tier", "web").Label("app", "a<b"); });
  ASSERT_TRUE(pl->Sign(labelled, &frags).ok());
  ASSERT_EQ(frags.size(), 1u);
  EXPECT_EQ(frags[0].key, "v1.Pod.Labels");
  EXPECT_EQ(frags[0].value,
            "{\"app\":\"a\\u003cb\",\"tier\":\"web\"}");  // keys sorted, HTML-escaped like Go
  frags.clear();
  const auto& bare = c.Incoming([](TestWorld&, PodBuilder&) {});
  ASSERT_TRUE(pl->Sign(bare, &frags).ok());
  EXPECT_EQ(frags[0].value, "null");
  const auto& with_required = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.AffinityExists(Kind::kRequiredAntiAffinity, "app", "zone");
    p.AffinityExists(Kind::kPreferredAntiAffinity, "app", "zone");
  });
  EXPECT_EQ(pl->Sign(with_required, &frags).code(), framework::Code::kUnschedulable);
  // Corral (CorralBatchingRescoreHook, on by default): preferred-only terms are signed, with the
  // namespace and terms in a second fragment.
  const auto& with_preferred = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.AffinityExists(Kind::kPreferredAntiAffinity, "app", "zone");
  });
  const auto& with_other_preferred = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.AffinityExists(Kind::kPreferredAntiAffinity, "app", "region");
  });
  frags.clear();
  ASSERT_TRUE(pl->Sign(with_preferred, &frags).ok());
  ASSERT_EQ(frags.size(), 2u);
  EXPECT_EQ(frags[1].key, "corral.InterPodAffinity.Preferred");
  std::vector<framework::SignFragment> other;
  ASSERT_TRUE(pl->Sign(with_other_preferred, &other).ok());
  ASSERT_EQ(other.size(), 2u);
  EXPECT_NE(frags[1].value, other[1].value);
}

TEST(InterPodAffinitySignTest, PreferredTermsUnsignableWithoutTheRescoreHookGate) {
  Cluster c;
  ASSERT_TRUE(c.w().gates.Set("CorralBatchingRescoreHook", false).ok());  // kube's rule
  c.Build({}, {});
  auto pl = c.Plugin();
  std::vector<framework::SignFragment> frags;
  const auto& with_anti = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.AffinityExists(Kind::kPreferredAntiAffinity, "app", "zone");
  });
  EXPECT_EQ(pl->Sign(with_anti, &frags).code(), framework::Code::kUnschedulable);
}

// ---- events and hints ----

TEST(InterPodAffinityHintTest, Events) {
  Cluster c;
  auto pl = c.Plugin();
  auto events = pl->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].resource, EventResource::kPod);
  EXPECT_EQ(events[1].resource, EventResource::kNode);
}

TEST(InterPodAffinityHintTest, PodEvents) {
  // kube's Test_isSchedulableAfterPodChange.
  Cluster c;
  c.Build({}, {});
  auto& w = c.w();
  auto pl = c.Plugin();
  const auto& pod = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.Uid("p")
        .AffinityIn(Kind::kRequiredAffinity, "service", "region", {"securityscan"})
        .AffinityIn(Kind::kRequiredAntiAffinity, "service", "zone", {"value2"});
  });
  const auto& matching =
      w.Info(w.Pod("a").Uid("a").NodeName("n").Label("service", "securityscan").Obj());
  const auto& anti = w.Info(w.Pod("b").Uid("b").NodeName("n").Label("service", "value2").Obj());
  const auto& unassigned = w.Info(w.Pod("c").Uid("c").Label("service", "securityscan").Obj());
  const ClusterEvent add{EventResource::kPod, ActionType::kAdd};
  const ClusterEvent del{EventResource::kPod, ActionType::kDelete};
  const ClusterEvent upd{EventResource::kPod, ActionType::kUpdate};
  EXPECT_EQ(pl->Hint(pod, add, matching.pod), QueueingHint::kQueue);
  EXPECT_EQ(pl->Hint(pod, add, anti.pod), QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, add, unassigned.pod), QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, del, anti.pod), QueueingHint::kQueue);
  EXPECT_EQ(pl->Hint(pod, del, matching.pod), QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, upd, matching.pod), QueueingHint::kQueue);  // may have started matching
  EXPECT_EQ(pl->Hint(pod, upd, anti.pod), QueueingHint::kQueueSkip);  // still matches the anti term
  EXPECT_EQ(pl->Hint(pod, upd, pod.pod), QueueingHint::kQueue);       // its own labels
}

// The scheduler binds a pod in its cache and fires AssignedPod/Add with the pod object as it
// arrived (no nodeName): the event itself says the pod is assigned, so a pod it matches is queued
// (kube's AssignedPodAdd after a bind; event_handling's EventHandlingPodAdd unblocks this way).
TEST(InterPodAffinityHintTest, PodBoundByTheSchedulerQueuesWhatItMatches) {
  Cluster c;
  c.Build({}, {});
  auto& w = c.w();
  auto pl = c.Plugin();
  const auto& pod = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.Uid("p").AffinityIn(Kind::kRequiredAffinity, "color", "kubernetes.io/hostname", {"yellow-0"});
  });
  const auto& bound_by_scheduler = w.Info(w.Pod("u").Uid("u").Label("color", "yellow-0").Obj());
  const auto& other = w.Info(w.Pod("v").Uid("v").Label("color", "yellow-1").Obj());
  const ClusterEvent assigned_add{EventResource::kAssignedPod, ActionType::kAdd};
  const ClusterEvent pod_add{EventResource::kPod, ActionType::kAdd};
  EXPECT_EQ(pl->Hint(pod, assigned_add, bound_by_scheduler.pod), QueueingHint::kQueue);
  EXPECT_EQ(pl->Hint(pod, assigned_add, other.pod), QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, pod_add, bound_by_scheduler.pod), QueueingHint::kQueueSkip);
}

TEST(InterPodAffinityHintTest, NodeEvents) {
  Cluster c;
  c.Build({{"with-region", {{"region", "r1"}}}, {"without", {{"rack", "x"}}}}, {});
  auto pl = c.Plugin();
  const auto& pod = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.AffinityIn(Kind::kRequiredAffinity, "service", "region", {"securityscan"});
  });
  const ClusterEvent add{EventResource::kNode, ActionType::kAdd};
  EXPECT_EQ(pl->Hint(pod, add, c.Node("with-region").node()), QueueingHint::kQueue);
  EXPECT_EQ(pl->Hint(pod, add, c.Node("without").node()), QueueingHint::kQueueSkip);
}

// ---- PodInfo affinity terms ----

TEST(AffinityTermsTest, NamespacesAndWeights) {
  TestWorld w;
  api::PodAffinityTerm explicit_ns;
  explicit_ns.label_selector = w.Sel().Exists("a").Obj();
  explicit_ns.namespaces = {w.S("b"), w.S("a"), w.S("b")};
  explicit_ns.topology_key = w.S("zone");
  api::PodAffinityTerm selector_only;
  selector_only.label_selector = w.Sel().Exists("a").Obj();
  selector_only.namespace_selector = api::LabelSelector{};
  const auto& pod = w.Pod("p")
                        .Namespace("ns1")
                        .AffinityExists(Kind::kRequiredAffinity, "app", "zone")
                        .AffinityTerm(Kind::kPreferredAffinity, explicit_ns, 7)
                        .AffinityTerm(Kind::kRequiredAntiAffinity, selector_only)
                        .Obj();
  const framework::PodInfo& info = w.Info(pod);
  ASSERT_EQ(info.required_affinity_terms.size(), 1u);
  EXPECT_EQ(info.required_affinity_terms[0].namespaces,
            std::vector<Symbol>{w.S("ns1")});  // the pod's own
  EXPECT_EQ(info.required_affinity_terms[0].topology_key, w.S("zone"));
  ASSERT_EQ(info.preferred_affinity_terms.size(), 1u);
  EXPECT_EQ(info.preferred_affinity_terms[0].weight, 7);
  std::vector<Symbol> sorted = {w.S("b"), w.S("a")};
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(info.preferred_affinity_terms[0].namespaces, sorted);  // sorted, unique
  ASSERT_EQ(info.required_anti_affinity_terms.size(), 1u);
  EXPECT_TRUE(info.required_anti_affinity_terms[0].namespaces.empty());  // selector only
  EXPECT_TRUE(info.required_anti_affinity_terms[0].namespace_selector.has_value());
  EXPECT_TRUE(info.HasAffinity());
}

TEST(AffinityTermsTest, MatchLabelKeysAndMismatchLabelKeysAreMerged) {
  TestWorld w;
  api::PodAffinityTerm t;
  t.label_selector = w.Sel().Label("app", "web").Obj();
  t.topology_key = w.S("zone");
  t.match_label_keys = {w.S("rev"), w.S("absent")};
  t.mismatch_label_keys = {w.S("team")};
  api::PodAffinityTerm nil_selector = t;
  nil_selector.label_selector.reset();
  const auto& pod = w.Pod("p")
                        .Label("rev", "3")
                        .Label("team", "a")
                        .AffinityTerm(Kind::kRequiredAffinity, t)
                        .AffinityTerm(Kind::kRequiredAntiAffinity, nil_selector)
                        .Obj();
  const framework::PodInfo& info = w.Info(pod);
  const auto& sel = *info.required_affinity_terms[0].selector;
  // app=web AND rev In (3) AND team NotIn (a); "absent" is not a label of the pod.
  ASSERT_EQ(sel.match_expressions.size(), 2u);
  EXPECT_EQ(sel.match_expressions[0].key, w.S("rev"));
  EXPECT_EQ(sel.match_expressions[0].op, api::LabelSelectorOp::kIn);
  EXPECT_EQ(sel.match_expressions[0].values, std::vector<Symbol>{w.S("3")});
  EXPECT_EQ(sel.match_expressions[1].op, api::LabelSelectorOp::kNotIn);
  // A nil selector matches nothing and stays nil.
  EXPECT_FALSE(info.required_anti_affinity_terms[0].selector.has_value());
}

}  // namespace
}  // namespace corral::plugins::inter_pod_affinity
