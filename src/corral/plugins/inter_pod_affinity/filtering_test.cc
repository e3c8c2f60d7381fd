// InterPodAffinity PreFilter / Filter / PreFilterExtensions, after kube's filtering_test.go
// (TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes,
// TestPreFilterStateAddRemovePod). kube's "invalid label syntax" cases are not ported: Corral's
// loader rejects such pods, as the API server does.

#include <optional>
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
using testutil::NodeSpec;
using testutil::PodFn;

constexpr Code kOk = Code::kSuccess;
constexpr Code kUnsched = Code::kUnschedulable;
constexpr Code kUU = Code::kUnschedulableAndUnresolvable;
constexpr auto kReqAff = Kind::kRequiredAffinity;
constexpr auto kReqAnti = Kind::kRequiredAntiAffinity;

// The expected Filter outcome: a code and, for failures, kube's reason.
struct Want {
  Code code = kOk;
  std::string_view reason;
};
const Want kPass{};
const Want kAffinityFail{kUU, InterPodAffinity::kErrReasonAffinityRulesNotMatch};
const Want kAntiFail{kUnsched, InterPodAffinity::kErrReasonAntiAffinityRulesNotMatch};
const Want kExistingFail{kUnsched, InterPodAffinity::kErrReasonExistingAntiAffinityRulesNotMatch};

struct Case {
  std::string name;
  PodFn pod;
  std::vector<PodFn> existing;
  std::vector<NodeSpec> nodes;
  std::vector<Want> want;  // per node; empty ⇒ PreFilter must Skip
};

void RunCases(const std::vector<Case>& cases, bool team_namespaces) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Cluster c;
    if (team_namespaces) c.AddTeamNamespaces();
    c.AddNamespace("NS1");
    c.Build(tc.nodes, tc.existing);
    const auto& pod = c.Incoming(tc.pod);
    auto pl = c.Plugin();
    framework::CycleState state;
    framework::PreFilterResult r;
    framework::Status pre = pl->PreFilter(state, 0, pod, c.handle().snapshot(), &r);
    if (tc.want.empty()) {
      EXPECT_TRUE(pre.IsSkip()) << framework::CodeName(pre.code());
      continue;
    }
    ASSERT_TRUE(pre.ok()) << framework::CodeName(pre.code()) << " " << pre.Message();
    ASSERT_EQ(tc.want.size(), tc.nodes.size());
    for (size_t i = 0; i < tc.nodes.size(); ++i) {
      framework::Status st = pl->Filter(state, 0, pod, c.Node(tc.nodes[i].name));
      EXPECT_EQ(st.code(), tc.want[i].code) << tc.nodes[i].name << ": " << st.Message();
      if (tc.want[i].code != kOk) {
        EXPECT_EQ(st.Message(), tc.want[i].reason) << tc.nodes[i].name;
      }
    }
  }
}

// A term `key op values` over `topology` with a namespace selector team In (team).
api::PodAffinityTerm TeamTerm(TestWorld& w, std::string_view topology,
                              std::optional<std::string_view> team) {
  api::PodAffinityTerm t;
  t.label_selector = w.Sel().In("service", {"securityscan", "value2"}).Obj();
  t.topology_key = w.S(topology);
  if (team) {
    t.namespace_selector = w.Sel().In("team", {*team}).Obj();
  } else {
    t.namespace_selector = api::LabelSelector{};  // all namespaces
  }
  return t;
}

TEST(InterPodAffinityFilterTest, RequiredAffinitySingleNode) {
  const std::vector<NodeSpec> node1 = {{"node1", {{"region", "r1"}, {"zone", "z11"}}}};
  // kube's `pod`: service=securityscan on node1.
  const PodFn scan = [](TestWorld&, PodBuilder& p) {
    p.Label("service", "securityscan").NodeName("node1");
  };
  const std::vector<Case> cases = {
      {"A pod that has no required pod affinity scheduling rules can schedule onto a node with no "
       "existing pods",
       [](TestWorld&, PodBuilder&) {},
       {},
       node1,
       {}},
      {"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
       "operator that "
       "matches the existing pod",
       [](TestWorld&, PodBuilder& p) {
         p.Label("security", "S1")
             .AffinityIn(kReqAff, "service", "region", {"securityscan", "value2"});
       },
       {scan},
       node1,
       {kPass}},
      {"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using "
       "not in "
       "operator in labelSelector that matches the existing pod",
       [](TestWorld&, PodBuilder& p) {
         p.Label("security", "S1")
             .AffinityNotIn(kReqAff, "service", "region", {"securityscan3", "value3"});
       },
       {scan},
       node1,
       {kPass}},
      {"Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
       [](TestWorld& w, PodBuilder& p) {
         api::PodAffinityTerm t;
         t.label_selector = w.Sel().In("service", {"securityscan", "value2"}).Obj();
         t.namespaces = {w.S("DiffNameSpace")};
         p.Label("security", "S1").AffinityTerm(kReqAff, t);
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Namespace("ns").Label("service", "securityscan").NodeName("node1");
       }},
       node1,
       {kAffinityFail}},
      {"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
       [](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .AffinityIn(kReqAff, "service", "", {"antivirusscan", "value2"});
       },
       {scan},
       node1,
       {kAffinityFail}},
      {"satisfies the PodAffinity with different label Operators in multiple "
       "RequiredDuringSchedulingIgnored"
       "DuringExecution ",
       [](TestWorld& w, PodBuilder& p) {
         api::PodAffinityTerm t1, t2;
         t1.label_selector = w.Sel().Exists("service").DoesNotExist("wrongkey").Obj();
         t1.topology_key = w.S("region");
         t2.label_selector =
             w.Sel().In("service", {"securityscan"}).NotIn("service", {"WrongValue"}).Obj();
         t2.topology_key = w.S("region");
         p.Label("security", "S1").AffinityTerm(kReqAff, t1).AffinityTerm(kReqAff, t2);
       },
       {scan},
       node1,
       {kPass}},
      {"The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot "
       "schedule onto the "
       "node because one of the matchExpression item don't match.",
       [](TestWorld& w, PodBuilder& p) {
         api::PodAffinityTerm t1, t2;
         t1.label_selector = w.Sel().Exists("service").DoesNotExist("wrongkey").Obj();
         t1.topology_key = w.S("region");
         t2.label_selector =
             w.Sel().In("service", {"securityscan2"}).NotIn("service", {"WrongValue"}).Obj();
         t2.topology_key = w.S("region");
         p.Label("security", "S1").AffinityTerm(kReqAff, t1).AffinityTerm(kReqAff, t2);
       },
       {scan},
       node1,
       {kAffinityFail}},
      {"satisfies the PodAffinity and PodAntiAffinity with the existing pod",
       [](TestWorld&, PodBuilder& p) {
         p.Label("security", "S1")
             .AffinityIn(kReqAff, "service", "region", {"securityscan", "value2"})
             .AffinityIn(kReqAnti, "service", "node", {"antivirusscan", "value2"});
       },
       {scan},
       node1,
       {kPass}},
      {"satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
       "existing pod",
       [](TestWorld&, PodBuilder& p) {
         p.Label("security", "S1")
             .AffinityIn(kReqAff, "service", "region", {"securityscan", "value2"})
             .AffinityIn(kReqAnti, "service", "node", {"antivirusscan", "value2"});
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .NodeName("node1")
             .AffinityIn(kReqAnti, "service", "node", {"antivirusscan", "value2"});
       }},
       node1,
       {kPass}},
      {"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
       [](TestWorld&, PodBuilder& p) {
         p.Label("security", "S1")
             .AffinityIn(kReqAff, "service", "region", {"securityscan", "value2"})
             .AffinityIn(kReqAnti, "service", "zone", {"securityscan", "value2"});
       },
       {scan},
       node1,
       {kAntiFail}},
      {"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry "
       "with the "
       "existing pod",
       [](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .AffinityIn(kReqAff, "service", "region", {"securityscan", "value2"})
             .AffinityIn(kReqAnti, "service", "node", {"antivirusscan", "value2"});
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .NodeName("node1")
             .AffinityIn(kReqAnti, "service", "zone", {"securityscan", "value2"});
       }},
       node1,
       {kExistingFail}},
      {"pod matches its own Label in PodAffinity and that matches the existing pod Labels",
       [](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .AffinityNotIn(kReqAff, "service", "region", {"securityscan", "value2"});
       },
       {[](TestWorld&, PodBuilder& p) { p.Label("service", "securityscan").NodeName("node2"); }},
       node1,
       {kAffinityFail}},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. "
       "doesn't satisfy PodAntiAffinity symmetry with the existing pod",
       [](TestWorld&, PodBuilder& p) { p.Label("service", "securityscan"); },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .NodeName("node1")
             .AffinityIn(kReqAnti, "service", "zone", {"securityscan", "value2"});
       }},
       node1,
       {kExistingFail}},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. "
       "satisfy PodAntiAffinity symmetry with the existing pod",
       [](TestWorld&, PodBuilder& p) { p.Label("service", "securityscan"); },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .NodeName("node1")
             .AffinityNotIn(kReqAnti, "service", "zone", {"securityscan", "value2"});
       }},
       node1,
       {}},
      {"satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
       "symmetry with "
       "incoming pod",
       [](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .AffinityExists(kReqAnti, "service", "region")
             .AffinityExists(kReqAnti, "security", "region");
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("security", "S1").NodeName("node1").AffinityExists(kReqAnti, "security", "zone");
       }},
       node1,
       {kAntiFail}},
      {"PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each "
       "other on "
       "AffinityTerms",
       [](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .AffinityExists(kReqAnti, "service", "zone")
             .AffinityExists(kReqAnti, "security", "zone");
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("security", "S1").NodeName("node1").AffinityExists(kReqAnti, "security", "zone");
       }},
       node1,
       {kAntiFail}},
      {"PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each "
       "other on "
       "AffinityTerms",
       [](TestWorld&, PodBuilder& p) {
         p.Label("security", "S1").AffinityExists(kReqAnti, "security", "zone");
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("service", "securityscan")
             .NodeName("node1")
             .AffinityExists(kReqAnti, "service", "zone")
             .AffinityExists(kReqAnti, "security", "zone");
       }},
       node1,
       {kExistingFail}},
      {"PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each "
       "other on "
       "AffinityTerms",
       [](TestWorld&, PodBuilder& p) {
         p.Label("abc", "")
             .Label("xyz", "")
             .AffinityExists(kReqAnti, "abc", "zone")
             .AffinityExists(kReqAnti, "def", "zone");
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("def", "")
             .Label("xyz", "")
             .NodeName("node1")
             .AffinityExists(kReqAnti, "abc", "zone")
             .AffinityExists(kReqAnti, "def", "zone");
       }},
       node1,
       {kAntiFail}},
      {"PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each "
       "other on "
       "AffinityTerms",
       [](TestWorld&, PodBuilder& p) {
         p.Label("def", "")
             .Label("xyz", "")
             .AffinityExists(kReqAnti, "abc", "zone")
             .AffinityExists(kReqAnti, "def", "zone");
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Label("abc", "")
             .Label("xyz", "")
             .NodeName("node1")
             .AffinityExists(kReqAnti, "abc", "zone")
             .AffinityExists(kReqAnti, "def", "zone");
       }},
       node1,
       {kAntiFail}},
      {"affinity with NamespaceSelector",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("security", "S1").AffinityTerm(kReqAff, TeamTerm(w, "region", "team1"));
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Namespace("subteam1.team1").Label("service", "securityscan").NodeName("node1");
       }},
       node1,
       {kPass}},
      {"affinity with non-matching NamespaceSelector",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("security", "S1").AffinityTerm(kReqAff, TeamTerm(w, "region", "team1"));
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Namespace("subteam1.team2").Label("service", "securityscan").NodeName("node1");
       }},
       node1,
       {kAffinityFail}},
      {"anti-affinity with matching NamespaceSelector",
       [](TestWorld& w, PodBuilder& p) {
         p.Namespace("subteam1.team1")
             .Label("security", "S1")
             .AffinityTerm(kReqAnti, TeamTerm(w, "zone", "team1"));
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Namespace("subteam2.team1").Label("service", "securityscan").NodeName("node1");
       }},
       node1,
       {kAntiFail}},
      {"anti-affinity with matching all NamespaceSelector",
       [](TestWorld& w, PodBuilder& p) {
         p.Namespace("subteam1.team1")
             .Label("security", "S1")
             .AffinityTerm(kReqAnti, TeamTerm(w, "zone", std::nullopt));
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Namespace("subteam2.team1").Label("service", "securityscan").NodeName("node1");
       }},
       node1,
       {kAntiFail}},
      {"anti-affinity with non-matching NamespaceSelector",
       [](TestWorld& w, PodBuilder& p) {
         p.Namespace("subteam1.team1")
             .Label("security", "S1")
             .AffinityTerm(kReqAnti, TeamTerm(w, "zone", "team1"));
       },
       {[](TestWorld&, PodBuilder& p) {
         p.Namespace("subteam1.team2").Label("service", "securityscan").NodeName("node1");
       }},
       node1,
       {kPass}},
  };
  RunCases(cases, /*team_namespaces=*/true);
}

TEST(InterPodAffinityFilterTest, RequiredAffinityMultipleNodes) {
  const NodeSpec china_a{"nodeA", {{"region", "China"}}};
  const NodeSpec china_az1_b{"nodeB", {{"region", "China"}, {"az", "az1"}}};
  const NodeSpec india_c{"nodeC", {{"region", "India"}}};
  const NodeSpec r1z1_a{"nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}};
  const NodeSpec r1z1_b{"nodeB", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeB"}}};
  const NodeSpec r1z2_b{"nodeB", {{"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}}};
  auto on = [](std::string node, std::vector<std::pair<std::string, std::string>> labels) -> PodFn {
    return [node, labels](TestWorld&, PodBuilder& p) {
      p.NodeName(node);
      for (const auto& [k, v] : labels) p.Label(k, v);
    };
  };
  const std::vector<Case> cases = {
      {"A pod can be scheduled onto all the nodes that have the same topology key & label value "
       "with one of them "
       "has an existing pod that matches the affinity rules",
       [](TestWorld&, PodBuilder& p) { p.AffinityIn(kReqAff, "foo", "region", {"bar"}); },
       {on("node1", {{"foo", "bar"}})},
       {{"node1", {{"region", "China"}}},
        {"node2", {{"region", "China"}, {"az", "az1"}}},
        {"node3", {{"region", "India"}}}},
       {kPass, kPass, kAffinityFail}},
      {"The affinity rule is to schedule all of the pods of this collection to the same zone. The "
       "first pod of the "
       "collection should not be blocked from being scheduled onto any node, even there's no "
       "existing pod that "
       "matches the rule anywhere.",
       [](TestWorld&, PodBuilder& p) {
         p.Label("foo", "bar")
             .Label("service", "securityscan")
             .AffinityIn(kReqAff, "foo", "zone", {"bar"})
             .AffinityIn(kReqAff, "service", "zone", {"securityscan"});
       },
       {on("nodeA", {{"foo", "bar"}})},
       {{"nodeA", {{"zone", "az1"}, {"hostname", "h1"}}},
        {"nodeB", {{"zone", "az2"}, {"hostname", "h2"}}}},
       {kPass, kPass}},
      {"The first pod of the collection can only be scheduled on nodes labelled with the requested "
       "topology keys",
       [](TestWorld&, PodBuilder& p) {
         p.Label("foo", "bar")
             .Label("service", "securityscan")
             .AffinityIn(kReqAff, "foo", "zone", {"bar"})
             .AffinityIn(kReqAff, "service", "zone", {"securityscan"});
       },
       {on("nodeA", {{"foo", "bar"}})},
       {{"nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}},
        {"nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}}}},
       {kAffinityFail, kAffinityFail}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod "
       "affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
       [](TestWorld&, PodBuilder& p) { p.AffinityIn(kReqAnti, "foo", "region", {"abc"}); },
       {on("nodeA", {{"foo", "abc"}})},
       {{"nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}},
        {"nodeB", {{"region", "r1"}, {"hostname", "nodeB"}}}},
       {kAntiFail, kAntiFail}},
      {"This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule "
       "matches a pod.",
       [](TestWorld&, PodBuilder& p) {
         p.AffinityIn(kReqAnti, "foo", "region", {"abc"})
             .AffinityIn(kReqAnti, "service", "zone", {"securityscan"});
       },
       {on("nodeA", {{"foo", "abc"}, {"service", "securityscan"}})},
       {{"nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}},
        {"nodeB", {{"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}}}},
       {kAntiFail, kAntiFail}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod "
       "affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto "
       "nodeC",
       [](TestWorld&, PodBuilder& p) { p.AffinityIn(kReqAnti, "foo", "region", {"abc"}); },
       {on("nodeA", {{"foo", "abc"}})},
       {china_a, china_az1_b, india_c},
       {kAntiFail, kAntiFail, kPass}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod "
       "affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto "
       "nodeC (NodeC has "
       "an existing pod that match the inter pod affinity rule but in different namespace)",
       [](TestWorld&, PodBuilder& p) {
         p.Namespace("NS1").Label("foo", "123").AffinityIn(kReqAnti, "foo", "region", {"bar"});
       },
       {[](TestWorld&, PodBuilder& p) { p.NodeName("nodeA").Namespace("NS1").Label("foo", "bar"); },
        [](TestWorld&, PodBuilder& p) {
          p.NodeName("nodeC").Namespace("NS2").AffinityIn(kReqAnti, "foo", "region", {"123"});
        }},
       {china_a, china_az1_b, india_c},
       {kAntiFail, kAntiFail, kPass}},
      {"Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
       "labelSelector of "
       "the term is firstly checked, and then topologyKey of the term is also checked",
       [](TestWorld&, PodBuilder& p) { p.Label("foo", ""); },
       {[](TestWorld&, PodBuilder& p) {
         p.NodeName("nodeA").AffinityExists(kReqAnti, "foo", "invalid-node-label");
       }},
       {r1z1_a, r1z1_b},
       {}},
      {"Test incoming pod's anti-affinity: even if labelSelector matches, we still check if "
       "topologyKey matches",
       [](TestWorld&, PodBuilder& p) {
         p.NodeName("nodeA").AffinityExists(kReqAnti, "foo", "invalid-node-label");
       },
       {on("nodeA", {{"foo", ""}})},
       {r1z1_a, r1z1_b},
       {kPass, kPass}},
      {"Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it "
       "violates each "
       "existingPod's terms on all nodes",
       [](TestWorld&, PodBuilder& p) { p.Label("foo", "").Label("bar", ""); },
       {[](TestWorld&, PodBuilder& p) {
          p.NodeName("nodeA").AffinityExists(kReqAnti, "foo", "zone");
        },
        [](TestWorld&, PodBuilder& p) {
          p.NodeName("nodeA").AffinityExists(kReqAnti, "bar", "region");
        }},
       {r1z1_a, r1z2_b},
       {kExistingFail, kExistingFail}},
      {"Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at "
       "least violates one "
       "anti-affinity rule of existingPod",
       [](TestWorld&, PodBuilder& p) {
         p.AffinityExists(kReqAnti, "foo", "zone").AffinityExists(kReqAnti, "bar", "region");
       },
       {on("nodeA", {{"foo", ""}}), on("nodeB", {{"bar", ""}})},
       {r1z1_a, r1z2_b},
       {kAntiFail, kAntiFail}},
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a "
       "single term match - case when one term has invalid topologyKey",
       [](TestWorld&, PodBuilder& p) { p.Label("foo", "").Label("bar", ""); },
       {[](TestWorld&, PodBuilder& p) {
         p.NodeName("nodeA")
             .AffinityExists(kReqAnti, "foo", "invalid-node-label")
             .AffinityExists(kReqAnti, "bar", "zone");
       }},
       {r1z1_a, r1z2_b},
       {kExistingFail, kPass}},
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a "
       "single term match - case when one term has invalid topologyKey",
       [](TestWorld&, PodBuilder& p) {
         p.AffinityExists(kReqAnti, "foo", "invalid-node-label")
             .AffinityExists(kReqAnti, "bar", "zone");
       },
       {on("nodeA", {{"foo", ""}, {"bar", ""}})},
       {r1z1_a, r1z2_b},
       {kAntiFail, kPass}},
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a "
       "single term match - case when all terms have valid topologyKey",
       [](TestWorld&, PodBuilder& p) { p.Label("foo", "").Label("bar", ""); },
       {[](TestWorld&, PodBuilder& p) {
         p.NodeName("nodeA")
             .AffinityExists(kReqAnti, "foo", "region")
             .AffinityExists(kReqAnti, "bar", "zone");
       }},
       {r1z1_a, r1z2_b},
       {kExistingFail, kExistingFail}},
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a "
       "single term match - case when all terms have valid topologyKey",
       [](TestWorld&, PodBuilder& p) {
         p.AffinityExists(kReqAnti, "foo", "region").AffinityExists(kReqAnti, "bar", "zone");
       },
       {on("nodeA", {{"foo", ""}, {"bar", ""}})},
       {r1z1_a, r1z2_b},
       {kAntiFail, kAntiFail}},
      {"Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one "
       "anti-affinity term "
       "matches incoming pod, so incoming pod can only be scheduled to nodeC",
       [](TestWorld&, PodBuilder& p) { p.Label("foo", "").Label("bar", ""); },
       {[](TestWorld&, PodBuilder& p) {
          p.NodeName("nodeA")
              .AffinityExists(kReqAnti, "foo", "zone")
              .AffinityExists(kReqAnti, "labelA", "zone");
        },
        [](TestWorld&, PodBuilder& p) {
          p.NodeName("nodeB")
              .AffinityExists(kReqAnti, "bar", "zone")
              .AffinityExists(kReqAnti, "labelB", "zone");
        }},
       {r1z1_a, r1z2_b, {"nodeC", {{"region", "r1"}, {"zone", "z3"}, {"hostname", "nodeC"}}}},
       {kExistingFail, kExistingFail, kPass}},
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if "
       "all "
       "topologyKeys match",
       [](TestWorld&, PodBuilder& p) {
         p.AffinityExists(kReqAff, "foo", "region").AffinityExists(kReqAff, "bar", "zone");
       },
       {on("nodeA", {{"foo", ""}, {"bar", ""}})},
       {r1z1_a, r1z1_b},
       {kPass, kPass}},
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if "
       "all "
       "topologyKeys match, and the match logic should be satisfied on the same pod",
       [](TestWorld&, PodBuilder& p) {
         p.AffinityExists(kReqAff, "foo", "region").AffinityExists(kReqAff, "bar", "zone");
       },
       {on("nodeA", {{"foo", ""}}), on("nodeB", {{"bar", ""}})},
       {r1z1_a, r1z2_b},
       {kAffinityFail, kAffinityFail}},
  };
  RunCases(cases, /*team_namespaces=*/false);
}

TEST(InterPodAffinityFilterTest, FilterWithoutPreFilterIsAnError) {
  Cluster c;
  c.Build({{"n", {}}}, {});
  auto pl = c.Plugin();
  framework::CycleState state;
  const auto& pod = c.Incoming([](TestWorld&, PodBuilder&) {});
  framework::Status st = pl->Filter(state, 0, pod, c.Node("n"));
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
}

// ---- AddPod / RemovePod (kube's TestPreFilterStateAddRemovePod) ----

int64_t CountOf(const Counts& m, TestWorld& w, std::string_view key, std::string_view value) {
  return m.Get(PairKey(w.S(key), w.S(value)));
}

TEST(InterPodAffinityFilterTest, AddRemovePodUpdatesCounts) {
  const std::vector<NodeSpec> nodes = {{"nodeA", {{"region", "r1"}, {"zone", "z11"}}},
                                       {"nodeB", {{"region", "r1"}, {"zone", "z12"}}},
                                       {"nodeC", {{"region", "r2"}, {"zone", "z21"}}}};
  auto anti_complex = [](TestWorld& w, PodBuilder& p) {
    api::PodAffinityTerm t1, t2;
    t1.label_selector = w.Sel().In("foo", {"bar", "buzz"}).Obj();
    t1.topology_key = w.S("region");
    t2.label_selector = w.Sel().NotIn("service", {"bar", "security", "test"}).Obj();
    t2.topology_key = w.S("zone");
    p.AffinityTerm(kReqAnti, t1).AffinityTerm(kReqAnti, t2);
  };
  Cluster c;
  c.Build(nodes, {[](TestWorld&, PodBuilder& p) { p.NodeName("nodeA").Label("foo", "bar"); },
                  [](TestWorld&, PodBuilder& p) {
                    p.NodeName("nodeC").AffinityIn(kReqAnti, "foo", "region", {"bar"});
                  }});
  auto& w = c.w();
  const auto& pending = c.Incoming([&](TestWorld& tw, PodBuilder& p) {
    p.Label("foo", "bar");
    anti_complex(tw, p);
  });
  auto pl = c.Plugin();
  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl->PreFilter(state, 0, pending, c.handle().snapshot(), &r).ok());
  auto s = [&]() -> const PreFilterState& { return *state.Get<CycleData>(0)->pre_filter; };
  // Before: p1 on nodeA matches term 1 (r1) and term 2 (no service label: z11); p2 on nodeC matches
  // term 2 (z21). p2's anti-affinity (foo In bar, region) matches the pending pod: existing r2.
  EXPECT_EQ(CountOf(s().anti_affinity, w, "region", "r1"), 1);
  EXPECT_EQ(CountOf(s().anti_affinity, w, "zone", "z11"), 1);
  EXPECT_EQ(CountOf(s().anti_affinity, w, "zone", "z21"), 1);
  EXPECT_EQ(CountOf(s().existing_anti_affinity, w, "region", "r2"), 1);

  auto added_pod = w.Pod("addedPod");
  added_pod.NodeName("nodeA").Label("foo", "bar");
  anti_complex(w, added_pod);
  const framework::PodInfo& added = w.Info(added_pod.Obj());
  ASSERT_TRUE(pl->PreFilterExtensions()->AddPod(state, pending, added, c.Node("nodeA")).ok());
  // kube's expectedAntiAffinity {region r1: 2, zone z11: 2, zone z21: 1}; the added pod's own
  // anti-affinity (foo In bar|buzz, region) matches the pending pod: existing r1.
  EXPECT_EQ(CountOf(s().anti_affinity, w, "region", "r1"), 2);
  EXPECT_EQ(CountOf(s().anti_affinity, w, "zone", "z11"), 2);
  EXPECT_EQ(CountOf(s().anti_affinity, w, "zone", "z21"), 1);
  EXPECT_EQ(CountOf(s().existing_anti_affinity, w, "region", "r1"), 1);
  EXPECT_EQ(pl->Filter(state, 0, pending, c.Node("nodeB")).code(), kUnsched);

  ASSERT_TRUE(pl->PreFilterExtensions()->RemovePod(state, pending, added, c.Node("nodeA")).ok());
  EXPECT_EQ(CountOf(s().anti_affinity, w, "region", "r1"), 1);
  EXPECT_EQ(CountOf(s().anti_affinity, w, "zone", "z11"), 1);
  EXPECT_EQ(CountOf(s().existing_anti_affinity, w, "region", "r1"), 0);  // erased at 0
}

TEST(InterPodAffinityFilterTest, RemovingTheLastMatchReenablesTheFirstPodRule) {
  // Affinity to pods labelled app=db; one exists on nodeA. Removing it (preemption) empties the
  // affinity map, so a pod matching its own terms may go anywhere again.
  Cluster c;
  c.Build({{"nodeA", {{"zone", "z1"}}}, {"nodeB", {{"zone", "z2"}}}},
          {[](TestWorld&, PodBuilder& p) { p.NodeName("nodeA").Label("app", "db"); }});
  const auto& pod = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.Label("app", "db").AffinityIn(kReqAff, "app", "zone", {"db"});
  });
  auto pl = c.Plugin();
  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl->PreFilter(state, 0, pod, c.handle().snapshot(), &r).ok());
  EXPECT_EQ(pl->Filter(state, 0, pod, c.Node("nodeB")).code(), kUU);
  const framework::PodInfo& existing = *c.Node("nodeA").pods()[0];
  ASSERT_TRUE(pl->PreFilterExtensions()->RemovePod(state, pod, existing, c.Node("nodeA")).ok());
  EXPECT_EQ(pl->Filter(state, 0, pod, c.Node("nodeB")).code(), kOk);
}

}  // namespace
}  // namespace corral::plugins::inter_pod_affinity
