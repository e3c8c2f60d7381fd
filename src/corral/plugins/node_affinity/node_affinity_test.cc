#include "corral/plugins/node_affinity/node_affinity.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/selectors.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using api::NodeSelectorOp;
using framework::ActionType;
using framework::Code;
using framework::EventResource;
using framework::QueueingHint;

using Labels = std::vector<std::pair<std::string, std::string>>;

// A requirement, a term, and the affinity shapes of kube's tests, interned in a TestWorld.
struct R {
  std::string key;
  NodeSelectorOp op;
  std::vector<std::string> values;
};
struct TermSpec {
  std::vector<R> exprs;
  std::vector<R> fields;
};
struct PrefSpec {
  int32_t weight;
  TermSpec term;
};

class NodeAffinityTest : public ::testing::Test {
 protected:
  api::NodeSelectorRequirement Req(const R& r) {
    api::NodeSelectorRequirement out{w_.S(r.key), r.op, {}};
    for (const auto& v : r.values) out.values.push_back(w_.S(v));
    return out;
  }
  api::NodeSelectorTerm Term(const TermSpec& t) {
    api::NodeSelectorTerm out;
    for (const auto& r : t.exprs) out.match_expressions.push_back(Req(r));
    for (const auto& r : t.fields) out.match_fields.push_back(Req(r));
    return out;
  }
  api::NodeSelector Selector(const std::vector<TermSpec>& terms) {
    api::NodeSelector s;
    for (const auto& t : terms) s.node_selector_terms.push_back(Term(t));
    return s;
  }
  std::vector<api::PreferredSchedulingTerm> Preferred(const std::vector<PrefSpec>& prefs) {
    std::vector<api::PreferredSchedulingTerm> out;
    for (const auto& p : prefs) out.push_back({p.weight, Term(p.term)});
    return out;
  }
  api::NodeAffinity& AffinityOf(api::Pod& pod) {
    if (!pod.affinity.has_value()) pod.affinity = api::Affinity{};
    if (!pod.affinity->node_affinity.has_value()) pod.affinity->node_affinity = api::NodeAffinity{};
    return *pod.affinity->node_affinity;
  }
  api::Pod& PodRequiring(const std::vector<TermSpec>& terms) {
    auto& pod = w_.Pod("p").Obj();
    AffinityOf(pod).required = Selector(terms);
    return pod;
  }
  api::Pod& PodPreferring(const std::vector<PrefSpec>& prefs) {
    auto& pod = w_.Pod("p").Obj();
    AffinityOf(pod).preferred = Preferred(prefs);
    return pod;
  }
  api::Node& NodeWith(const std::string& name, const Labels& labels) {
    auto& node = w_.Node(name).Obj();
    node.meta.labels = api::LabelSet();  // kube's test nodes carry only the listed labels
    for (const auto& [k, v] : labels) node.meta.labels.Set(w_.S(k), w_.S(v));
    return node;
  }
  std::unique_ptr<framework::Plugin> Make(
      const std::optional<api::NodeAffinity>& added = std::nullopt) {
    NodeAffinityArgs args;
    args.added_affinity = added;
    auto made = NodeAffinity::New(&args, h_);
    EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error().message);
    return std::move(*made);
  }
  static NodeAffinity& As(std::unique_ptr<framework::Plugin>& p) {
    return dynamic_cast<NodeAffinity&>(*p);
  }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
};

const NodeSelectorOp kIn = NodeSelectorOp::kIn;
const NodeSelectorOp kNotIn = NodeSelectorOp::kNotIn;
const NodeSelectorOp kExists = NodeSelectorOp::kExists;
const NodeSelectorOp kGt = NodeSelectorOp::kGt;

// kube's TestNodeAffinity.
TEST_F(NodeAffinityTest, PreFilterAndFilter) {
  enum PreFilterWant { kPreOk, kPreSkip, kPreConflict };
  enum FilterWant { kFits, kPod, kEnforced };
  struct Case {
    std::string name;
    api::Pod* pod;
    Labels labels;
    std::string node_name;
    FilterWant want = kFits;
    PreFilterWant want_pre = kPreOk;
    std::vector<std::string> want_names;  // PreFilterResult; empty = all nodes
    std::optional<api::NodeAffinity> added;
    bool run_prefilter = true;
  };
  const TermSpec name_node1{{}, {{"metadata.name", kIn, {"node1"}}}};
  const TermSpec name_node2{{}, {{"metadata.name", kIn, {"node2"}}}};
  api::NodeAffinity added_node2;
  added_node2.required = Selector({name_node2});
  api::NodeAffinity added_zone_bar;
  added_zone_bar.required = Selector({{{{"zone", kIn, {"bar"}}}, {}}});
  std::vector<Case> cases = {
      {"missing labels", &w_.Pod("p").NodeSelector("foo", "bar").Obj(), {}, "", kPod},
      {"same labels", &w_.Pod("p").NodeSelector("foo", "bar").Obj(), {{"foo", "bar"}}, ""},
      {"node labels are superset",
       &w_.Pod("p").NodeSelector("foo", "bar").Obj(),
       {{"foo", "bar"}, {"baz", "blah"}},
       ""},
      {"node labels are subset",
       &w_.Pod("p").NodeSelector("foo", "bar").NodeSelector("baz", "blah").Obj(),
       {{"foo", "bar"}},
       "",
       kPod},
      {"Pod with matchExpressions using In operator that matches the existing node",
       &PodRequiring({{{{"foo", kIn, {"bar", "value2"}}}, {}}}),
       {{"foo", "bar"}},
       ""},
      {"Pod with matchExpressions using Gt operator that matches the existing node",
       &PodRequiring({{{{"kernel-version", kGt, {"0204"}}}, {}}}),
       {{"kernel-version", "0206"}},
       ""},
      {"Pod with matchExpressions using NotIn operator that matches the existing node",
       &PodRequiring({{{{"mem-type", kNotIn, {"DDR", "DDR2"}}}, {}}}),
       {{"mem-type", "DDR3"}},
       ""},
      {"Pod with matchExpressions using Exists operator that matches the existing node",
       &PodRequiring({{{{"GPU", kExists, {}}}, {}}}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       ""},
      {"Pod with affinity that don't match node's labels won't schedule onto the node",
       &PodRequiring({{{{"foo", kIn, {"value1", "value2"}}}, {}}}),
       {{"foo", "bar"}},
       "",
       kPod},
      {"Pod with empty MatchExpressions is not a valid value will match no objects and won't "
       "schedule onto "
       "the node",
       &PodRequiring({{}}),
       {{"foo", "bar"}},
       "",
       kPod},
      {"Pod with no Affinity will schedule onto a node",
       &w_.Pod("p").Obj(),
       {{"foo", "bar"}},
       "",
       kFits,
       kPreSkip},
      {"Pod with Affinity but nil NodeSelector will schedule onto a node",
       [&]() -> api::Pod* {
         auto& p = w_.Pod("p").Obj();
         AffinityOf(p);
         return &p;
       }(),
       {{"foo", "bar"}},
       "",
       kFits,
       kPreSkip},
      {"Pod with multiple matchExpressions ANDed that matches the existing node",
       &PodRequiring({{{{"GPU", kExists, {}}, {"GPU", kNotIn, {"AMD", "INTER"}}}, {}}}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       ""},
      {"Pod with multiple matchExpressions ANDed that doesn't match the existing node",
       &PodRequiring({{{{"GPU", kExists, {}}, {"GPU", kIn, {"AMD", "INTER"}}}, {}}}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       kPod},
      {"Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will "
       "schedule "
       "onto the node",
       &PodRequiring({{{{"foo", kIn, {"bar", "value2"}}}, {}},
                      {{{"diffkey", kIn, {"wrong", "value2"}}}, {}}}),
       {{"foo", "bar"}},
       ""},
      {"Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) "
       "both are "
       "satisfied, will schedule onto the node",
       [&]() -> api::Pod* {
         auto& p = PodRequiring({{{{"foo", kExists, {}}}, {}}});
         p.node_selector.Set(w_.S("foo"), w_.S("bar"));
         return &p;
       }(),
       {{"foo", "bar"}},
       ""},
      {"Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that "
       "we are "
       "deprecating) is not satisfied, won't schedule onto the node",
       [&]() -> api::Pod* {
         auto& p = PodRequiring({{{{"foo", kExists, {}}}, {}}});
         p.node_selector.Set(w_.S("foo"), w_.S("bar"));
         return &p;
       }(),
       {{"foo", "barrrrrr"}},
       "",
       kPod},
      {"Pod with an invalid value in Affinity term won't be scheduled onto the node",
       &PodRequiring({{{{"foo", kNotIn, {"invalid value: ___@#$%^"}}}, {}}}),
       {{"foo", "bar"}},
       "",
       kPod},
      {"Pod with matchFields using In operator that matches the existing node",
       &PodRequiring({name_node1}),
       {},
       "node1",
       kFits,
       kPreOk,
       {"node1"}},
      {"Pod with matchFields using In operator that does not match the existing node",
       &PodRequiring({name_node1}),
       {},
       "node2",
       kPod,
       kPreOk,
       {"node1"}},
      {"Pod with two terms: matchFields does not match, but matchExpressions matches",
       &PodRequiring({name_node1, {{{"foo", kIn, {"bar"}}}, {}}}),
       {{"foo", "bar"}},
       "node2"},
      {"Pod with one term: matchFields does not match, but matchExpressions matches",
       &PodRequiring({{{{"foo", kIn, {"bar"}}}, {{"metadata.name", kIn, {"node1"}}}}}),
       {{"foo", "bar"}},
       "node2",
       kPod,
       kPreOk,
       {"node1"}},
      {"Pod with one term: both matchFields and matchExpressions match",
       &PodRequiring({{{{"foo", kIn, {"bar"}}}, {{"metadata.name", kIn, {"node1"}}}}}),
       {{"foo", "bar"}},
       "node1",
       kFits,
       kPreOk,
       {"node1"}},
      {"Pod with two terms: both matchFields and matchExpressions do not match",
       &PodRequiring({name_node1, {{{"foo", kIn, {"not-match-to-bar"}}}, {}}}),
       {{"foo", "bar"}},
       "node2",
       kPod},
      {"Pod with two terms of node.Name affinity",
       &PodRequiring({name_node1, name_node2}),
       {},
       "node2",
       kFits,
       kPreOk,
       {"node1", "node2"}},
      {"Pod with two conflicting mach field requirements",
       &PodRequiring(
           {{{}, {{"metadata.name", kIn, {"node1"}}, {"metadata.name", kIn, {"node2"}}}}}),
       {{"foo", "bar"}},
       "node2",
       kPod,
       kPreConflict},
      {"Matches added affinity and Pod's node affinity",
       &PodRequiring({{{{"zone", kIn, {"foo"}}}, {}}}),
       {{"zone", "foo"}},
       "node2",
       kFits,
       kPreOk,
       {},
       added_node2},
      {"Matches added affinity but not Pod's node affinity",
       &PodRequiring({{{{"zone", kIn, {"bar"}}}, {}}}),
       {{"zone", "foo"}},
       "node2",
       kPod,
       kPreOk,
       {},
       added_node2},
      {"Doesn't match added affinity",
       &w_.Pod("p").Obj(),
       {{"zone", "foo"}},
       "node2",
       kEnforced,
       kPreOk,
       {},
       added_zone_bar},
      {"Matches node selector correctly even if PreFilter is not called",
       &w_.Pod("p").NodeSelector("foo", "bar").Obj(),
       {{"foo", "bar"}, {"baz", "blah"}},
       "",
       kFits,
       kPreOk,
       {},
       std::nullopt,
       false},
      {"Matches node affinity correctly even if PreFilter is not called",
       &PodRequiring({{{{"GPU", kExists, {}}, {"GPU", kNotIn, {"AMD", "INTER"}}}, {}}}),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       kFits,
       kPreOk,
       {},
       std::nullopt,
       false},
      // Corral additions.
      {"Pod with a Gt value that is not an integer matches nothing",
       &PodRequiring({{{{"kernel-version", kGt, {"abc"}}}, {}}}),
       {{"kernel-version", "0206"}},
       "",
       kPod},
      {"empty required term list matches nothing", &PodRequiring({}), {{"foo", "bar"}}, "", kPod},
  };
  for (auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto plugin = Make(tc.added);
    auto& pl = As(plugin);
    auto& pod = w_.Info(*tc.pod);
    auto& node = w_.NodeWith(NodeWith(tc.node_name, tc.labels));
    framework::CycleState state;
    if (tc.run_prefilter) {
      framework::PreFilterResult result;
      auto st = pl.PreFilter(state, 2, pod, h_.snapshot(), &result);
      switch (tc.want_pre) {
        case kPreOk:
          EXPECT_TRUE(st.ok()) << st.Message();
          break;
        case kPreSkip:
          EXPECT_TRUE(st.IsSkip());
          break;
        case kPreConflict:
          EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
          EXPECT_EQ(st.Message(), "pod affinity terms conflict");
          break;
      }
      if (tc.want_names.empty()) {
        EXPECT_FALSE(result.node_names.has_value());
      } else {
        ASSERT_TRUE(result.node_names.has_value());
        absl::flat_hash_set<Symbol> want;
        for (const auto& n : tc.want_names) want.insert(w_.S(n));
        EXPECT_EQ(*result.node_names, want);
      }
    }
    auto st = pl.Filter(state, 2, pod, node);
    switch (tc.want) {
      case kFits:
        EXPECT_TRUE(st.ok()) << st.Message();
        break;
      case kPod:
        EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
        EXPECT_EQ(st.Message(), "node(s) didn't match Pod's node affinity/selector");
        break;
      case kEnforced:
        EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
        EXPECT_EQ(st.Message(), "node(s) didn't match scheduler-enforced node affinity");
        break;
    }
  }
}

// kube's TestNodeAffinityPriority.
TEST_F(NodeAffinityTest, Score) {
  const Labels label1 = {{"foo", "bar"}};
  const Labels label2 = {{"key", "value"}};
  const Labels label3 = {{"az", "az1"}};
  const Labels label4 = {{"abc", "az11"}, {"def", "az22"}};
  const Labels label5 = {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};
  const std::vector<PrefSpec> affinity1 = {{2, {{{"foo", kIn, {"bar"}}}, {}}}};
  const std::vector<PrefSpec> affinity2 = {
      {2, {{{"foo", kIn, {"bar"}}}, {}}},
      {4, {{{"key", kIn, {"value"}}}, {}}},
      {5, {{{"foo", kIn, {"bar"}}, {"key", kIn, {"value"}}, {"az", kIn, {"az1"}}}, {}}},
  };
  api::NodeAffinity added1;
  added1.preferred = Preferred(affinity1);
  api::NodeAffinity added_key3;
  added_key3.preferred = Preferred({{3, {{{"key", kIn, {"value"}}}, {}}}});
  struct Case {
    std::string name;
    api::Pod* pod;
    std::vector<std::pair<std::string, Labels>> nodes;
    std::vector<int64_t> want;
    std::optional<api::NodeAffinity> added;
    bool run_prescore = true;
    Code want_prescore = Code::kSuccess;
  };
  std::vector<Case> cases = {
      // No preferred terms: every raw score is 0 and normalizing leaves 0.
      {"all nodes are same priority as NodeAffinity is nil",
       &w_.Pod("p").Obj(),
       {{"node1", label1}, {"node2", label2}, {"node3", label3}},
       {0, 0, 0},
       std::nullopt,
       false},
      {"Skip is returned in PreScore when NodeAffinity is nil",
       &w_.Pod("p").Obj(),
       {{"node1", label1}},
       {},
       std::nullopt,
       true,
       Code::kSkip},
      // raw 0, 0, 0.
      {"no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' "
       "priority is "
       "zero",
       &PodPreferring(affinity1),
       {{"node1", label4}, {"node2", label2}, {"node3", label3}},
       {0, 0, 0}},
      // raw 2, 0, 0; max 2 → 100*2/2 = 100.
      {"only node1 matches the preferred scheduling requirements of pod",
       &PodPreferring(affinity1),
       {{"node1", label1}, {"node2", label2}, {"node3", label3}},
       {100, 0, 0}},
      // raw node1 2, node5 2+4+5 = 11, node2 4; max 11 → 100*2/11 = 18, 100, 100*4/11 = 36.
      {"all nodes matches the preferred scheduling requirements of pod but with different "
       "priorities ",
       &PodPreferring(affinity2),
       {{"node1", label1}, {"node5", label5}, {"node2", label2}},
       {18, 100, 36}},
      // added terms only: raw 2, 0.
      {"added affinity",
       &w_.Pod("p").Obj(),
       {{"node1", label1}, {"node2", label2}},
       {100, 0},
       added1},
      // raw node1 2 (pod), node2 3 (added), node3 2+3 = 5; max 5 → 40, 60, 100.
      {"added affinity and pod has default affinity",
       &PodPreferring(affinity1),
       {{"node1", label1}, {"node2", label2}, {"node3", label5}},
       {40, 60, 100},
       added_key3},
      {"calculate the priorities correctly even if PreScore is not called",
       &PodPreferring(affinity2),
       {{"node1", label1}, {"node5", label5}, {"node2", label2}},
       {18, 100, 36},
       std::nullopt,
       false},
  };
  for (auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto plugin = Make(tc.added);
    auto& pl = As(plugin);
    auto& pod = w_.Info(*tc.pod);
    std::vector<const framework::NodeInfo*> nodes;
    for (const auto& [name, labels] : tc.nodes)
      nodes.push_back(&w_.NodeWith(NodeWith(name, labels)));
    framework::CycleState state;
    if (tc.run_prescore) {
      auto st = pl.PreScore(state, 0, pod, nodes);
      EXPECT_EQ(st.code(), tc.want_prescore);
      if (!st.ok()) continue;
    }
    std::vector<framework::NodeScore> scores;
    for (const auto* n : nodes) {
      int64_t s = -1;
      ASSERT_TRUE(pl.Score(state, 0, pod, *n, &s).ok());
      scores.push_back({n->name(), s});
    }
    ASSERT_TRUE(pl.NormalizeScore(state, 0, pod, scores).ok());
    std::vector<int64_t> got;
    for (const auto& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, tc.want);
  }
}

// kube's "PreScore returns error when an incoming Pod has a broken affinity".
TEST_F(NodeAffinityTest, PreScoreRejectsAnUnparsablePreferredTerm) {
  auto plugin = Make();
  auto& pod = w_.Info(PodPreferring({{2, {{{"invalid key", kIn, {"bar"}}}, {}}}}));
  framework::CycleState state;
  auto st = As(plugin).PreScore(state, 0, pod, {});
  EXPECT_EQ(st.code(), Code::kError);
  EXPECT_EQ(
      st.Message(),
      "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name part must consist of "
      "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
      "character "
      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

TEST_F(NodeAffinityTest, PreScoreRunsForZeroWeightAddedTermsButTheyScoreNothing) {
  api::NodeAffinity added;
  added.preferred = Preferred({{0, {{{"foo", kIn, {"bar"}}}, {}}}});
  auto plugin = Make(added);
  auto& pod = w_.Info(w_.Pod("p").Obj());
  framework::CycleState state;
  EXPECT_TRUE(As(plugin).PreScore(state, 0, pod, {}).ok());
  int64_t s = -1;
  ASSERT_TRUE(
      As(plugin).Score(state, 0, pod, w_.NodeWith(NodeWith("n", {{"foo", "bar"}})), &s).ok());
  EXPECT_EQ(s, 0);
}

// kube's Test_isSchedulableAfterNodeChange (cases expressible without the old node).
TEST_F(NodeAffinityTest, NodeHint) {
  api::NodeAffinity added_foo_bar;
  added_foo_bar.required = Selector({{{{"foo", kIn, {"bar"}}}, {}}});
  auto& pod = w_.Info(PodRequiring({{{{"foo", kIn, {"bar"}}}, {}}}));
  const framework::ClusterEvent add{EventResource::kNode, ActionType::kAdd};
  const framework::ClusterEvent update{EventResource::kNode, ActionType::kUpdate};
  struct Case {
    std::string name;
    framework::ClusterEvent event;
    Labels new_labels;
    std::optional<api::NodeAffinity> added;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"skip-queue-on-add", add, {}, std::nullopt, QueueingHint::kQueueSkip},
      {"queue-on-add", add, {{"foo", "bar"}}, std::nullopt, QueueingHint::kQueue},
      {"skip-unrelated-changes", update, {}, std::nullopt, QueueingHint::kQueueSkip},
      {"skip-unrelated-changes-on-labels",
       update,
       {{"k", "v"}},
       std::nullopt,
       QueueingHint::kQueueSkip},
      {"skip-labels-changes-on-node-from-suitable-to-unsuitable",
       update,
       {{"k", "v"}},
       std::nullopt,
       QueueingHint::kQueueSkip},
      {"queue-on-labels-change-makes-pod-schedulable",
       update,
       {{"foo", "bar"}},
       std::nullopt,
       QueueingHint::kQueue},
      {"skip-queue-on-add-scheduler-enforced-node-affinity",
       add,
       {},
       added_foo_bar,
       QueueingHint::kQueueSkip},
      {"queue-on-add-scheduler-enforced-node-affinity",
       add,
       {{"foo", "bar"}},
       added_foo_bar,
       QueueingHint::kQueue},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto plugin = Make(tc.added);
    EXPECT_EQ(As(plugin).Hint(pod, tc.event, &NodeWith("n", tc.new_labels)), tc.want);
  }
}

TEST_F(NodeAffinityTest, RegistersNodeAddAndUpdate) {
  auto plugin = Make();
  auto events = As(plugin).EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].resource, EventResource::kNode);
  EXPECT_EQ(static_cast<int>(events[0].action), 5);  // Add | Update
}

TEST_F(NodeAffinityTest, SignsAffinityAndSelector) {
  auto plugin = Make();
  auto& pod = w_.Info([&]() -> api::Pod& {
    auto& p = PodRequiring({{{{"zone", kIn, {"b", "a"}}}, {}}});
    p.node_selector.Set(w_.S("disk"), w_.S("ssd"));
    return p;
  }());
  std::vector<framework::SignFragment> f;
  ASSERT_TRUE(As(plugin).Sign(pod, &f).ok());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].key, "v1.Pod.Spec.Affinity.NodeAffinity");
  EXPECT_EQ(
      f[0].value,
      R"({"Required":["{\"MatchExpressions\":[\"{\\\"key\\\":\\\"zone\\\",\\\"operator\\\":\\\"In\\\",)"
      R"(\\\"values\\\":[\\\"a\\\",\\\"b\\\"]}\"],\"MatchFields\":[]}"],"Preferred":[]})");
  EXPECT_EQ(f[1].key, "v1.Pod.Spec.Affinity.NodeSelector");
  EXPECT_EQ(f[1].value, R"({"disk":"ssd"})");
}

// kube's TestValidateNodeAffinityArgs, with full messages.
TEST_F(NodeAffinityTest, ArgsValidation) {
  NodeAffinityArgs empty;
  EXPECT_TRUE(empty.Validate(w_.in).ok());

  NodeAffinityArgs valid;
  valid.added_affinity = api::NodeAffinity{};
  valid.added_affinity->required = Selector({{{{"label-1", kIn, {"label-1-val"}}}, {}}});
  valid.added_affinity->preferred = Preferred({{1, {{}, {{"metadata.name", kIn, {"node-1"}}}}}});
  EXPECT_TRUE(valid.Validate(w_.in).ok());

  NodeAffinityArgs invalid;
  invalid.added_affinity = api::NodeAffinity{};
  invalid.added_affinity->required =
      Selector({{{{"invalid/label/key", kIn, {"label-1-val"}}}, {}}});
  invalid.added_affinity->preferred =
      Preferred({{1, {{}, {{"metadata.name", kIn, {"node-1", "node-2"}}}}}});
  const std::string key_detail = api::ValidateQualifiedName("invalid/label/key").error().message;
  const std::string want =
      "[addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
      "matchExpressions[0]"
      ".key: Invalid value: \"invalid/label/key\": " +
      key_detail +
      ", addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: "
      "Invalid "
      "value: []string{\"node-1\", \"node-2\"}: must have one element]";
  auto got = invalid.Validate(w_.in);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message, want);
  // New validates too, without a path prefix; a config path prefixes every field.
  auto made = NodeAffinity::New(&invalid, h_);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message, want);
  EXPECT_EQ(
      invalid.Validate(w_.in, "profiles[0].pluginConfig[0].args").error().message.substr(0, 50),
      "[profiles[0].pluginConfig[0].args.addedAffinity.re");
}

TEST_F(NodeAffinityTest, ArgsValidationMessagesPerOperator) {
  struct Case {
    std::string name;
    R req;
    bool field;
    std::string want;
  };
  const std::string p =
      "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].";
  const std::vector<Case> cases = {
      {"In without values",
       {"k", kIn, {}},
       false,
       p + "matchExpressions[0].values: Invalid value: []string{}: for 'in', 'notin' operators, "
           "values set "
           "can't be empty"},
      {"Exists with values",
       {"k", kExists, {"v"}},
       false,
       p + "matchExpressions[0].values: Invalid value: []string{\"v\"}: values set must be empty "
           "for exists "
           "and does not exist"},
      {"Gt with two values",
       {"k", kGt, {"1", "2"}},
       false,
       p + "matchExpressions[0].values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' "
           "operators, "
           "exactly one value is required"},
      {"Gt with a non-integer",
       {"k", kGt, {"x"}},
       false,
       p + "matchExpressions[0].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the "
           "value must be an "
           "integer"},
      {"matchFields Exists",
       {"metadata.name", kExists, {}},
       true,
       p + "matchFields[0].operator: Unsupported value: \"Exists\": supported values: \"In\", "
           "\"NotIn\""},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    NodeAffinityArgs args;
    args.added_affinity = api::NodeAffinity{};
    TermSpec t;
    (tc.field ? t.fields : t.exprs).push_back(tc.req);
    args.added_affinity->required = Selector({t});
    auto got = args.Validate(w_.in);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().message, tc.want);
  }
  // An invalid label value is reported under values[i][key].
  NodeAffinityArgs bad_value;
  bad_value.added_affinity = api::NodeAffinity{};
  bad_value.added_affinity->required = Selector({{{{"k", kNotIn, {"a b"}}}, {}}});
  const std::string value_detail = api::ValidateLabelValue("a b").error().message;
  EXPECT_EQ(bad_value.Validate(w_.in).error().message,
            p + "matchExpressions[0].values[0][k]: Invalid value: \"a b\": " + value_detail);
}

TEST_F(NodeAffinityTest, RejectsForeignArgs) {
  framework::PluginArgs foreign;
  auto made = NodeAffinity::New(&foreign, h_);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message, "args are not of type NodeAffinityArgs");
  EXPECT_TRUE(NodeAffinity::New(nullptr, h_).ok());
}

}  // namespace
}  // namespace corral::plugins
