// PodTopologySpread args validation, default selectors, signing and queueing hints (kube's
// plugin_test.go, validation_pluginargs_test.go and helper/spread_test.go).

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/plugins/pod_topology_spread/test_util.h"

namespace corral::plugins::pod_topology_spread {
namespace {

using framework::ActionType;
using framework::ClusterEvent;
using framework::EventResource;
using framework::QueueingHint;
using testing::PodBuilder;
using testing::TestWorld;
using testutil::Cluster;

constexpr auto kDNS = api::WhenUnsatisfiable::kDoNotSchedule;
constexpr auto kSA = api::WhenUnsatisfiable::kScheduleAnyway;

api::TopologySpreadConstraint Dc(TestWorld& w, int32_t skew, std::string_view key,
                                 api::WhenUnsatisfiable when) {
  api::TopologySpreadConstraint c;
  c.max_skew = skew;
  c.topology_key = w.S(key);
  c.when_unsatisfiable = when;
  return c;
}

// ---- args validation ----

TEST(PodTopologySpreadArgsTest, Validation) {
  TestWorld w;
  struct Case {
    std::string name;
    PodTopologySpreadArgs args;
    std::string want;  // "" = valid
  };
  auto list = [](std::vector<api::TopologySpreadConstraint> cs) {
    PodTopologySpreadArgs a;
    a.defaulting_type = "List";
    a.default_constraints = std::move(cs);
    return a;
  };
  api::TopologySpreadConstraint with_selector = Dc(w, 1, "zone", kDNS);
  with_selector.label_selector = w.Sel().Label("a", "b").Obj();
  PodTopologySpreadArgs bad_type;
  bad_type.defaulting_type = "Foo";
  PodTopologySpreadArgs system_with_list = list({Dc(w, 1, "zone", kDNS)});
  system_with_list.defaulting_type = "System";
  const Case cases[] = {
      {"system defaulting, no constraints", PodTopologySpreadArgs{}, ""},
      {"list with constraints", list({Dc(w, 3, "node", kDNS), Dc(w, 1, "zone", kSA)}), ""},
      {"empty list", list({}), ""},
      {"maxSkew is zero", list({Dc(w, 0, "node", kDNS)}),
       "defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"},
      {"wrong maxSkew and missing topologyKey", list({Dc(w, -1, "", kDNS)}),
       "[defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf), "
       "defaultConstraints[0].topologyKey: Required value: can not be empty]"},
      {"label selector present", list({with_selector}),
       "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as "
       "they deduced "
       "for each pod"},
      {"duplicated constraints", list({Dc(w, 1, "node", kDNS), Dc(w, 2, "node", kDNS)}),
       "defaultConstraints[1]: Duplicate value: \"{node, DoNotSchedule}\""},
      {"unsupported defaulting type", bad_type,
       "defaultingType: Unsupported value: \"Foo\": supported values: \"System\", \"List\""},
      {"system defaulting with constraints", system_with_list,
       "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto got = ValidatePodTopologySpreadArgs(tc.args, w.in);
    if (tc.want.empty()) {
      EXPECT_TRUE(got.ok()) << got.error().message;
    } else {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.error().message, tc.want);
    }
  }
  // With the config path of the args.
  auto got = ValidatePodTopologySpreadArgs(list({Dc(w, 0, "node", kDNS)}), w.in,
                                           "profiles[0].pluginConfig[1].args");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message,
            "profiles[0].pluginConfig[1].args.defaultConstraints[0].maxSkew: Invalid value: 0: not "
            "in valid range "
            "(0, inf)");
  // An invalid label name is reported with kube's qualified-name message.
  auto bad_key = ValidatePodTopologySpreadArgs(list({Dc(w, 1, "not a key", kDNS)}), w.in);
  ASSERT_FALSE(bad_key.ok());
  EXPECT_EQ(bad_key.error().message.rfind(
                "defaultConstraints[0].topologyKey: Invalid value: \"not a key\": ", 0),
            0u)
      << bad_key.error().message;
}

TEST(PodTopologySpreadArgsTest, NewRejectsForeignArgsAndInvalidArgs) {
  Cluster c;
  struct Other final : framework::PluginArgs {};
  Other other;
  auto foreign = PodTopologySpread::New(&other, c.handle());
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.error().message, "want args to be of type PodTopologySpreadArgs");
  PodTopologySpreadArgs bad;
  bad.defaulting_type = "Foo";
  EXPECT_FALSE(PodTopologySpread::New(&bad, c.handle()).ok());
  EXPECT_TRUE(PodTopologySpread::New(nullptr, c.handle()).ok());
}

// ---- default selectors (kube's helper/spread_test.go TestDefaultSelector) ----

class DefaultSelectorTest : public ::testing::Test {
 protected:
  api::SelectorOwner& Owner(api::SelectorOwnerKind kind, std::string_view name,
                            api::LabelSelector sel) {
    owners_.emplace_back();
    api::SelectorOwner& o = owners_.back();
    o.kind = kind;
    o.meta.name = c_.w().S(name);
    o.meta.namespace_ = api::wk::kDefaultNamespace;
    o.selector = std::move(sel);
    c_.handle().AddSelectorOwner(&o);
    return o;
  }
  // The hostname default constraint's selector for a pod (System defaulting, ScheduleAnyway).
  std::optional<api::LabelSelector> Selector(const testutil::PodFn& fn) {
    c_.Build({}, {});
    auto pl = c_.Plugin(PodTopologySpreadArgs{});
    auto cs = pl->GetConstraints(c_.Incoming(fn), kSA);
    if (cs.empty()) return std::nullopt;
    return cs[0].selector;
  }
  Cluster c_;
  std::deque<api::SelectorOwner> owners_;
};

TEST_F(DefaultSelectorTest, NothingSelectsThePod) {
  Owner(api::SelectorOwnerKind::kService, "s", c_.w().Sel().Label("app", "other").Obj());
  EXPECT_FALSE(Selector([](TestWorld&, PodBuilder& p) { p.Label("app", "web"); }).has_value());
}

TEST_F(DefaultSelectorTest, ServicesAreMerged) {
  auto& w = c_.w();
  Owner(api::SelectorOwnerKind::kService, "s1", w.Sel().Label("app", "web").Obj());
  Owner(api::SelectorOwnerKind::kService, "s2", w.Sel().Label("tier", "fe").Obj());
  auto sel = Selector(
      [](TestWorld&, PodBuilder& p) { p.Label("app", "web").Label("tier", "fe").Label("x", "y"); });
  ASSERT_TRUE(sel.has_value());
  EXPECT_EQ(sel->match_labels, w.Sel().Label("app", "web").Label("tier", "fe").Obj().match_labels);
}

TEST_F(DefaultSelectorTest, ControllerReplicaSetAddsItsRequirements) {
  auto& w = c_.w();
  Owner(api::SelectorOwnerKind::kReplicaSet, "rs1",
        w.Sel().Label("app", "web").Exists("rev").Obj());
  auto sel = Selector([](TestWorld&, PodBuilder& p) {
    p.Label("app", "web").OwnerReference("rs1", "apps/v1", "ReplicaSet");
  });
  ASSERT_TRUE(sel.has_value());
  EXPECT_TRUE(sel->match_labels.empty());
  ASSERT_EQ(sel->match_expressions.size(), 2u);  // app In (web), rev Exists
}

TEST_F(DefaultSelectorTest, ControllerMustMatchGroupVersionKindExactly) {
  auto& w = c_.w();
  Owner(api::SelectorOwnerKind::kStatefulSet, "ss", w.Sel().Label("app", "db").Obj());
  Owner(api::SelectorOwnerKind::kReplicationController, "rc", w.Sel().Label("app", "db").Obj());
  EXPECT_FALSE(Selector([](TestWorld&, PodBuilder& p) {
                 p.Label("app", "db").OwnerReference("ss", "apps/v1beta1", "StatefulSet");
               }).has_value());
  EXPECT_TRUE(Selector([](TestWorld&, PodBuilder& p) {
                p.Label("app", "db").OwnerReference("ss", "apps/v1", "StatefulSet");
              }).has_value());
  EXPECT_TRUE(Selector([](TestWorld&, PodBuilder& p) {
                p.Label("app", "db").OwnerReference("rc", "v1", "ReplicationController");
              }).has_value());
  EXPECT_FALSE(Selector([](TestWorld&, PodBuilder& p) {
                 p.Label("app", "db").OwnerReference("rc", "apps/v1", "ReplicationController");
               }).has_value());
}

// ---- signing ----

TEST(PodTopologySpreadSignTest, KubeRefusesWheneverDefaultsExist) {
  Cluster c;
  c.Build({}, {});
  ASSERT_TRUE(c.w().gates.Set("CorralBatchingExtensions", false).ok());  // kube's rule
  auto system = c.Plugin(PodTopologySpreadArgs{});
  auto list_empty = c.Plugin(Cluster::ListArgs());
  const auto& plain = c.Incoming([](TestWorld&, PodBuilder& p) { p.Label("app", "web"); });
  const auto& spread = c.Incoming(
      [](TestWorld& w, PodBuilder& p) { p.SpreadConstraint(1, "zone", kDNS, w.Sel().Obj()); });
  std::vector<framework::SignFragment> frags;
  framework::Status st = system->Sign(plain, &frags);
  EXPECT_EQ(st.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "pods with default topology constraints are not signable");
  EXPECT_TRUE(list_empty->Sign(plain, &frags).ok());
  EXPECT_TRUE(frags.empty());
  st = list_empty->Sign(spread, &frags);
  EXPECT_EQ(st.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(st.Message(), "pods with topology constraints are not signable");
}

TEST(PodTopologySpreadSignTest, CorralOptionSignsWhenDefaultsSelectNothing) {
  Cluster c;
  c.Build({}, {});
  api::SelectorOwner svc;
  svc.kind = api::SelectorOwnerKind::kService;
  svc.meta.namespace_ = api::wk::kDefaultNamespace;
  svc.selector = c.w().Sel().Label("app", "web").Obj();
  c.handle().AddSelectorOwner(&svc);
  PodTopologySpreadArgs args;
  args.sign_when_defaults_select_nothing = true;
  auto pl = c.Plugin(args);
  const auto& selected = c.Incoming([](TestWorld&, PodBuilder& p) { p.Label("app", "web"); });
  const auto& unselected = c.Incoming([](TestWorld&, PodBuilder& p) { p.Label("app", "batch"); });
  std::vector<framework::SignFragment> frags;
  EXPECT_EQ(pl->Sign(selected, &frags).code(), framework::Code::kUnschedulable);
  EXPECT_TRUE(pl->Sign(unselected, &frags).ok());
  EXPECT_TRUE(frags.empty());
}

TEST(PodTopologySpreadSignTest, CorralBatchingExtensionsGateSignsWhenDefaultsSelectNothing) {
  Cluster c;
  c.Build({}, {});
  api::SelectorOwner svc;
  svc.kind = api::SelectorOwnerKind::kService;
  svc.meta.namespace_ = api::wk::kDefaultNamespace;
  svc.selector = c.w().Sel().Label("app", "web").Obj();
  c.handle().AddSelectorOwner(&svc);
  auto pl = c.Plugin(PodTopologySpreadArgs{});  // system defaults, gate on by default
  const auto& selected = c.Incoming([](TestWorld&, PodBuilder& p) { p.Label("app", "web"); });
  const auto& unselected = c.Incoming([](TestWorld&, PodBuilder& p) { p.Label("app", "batch"); });
  std::vector<framework::SignFragment> frags;
  EXPECT_EQ(pl->Sign(selected, &frags).code(), framework::Code::kUnschedulable);
  EXPECT_TRUE(pl->Sign(unselected, &frags).ok());
}

// ---- events and hints (kube's plugin_test.go) ----

TEST(PodTopologySpreadHintTest, Events) {
  Cluster c;
  c.Build({}, {});
  auto pl = c.Plugin(Cluster::ListArgs());
  auto events = pl->EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].resource, EventResource::kPod);
  EXPECT_EQ(events[0].action, ActionType::kAll);
  EXPECT_EQ(events[1].resource, EventResource::kNode);
}

TEST(PodTopologySpreadHintTest, PodEvents) {
  Cluster c;
  c.Build({}, {});
  auto& w = c.w();
  auto pl = c.Plugin(Cluster::ListArgs());
  const auto& pod = c.Incoming([](TestWorld& tw, PodBuilder& p) {
    p.Uid("p").Label("foo", "").SpreadConstraint(1, "zone", kDNS, tw.Sel().Exists("foo").Obj());
  });
  const auto& matching = w.Info(w.Pod("a").Uid("a").NodeName("n1").Label("foo", "").Obj());
  const auto& other = w.Info(w.Pod("b").Uid("b").NodeName("n1").Label("bar", "").Obj());
  const auto& unscheduled = w.Info(w.Pod("c").Uid("c").Label("foo", "").Obj());
  const auto& other_ns =
      w.Info(w.Pod("d").Uid("d").Namespace("ns1").NodeName("n1").Label("foo", "").Obj());
  const ClusterEvent add{EventResource::kPod, ActionType::kAdd};
  const ClusterEvent del{EventResource::kPod, ActionType::kDelete};
  const ClusterEvent upd{EventResource::kPod, ActionType::kUpdate};
  EXPECT_EQ(pl->Hint(pod, add, matching.pod), QueueingHint::kQueue);
  EXPECT_EQ(pl->Hint(pod, add, other.pod), QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, add, unscheduled.pod), QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, add, other_ns.pod), QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, del, matching.pod), QueueingHint::kQueue);
  EXPECT_EQ(pl->Hint(pod, del, other.pod), QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, upd, other.pod), QueueingHint::kQueue);
  EXPECT_EQ(pl->Hint(pod, upd, pod.pod),
            QueueingHint::kQueue);  // the pod itself (e.g. new tolerations)
}

TEST(PodTopologySpreadHintTest, NodeEvents) {
  Cluster c;
  c.Build({{"with-zone", {{"zone", "z1"}}}, {"without-zone", {{"rack", "r1"}}}}, {});
  auto pl = c.Plugin(Cluster::ListArgs());
  const auto& pod = c.Incoming([](TestWorld& tw, PodBuilder& p) {
    p.Label("foo", "").SpreadConstraint(1, "zone", kDNS, tw.Sel().Exists("foo").Obj());
  });
  const api::Node* with = c.Node("with-zone").node();
  const api::Node* without = c.Node("without-zone").node();
  EXPECT_EQ(pl->Hint(pod, {EventResource::kNode, ActionType::kAdd}, with), QueueingHint::kQueue);
  EXPECT_EQ(pl->Hint(pod, {EventResource::kNode, ActionType::kAdd}, without),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, {EventResource::kNode, ActionType::kDelete}, without),
            QueueingHint::kQueueSkip);
  EXPECT_EQ(pl->Hint(pod, {EventResource::kNode, ActionType::kUpdate}, without),
            QueueingHint::kQueue);
}

}  // namespace
}  // namespace corral::plugins::pod_topology_spread

namespace corral::plugins::pod_topology_spread {
namespace {

TEST(PodTopologySpreadSignTest, ScheduleAnywayOnlyConstraintsSignWithTheRescoreHookGate) {
  Cluster c;
  c.Build({}, {});
  auto pl = c.Plugin(Cluster::ListArgs());
  const auto& anyway = c.Incoming(
      [](TestWorld& w, PodBuilder& p) { p.SpreadConstraint(1, "zone", kSA, w.Sel().Obj()); });
  const auto& anyway_skew2 = c.Incoming(
      [](TestWorld& w, PodBuilder& p) { p.SpreadConstraint(2, "zone", kSA, w.Sel().Obj()); });
  const auto& mixed = c.Incoming([](TestWorld& w, PodBuilder& p) {
    p.SpreadConstraint(1, "zone", kSA, w.Sel().Obj());
    p.SpreadConstraint(1, "zone", kDNS, w.Sel().Obj());
  });
  std::vector<framework::SignFragment> a, b, m;
  ASSERT_TRUE(pl->Sign(anyway, &a).ok());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].key, PodTopologySpread::kScheduleAnywaySignerKey);
  ASSERT_TRUE(pl->Sign(anyway_skew2, &b).ok());
  EXPECT_NE(a[0].value, b[0].value);
  EXPECT_EQ(pl->Sign(mixed, &m).code(), framework::Code::kUnschedulable);

  ASSERT_TRUE(c.w().gates.Set("CorralBatchingRescoreHook", false).ok());  // kube's rule
  std::vector<framework::SignFragment> off;
  EXPECT_EQ(pl->Sign(anyway, &off).code(), framework::Code::kUnschedulable);
}

}  // namespace
}  // namespace corral::plugins::pod_topology_spread
