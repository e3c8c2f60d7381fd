#include "corral/framework/framework.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::framework {
namespace {

using testing::FakeHandle;
using testing::TestWorld;

// A configurable fake implementing Filter + Score (+ PreFilter optionally).
class FakePlugin : public PreFilterPlugin, public FilterPlugin, public ScorePlugin {
 public:
  explicit FakePlugin(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }
  Status PreFilter(CycleState&, size_t, const PodInfo&, const Snapshot&,
                   PreFilterResult* r) override {
    if (!prefilter_nodes.empty()) r->node_names = prefilter_nodes;
    return prefilter_status;
  }
  Status Filter(const CycleState&, size_t, const PodInfo&, const NodeInfo& n) const override {
    return reject.contains(n.name()) ? Status::Unschedulable("fake rejects") : Status();
  }
  bool FilterIsNodeLocal(const PodInfo&) const override { return node_local; }
  Status Score(const CycleState&, size_t, const PodInfo&, const NodeInfo& n,
               int64_t* s) const override {
    auto it = scores.find(n.name());
    *s = it == scores.end() ? 0 : it->second;
    return {};
  }
  Status prefilter_status;
  absl::flat_hash_set<Symbol> prefilter_nodes;
  absl::flat_hash_set<Symbol> reject;
  absl::flat_hash_map<Symbol, int64_t> scores;
  bool node_local = true;

 private:
  std::string name_;
};

class QueueSortFake : public QueueSortPlugin, public BindPlugin {
 public:
  std::string_view Name() const override { return "Sort"; }
  bool Less(const QueuedPodView& a, const QueuedPodView& b) const override {
    return a.pod->priority() > b.pod->priority();
  }
  Status Bind(CycleState&, const PodInfo&, Symbol) override { return {}; }
};

struct Fixture {
  TestWorld w;
  FakeHandle h{w};
  Registry reg;
  std::map<std::string, FakePlugin*> made;
  Fixture() {
    for (std::string name : {"A", "B", "C"}) {
      (void)reg.Register(
          name, [this, name](const PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
            auto p = std::make_unique<FakePlugin>(name);
            made[name] = p.get();
            return std::unique_ptr<Plugin>(std::move(p));
          });
    }
    (void)reg.Register("Sort", [](const PluginArgs*, Handle&) -> Result<std::unique_ptr<Plugin>> {
      return std::unique_ptr<Plugin>(std::make_unique<QueueSortFake>());
    });
  }
  ProfileConfig Profile(std::vector<PluginEntry> multi) {
    ProfileConfig p;
    p.plugins.multi_point.enabled = std::move(multi);
    p.plugins.multi_point.enabled.push_back({"Sort", 0});
    return p;
  }
};

TEST(FrameworkTest, MultiPointExpandsToImplementedPointsWithWeights) {
  Fixture f;
  auto fwk = Framework::New(f.Profile({{"A", 3}, {"B", 0}}), f.reg, f.h);
  ASSERT_TRUE(fwk.ok()) << fwk.error().message;
  EXPECT_EQ((*fwk)->ListPlugins("Filter"), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ((*fwk)->ListPlugins("Score"),
            (std::vector<std::string>{"A:3", "B:1"}));  // weight 0 ⇒ 1
  EXPECT_EQ((*fwk)->ListPlugins("QueueSort"), (std::vector<std::string>{"Sort"}));
  EXPECT_EQ((*fwk)->ListPlugins("Bind"), (std::vector<std::string>{"Sort"}));
}

TEST(FrameworkTest, SpecificPointOverridesComeFirstThenMultiPointThenTheRest) {
  Fixture f;
  ProfileConfig p = f.Profile({{"A", 1}, {"B", 1}});
  p.plugins.filter.enabled = {{"C", 0}, {"B", 0}};  // B overrides multiPoint; C is filter-only
  p.plugins.score.enabled = {{"B", 7}};
  p.plugins.score.disabled = {"A"};
  auto fwk = Framework::New(p, f.reg, f.h);
  ASSERT_TRUE(fwk.ok()) << fwk.error().message;
  // kube: part 1 overrides (B), part 2 multiPoint-only (A), part 3 other specific plugins (C).
  EXPECT_EQ((*fwk)->ListPlugins("Filter"), (std::vector<std::string>{"B", "A", "C"}));
  EXPECT_EQ((*fwk)->ListPlugins("Score"), (std::vector<std::string>{"B:7"}));
}

TEST(FrameworkTest, ConfigErrorsUseKubeMessages) {
  Fixture f;
  ProfileConfig dup = f.Profile({{"A", 1}, {"A", 1}});
  auto r1 = Framework::New(dup, f.reg, f.h);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.error().message, "plugin \"A\" already registered as \"PreFilterPlugin\"");
  ProfileConfig missing = f.Profile({{"Nope", 1}});
  auto r2 = Framework::New(missing, f.reg, f.h);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().message, "plugin \"Nope\" does not exist");
  ProfileConfig no_sort;
  no_sort.plugins.filter.enabled = {{"A", 0}};
  auto r3 = Framework::New(no_sort, f.reg, f.h);
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error().message,
            "only one queue sort plugin required for profile with scheduler name "
            "\"default-scheduler\", but got 0");
  ProfileConfig wrong;
  wrong.plugins.queue_sort.enabled = {{"A", 0}};
  auto r4 = Framework::New(wrong, f.reg, f.h);
  ASSERT_FALSE(r4.ok());
  EXPECT_EQ(r4.error().message, "plugin \"A\" does not extend QueueSortPlugin plugin");
}

TEST(FrameworkTest, PreFilterResultsIntersectAndEmptyIsUnresolvable) {
  Fixture f;
  auto fwk = Framework::New(f.Profile({{"A", 1}, {"B", 1}}), f.reg, f.h);
  ASSERT_TRUE(fwk.ok());
  Symbol n1 = f.w.S("n1"), n2 = f.w.S("n2"), n3 = f.w.S("n3");
  f.made["A"]->prefilter_nodes = {n1, n2};
  f.made["B"]->prefilter_nodes = {n2, n3};
  auto& pod = f.w.Pod("p").Obj();
  CycleState state;
  PreFilterResult r;
  std::vector<std::string_view> restricting;
  Status s = (*fwk)->RunPreFilterPlugins(state, f.w.Info(pod), &r, &restricting);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*r.node_names, (absl::flat_hash_set<Symbol>{n2}));
  EXPECT_EQ(restricting, (std::vector<std::string_view>{"A", "B"}));
  f.made["B"]->prefilter_nodes = {n3};
  s = (*fwk)->RunPreFilterPlugins(state, f.w.Info(pod), &r);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "node(s) didn't satisfy plugin(s) [A B] simultaneously");
}

TEST(FrameworkTest, PreFilterUnresolvableShortCircuitsAndSkipDisablesFilter) {
  Fixture f;
  auto fwk = Framework::New(f.Profile({{"A", 1}, {"B", 1}}), f.reg, f.h);
  ASSERT_TRUE(fwk.ok());
  auto& pod = f.w.Pod("p").Obj();
  auto& node = f.w.Node("n1").Obj();
  auto& ni = f.w.NodeWith(node);
  f.made["A"]->prefilter_status = Status::Skip();
  f.made["A"]->reject = {f.w.S("n1")};
  CycleState state;
  PreFilterResult r;
  ASSERT_TRUE((*fwk)->RunPreFilterPlugins(state, f.w.Info(pod), &r).ok());
  EXPECT_TRUE((*fwk)->RunFilterPlugins(state, f.w.Info(pod), ni).ok());  // A skipped
  f.made["A"]->prefilter_status = Status::Unresolvable("a says no");
  Status s = (*fwk)->RunPreFilterPlugins(state, f.w.Info(pod), &r);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.plugin(), "A");
}

TEST(FrameworkTest, NodeLocalFilterKeyNeedsEveryRunningFilterNodeLocalAndKeysTheSkips) {
  Fixture f;
  auto fwk = Framework::New(f.Profile({{"A", 1}, {"B", 1}}), f.reg, f.h);
  ASSERT_TRUE(fwk.ok());
  const PodInfo& pod = f.w.Info(f.w.Pod("p").Obj());
  auto key_after_prefilter = [&]() {
    CycleState state;
    PreFilterResult r;
    EXPECT_TRUE((*fwk)->RunPreFilterPlugins(state, pod, &r).ok());
    return (*fwk)->NodeLocalFilterKey(state, pod);
  };
  const std::optional<uint64_t> all_run = key_after_prefilter();
  ASSERT_TRUE(all_run.has_value());
  f.made["B"]->node_local = false;  // a running non-local filter disables the key
  EXPECT_FALSE(key_after_prefilter().has_value());
  f.made["B"]->prefilter_status = Status::Skip();  // ...unless it is skipped this cycle
  const std::optional<uint64_t> b_skipped = key_after_prefilter();
  ASSERT_TRUE(b_skipped.has_value());
  EXPECT_NE(*b_skipped, *all_run);  // a different skip set is a different key
}

TEST(FrameworkTest, FilterStopsAtFirstFailureAndScoresAreWeighted) {
  Fixture f;
  auto fwk = Framework::New(f.Profile({{"A", 2}, {"B", 3}}), f.reg, f.h);
  ASSERT_TRUE(fwk.ok());
  auto& pod = f.w.Pod("p").Obj();
  auto& n1 = f.w.NodeWith(f.w.Node("n1").Obj());
  auto& n2 = f.w.NodeWith(f.w.Node("n2").Obj());
  f.made["A"]->reject = {f.w.S("n1")};
  f.made["B"]->reject = {f.w.S("n1")};
  CycleState state;
  PreFilterResult r;
  ASSERT_TRUE((*fwk)->RunPreFilterPlugins(state, f.w.Info(pod), &r).ok());
  Status s = (*fwk)->RunFilterPlugins(state, f.w.Info(pod), n1);
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(s.Message(), "fake rejects");
  f.made["A"]->scores = {{f.w.S("n1"), 10}, {f.w.S("n2"), 50}};
  f.made["B"]->scores = {{f.w.S("n1"), 100}, {f.w.S("n2"), 0}};
  std::vector<const NodeInfo*> nodes = {&n1, &n2};
  ScoreTable t;
  ASSERT_TRUE((*fwk)->RunScorePlugins(state, f.w.Info(pod), nodes, &t).ok());
  // n1: 10×2 + 100×3 = 320; n2: 50×2 + 0×3 = 100.
  EXPECT_EQ(t.total, (std::vector<int64_t>{320, 100}));
  f.made["B"]->scores[f.w.S("n2")] = 101;
  Status bad = (*fwk)->RunScorePlugins(state, f.w.Info(pod), nodes, &t);
  EXPECT_EQ(bad.code(), Code::kError);
  EXPECT_NE(bad.Message().find("returns an invalid score 101"), std::string::npos);
}

TEST(ConfigTest, MergeReplacesDefaultsInPlaceAndStarDisablesAll) {
  FeatureGates g;
  Plugins custom;
  custom.multi_point.enabled = {{"TaintToleration", 5}, {"MyPlugin", 1}};
  custom.multi_point.disabled = {"ImageLocality"};
  Plugins merged = MergePlugins(DefaultPlugins(g), custom);
  const auto& mp = merged.multi_point.enabled;
  auto find = [&](std::string_view n) {
    return std::find_if(mp.begin(), mp.end(), [&](const auto& e) { return e.name == n; });
  };
  ASSERT_NE(find("TaintToleration"), mp.end());
  EXPECT_EQ(find("TaintToleration")->weight, 5);
  EXPECT_EQ(find("ImageLocality"), mp.end());
  EXPECT_EQ(mp.back().name, "MyPlugin");
  Plugins star;
  star.multi_point.disabled = {"*"};
  star.multi_point.enabled = {{"Only", 0}};
  EXPECT_EQ(MergePlugins(DefaultPlugins(g), star).multi_point.enabled,
            (std::vector<PluginEntry>{{"Only", 0}}));
}

// kube's applyFeatureGates: NodeDeclaredFeatures is appended while its gate is on (the default at
// v1.36 and v1.37; off at v1.35); DynamicResources before DefaultPreemption while DRA is on.
TEST(ConfigTest, DefaultPluginsFollowTheGatesAtTheEmulatedVersion) {
  auto names = [](const FeatureGates& g) {
    std::vector<std::string> out;
    for (const auto& e : DefaultPlugins(g).multi_point.enabled) out.push_back(e.name);
    return out;
  };
  auto has = [](const std::vector<std::string>& v, std::string_view n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  EXPECT_EQ(names(FeatureGates()).back(), "NodeDeclaredFeatures");
  EXPECT_TRUE(has(names(FeatureGates(KubeVersion{1, 36})), "NodeDeclaredFeatures"));
  EXPECT_FALSE(has(names(FeatureGates(KubeVersion{1, 35})), "NodeDeclaredFeatures"));
  FeatureGates off(KubeVersion{1, 36});
  ASSERT_TRUE(off.Set("NodeDeclaredFeatures", false).ok());
  EXPECT_FALSE(has(names(off), "NodeDeclaredFeatures"));
  EXPECT_EQ(names(off).back(), "DefaultBinder");
  FeatureGates no_dra(KubeVersion{1, 34});
  ASSERT_TRUE(no_dra.Set("DynamicResourceAllocation", false).ok());
  EXPECT_FALSE(has(names(no_dra), "DynamicResources"));
  EXPECT_TRUE(has(names(FeatureGates(KubeVersion{1, 34})), "DynamicResources"));
}

}  // namespace
}  // namespace corral::framework
