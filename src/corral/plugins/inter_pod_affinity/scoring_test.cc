// InterPodAffinity PreScore / Score / NormalizeScore, after kube's scoring_test.go
// (TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight). Invalid-label
// cases are not ported (the loader rejects such pods).

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/inter_pod_affinity/test_util.h"

namespace corral::plugins::inter_pod_affinity {
namespace {

using framework::Code;
using testing::PodBuilder;
using testing::TestWorld;
using testutil::Cluster;
using testutil::Kind;
using testutil::Labels;
using testutil::NodeSpec;
using testutil::PodFn;

using AffinityFn = void (*)(TestWorld&, PodBuilder&);

api::PodAffinityTerm Term(TestWorld& w, api::LabelSelector sel, std::string_view topology) {
  api::PodAffinityTerm t;
  t.label_selector = std::move(sel);
  t.topology_key = w.S(topology);
  return t;
}

// kube's fixtures.
void StayWithS1InRegion(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kPreferredAffinity, Term(w, w.Sel().In("security", {"S1"}).Obj(), "region"),
                 5);
}
void StayWithS2InRegion(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kPreferredAffinity, Term(w, w.Sel().In("security", {"S2"}).Obj(), "region"),
                 6);
}
void Affinity3(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kPreferredAffinity,
                 Term(w, w.Sel().NotIn("security", {"S1"}).In("security", {"S2"}).Obj(), "region"),
                 8)
      .AffinityTerm(Kind::kPreferredAffinity,
                    Term(w, w.Sel().Exists("security").DoesNotExist("wrongkey").Obj(), "region"),
                    2);
}
void HardAffinity(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kRequiredAffinity,
                 Term(w, w.Sel().In("security", {"S1", "value2"}).Obj(), "region"))
      .AffinityTerm(Kind::kRequiredAffinity,
                    Term(w, w.Sel().Exists("security").DoesNotExist("wrongkey").Obj(), "region"));
}
void AwayFromS1InAz(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kPreferredAntiAffinity, Term(w, w.Sel().In("security", {"S1"}).Obj(), "az"),
                 5);
}
void AwayFromS2InAz(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kPreferredAntiAffinity, Term(w, w.Sel().In("security", {"S2"}).Obj(), "az"),
                 5);
}
void StayWithS1InRegionAwayFromS2InAz(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kPreferredAffinity, Term(w, w.Sel().In("security", {"S1"}).Obj(), "region"),
                 8)
      .AffinityTerm(Kind::kPreferredAntiAffinity,
                    Term(w, w.Sel().In("security", {"S2"}).Obj(), "az"), 5);
}
api::PodAffinityTerm NamespaceSelectorTerm(TestWorld& w) {
  api::PodAffinityTerm t = Term(w, w.Sel().In("security", {"S1"}).Obj(), "region");
  t.namespaces = {w.S("subteam2.team2")};
  t.namespace_selector = w.Sel().In("team", {"team1"}).Obj();
  return t;
}
void AffinityNamespaceSelector(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kPreferredAffinity, NamespaceSelectorTerm(w), 5);
}
void AntiAffinityNamespaceSelector(TestWorld& w, PodBuilder& p) {
  p.AffinityTerm(Kind::kPreferredAntiAffinity, NamespaceSelectorTerm(w), 5);
}

const Labels kS1 = {{"security", "S1"}};
const Labels kS2 = {{"security", "S2"}};
const Labels kChina = {{"region", "China"}};
const Labels kIndia = {{"region", "India"}};
const Labels kAz1 = {{"az", "az1"}};
const Labels kAz2 = {{"az", "az2"}};
const Labels kChinaAz1 = {{"region", "China"}, {"az", "az1"}};

// A pod with labels, optional affinity, namespace and node.
PodFn P(Labels labels, AffinityFn affinity = nullptr, std::string ns = "default",
        std::string node = "") {
  return [=](TestWorld& w, PodBuilder& p) {
    p.Namespace(ns);
    if (!node.empty()) p.NodeName(node);
    for (const auto& [k, v] : labels) p.Label(k, v);
    if (affinity != nullptr) affinity(w, p);
  };
}
PodFn On(std::string node, Labels labels, AffinityFn affinity = nullptr,
         std::string ns = "default") {
  return P(std::move(labels), affinity, std::move(ns), std::move(node));
}

struct Case {
  std::string name;
  PodFn pod;
  std::vector<PodFn> pods;
  std::vector<NodeSpec> nodes;
  std::vector<int64_t> want;  // per node; empty ⇒ PreScore must Skip
  InterPodAffinityArgs args;
};

void RunCases(const std::vector<Case>& cases) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Cluster c;
    c.AddTeamNamespaces();
    c.Build(tc.nodes, tc.pods);
    const auto& pod = c.Incoming(tc.pod);
    auto pl = c.Plugin(tc.args);
    std::vector<const framework::NodeInfo*> nodes;
    for (const auto& n : tc.nodes) nodes.push_back(&c.Node(n.name));
    framework::CycleState state;
    framework::Status pre = pl->PreScore(state, 0, pod, nodes);
    if (tc.want.empty()) {
      EXPECT_TRUE(pre.IsSkip()) << framework::CodeName(pre.code());
      continue;
    }
    ASSERT_TRUE(pre.ok()) << framework::CodeName(pre.code()) << " " << pre.Message();
    std::vector<framework::NodeScore> scores;
    for (const auto* n : nodes) {
      int64_t s = 0;
      ASSERT_TRUE(pl->Score(state, 0, pod, *n, &s).ok());
      scores.push_back({n->name(), s});
    }
    ASSERT_TRUE(pl->NormalizeScore(state, 0, pod, scores).ok());
    for (size_t i = 0; i < scores.size(); ++i)
      EXPECT_EQ(scores[i].score, tc.want[i]) << tc.nodes[i].name;
  }
}

InterPodAffinityArgs Ignore(bool ignore) {
  InterPodAffinityArgs a;
  a.ignore_preferred_terms_of_existing_pods = ignore;
  return a;
}
InterPodAffinityArgs HardWeight(int32_t w) {
  InterPodAffinityArgs a;
  a.hard_pod_affinity_weight = w;
  return a;
}

// Raw score = Σ over the node's labels of the topology score; normalized = 100 × (s − min) / (max −
// min), truncated (0 everywhere when max == min).
TEST(InterPodAffinityScoreTest, PreferredAffinity) {
  const std::vector<Case> cases = {
      {"all nodes are same priority as Affinity is nil",
       P(kS1),
       {},
       {{"node1", kChina}, {"node2", kIndia}, {"node3", kAz1}},
       {}},
      {// region China +5 (the S1 pod on node1); node3's S1 pod has no region label.
       "Affinity: pod that matches topology key & pods in nodes will get high score comparing to "
       "others which "
       "doesn't match either pods in nodes or in topology key",
       P(kS1, StayWithS1InRegion),
       {On("node1", kS1), On("node2", kS2), On("node3", kS1)},
       {{"node1", kChina}, {"node2", kIndia}, {"node3", kAz1}},
       {100, 0, 0}},
      {"All the nodes that have the same topology key & label value with one of them has an "
       "existing pod that "
       "match the affinity rules, have the same score",
       P({}, StayWithS1InRegion),
       {On("node1", kS1)},
       {{"node1", kChina}, {"node2", kChinaAz1}, {"node3", kIndia}},
       {100, 100, 0}},
      {// China 3 × 6 = 18, India 2 × 6 = 12 ⇒ China 100, India 0.
       "Affinity: nodes in one region has more matching pods comparing to other region, so the "
       "region which has "
       "more matches will get high score",
       P(kS1, StayWithS2InRegion),
       {On("node1", kS2), On("node1", kS2), On("node2", kS2), On("node3", kS2), On("node4", kS2),
        On("node5", kS2)},
       {{"node1", kChina},
        {"node2", kIndia},
        {"node3", kChina},
        {"node4", kChina},
        {"node5", kIndia}},
       {100, 0, 100, 100, 0}},
      {// China: +2 (S1 pod, second term); India: +8 (S2 pod, first term) + 2 = 10; node3 has no
       // region. min 0, max 10: node1 100 × 2/10 = 20.
       "Affinity: different Label operators and values for pod affinity scheduling preference, "
       "including some "
       "match failures ",
       P(kS1, Affinity3),
       {On("node1", kS1), On("node2", kS2), On("node3", kS1)},
       {{"node1", kChina}, {"node2", kIndia}, {"node3", kAz1}},
       {20, 100, 0}},
      {// Symmetry: node2's pod prefers S2 in its region (+6 India); node1's pod prefers S1 (no
       // match).
       "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in "
       "pod affinity "
       "symmetry",
       P(kS2),
       {On("node1", kS1, StayWithS1InRegion), On("node2", kS2, StayWithS2InRegion)},
       {{"node1", kChina}, {"node2", kIndia}, {"node3", kAz1}},
       {0, 100, 0}},
      {// The incoming pod's namespace subteam1.team1 is selected by node1's pod's
       // namespaceSelector: China +5.
       "Affinity symmetry with namespace selector",
       P(kS1, nullptr, "subteam1.team1"),
       {On("node1", kS1, AffinityNamespaceSelector), On("node2", kS2, StayWithS2InRegion)},
       {{"node1", kChina}, {"node2", kIndia}, {"node3", kAz1}},
       {100, 0, 0}},
      {// China −5: min −5, max 0 ⇒ node1 0, others 100.
       "AntiAffinity symmetry with namespace selector",
       P(kS1, nullptr, "subteam1.team1"),
       {On("node1", kS1, AntiAffinityNamespaceSelector), On("node2", kS2, StayWithS2InRegion)},
       {{"node1", kChina}, {"node2", kIndia}, {"node3", kAz1}},
       {0, 100, 100}},
      {// Existing pods' required affinity terms matching the incoming pod: +1
       // (hardPodAffinityWeight) per term: node1's pod: 2 terms ⇒ China +2; node2's pod ⇒ India +2.
       "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod "
       "affinity symmetry",
       P(kS1),
       {On("node1", kS1, HardAffinity), On("node2", kS2, HardAffinity)},
       {{"node1", kChina}, {"node2", kIndia}, {"node3", kAz1}},
       {100, 100, 0}},
      {"Anti Affinity: pod that does not match existing pods in node will get high score ",
       P(kS1, AwayFromS1InAz),
       {On("node1", kS1), On("node2", kS2)},
       {{"node1", kAz1}, {"node2", kChina}},
       {0, 100}},
      {"Anti Affinity: pod that does not match topology key & match the pods in nodes will get "
       "higher score "
       "comparing to others ",
       P(kS1, AwayFromS1InAz),
       {On("node1", kS1), On("node2", kS1)},
       {{"node1", kAz1}, {"node2", kChina}},
       {0, 100}},
      {"Anti Affinity: one node has more matching pods comparing to other node, so the node which "
       "has more "
       "unmatches will get high score",
       P(kS1, AwayFromS1InAz),
       {On("node1", kS1), On("node1", kS1), On("node2", kS2)},
       {{"node1", kAz1}, {"node2", kIndia}},
       {0, 100}},
      {"Anti Affinity symmetry: the existing pods in node which has anti affinity match will get "
       "high score",
       P(kS2),
       {On("node1", kS1, AwayFromS2InAz), On("node2", kS2, AwayFromS1InAz)},
       {{"node1", kAz1}, {"node2", kAz2}},
       {0, 100}},
      {"Affinity and Anti Affinity: considered only "
       "preferredDuringSchedulingIgnoredDuringExecution in both pod "
       "affinity & anti affinity",
       P(kS1, StayWithS1InRegionAwayFromS2InAz),
       {On("node1", kS1), On("node2", kS1)},
       {{"node1", kChina}, {"node2", kAz1}},
       {100, 0}},
      {"Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to "
       "schedule and existing "
       "pods have the same labels",
       P(kS1, StayWithS1InRegionAwayFromS2InAz),
       {On("node1", kS1), On("node1", kS1), On("node2", kS1), On("node3", kS1), On("node3", kS1),
        On("node4", kS1), On("node5", kS1)},
       {{"node1", kChinaAz1},
        {"node2", kIndia},
        {"node3", kChina},
        {"node4", kChina},
        {"node5", kIndia}},
       {100, 0, 100, 100, 0}},
      {// Affinity 8, 0, 0, 0; anti −5 on node2 (az1); symmetry +8 India (node3's pod prefers S1 in
       // region); anti symmetry −5 on az2 (node4's pod avoids S1): 8, −5, 8, −5.
       "Affinity and Anti Affinity and symmetry: considered only "
       "preferredDuringSchedulingIgnoredDuringExecution "
       "in both pod affinity & anti affinity & symmetry",
       P(kS1, StayWithS1InRegionAwayFromS2InAz),
       {On("node1", kS1), On("node2", kS2), On("node3", {}, StayWithS1InRegionAwayFromS2InAz),
        On("node4", {}, AwayFromS1InAz)},
       {{"node1", kChina}, {"node2", kAz1}, {"node3", kIndia}, {"node4", kAz2}},
       {100, 0, 100, 0}},
      {// kube #82796: node2's pod prefers S1 in its region, matching the incoming pod: China +8 for
       // both nodes.
       "Avoid panic when partial nodes in a topology don't have pods with affinity",
       P(kS1),
       {On("node1", kS1), On("node2", {}, StayWithS1InRegionAwayFromS2InAz)},
       {{"node1", kChina}, {"node2", kChina}},
       {0, 0}},
      {// namespaces [subteam2.team2] ∪ namespaces labelled team1: node1 gets the two subteam1.team1
       // pods (+10), node2 the subteam2.team1 pod (+5): 10 vs 5 ⇒ 100, 0.
       "Affinity with pods matching NamespaceSelector",
       P(kS1, AffinityNamespaceSelector, "subteam1.team1"),
       {On("node1", kS1, nullptr, "subteam1.team1"), On("node1", kS1, nullptr, "subteam1.team1"),
        On("node1", kS1, nullptr, "subteam1.team2"), On("node2", kS1, nullptr, "subteam2.team1")},
       {{"node1", kChina}, {"node2", kIndia}},
       {100, 0}},
      {"Affinity with pods matching both NamespaceSelector and Namespaces fields",
       P(kS1, AffinityNamespaceSelector, "subteam1.team1"),
       {On("node1", kS1, nullptr, "subteam1.team1"), On("node1", kS1, nullptr, "subteam1.team1"),
        On("node1", kS1, nullptr, "subteam2.team2"), On("node2", kS1, nullptr, "subteam2.team1")},
       {{"node1", kChina}, {"node2", kIndia}},
       {100, 0}},
      {"Anti-affinity with pods matching NamespaceSelector",
       P(kS1, AntiAffinityNamespaceSelector, "subteam1.team1"),
       {On("node1", kS1, nullptr, "subteam1.team1"), On("node1", kS1, nullptr, "subteam1.team1"),
        On("node1", kS1, nullptr, "subteam1.team2"), On("node2", kS1, nullptr, "subteam2.team1")},
       {{"node1", kChina}, {"node2", kIndia}},
       {0, 100}},
      {"Anti-affinity with pods matching both NamespaceSelector and Namespaces fields",
       P(kS1, AntiAffinityNamespaceSelector, "subteam1.team1"),
       {On("node1", kS1, nullptr, "subteam1.team1"), On("node1", kS1, nullptr, "subteam1.team1"),
        On("node1", kS1, nullptr, "subteam2.team2"), On("node2", kS1, nullptr, "subteam2.team1")},
       {{"node1", kChina}, {"node2", kIndia}},
       {0, 100}},
      {"Ignore preferred terms of existing pods",
       P(kS2),
       {On("node1", kS1, StayWithS1InRegionAwayFromS2InAz), On("node2", kS2, StayWithS2InRegion)},
       {{"node1", kChina}, {"node2", kIndia}},
       {},
       Ignore(true)},
      {"Do not ignore preferred terms of existing pods",
       P(kS2),
       {On("node1", kS1, StayWithS1InRegionAwayFromS2InAz), On("node2", kS2, StayWithS2InRegion)},
       {{"node1", kChina}, {"node2", kIndia}},
       {0, 100},
       Ignore(false)},
      {"No nodes to score", P(kS2), {}, {}, {}},
  };
  RunCases(cases);
}

TEST(InterPodAffinityScoreTest, HardPodAffinitySymmetricWeight) {
  // Existing pods require service=S1 in their region, in namespaces {"", subteam2.team2} ∪ team1's.
  auto hard = [](TestWorld& w, PodBuilder& p) {
    api::PodAffinityTerm t = Term(w, w.Sel().In("service", {"S1"}).Obj(), "region");
    t.namespaces = {w.S(""), w.S("subteam2.team2")};
    std::sort(t.namespaces.begin(), t.namespaces.end());
    t.namespace_selector = w.Sel().In("team", {"team1"}).Obj();
    p.AffinityTerm(Kind::kRequiredAffinity, t);
  };
  const Labels s1 = {{"service", "S1"}};
  const std::vector<NodeSpec> nodes = {{"node1", kChina}, {"node2", kIndia}, {"node3", kAz1}};
  const std::vector<PodFn> pods = {On("node1", {}, hard), On("node2", {}, hard)};
  const std::vector<Case> cases = {
      {"with default weight", P(s1, nullptr, ""), pods, nodes, {100, 100, 0}, HardWeight(1)},
      {"with zero weight", P(s1, nullptr, ""), pods, nodes, {}, HardWeight(0)},
      {"with no matching namespace",
       P(s1, nullptr, "subteam1.team2"),
       pods,
       nodes,
       {},
       HardWeight(1)},
      {"with matching NamespaceSelector",
       P(s1, nullptr, "subteam1.team1"),
       pods,
       nodes,
       {100, 100, 0},
       HardWeight(1)},
      {"with matching Namespaces",
       P(s1, nullptr, "subteam2.team2"),
       pods,
       nodes,
       {100, 100, 0},
       HardWeight(1)},
  };
  RunCases(cases);
}

TEST(InterPodAffinityScoreTest, NormalizeOfNoScoresIsANoOp) {
  // A batching rescore with no changed node (or every node filtered out) normalizes an empty
  // list after a PreScore that found terms: nothing to do, and no max - min over nothing (which
  // overflowed int64; UBSan in `make asan` reports it).
  Cluster c;
  c.AddTeamNamespaces();
  c.Build({{"node1", kChina}}, {On("node1", kS1)});
  const auto& pod = c.Incoming([](TestWorld& w, PodBuilder& p) {
    p.AffinityTerm(Kind::kPreferredAffinity,
                   Term(w, w.Sel().In("security", {"S1"}).Obj(), "region"), 9);
  });
  auto pl = c.Plugin();
  std::vector<const framework::NodeInfo*> nodes = {&c.Node("node1")};
  framework::CycleState state;
  ASSERT_TRUE(pl->PreScore(state, 0, pod, nodes).ok());
  std::vector<framework::NodeScore> scores;
  framework::Status st = pl->NormalizeScore(state, 0, pod, scores);
  EXPECT_TRUE(st.ok()) << st.Message();
  EXPECT_TRUE(scores.empty());
}

TEST(InterPodAffinityScoreTest, NormalizeUsesV137Bounds) {
  // All raw scores positive and unequal: China +9 (the S1 pod, weight 9), India +3 (the S2 pod,
  // weight 3). v1.37 starts min at MaxInt64, so min 3, max 9: 100 and 0. (Older kube started min
  // and max at 0 and gave India 100 × 3 / 9 = 33.)
  Cluster c;
  c.AddTeamNamespaces();
  auto pref = [](TestWorld& w, PodBuilder& p) {
    p.AffinityTerm(Kind::kPreferredAffinity,
                   Term(w, w.Sel().In("security", {"S1"}).Obj(), "region"), 9)
        .AffinityTerm(Kind::kPreferredAffinity,
                      Term(w, w.Sel().In("security", {"S2"}).Obj(), "region"), 3);
  };
  c.Build({{"node1", kChina}, {"node2", kIndia}}, {On("node1", kS1), On("node2", kS2)});
  const auto& pod_pref = c.Incoming([&](TestWorld& w, PodBuilder& p) { pref(w, p); });
  auto pl = c.Plugin();
  std::vector<const framework::NodeInfo*> nodes = {&c.Node("node1"), &c.Node("node2")};
  framework::CycleState state;
  ASSERT_TRUE(pl->PreScore(state, 0, pod_pref, nodes).ok());
  std::vector<framework::NodeScore> scores;
  for (const auto* n : nodes) {
    int64_t s = 0;
    ASSERT_TRUE(pl->Score(state, 0, pod_pref, *n, &s).ok());
    scores.push_back({n->name(), s});
  }
  EXPECT_EQ(scores[0].score, 9);
  EXPECT_EQ(scores[1].score, 3);
  ASSERT_TRUE(pl->NormalizeScore(state, 0, pod_pref, scores).ok());
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 0);
}

}  // namespace
}  // namespace corral::plugins::inter_pod_affinity
