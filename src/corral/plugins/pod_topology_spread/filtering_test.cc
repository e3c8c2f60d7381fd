// PodTopologySpread PreFilter / Filter / PreFilterExtensions, after kube's filtering_test.go
// (TestPreFilterState, TestSingleConstraint,
// TestMultipleConstraints, TestPreFilterStateAddPod/RemovePod).

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
using testutil::NodeSpec;
using testutil::PodFn;
using testutil::PodSpec;

constexpr auto kDNS = api::WhenUnsatisfiable::kDoNotSchedule;
constexpr auto kSA = api::WhenUnsatisfiable::kScheduleAnyway;
constexpr auto kIgnore = api::NodeInclusionPolicy::kIgnore;
constexpr auto kHonor = api::NodeInclusionPolicy::kHonor;

api::LabelSelector Foo(TestWorld& w) {
  return w.Sel().Exists("foo").Obj();
}
api::LabelSelector Bar(TestWorld& w) {
  return w.Sel().Exists("bar").Obj();
}

// node-a, node-b in zone1; node-x, node-y in zone2; each with a "node" label.
std::vector<NodeSpec> FourNodes() {
  return {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}}},
          {"node-b", {{"zone", "zone1"}, {"node", "node-b"}}},
          {"node-x", {{"zone", "zone2"}, {"node", "node-x"}}},
          {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}}};
}

PodSpec Foo(std::string name, std::string node) {
  return {std::move(name), std::move(node), {{"foo", ""}}};
}
PodSpec FooBar(std::string name, std::string node) {
  return {std::move(name), std::move(node), {{"foo", ""}, {"bar", ""}}};
}
PodSpec BarPod(std::string name, std::string node) {
  return {std::move(name), std::move(node), {{"bar", ""}}};
}

struct FilterCase {
  std::string name;
  PodFn pod;
  std::vector<NodeSpec> nodes;
  std::vector<PodSpec> existing;
  std::map<std::string, Code> want;
};

void RunFilterCases(const std::vector<FilterCase>& cases) {
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Cluster c;
    c.Build(tc.nodes, tc.existing);
    const framework::PodInfo& pod = c.Incoming(tc.pod);
    auto pl = c.Plugin(Cluster::ListArgs());
    ASSERT_NE(pl, nullptr);
    framework::CycleState state;
    framework::PreFilterResult result;
    framework::Status pre = pl->PreFilter(state, 0, pod, c.handle().snapshot(), &result);
    ASSERT_TRUE(pre.ok()) << pre.Message();
    for (const auto& n : tc.nodes) {
      framework::Status st = pl->Filter(state, 0, pod, c.Node(n.name));
      EXPECT_EQ(st.code(), tc.want.at(n.name)) << n.name << ": " << st.Message();
      if (st.code() == Code::kUnschedulable) {
        EXPECT_EQ(st.Message(), PodTopologySpread::kErrReasonConstraintsNotMatch);
      } else if (st.code() == Code::kUnschedulableAndUnresolvable) {
        EXPECT_EQ(st.Message(), PodTopologySpread::kErrReasonNodeLabelNotMatch);
      }
    }
  }
}

constexpr Code kOk = Code::kSuccess;
constexpr Code kUnsched = Code::kUnschedulable;
constexpr Code kUU = Code::kUnschedulableAndUnresolvable;

TEST(PodTopologySpreadFilterTest, SingleConstraint) {
  // Legend: "2/1/0/3" = matching pods on node-a/b/x/y; skew = match + self − min ≤ maxSkew.
  std::vector<FilterCase> cases = {
      {"no existing pods",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "zone", kDNS, Foo(w));
       },
       FourNodes(),
       {},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"no existing pods, incoming pod doesn't match itself",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "zone", kDNS, Bar(w));
       },
       FourNodes(),
       {},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {// zones count 0/2 (the ns1/ns2 pods don't count): zone2 = 2 + 1 − 0 > 1.
       "existing pods in a different namespace do not count",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "zone", kDNS, Foo(w));
       },
       FourNodes(),
       {{"p-a1", "node-a", {{"foo", ""}}, "ns1"},
        {"p-b1", "node-a", {{"foo", ""}}, "ns2"},
        Foo("p-x1", "node-x"),
        Foo("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kUnsched}, {"node-y", kUnsched}}},
      {// A nil selector matches nothing: no counts, no self match.
       "existing pods do not match null selector",
       [](TestWorld&, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "zone", kDNS, std::nullopt);
       },
       FourNodes(),
       {Foo("p-x1", "node-x"), Foo("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {// zones 3/3: 3 + 1 − 3 = 1 ≤ 1 everywhere.
       "pods spread across zones as 3/3, all nodes fit",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "zone", kDNS, Foo(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Foo("p-y2", "node-y"), Foo("p-y3", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {// node-b has "zon" instead of "zone": zones 1/2, node-b is unresolvable.
       "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "zone", kDNS, Foo(w));
       },
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}}},
        {"node-b", {{"zon", "zone1"}, {"node", "node-b"}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}}},
       {Foo("p-a1", "node-a"), Foo("p-b1", "node-b"), Foo("p-x1", "node-x"), Foo("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kUU}, {"node-x", kUnsched}, {"node-y", kUnsched}}},
      {"pod cannot be scheduled as all nodes don't have label 'rack'",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "rack", kDNS, Foo(w));
       },
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}}}},
       {},
       {{"node-a", kUU}, {"node-x", kUU}}},
      {// nodes 2/1/0/3, min 0: only node-x (0 + 1 − 0 = 1).
       "pods spread across nodes as 2/1/0/3, only node-x fits",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Foo("p-y2", "node-y"), Foo("p-y3", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {// maxSkew 2: node-b 1 + 1 − 0 = 2 fits, node-a 2 + 1 = 3 does not.
       "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(2, "node", kDNS, Foo(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Foo("p-y2", "node-y"), Foo("p-y3", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {// The pod doesn't match itself: skew = match − min, node-b 1 − 0 = 1.
       "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("bar", "").SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Foo("p-y2", "node-y"), Foo("p-y3", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {// Only node-a and node-y count (2/~1~/~0~/3): min 2, node-a 2 + 1 − 2 = 1; node-b and node-x
       // are not domains (match 0 ⇒ 0 + 1 − 2 < 1; the NodeAffinity plugin would reject
       // them anyway).
       "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .NodeAffinityIn("node", {"node-a", "node-y"})
             .SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Foo("p-y2", "node-y"), Foo("p-y3", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {"terminating Pods should be excluded",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       {{"node-a", {{"node", "node-a"}}}, {"node-b", {{"node", "node-b"}}}},
       {{"p-a", "node-a", {{"foo", ""}}, "default", true}, Foo("p-b", "node-b")},
       {{"node-a", kOk}, {"node-b", kUnsched}}},
      {// zones 0/~2~/0/1 over node-a, node-x, node-y: zone1 0, zone2 1.
       "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .NodeAffinityNotIn("node", {"node-b"})
             .SpreadConstraint(1, "zone", kDNS, Foo(w));
       },
       FourNodes(),
       {Foo("p-b1", "node-b"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kUnsched}, {"node-y", kUnsched}}},
      {// 3 domains < minDomains 4 ⇒ global min 0: node-a 2 + 1 − 0 = 3 > 2, node-c 1 + 1 = 2.
       "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, "
       "then the "
       "third node fits",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(2, "node", kDNS, Foo(w), 4);
       },
       {{"node-a", {{"node", "node-a"}}},
        {"node-b", {{"node", "node-b"}}},
        {"node-c", {{"node", "node-c"}}}},
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
        Foo("p-c1", "node-c")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-c", kOk}}},
      {// 3 domains ≥ minDomains 2 ⇒ min 1: 2 + 1 − 1 = 2 fits everywhere.
       "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, "
       "then the all "
       "nodes fit",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(2, "node", kDNS, Foo(w), 2);
       },
       {{"node-a", {{"node", "node-a"}}},
        {"node-b", {{"node", "node-b"}}},
        {"node-c", {{"node", "node-c"}}}},
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-b2", "node-b"),
        Foo("p-c1", "node-c")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-c", kOk}}},
      {// zones 2/1, 2 domains < minDomains 3 ⇒ min 0: zone1 2 + 1 = 3 > 2.
       "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then "
       "the third "
       "and fourth nodes fit",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(2, "zone", kDNS, Foo(w), 3);
       },
       FourNodes(),
       {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kOk}}},
      {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then "
       "the all "
       "nodes fit",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(2, "zone", kDNS, Foo(w), 1);
       },
       FourNodes(),
       {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {// node-y lacks foo: 1/1/0/~0~ ⇒ min 0.
       "NodeAffinityPolicy honored with labelSelectors",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").NodeSelector("foo", "").SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"node", "node-y"}}}},
       {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kOk}}},
      {// Ignore: 1/1/0/1 ⇒ node-y 1 + 1 − 0 = 2.
       "NodeAffinityPolicy ignored with labelSelectors",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").NodeSelector("foo", "").SpreadConstraint(1, "node", kDNS, Foo(w),
                                                                     std::nullopt, kIgnore);
       },
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"node", "node-y"}}}},
       {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {"NodeAffinityPolicy honored with nodeAffinity",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").NodeAffinityIn("foo", {""}).SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"node", "node-y"}}}},
       {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .NodeAffinityIn("foo", {""})
             .SpreadConstraint(1, "node", kDNS, Foo(w), std::nullopt, kIgnore);
       },
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"node", "node-y"}}}},
       {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {// node-y's taint is not tolerated: 1/1/0/~0~.
       "NodeTaintsPolicy honored",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "node", kDNS, Foo(w), std::nullopt, std::nullopt,
                                             kHonor);
       },
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"node", "node-y"}}, true}},
       {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeTaintsPolicy ignored",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "").SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"node", "node-y"}}, true}},
       {Foo("p-b1", "node-a"), Foo("p-b2", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kUnsched}}},
  };
  RunFilterCases(cases);
}

TEST(PodTopologySpreadFilterTest, MultipleConstraints) {
  std::vector<FilterCase> cases = {
      {// zone: any node; node: only node-x ⇒ node-x.
       "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Foo("p-y2", "node-y"), Foo("p-y3", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {// zone: zone1 only; node: node-x only ⇒ none.
       "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y"),
        Foo("p-y2", "node-y"), Foo("p-y3", "node-y"), Foo("p-y4", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kUnsched}, {"node-y", kUnsched}}},
      {"Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Bar(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), BarPod("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {"Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Bar(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), BarPod("p-x1", "node-x"), BarPod("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kUnsched}, {"node-y", kUnsched}}},
      {"Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .Label("bar", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Bar(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), FooBar("p-a2", "node-a"), Foo("p-y1", "node-y"),
        FooBar("p-y2", "node-y"), Foo("p-y3", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kOk}, {"node-x", kUnsched}, {"node-y", kUnsched}}},
      {"Constraints hold different labelSelectors but pod doesn't match itself on 'zone' "
       "constraint",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("bar", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Bar(w));
       },
       FourNodes(),
       {Foo("p-a1", "node-a"), BarPod("p-x1", "node-x"), BarPod("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kUnsched}, {"node-y", kUnsched}}},
      {"two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, "
       "1/0/0/1]",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}}},
        {"node-b", {{"zone", "zone1"}, {"node", "node-b"}}},
        {"node-x", {{"zone", "zone2"}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}}},
       {Foo("p-a1", "node-a"), Foo("p-y3", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kOk}, {"node-x", kUU}, {"node-y", kUnsched}}},
      {// zone (honor affinity): 2/~0~; node (ignore affinity): 1/1/0/1.
       "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .NodeSelector("foo", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Foo(w), std::nullopt, kIgnore);
       },
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}}},
       {Foo("p-a1", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {"two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w), std::nullopt, std::nullopt, kHonor)
             .SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}, true}},
       {Foo("p-a1", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kUnsched}, {"node-x", kOk}, {"node-y", kUnsched}}},
      {"two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
       [](TestWorld& w, PodBuilder& p) {
         p.Label("foo", "")
             .NodeSelector("foo", "")
             .SpreadConstraint(1, "zone", kDNS, Foo(w))
             .SpreadConstraint(1, "node", kDNS, Foo(w));
       },
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"zone", "zone1"}, {"node", "node-b"}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}, {"foo", ""}}, true}},
       {Foo("p-a1", "node-a"), Foo("p-b1", "node-b"), Foo("p-y1", "node-y")},
       {{"node-a", kUnsched}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kUnsched}}},
  };
  RunFilterCases(cases);
}

// ---- PreFilter state ----

const PreFilterState& StateOf(const framework::CycleState& state) {
  return *state.Get<CycleData>(0)->pre_filter;
}

int64_t Count(const PreFilterState& s, size_t i, TestWorld& w, std::string_view value) {
  auto it = s.counts().find(DomainKey(i, w.S(value)));
  return it == s.counts().end() ? -1 : it->second.count;
}

TEST(PodTopologySpreadPreFilterTest, CountsAndCriticalPaths) {
  // kube's "normal case with two spreadConstraints": zone 3/4, node 2/1/0/4.
  Cluster c;
  c.Build(FourNodes(), {Foo("p-a1", "node-a"), Foo("p-a2", "node-a"), Foo("p-b1", "node-b"),
                        Foo("p-y1", "node-y"), Foo("p-y2", "node-y"), Foo("p-y3", "node-y"),
                        Foo("p-y4", "node-y")});
  auto& w = c.w();
  const auto& pod = c.Incoming([](TestWorld& tw, PodBuilder& p) {
    p.Label("foo", "")
        .SpreadConstraint(1, "zone", kDNS, Foo(tw))
        .SpreadConstraint(1, "node", kDNS, Foo(tw));
  });
  auto pl = c.Plugin(Cluster::ListArgs());
  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl->PreFilter(state, 0, pod, c.handle().snapshot(), &r).ok());
  PreFilterState& s = *state.Get<CycleData>(0)->pre_filter;
  ASSERT_EQ(s.set->constraints.size(), 2u);
  EXPECT_EQ(s.set->constraints[0].min_domains, 1);
  EXPECT_TRUE(s.set->constraints[0].honor_node_affinity);
  EXPECT_FALSE(s.set->constraints[0].honor_node_taints);
  EXPECT_EQ(Count(s, 0, w, "zone1"), 3);
  EXPECT_EQ(Count(s, 0, w, "zone2"), 4);
  EXPECT_EQ(Count(s, 1, w, "node-a"), 2);
  EXPECT_EQ(Count(s, 1, w, "node-b"), 1);
  EXPECT_EQ(Count(s, 1, w, "node-x"), 0);
  EXPECT_EQ(Count(s, 1, w, "node-y"), 4);
  // The minima Filter reads come from the cache's group summary, before any walk.
  EXPECT_TRUE(s.paths.empty());
  EXPECT_EQ(s.MinMatchNum(0), 3);
  EXPECT_EQ(s.MinMatchNum(1), 0);
  s.MaterializePaths();
  // Critical paths: {zone1 3, zone2 4}; node: minimum node-x 0, then node-b 1.
  EXPECT_EQ(s.paths[0].paths[0], (CriticalPaths::Path{w.S("zone1"), 3}));
  EXPECT_EQ(s.paths[0].paths[1], (CriticalPaths::Path{w.S("zone2"), 4}));
  EXPECT_EQ(s.paths[1].paths[0], (CriticalPaths::Path{w.S("node-x"), 0}));
  EXPECT_EQ(s.paths[1].paths[1].match_num,
            1);  // node-b (kube's order-dependent second path holds 1 here)
}

TEST(PodTopologySpreadPreFilterTest, SkipsWithoutHardConstraints) {
  Cluster c;
  c.Build(FourNodes(), {});
  const auto& soft = c.Incoming([](TestWorld& w, PodBuilder& p) {
    p.Label("foo", "").SpreadConstraint(1, "zone", kSA, Foo(w));
  });
  auto pl = c.Plugin(Cluster::ListArgs());
  framework::CycleState state;
  framework::PreFilterResult r;
  EXPECT_TRUE(pl->PreFilter(state, 0, soft, c.handle().snapshot(), &r).IsSkip());
  // Filter without PreFilter state is an error, as in kube.
  framework::Status st = pl->Filter(state, 0, soft, c.Node("node-a"));
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(st.Message(), "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
}

TEST(PodTopologySpreadPreFilterTest, DefaultConstraintsAndAService) {
  // kube's "default constraints and a service": only DoNotSchedule defaults, selector from
  // the service.
  Cluster c;
  c.Build({{"node-a", {{"node", "node-a"}, {"rack", "r1"}}}}, {});
  auto& w = c.w();
  api::SelectorOwner svc;
  svc.kind = api::SelectorOwnerKind::kService;
  svc.meta.namespace_ = api::wk::kDefaultNamespace;
  svc.meta.name = w.S("svc");
  svc.selector = w.Sel().Label("foo", "bar").Obj();
  c.handle().AddSelectorOwner(&svc);
  PodTopologySpreadArgs args = Cluster::ListArgs();
  auto constraint = [&](int32_t skew, std::string_view key, api::WhenUnsatisfiable when) {
    api::TopologySpreadConstraint tc;
    tc.max_skew = skew;
    tc.topology_key = w.S(key);
    tc.when_unsatisfiable = when;
    return tc;
  };
  args.default_constraints = {constraint(3, "node", kDNS), constraint(2, "node", kSA),
                              constraint(5, "rack", kDNS)};
  auto pl = c.Plugin(args);
  const auto& pod =
      c.Incoming([](TestWorld&, PodBuilder& p) { p.Label("foo", "bar").Label("baz", "kar"); });
  auto cs = pl->GetConstraints(pod, kDNS);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].max_skew, 3);
  EXPECT_EQ(cs[1].topology_key, w.S("rack"));
  ASSERT_TRUE(cs[0].selector.has_value());
  EXPECT_EQ(cs[0].selector->match_labels, w.Sel().Label("foo", "bar").Obj().match_labels);
  EXPECT_TRUE(cs[0].selector->match_expressions.empty());

  // A service that doesn't select the pod: no constraints ⇒ Skip.
  const auto& other = c.Incoming([](TestWorld&, PodBuilder& p) { p.Label("foo", "baz"); });
  framework::CycleState state;
  framework::PreFilterResult r;
  EXPECT_TRUE(pl->PreFilter(state, 0, other, c.handle().snapshot(), &r).IsSkip());
  // The pod's own constraints win over the defaults.
  const auto& own = c.Incoming([](TestWorld& tw, PodBuilder& p) {
    p.Label("foo", "bar").SpreadConstraint(1, "zone", kDNS, tw.Sel().Label("baz", "tar").Obj());
  });
  auto own_cs = pl->GetConstraints(own, kDNS);
  ASSERT_EQ(own_cs.size(), 1u);
  EXPECT_EQ(own_cs[0].topology_key, w.S("zone"));
}

TEST(PodTopologySpreadPreFilterTest, MatchLabelKeysAreAndedWithTheSelector) {
  Cluster c;
  c.Build(FourNodes(), {{"p-a1", "node-a", {{"foo", ""}, {"rev", "1"}}},
                        {"p-a2", "node-a", {{"foo", ""}}},
                        {"p-x1", "node-x", {{"foo", ""}, {"rev", "2"}}}});
  auto& w = c.w();
  const auto& pod = c.Incoming([](TestWorld& tw, PodBuilder& p) {
    p.Label("foo", "")
        .Label("rev", "1")
        .SpreadConstraint(1, "zone", kDNS, Foo(tw), std::nullopt, std::nullopt, std::nullopt,
                          {"rev", "absent"});
  });
  auto pl = c.Plugin(Cluster::ListArgs());
  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl->PreFilter(state, 0, pod, c.handle().snapshot(), &r).ok());
  // foo exists AND rev In (1): only p-a1 counts. ("absent" is not a label of the pod: ignored.)
  EXPECT_EQ(Count(StateOf(state), 0, w, "zone1"), 1);
  EXPECT_EQ(Count(StateOf(state), 0, w, "zone2"), 0);
}

// ---- AddPod / RemovePod ----

TEST(PodTopologySpreadPreFilterTest, AddAndRemovePodUpdateCountsAndPaths) {
  // kube's TestPreFilterStateAddPod "node a and b both impact current min match": zone 1/0 before.
  Cluster c;
  c.Build({{"node-a", {{"zone", "zone1"}, {"node", "node-a"}}},
           {"node-b", {{"zone", "zone1"}, {"node", "node-b"}}},
           {"node-x", {{"zone", "zone2"}, {"node", "node-x"}}}},
          {Foo("p-a1", "node-a")});
  auto& w = c.w();
  const auto& pod = c.Incoming([](TestWorld& tw, PodBuilder& p) {
    p.Label("foo", "")
        .SpreadConstraint(1, "zone", kDNS, Foo(tw))
        .SpreadConstraint(1, "node", kDNS, Foo(tw));
  });
  auto pl = c.Plugin(Cluster::ListArgs());
  framework::CycleState state;
  framework::PreFilterResult r;
  ASSERT_TRUE(pl->PreFilter(state, 0, pod, c.handle().snapshot(), &r).ok());
  // zone: zone1 1, zone2 0 ⇒ min 0 (zone2). node: a 1, b 0, x 0.
  EXPECT_EQ(StateOf(state).MinMatchNum(0), 0);

  const auto& added = w.Info(w.Pod("p-x1").NodeName("node-x").Label("foo", "").Obj());
  ASSERT_TRUE(pl->PreFilterExtensions()->AddPod(state, pod, added, c.Node("node-x")).ok());
  // zone: 1/1 ⇒ min 1; node: a 1, b 0, x 1 ⇒ min 0 (node-b).
  EXPECT_EQ(Count(StateOf(state), 0, w, "zone2"), 1);
  EXPECT_EQ(StateOf(state).MinMatchNum(0), 1);
  EXPECT_EQ(StateOf(state).MinMatchNum(1), 0);
  // Now node-a: zone1 1 + 1 − 1 = 1 fits, node 1 + 1 − 0 = 2 does not.
  EXPECT_EQ(pl->Filter(state, 0, pod, c.Node("node-a")).code(), kUnsched);
  EXPECT_EQ(pl->Filter(state, 0, pod, c.Node("node-b")).code(), kOk);

  // A clone is independent.
  framework::CycleState clone = state.Clone();
  ASSERT_TRUE(pl->PreFilterExtensions()->RemovePod(clone, pod, added, c.Node("node-x")).ok());
  EXPECT_EQ(Count(StateOf(clone), 0, w, "zone2"), 0);
  EXPECT_EQ(Count(StateOf(state), 0, w, "zone2"), 1);
  EXPECT_EQ(StateOf(clone).MinMatchNum(0), 0);

  // Pods of another namespace or not matching the selector change nothing.
  const auto& other_ns =
      w.Info(w.Pod("q").Namespace("ns1").NodeName("node-b").Label("foo", "").Obj());
  const auto& no_match = w.Info(w.Pod("r").NodeName("node-b").Label("bar", "").Obj());
  ASSERT_TRUE(pl->PreFilterExtensions()->AddPod(state, pod, other_ns, c.Node("node-b")).ok());
  ASSERT_TRUE(pl->PreFilterExtensions()->AddPod(state, pod, no_match, c.Node("node-b")).ok());
  EXPECT_EQ(Count(StateOf(state), 1, w, "node-b"), 0);
}

TEST(PodTopologySpreadPreFilterTest, CriticalPathsUpdate) {
  // kube's criticalPaths.update walk-through.
  TestWorld w;
  CriticalPaths p;
  p.Update(w.S("a"), 3);
  p.Update(w.S("b"), 1);  // smaller: shifts a to [1]
  EXPECT_EQ(p.paths[0], (CriticalPaths::Path{w.S("b"), 1}));
  EXPECT_EQ(p.paths[1], (CriticalPaths::Path{w.S("a"), 3}));
  p.Update(w.S("c"), 2);  // between: replaces [1]
  EXPECT_EQ(p.paths[1], (CriticalPaths::Path{w.S("c"), 2}));
  p.Update(w.S("b"), 4);  // existing [0] grows past [1]: swap
  EXPECT_EQ(p.paths[0], (CriticalPaths::Path{w.S("c"), 2}));
  EXPECT_EQ(p.paths[1], (CriticalPaths::Path{w.S("b"), 4}));
}

}  // namespace
}  // namespace corral::plugins::pod_topology_spread
