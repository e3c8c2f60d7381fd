// PodTopologySpread PreScore / Score / NormalizeScore, after kube's scoring_test.go
// (TestPreScoreSkip, TestPreScoreStateEmptyNodes, TestPodTopologySpreadScore).

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/pod_topology_spread/test_util.h"

namespace corral::plugins::pod_topology_spread {
namespace {

using framework::Code;
using testing::PodBuilder;
using testing::TestWorld;
using testutil::Cluster;
using testutil::Labels;
using testutil::NodeSpec;
using testutil::PodFn;
using testutil::PodSpec;

constexpr auto kDNS = api::WhenUnsatisfiable::kDoNotSchedule;
constexpr auto kSA = api::WhenUnsatisfiable::kScheduleAnyway;
constexpr auto kIgnore = api::NodeInclusionPolicy::kIgnore;
constexpr auto kHonor = api::NodeInclusionPolicy::kHonor;
constexpr std::string_view kHost = "kubernetes.io/hostname";

api::LabelSelector FooSel(TestWorld& w) {
  return w.Sel().Exists("foo").Obj();
}
api::LabelSelector BarSel(TestWorld& w) {
  return w.Sel().Exists("bar").Obj();
}

PodSpec Foo(std::string name, std::string node) {
  return {std::move(name), std::move(node), {{"foo", ""}}};
}
PodSpec Bar(std::string name, std::string node) {
  return {std::move(name), std::move(node), {{"bar", ""}}};
}
PodSpec FooBar(std::string name, std::string node) {
  return {std::move(name), std::move(node), {{"foo", ""}, {"bar", ""}}};
}
NodeSpec Host(std::string name) {
  return {name, {{std::string(kHost), name}}};
}
NodeSpec ZoneHost(std::string name, std::string zone) {
  return {name, {{"zone", zone}, {std::string(kHost), name}}};
}

PodTopologySpreadArgs SystemArgs() {
  return PodTopologySpreadArgs{};
}

struct ScoreCase {
  std::string name;
  PodFn pod;
  std::vector<PodSpec> existing;
  std::vector<NodeSpec> nodes;         // candidates (passed Filter)
  std::vector<NodeSpec> failed_nodes;  // in the cluster, not candidates
  std::vector<std::pair<std::string, int64_t>> want;
  bool match_label_keys = true;
  bool with_service_foo = false;  // a Service selecting foo="" in the default namespace
};

void RunScoreCases(const std::vector<ScoreCase>& cases) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Cluster c;
    if (!tc.match_label_keys) {
      ASSERT_TRUE(c.w().gates.Set("MatchLabelKeysInPodTopologySpread", false).ok());
    }
    std::vector<NodeSpec> all = tc.nodes;
    all.insert(all.end(), tc.failed_nodes.begin(), tc.failed_nodes.end());
    c.Build(all, tc.existing);
    api::SelectorOwner svc;
    if (tc.with_service_foo) {
      svc.kind = api::SelectorOwnerKind::kService;
      svc.meta.namespace_ = api::wk::kDefaultNamespace;
      svc.selector = c.w().Sel().Label("foo", "").Obj();
      c.handle().AddSelectorOwner(&svc);
    }
    const framework::PodInfo& pod = c.Incoming(tc.pod);
    auto pl = c.Plugin(SystemArgs());
    ASSERT_NE(pl, nullptr);
    std::vector<const framework::NodeInfo*> filtered;
    for (const auto& n : tc.nodes) filtered.push_back(&c.Node(n.name));
    framework::CycleState state;
    framework::Status pre = pl->PreScore(state, 0, pod, filtered);
    ASSERT_TRUE(pre.ok()) << pre.Message();
    std::vector<framework::NodeScore> scores;
    for (const auto* n : filtered) {
      int64_t s = -1;
      ASSERT_TRUE(pl->Score(state, 0, pod, *n, &s).ok());
      scores.push_back({n->name(), s});
    }
    ASSERT_TRUE(pl->NormalizeScore(state, 0, pod, scores).ok());
    ASSERT_EQ(scores.size(), tc.want.size());
    for (size_t i = 0; i < scores.size(); ++i) {
      EXPECT_EQ(c.w().in.Str(scores[i].name), tc.want[i].first);
      EXPECT_EQ(scores[i].score, tc.want[i].second) << tc.want[i].first;
    }
  }
}

// Legend as in kube: "X/Y" = matching pods on the nodes, all candidates; "~Y~" = not a candidate;
// "?Y?" = candidate without every topology key. Raw = Σ round(cnt × log(domains + 2) + maxSkew −
// 1); normalized = 100 × (max + min − raw) / max.
TEST(PodTopologySpreadScoreTest, KubeCases) {
  auto on_host = [](int32_t skew) {
    return [skew](TestWorld& w, PodBuilder& p) {
      p.Label("foo", "").SpreadConstraint(skew, kHost, kSA, FooSel(w));
    };
  };
  std::vector<PodSpec> spread_2_1_0_3 = {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"),
                                         Foo("p-b1", "node-b"), Foo("p-d1", "node-d"),
                                         Foo("p-d2", "node-d"), Foo("p-d3", "node-d")};
  std::vector<PodSpec> spread_4_3_2_1 = {
      Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-a3", "node-a"), Foo("p-a4", "node-a"),
      Foo("p-b1", "node-b"), Foo("p-b2", "node-b"), Foo("p-b3", "node-b"), Foo("p-c1", "node-c"),
      Foo("p-c2", "node-c"), Foo("p-d1", "node-d")};
  std::vector<PodSpec> spread_4_2_1_3 = {
      Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-a3", "node-a"), Foo("p-a4", "node-a"),
      Foo("p-b1", "node-b"), Foo("p-b2", "node-b"), Foo("p-x1", "node-x"), Foo("p-y1", "node-y"),
      Foo("p-y2", "node-y"), Foo("p-y3", "node-y")};
  std::vector<NodeSpec> four_hosts = {Host("node-a"), Host("node-b"), Host("node-c"),
                                      Host("node-d")};
  std::vector<ScoreCase> cases = {
      {"one constraint on node, no existing pods",
       on_host(1),
       {},
       {Host("node-a"), Host("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 100}}},
      {"one constraint on node, only one node is candidate",
       on_host(1),
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b")},
       {Host("node-a")},
       {Host("node-b")},
       {{"node-a", 100}}},
      {"one constraint on node, all nodes have the same number of matching pods",
       on_host(1),
       {Foo("p-a1", "node-a"), Foo("p-b1", "node-b")},
       {Host("node-a"), Host("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 100}}},
      {// weight log(4+2) = 1.79; raw 4/2/0/5 (3.58, 1.79, 0, 5.38 rounded); max 5, min 0:
       // a 100×(5−4)/5 = 20, b 100×3/5 = 60, c 100, d 0.
       "one constraint on node, all 4 nodes are candidates",
       on_host(1),
       spread_2_1_0_3,
       four_hosts,
       {},
       {{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}}},
      {"one constraint on node, null selector",
       [](TestWorld&, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, kHost, kSA, std::nullopt);
       },
       spread_2_1_0_3,
       four_hosts,
       {},
       {{"node-a", 100}, {"node-b", 100}, {"node-c", 100}, {"node-d", 100}}},
      {// maxSkew 2 adds 1: raw 5/3/1/6; a 100×(6+1−5)/6 = 33, b 66, c 100, d 16.
       "one constraint on node, all 4 nodes are candidates, maxSkew=2",
       on_host(2),
       spread_2_1_0_3,
       four_hosts,
       {},
       {{"node-a", 33}, {"node-b", 66}, {"node-c", 100}, {"node-d", 16}}},
      {// maxSkew 3 adds 2: raw 9/7/6/4 (7.17+2, 5.38+2, 3.58+2, 1.79+2); max 9, min 4: a 44, b 66,
       // c 77, d 100.
       "one constraint on node, all 4 nodes are candidates, maxSkew=3",
       on_host(3),
       spread_4_3_2_1,
       four_hosts,
       {},
       {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
      {// System defaulting: {hostname, 3} and {zone, 5} via the service; no node has a zone, so
       // only the hostname constraint scores (zone: every node in the "" domain, 9 + 4 is common to
       // all… but Score skips a key the node lacks) ⇒ same as maxSkew=3 above.
       "system defaulting, nodes don't have zone, pods match service",
       [](TestWorld&, PodBuilder& p) { p.Label("foo", ""); },
       spread_4_3_2_1,
       four_hosts,
       {},
       {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}},
       true,
       true},
      {// 4/2/1/~3~: 3 candidates, weight log(5); raw 6/3/2: a 100×(6+2−6)/6 = 33, b 83, x 100.
       "one constraint on node, 3 out of 4 nodes are candidates",
       on_host(1),
       spread_4_2_1_3,
       {Host("node-a"), Host("node-b"), Host("node-x")},
       {Host("node-y")},
       {{"node-a", 33}, {"node-b", 83}, {"node-x", 100}}},
      {// 4/?2?/1/~3~: node-b is ignored (0); weight log(2 + 2); raw a 6, x 1: a 100×(6+1−6)/6 = 16.
       "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology "
       "key",
       on_host(1),
       spread_4_2_1_3,
       {Host("node-a"), {"node-b", {{"n", "node-b"}}}, Host("node-x")},
       {Host("node-y")},
       {{"node-a", 16}, {"node-b", 0}, {"node-x", 100}}},
      {// zones 6/4 (zone1: a+b, zone2: x+y incl. the non-candidate); weight log(2+2) = 1.39: raw
       // 8/8/6: a 100×(8+6−8)/8 = 75.
       "one constraint on zone, 3 out of 4 nodes are candidates",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "zone", kSA, FooSel(w));
       },
       spread_4_2_1_3,
       {ZoneHost("node-a", "zone1"), ZoneHost("node-b", "zone1"), ZoneHost("node-x", "zone2")},
       {ZoneHost("node-y", "zone2")},
       {{"node-a", 75}, {"node-b", 75}, {"node-x", 100}}},
      {// 2/~1~/2/~4~: zone 3/6 (weight log 4), node a 2, x 2 (weight log 4): a 4.16+2.77 = 7,
       // x 8.32+2.77 = 11: a 100×(11+7−7)/11 = 100, x 100×7/11 = 63.
       "two Constraints on zone and node, 2 out of 4 nodes are candidates",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .SpreadConstraint(1, "zone", kSA, FooSel(w))
             .SpreadConstraint(1, kHost, kSA, FooSel(w));
       },
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-x1", "node-x"),
        Foo("p-x2", "node-x"), Foo("p-y1", "node-y"), Foo("p-y2", "node-y"), Foo("p-y3", "node-y"),
        Foo("p-y4", "node-y")},
       {ZoneHost("node-a", "zone1"), ZoneHost("node-x", "zone2")},
       {ZoneHost("node-b", "zone1"), ZoneHost("node-y", "zone2")},
       {{"node-a", 100}, {"node-x", 63}}},
      {// zone (foo) 2/2/1/1 by node, node (bar) 0/1/0/1.
       "two Constraints on zone and node, with different labelSelectors",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .SpreadConstraint(1, "zone", kSA, FooSel(w))
             .SpreadConstraint(1, kHost, kSA, BarSel(w));
       },
       {Foo("p-a1", "node-a"), FooBar("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Bar("p-y2", "node-y")},
       {ZoneHost("node-a", "zone1"), ZoneHost("node-b", "zone1"), ZoneHost("node-x", "zone2"),
        ZoneHost("node-y", "zone2")},
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-x", 100}, {"node-y", 60}}},
      {"two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .SpreadConstraint(1, "zone", kSA, FooSel(w))
             .SpreadConstraint(1, kHost, kSA, BarSel(w));
       },
       {Bar("p-b1", "node-b"), Foo("p-x1", "node-x"), FooBar("p-y1", "node-y")},
       {ZoneHost("node-a", "zone1"), ZoneHost("node-b", "zone1"), ZoneHost("node-x", "zone2"),
        ZoneHost("node-y", "zone2")},
       {},
       {{"node-a", 100}, {"node-b", 60}, {"node-x", 40}, {"node-y", 0}}},
      {"two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are "
       "candidates",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .SpreadConstraint(1, "zone", kSA, FooSel(w))
             .SpreadConstraint(1, kHost, kSA, BarSel(w));
       },
       {Foo("p-a1", "node-a"), FooBar("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Bar("p-y2", "node-y")},
       {ZoneHost("node-a", "zone1"), ZoneHost("node-b", "zone1"), ZoneHost("node-x", "zone2")},
       {ZoneHost("node-y", "zone2")},
       {{"node-a", 50}, {"node-b", 25}, {"node-x", 100}}},
      {// a: 1 (ns1 pod excluded), b: 2 ⇒ raw 1.39 → 1, 2.77 → 3: a 100×(3+1−1)/3 = 100, b 33.
       "existing pods in a different namespace do not count",
       on_host(1),
       {{"p-a1", "node-a", {{"foo", ""}}, "ns1"},
        Foo("p-a2", "node-a"),
        Foo("p-b1", "node-b"),
        Foo("p-b2", "node-b")},
       {Host("node-a"), Host("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 33}}},
      {"terminating Pods should be excluded",
       on_host(1),
       {{"p-a", "node-a", {{"foo", ""}}, "default", true}, Foo("p-b", "node-b")},
       {Host("node-a"), Host("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 0}}},
      {// minDomains only affects Filter: node counts 2/2/1, weight log 5, +1: raw 4/4/3:
       // 100×(4+3−4)/4 = 75.
       "minDomains has no effect when ScheduleAnyway",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(2, "node", kSA, FooSel(w), 10);
       },
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
        Foo("p-c1", "node-c")},
       {{"node-a", {{"node", "node-a"}}},
        {"node-b", {{"node", "node-b"}}},
        {"node-c", {{"node", "node-c"}}}},
       {},
       {{"node-a", 75}, {"node-b", 75}, {"node-c", 100}}},
      {// node-c lacks foo: not a domain when honoring affinity, but still a candidate here.
       "NodeAffinityPolicy honored with labelSelectors",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").NodeSelector("foo", "").SpreadConstraint(1, "node", kSA, FooSel(w));
       },
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-c1", "node-c")},
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-c", {{"node", "node-c"}}}},
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeAffinityPolicy ignored with labelSelectors",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").NodeSelector("foo", "").SpreadConstraint(1, "node", kSA, FooSel(w),
                                                                     std::nullopt, kIgnore);
       },
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-c1", "node-c")},
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-c", {{"node", "node-c"}}}},
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"NodeAffinityPolicy honored with nodeAffinity",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").NodeAffinityIn("foo", {""}).SpreadConstraint(1, "node", kSA, FooSel(w));
       },
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-c1", "node-c")},
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-c", {{"node", "node-c"}}}},
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .NodeAffinityIn("foo", {""})
             .SpreadConstraint(1, "node", kSA, FooSel(w), std::nullopt, kIgnore);
       },
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-c1", "node-c")},
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-c", {{"node", "node-c"}}}},
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"NodeTaintsPolicy honored",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "node", kSA, FooSel(w), std::nullopt, std::nullopt,
                                             kHonor);
       },
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-c1", "node-c")},
       {{"node-a", {{"node", "node-a"}}},
        {"node-b", {{"node", "node-b"}}},
        {"node-c", {{"node", "node-c"}}, true}},
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeTaintsPolicy ignored",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "node", kSA, FooSel(w));
       },
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-c1", "node-c")},
       {{"node-a", {{"node", "node-a"}}},
        {"node-b", {{"node", "node-b"}}},
        {"node-c", {{"node", "node-c"}}, true}},
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"matchLabelKeys ignored when feature gate disabled",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .Label("baz", "")
             .SpreadConstraint(1, "zone", kSA, FooSel(w), std::nullopt, std::nullopt, std::nullopt,
                               {"baz"})
             .SpreadConstraint(1, kHost, kSA, BarSel(w), std::nullopt, std::nullopt, std::nullopt,
                               {"baz"});
       },
       {Foo("p-a1", "node-a"), FooBar("p-b1", "node-b"), Foo("p-y1", "node-c"),
        Bar("p-y2", "node-c")},
       {ZoneHost("node-a", "zone1"), ZoneHost("node-b", "zone1"), ZoneHost("node-c", "zone2"),
        ZoneHost("node-d", "zone2")},
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}},
       false},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .SpreadConstraint(1, "zone", kSA, w.Sel().Obj(), std::nullopt, std::nullopt,
                               std::nullopt, {"foo"})
             .SpreadConstraint(1, kHost, kSA, w.Sel().Obj(), std::nullopt, std::nullopt,
                               std::nullopt, {"bar"});
       },
       {Foo("p-a1", "node-a"), FooBar("p-b1", "node-b"), Foo("p-y1", "node-c"),
        Bar("p-y2", "node-c")},
       {ZoneHost("node-a", "zone1"), ZoneHost("node-b", "zone1"), ZoneHost("node-c", "zone2"),
        ZoneHost("node-d", "zone2")},
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .Label("baz", "")
             .SpreadConstraint(1, "zone", kSA, FooSel(w))
             .SpreadConstraint(1, kHost, kSA, BarSel(w), std::nullopt, std::nullopt, std::nullopt,
                               {"baz"});
       },
       {Foo("p-a1", "node-a"),
        {"p-b1", "node-b", {{"foo", ""}, {"bar", ""}, {"baz", ""}}},
        Foo("p-c1", "node-c"),
        Bar("p-c2", "node-c"),
        {"p-d3", "node-c", {{"bar", ""}, {"baz", ""}}}},
       {ZoneHost("node-a", "zone1"), ZoneHost("node-b", "zone1"), ZoneHost("node-c", "zone2"),
        ZoneHost("node-d", "zone2")},
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
  };
  RunScoreCases(cases);
}

TEST(PodTopologySpreadScoreTest, PreScoreSkips) {
  {
    // kube: "the pod doesn't have soft topology spread Constraints".
    Cluster c;
    c.Build({Host("node-a"), Host("node-b")}, {});
    const auto& pod = c.Incoming([](TestWorld&, PodBuilder&) {});
    auto pl = c.Plugin(Cluster::ListArgs());
    framework::CycleState state;
    std::vector<const framework::NodeInfo*> nodes = {&c.Node("node-a"), &c.Node("node-b")};
    EXPECT_TRUE(pl->PreScore(state, 0, pod, nodes).IsSkip());
  }
  {
    // kube: "default constraints and a replicaset that doesn't match" (the owner names rs2, only
    // rs1 exists).
    Cluster c;
    c.Build({{"node-a", {{"planet", "mars"}}}}, {});
    auto& w = c.w();
    api::SelectorOwner rs;
    rs.kind = api::SelectorOwnerKind::kReplicaSet;
    rs.meta.namespace_ = api::wk::kDefaultNamespace;
    rs.meta.name = w.S("rs1");
    rs.selector = w.Sel().Exists("tar").Obj();
    c.handle().AddSelectorOwner(&rs);
    PodTopologySpreadArgs args = Cluster::ListArgs();
    api::TopologySpreadConstraint dc;
    dc.max_skew = 2;
    dc.topology_key = w.S("planet");
    dc.when_unsatisfiable = kSA;
    args.default_constraints = {dc};
    auto pl = c.Plugin(args);
    const auto& pod = c.Incoming([](TestWorld&, PodBuilder& p) {
      p.Label("foo", "bar").Label("baz", "sup").OwnerReference("rs2", "apps/v1", "ReplicaSet");
    });
    framework::CycleState state;
    std::vector<const framework::NodeInfo*> nodes = {&c.Node("node-a")};
    EXPECT_TRUE(pl->PreScore(state, 0, pod, nodes).IsSkip());
  }
}

TEST(PodTopologySpreadScoreTest, SystemDefaultsWithAReplicaSet) {
  // kube's "system default constraints and a replicaset": nodes without a zone form the "" domain,
  // so the zone weight counts 2 domains (mars, ""); hostname weight counts the 4 candidates.
  Cluster c;
  c.Build({{"node-a", {{std::string(kHost), "node-a"}, {"topology.kubernetes.io/zone", "mars"}}},
           {"node-b", {{std::string(kHost), "node-b"}, {"topology.kubernetes.io/zone", "mars"}}},
           {"node-c", {{std::string(kHost), "node-c"}}},
           {"node-d", {{std::string(kHost), "node-d"}}}},
          {});
  auto& w = c.w();
  api::SelectorOwner rs;
  rs.kind = api::SelectorOwnerKind::kReplicaSet;
  rs.meta.namespace_ = api::wk::kDefaultNamespace;
  rs.meta.name = w.S("rs1");
  rs.selector = w.Sel().Exists("foo").Obj();
  c.handle().AddSelectorOwner(&rs);
  auto pl = c.Plugin(SystemArgs());
  const auto& pod = c.Incoming([](TestWorld&, PodBuilder& p) {
    p.Label("foo", "tar").Label("baz", "sup").OwnerReference("rs1", "apps/v1", "ReplicaSet");
  });
  framework::CycleState state;
  std::vector<const framework::NodeInfo*> nodes = {&c.Node("node-a"), &c.Node("node-b"),
                                                   &c.Node("node-c"), &c.Node("node-d")};
  ASSERT_TRUE(pl->PreScore(state, 0, pod, nodes).ok());
  const PreScoreState& s = *state.Get<CycleData>(0)->pre_score;
  ASSERT_EQ(s.constraints.size(), 2u);
  EXPECT_EQ(s.constraints[0].max_skew, 3);
  EXPECT_EQ(s.constraints[0].topology_key, api::wk::kHostnameLabel);
  EXPECT_EQ(s.constraints[1].max_skew, 5);
  EXPECT_TRUE(s.ignored_nodes.empty());
  EXPECT_EQ(s.pod_counts[1].size(), 2u);  // {mars: 0, "": 0}
  EXPECT_TRUE(s.pod_counts[1].contains(Symbol()));
  EXPECT_DOUBLE_EQ(s.weights[0], std::log(4.0 + 2));
  EXPECT_DOUBLE_EQ(s.weights[1], std::log(2.0 + 2));
}

TEST(PodTopologySpreadScoreTest, ExplicitConstraintsIgnoreNodesMissingAKey) {
  // kube's "node-x doesn't have label zone": node-x ignored; zone weight log(1+2),
  // hostname log(2+2).
  Cluster c;
  c.Build({ZoneHost("node-a", "zone1"), ZoneHost("node-b", "zone1"), Host("node-x")}, {});
  const auto& pod = c.Incoming([](TestWorld& w, PodBuilder& p) {
    p.Label("foo", "")
        .SpreadConstraint(1, "zone", kSA, FooSel(w))
        .SpreadConstraint(1, kHost, kSA, BarSel(w));
  });
  auto pl = c.Plugin(Cluster::ListArgs());
  framework::CycleState state;
  std::vector<const framework::NodeInfo*> nodes = {&c.Node("node-a"), &c.Node("node-b"),
                                                   &c.Node("node-x")};
  ASSERT_TRUE(pl->PreScore(state, 0, pod, nodes).ok());
  const PreScoreState& s = *state.Get<CycleData>(0)->pre_score;
  EXPECT_TRUE(s.ignored_nodes.contains(c.w().S("node-x")));
  EXPECT_DOUBLE_EQ(s.weights[0], std::log(1.0 + 2));
  EXPECT_DOUBLE_EQ(s.weights[1], std::log(2.0 + 2));
}

}  // namespace
}  // namespace corral::plugins::pod_topology_spread
