#include "corral/api/cluster.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::api {
namespace {

class ClusterMatchesTest : public ::testing::Test {
 protected:
  ClusterMatchesTest() {
    cluster_.meta.name = S("cluster1");
    cluster_.meta.labels.Set(S("foo"), S("bar"));
    cluster_.zones = {S("zone1"), S("zone2"), S("zone3")};
    cluster_.region = S("region1");
    cluster_.provider = S("provider1");
  }
  Symbol S(std::string_view s) { return in_.Intern(s); }
  std::vector<Symbol> Syms(std::vector<std::string> v) {
    std::vector<Symbol> out;
    for (const std::string& s : v) out.push_back(S(s));
    return out;
  }
  NodeSelectorRequirement Field(std::string key, NodeSelectorOp op,
                                std::vector<std::string> values) {
    return {S(key), op, Syms(std::move(values))};
  }
  LabelSelector FooIs(std::string value) {
    LabelSelector s;
    s.match_labels.Set(S("foo"), S(value));
    return s;
  }

  Interner in_ = NewInterner();
  Cluster cluster_;
};

// Karmada pkg/util/selector_test.go TestClusterMatches: cluster1 {foo: bar}, zones zone1..3,
// region1, provider1.
TEST_F(ClusterMatchesTest, KarmadaTable) {
  const auto kIn = NodeSelectorOp::kIn;
  const auto kNotIn = NodeSelectorOp::kNotIn;
  const std::vector<std::string> zones = {"zone1", "zone2", "zone3"};
  struct Case {
    std::string name;
    ClusterAffinity affinity;
    bool want;
  };
  auto with = [&](std::vector<std::string> names, std::optional<LabelSelector> labels,
                  std::optional<std::vector<NodeSelectorRequirement>> fields,
                  std::vector<std::string> exclude = {}) {
    ClusterAffinity a;
    a.cluster_names = Syms(std::move(names));
    a.label_selector = std::move(labels);
    a.field_selector = std::move(fields);
    a.exclude = Syms(std::move(exclude));
    return a;
  };
  using Fields = std::vector<NodeSelectorRequirement>;
  LabelSelector bad_labels;
  bad_labels.match_labels.Set(S(""), S("bar"));
  const std::vector<Case> cases = {
      {"test cluster excluded and names", with({"cluster1"}, {}, {}, {"cluster1"}), false},
      {"test cluster excluded and label selector", with({}, FooIs("bar"), {}, {"cluster1"}), false},
      {"test cluster excluded and field selector",
       with({}, {}, Fields{Field("zone", kIn, zones)}, {"cluster1"}), false},
      {"test cluster names", with({"cluster1"}, {}, {}), true},
      {"test cluster names not matched", with({"cluster2"}, {}, {}), false},
      {"test cluster names and label selector", with({"cluster1"}, FooIs("bar"), {}), true},
      {"test cluster names and label selector not matched",
       with({"cluster1"}, FooIs("unmatched"), {}), false},
      {"test cluster names and field selector(zone & region)",
       with({"cluster1"}, {}, Fields{Field("zone", kIn, zones), Field("region", kIn, {"region1"})}),
       true},
      {"test cluster names and field selector(provider)",
       with({"cluster1"}, {}, Fields{Field("provider", kIn, {"provider1"})}), true},
      {"test cluster names and field selector(region)",
       with({"cluster1"}, {}, Fields{Field("region", kIn, {"region1"})}), true},
      {"test cluster names and field selector(zone not in)",
       with({"cluster1"}, {}, Fields{Field("zone", kNotIn, zones)}), false},
      {"test cluster names and field selector(provider not in)",
       with({"cluster1"}, {}, Fields{Field("provider", kNotIn, {"provider1"})}), false},
      {"test cluster names and field selector(region not in)",
       with({"cluster1"}, {}, Fields{Field("region", kNotIn, {"region1"})}), false},
      {"test label selector and field selector(zone)",
       with({}, FooIs("bar"), Fields{Field("zone", kIn, zones)}), true},
      {"test label selector and field selector(provider)",
       with({}, FooIs("bar"), Fields{Field("provider", kIn, {"provider1"})}), true},
      {"test label selector and field selector(region)",
       with({}, FooIs("bar"), Fields{Field("region", kIn, {"region1"})}), true},
      {"test label selector and field selector(zone not in)",
       with({}, FooIs("bar"), Fields{Field("zone", kNotIn, zones)}), false},
      {"test label selector and field selector(provider) [not in]",
       with({}, FooIs("bar"), Fields{Field("provider", kNotIn, {"provider1"})}), false},
      {"test label selector and field selector(region) [not in]",
       with({}, FooIs("bar"), Fields{Field("region", kNotIn, {"region1"})}), false},
      {"test label selector", with({}, FooIs("bar"), {}), true},
      {"test label selector not matched", with({}, FooIs("unmatched"), {}), false},
      {"test empty cluster affinity matched", ClusterAffinity{}, true},
      {"test label selector error", with({}, bad_labels, {}), false},
      {"test field selector error", with({}, {}, Fields{NodeSelectorRequirement{}}), false},
      {"test field selector zone matched", with({}, {}, Fields{Field("zone", kIn, zones)}), true},
      {"test field selector zone partially matched",
       with({"cluster1"}, {}, Fields{Field("zone", kNotIn, zones)}), false},
      {"test field selector zone not matched",
       with({"cluster1"}, {}, Fields{Field("zone", kIn, {"zone2"})}), true},
      {"test field selector region matched",
       with({}, {}, Fields{Field("region", kIn, {"region1"})}), true},
      {"test field selector region not matched",
       with({"cluster1"}, {}, Fields{Field("region", kNotIn, {"region1"})}), false},
      {"test field selector region not matched [other value]",
       with({"cluster1"}, {}, Fields{Field("region", kIn, {"region2"})}), false},
      {"test field selector provider matched",
       with({}, {}, Fields{Field("provider", kIn, {"provider1"})}), true},
      {"test field selector provider not matched",
       with({}, {}, Fields{Field("provider", kNotIn, {"provider1"})}), false},
      {"test field selector provider not matched [other value]",
       with({}, {}, Fields{Field("provider", kIn, {"provider2"})}), false},
      {"test field selector other key not matched",
       with({}, {}, Fields{Field("metadata.name", kIn, {"cluster1"})}), false},
      {"test field selector cluster names and label selector",
       with({"cluster1"}, FooIs("bar"), Fields{Field("zone", kIn, zones)}), true},
      {"test field selector cluster names and label selector not matched",
       with({"cluster2"}, FooIs("bar"), Fields{Field("zone", kIn, zones)}), false},
      {"test field selector cluster names and label selector not matched [zone not in]",
       with({"cluster1"}, FooIs("bar"), Fields{Field("zone", kNotIn, zones)}), false},
      {"test field selector cluster names and label selector not matched [labels]",
       with({"cluster1"}, FooIs("Unmatched"), Fields{Field("zone", kIn, zones)}), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ClusterMatches(cluster_, c.affinity, in_), c.want);
  }
}

// Karmada pkg/util/selector_test.go Test_matchZones, through a zone-only field selector.
TEST_F(ClusterMatchesTest, MatchZones) {
  struct Case {
    std::string name;
    NodeSelectorOp op;
    std::vector<std::string> values;
    std::vector<std::string> zones;
    bool want;
  };
  const std::vector<Case> cases = {
      {"empty zones for In operator", NodeSelectorOp::kIn, {"foo"}, {}, false},
      {"overlapping zones for In operator", NodeSelectorOp::kIn, {"foo"}, {"foo", "bar"}, true},
      {"all zones for In operator", NodeSelectorOp::kIn, {"foo", "bar"}, {"foo", "bar"}, true},
      {"empty zones for NotIn operator", NodeSelectorOp::kNotIn, {"foo"}, {}, true},
      {"partial zones for NotIn operator", NodeSelectorOp::kNotIn, {"foo"}, {"foo", "bar"}, false},
      {"empty zones for Exists operator", NodeSelectorOp::kExists, {}, {}, false},
      {"empty zones for DoesNotExist operator", NodeSelectorOp::kDoesNotExist, {}, {}, true},
      {"unknown operator", NodeSelectorOp::kGt, {}, {"foo"}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    cluster_.zones = Syms(c.zones);
    ClusterAffinity a;
    a.field_selector = std::vector<NodeSelectorRequirement>{Field("zone", c.op, c.values)};
    EXPECT_EQ(ClusterMatches(cluster_, a, in_), c.want);
  }
}

}  // namespace
}  // namespace corral::api
