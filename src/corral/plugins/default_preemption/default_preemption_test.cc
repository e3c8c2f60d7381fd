#include "corral/plugins/default_preemption/default_preemption.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/framework/framework.h"
#include "corral/plugins/registry.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using framework::Code;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

// FakeHandle plus what DefaultPreemption asks of the scheduler: the profile's framework and the
// nominated pods.
class PreemptionHandle : public testing::FakeHandle {
 public:
  using FakeHandle::FakeHandle;
  std::span<const PodInfo* const> NominatedPodsForNode(Symbol node) const override {
    auto it = nominated_.find(node);
    if (it == nominated_.end()) return {};
    return it->second;
  }
  Symbol NominatedNodeName(const PodInfo& pod) const override {
    for (const auto& [node, pods] : nominated_) {
      for (const PodInfo* p : pods) {
        if (p == &pod || p->pod == pod.pod) return node;
      }
    }
    return {};
  }
  bool IsTerminatingByPreemption(const PodInfo& pod) const override {
    return std::find(terminating.begin(), terminating.end(), &pod) != terminating.end();
  }
  const framework::Framework* GetFramework(Symbol) const override { return fwk; }
  // With `versioned`, the tests' own per-node nomination versions (bumped by the tests when they
  // change nominated_); otherwise the Handle default (always new: no memoization).
  uint64_t NominationVersion(Symbol node) const override {
    if (!versioned) return Handle::NominationVersion(node);
    auto it = versions.find(node);
    return it == versions.end() ? 0 : it->second;
  }

  absl::flat_hash_map<Symbol, std::vector<const PodInfo*>> nominated_;
  std::vector<const PodInfo*> terminating;
  const framework::Framework* fwk = nullptr;
  bool versioned = false;
  absl::flat_hash_map<Symbol, uint64_t> versions;
};

TimePoint At(int seconds) {
  return TimePoint{} + std::chrono::seconds(seconds);
}

class DefaultPreemptionTest : public ::testing::Test {
 protected:
  DefaultPreemptionTest() { Build(nullptr); }

  void Build(std::shared_ptr<const framework::PluginArgs> args) {
    framework::ProfileConfig profile;
    for (std::string_view n : {"PrioritySort", "NodeAffinity", "NodeResourcesFit", "NodePorts",
                               "DefaultPreemption", "DefaultBinder"}) {
      profile.plugins.multi_point.enabled.push_back({std::string(n), 0});
    }
    if (args != nullptr) profile.plugin_args["DefaultPreemption"] = std::move(args);
    auto f = framework::Framework::New(profile, registry_, h_);
    ASSERT_TRUE(f.ok()) << f.error().message;
    fwk_ = std::move(*f);
    h_.fwk = fwk_.get();
  }
  DefaultPreemption& Plugin() {
    return dynamic_cast<DefaultPreemption&>(*fwk_->GetPlugin("DefaultPreemption"));
  }

  // A node with `cpu` cores (and room for 100 pods).
  api::Node& Node(std::string_view name, std::string_view cpu) {
    return w_.Node(name).Capacity({{"cpu", cpu}, {"memory", "100Gi"}, {"pods", "100"}}).Obj();
  }
  // A bound pod.
  api::Pod& Bound(std::string_view name, std::string_view node, int32_t priority,
                  std::string_view cpu, int start = 0) {
    api::Pod& p = w_.Pod(name).NodeName(node).Priority(priority).Req({{"cpu", cpu}}).Obj();
    p.start_time = At(start);
    return p;
  }
  api::Pod& Pending(std::string_view name, int32_t priority, std::string_view cpu) {
    return w_.Pod(name).Priority(priority).Req({{"cpu", cpu}}).Obj();
  }
  void SetNodes(std::initializer_list<NodeInfo*> nodes) {
    h_.SetNodes(std::vector<NodeInfo*>(nodes));
  }

  // One scheduling attempt up to PostFilter, as the scheduler runs it.
  Status Run(const api::Pod& pod, framework::PostFilterResult* r) {
    const PodInfo& info = w_.Info(pod);
    state_ = framework::CycleState();
    framework::PreFilterResult pre;
    Status s = fwk_->RunPreFilterPlugins(state_, info, &pre);
    failed_.clear();
    framework::NodeToStatus statuses;
    if (!s.ok()) {
      statuses.absent = s;
    } else {
      for (const NodeInfo* n : h_.snapshot().nodes()) {
        Status fs = fwk_->RunFilterPluginsWithNominatedPods(state_, info, *n);
        EXPECT_FALSE(fs.ok()) << "the pod fits without preemption";
        failed_.push_back({n, fs});
      }
      if (reorder_) reorder_(failed_);
      statuses.nodes = failed_;
    }
    return fwk_->RunPostFilterPlugins(state_, info, statuses, r);
  }
  std::vector<std::string> VictimNames(const framework::PostFilterResult& r) {
    std::vector<std::string> out;
    for (const auto& v : r.victims) out.emplace_back(w_.in.Str(v.pod->pod->meta.name));
    return out;
  }

  testing::TestWorld w_;
  PreemptionHandle h_{w_};
  framework::Registry registry_ = NewInTreeRegistry();
  std::unique_ptr<framework::Framework> fwk_;
  framework::CycleState state_;
  std::vector<framework::NodeStatus> failed_;
  // When set, Run lists the filter statuses in this order instead of snapshot order.
  std::function<void(std::vector<framework::NodeStatus>&)> reorder_;
};

// kube's TestPostFilter "pod with higher priority can be made schedulable".
TEST_F(DefaultPreemptionTest, PreemptsTheLowerPriorityPod) {
  SetNodes({&w_.NodeWith(Node("n1", "2"), {&Bound("low", "n1", 1, "2")})});
  framework::PostFilterResult r;
  Status s = Run(Pending("p", 10, "1"), &r);
  ASSERT_TRUE(s.ok()) << s.Message();
  EXPECT_EQ(r.mode, framework::NominatingMode::kOverride);
  EXPECT_EQ(w_.in.Str(r.nominated_node_name), "n1");
  EXPECT_EQ(VictimNames(r), std::vector<std::string>{"low"});
  EXPECT_EQ(r.num_pdb_violations, 0);
}

// kube's TestPostFilter "no victims found" (equal priority), with the FitError text.
TEST_F(DefaultPreemptionTest, NoLowerPriorityPodsMeansNoCandidate) {
  SetNodes({&w_.NodeWith(Node("n1", "2"), {&Bound("a", "n1", 10, "2")}),
            &w_.NodeWith(Node("n2", "2"), {&Bound("b", "n2", 10, "2")}),
            &w_.NodeWith(Node("n3", "2"), {&Bound("c", "n3", 10, "2")})});
  framework::PostFilterResult r;
  Status s = Run(Pending("p", 10, "1"), &r);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(),
            "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.");
  // The nomination is cleared.
  EXPECT_EQ(r.mode, framework::NominatingMode::kOverride);
  EXPECT_TRUE(r.nominated_node_name.empty());
}

// Nodes that failed with UnschedulableAndUnresolvable are never candidates.
TEST_F(DefaultPreemptionTest, UnresolvableNodesAreNotCandidates) {
  auto& n1 = w_.Node("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Label("zone", "a").Obj();
  auto& n2 = w_.Node("n2").Capacity({{"cpu", "2"}, {"pods", "10"}}).Label("zone", "b").Obj();
  SetNodes({&w_.NodeWith(n1, {&Bound("low1", "n1", 1, "2")}),
            &w_.NodeWith(n2, {&Bound("low2", "n2", 1, "2")})});
  api::Pod& p = w_.Pod("p").Priority(10).Req({{"cpu", "1"}}).NodeSelector("zone", "c").Obj();
  framework::PostFilterResult r;
  Status s = Run(p, &r);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(),
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  // With zone=a only n2 (UU) is excluded; n1 is the candidate.
  api::Pod& q = w_.Pod("q").Priority(10).Req({{"cpu", "1"}}).NodeSelector("zone", "a").Obj();
  framework::PostFilterResult r2;
  ASSERT_TRUE(Run(q, &r2).ok());
  EXPECT_EQ(w_.in.Str(r2.nominated_node_name), "n1");
}

// The potential nodes are taken in snapshot order whatever order the filter pass listed the
// statuses in: snapshot order and its rotations (the pass's round-robin walk, read by position)
// and any other order (read by node name) give the same candidate, victims and message.
TEST_F(DefaultPreemptionTest, PotentialNodesWhateverTheListOrder) {
  auto zone = [&](std::string_view name, std::string_view z) -> api::Node& {
    return w_.Node(name).Capacity({{"cpu", "2"}, {"pods", "10"}}).Label("zone", z).Obj();
  };
  SetNodes({&w_.NodeWith(zone("n1", "a"), {&Bound("low1", "n1", 2, "2")}),
            &w_.NodeWith(zone("n2", "b"), {&Bound("low2", "n2", 1, "2")}),
            &w_.NodeWith(zone("n3", "a"), {&Bound("low3", "n3", 1, "2")}),
            &w_.NodeWith(zone("n4", "a"), {&Bound("high4", "n4", 20, "2")})});
  api::Pod& p = w_.Pod("p").Priority(10).Req({{"cpu", "1"}}).NodeSelector("zone", "a").Obj();
  // Equal priority to every pod it could preempt on a zone-a node: no victims anywhere there.
  api::Pod& q = w_.Pod("q").Priority(1).Req({{"cpu", "1"}}).NodeSelector("zone", "a").Obj();
  auto rotate = [](size_t k) {
    return [k](std::vector<framework::NodeStatus>& v) {
      std::rotate(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    };
  };
  const std::vector<
      std::pair<std::string, std::function<void(std::vector<framework::NodeStatus>&)>>>
      orders = {
          {"snapshot", nullptr},
          {"rotated by 1", rotate(1)},
          {"rotated by 3", rotate(3)},
          {"reversed",
           [](std::vector<framework::NodeStatus>& v) { std::reverse(v.begin(), v.end()); }},
          {"two swapped", [](std::vector<framework::NodeStatus>& v) { std::swap(v[1], v[2]); }}};
  for (const auto& [name, order] : orders) {
    SCOPED_TRACE(name);
    reorder_ = order;
    framework::PostFilterResult r;
    Status s = Run(p, &r);
    ASSERT_TRUE(s.ok()) << s.Message();
    // n1 and n3 are candidates (n2 is UnschedulableAndUnresolvable, n4 has no lower-priority pod);
    // n3's victim has the lower priority.
    EXPECT_EQ(w_.in.Str(r.nominated_node_name), "n3");
    EXPECT_EQ(VictimNames(r), std::vector<std::string>{"low3"});
    framework::PostFilterResult none;
    Status sq = Run(q, &none);
    EXPECT_EQ(sq.code(), Code::kUnschedulable);
    EXPECT_EQ(sq.Message(),
              "preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 "
              "No preemption victims found for incoming pod.");
    EXPECT_TRUE(none.nominated_node_name.empty());
  }
}

TEST_F(DefaultPreemptionTest, PreemptionPolicyNever) {
  SetNodes({&w_.NodeWith(Node("n1", "2"), {&Bound("low", "n1", 1, "2")})});
  api::Pod& p = Pending("p", 10, "1");
  p.preemption_policy = api::PreemptionPolicy::kNever;
  framework::PostFilterResult r;
  Status s = Run(p, &r);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "preemption: not eligible due to preemptionPolicy=Never.");
  EXPECT_EQ(r.mode, framework::NominatingMode::kNoop);
}

// kube's PodEligibleToPreemptOthers: a lower-priority pod terminating by preemption on the
// nominated node.
TEST_F(DefaultPreemptionTest, NotEligibleWhileVictimsTerminateOnTheNominatedNode) {
  api::Pod& low = Bound("low", "n1", 1, "2");
  NodeInfo& n1 = w_.NodeWith(Node("n1", "2"), {&low});
  SetNodes({&n1});
  api::Pod& p = Pending("p", 10, "1");
  const PodInfo& info = w_.Info(p);
  h_.nominated_[w_.S("n1")] = {&info};
  h_.terminating = {n1.pods()[0]};
  framework::NodeToStatus statuses;
  EXPECT_EQ(Plugin().Ineligible(info, statuses), "");  // n1 is absent ⇒ UU ⇒ eligible again
  framework::NodeStatus st{&n1, Status::Unschedulable("Insufficient cpu")};
  statuses.nodes = std::span(&st, 1);
  EXPECT_EQ(Plugin().Ineligible(info, statuses),
            "not eligible due to a terminating pod on the nominated node.");
}

// Victims are minimal: the most important pods are reprieved first (priority, then earlier start).
TEST_F(DefaultPreemptionTest, ReprievesTheMostImportantPods) {
  SetNodes({&w_.NodeWith(Node("n1", "4"),
                         {&Bound("old", "n1", 1, "1", 10), &Bound("new", "n1", 1, "1", 40),
                          &Bound("mid", "n1", 1, "1", 20), &Bound("high", "n1", 5, "1", 50)})});
  framework::PostFilterResult r;
  ASSERT_TRUE(Run(Pending("p", 10, "2"), &r).ok());
  // Reprieve order: high (5), old (t=10), mid (t=20), new (t=40). 2 cpu are needed: high and
  // old stay.
  EXPECT_EQ(VictimNames(r), (std::vector<std::string>{"mid", "new"}));
}

// Pods of equal or higher priority are never victims; the pod must fit without all lower pods.
TEST_F(DefaultPreemptionTest, DoesNotFitEvenWithoutLowerPriorityPods) {
  SetNodes({&w_.NodeWith(Node("n1", "4"),
                         {&Bound("same", "n1", 10, "3"), &Bound("low", "n1", 1, "1")})});
  framework::PostFilterResult r;
  Status s = Run(Pending("p", 10, "2"), &r);
  EXPECT_EQ(s.Message(), "preemption: 0/1 nodes are available: 1 Insufficient cpu.");
}

// Nominated pods of higher priority keep their room during the dry run.
TEST_F(DefaultPreemptionTest, HonoursHigherPriorityNominatedPods) {
  SetNodes({&w_.NodeWith(Node("n1", "4"), {&Bound("low1", "n1", 1, "2")}),
            &w_.NodeWith(Node("n2", "4"),
                         {&Bound("low2", "n2", 1, "2"), &Bound("low3", "n2", 1, "2")})});
  // A nominated pod (priority 20, 3 cpu) on n1: p (2 cpu) cannot fit there even with low1 gone.
  h_.nominated_[w_.S("n1")] = {&w_.Info(Pending("nom", 20, "3"))};
  framework::PostFilterResult r;
  ASSERT_TRUE(Run(Pending("p", 10, "3"), &r).ok());
  EXPECT_EQ(w_.in.Str(r.nominated_node_name), "n2");
}

// pickOneNodeForPreemption criteria, one case each (kube's TestSelectBestCandidate).
TEST_F(DefaultPreemptionTest, PickOneNodeForPreemptionCriteria) {
  auto pod = [&](int32_t prio, int start) -> const PodInfo* {
    api::Pod& p = Pending("v" + std::to_string(w_.pods.size()), prio, "1");
    p.start_time = At(start);
    return &w_.Info(p);
  };
  using V = framework::PreemptionVictim;
  struct Case {
    std::string name;
    std::vector<PreemptionCandidate> candidates;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"fewest PDB violations",
       {{w_.S("a"), {V{pod(1, 0), true}}, 1}, {w_.S("b"), {V{pod(5, 0)}, V{pod(5, 0)}}, 0}},
       "b"},
      {"lowest highest-priority victim",
       {{w_.S("a"), {V{pod(3, 0)}}, 0}, {w_.S("b"), {V{pod(2, 0)}, V{pod(2, 0)}}, 0}},
       "b"},
      {"smallest sum of priorities",
       {{w_.S("a"), {V{pod(2, 0)}, V{pod(2, 0)}, V{pod(1, 0)}}, 0},
        {w_.S("b"), {V{pod(2, 0)}, V{pod(2, 0)}}, 0}},
       "b"},
      // Negative priorities: the offset makes 3 victims at -5 cost more than 2.
      {"sum with negative priorities",
       {{w_.S("a"), {V{pod(-5, 0)}, V{pod(-5, 0)}, V{pod(-5, 0)}}, 0},
        {w_.S("b"), {V{pod(-5, 0)}, V{pod(-5, 0)}}, 0}},
       "b"},
      // Equal sums with different counts need a victim at MinInt32: 0 + (MinInt32 + 2^31) == 0.
      {"fewest victims",
       {{w_.S("a"), {V{pod(0, 0)}, V{pod(std::numeric_limits<int32_t>::min(), 0)}}, 0},
        {w_.S("b"), {V{pod(0, 0)}}, 0}},
       "b"},
      {"latest start of the highest-priority victims",
       {{w_.S("a"), {V{pod(2, 10)}, V{pod(1, 99)}}, 0},
        {w_.S("b"), {V{pod(2, 20)}, V{pod(1, 0)}}, 0}},
       "b"},
      {"first on a full tie",
       {{w_.S("a"), {V{pod(2, 10)}}, 0}, {w_.S("b"), {V{pod(2, 10)}}, 0}},
       "a"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    size_t i = Plugin().PickOneNodeForPreemption(tc.candidates);
    EXPECT_EQ(w_.in.Str(tc.candidates[i].node), tc.want);
  }
}

// PDBs: a node whose victims would violate a budget loses to one that violates none, and
// PDB-violating pods are reprieved first within a node.
TEST_F(DefaultPreemptionTest, PodDisruptionBudgets) {
  auto labelled = [&](std::string_view name, std::string_view node, int start) -> api::Pod& {
    api::Pod& p = Bound(name, node, 1, "1", start);
    p.meta.labels.Set(w_.S("app"), w_.S("db"));
    return p;
  };
  api::PodDisruptionBudget pdb;
  pdb.meta.name = w_.S("db");
  pdb.meta.namespace_ = w_.S("default");
  pdb.selector = w_.Sel().Label("app", "db").Obj();
  pdb.min_available = api::IntOrPercent{2, false};  // 3 healthy ⇒ 1 disruption allowed
  h_.AddPdb(&pdb);
  SetNodes(
      {&w_.NodeWith(Node("n1", "2"), {&labelled("db1", "n1", 0), &labelled("db2", "n1", 1)}),
       &w_.NodeWith(Node("n2", "2"), {&labelled("db3", "n2", 2), &Bound("web", "n2", 1, "1", 3)})});
  framework::PostFilterResult r;
  // 2 cpu: n1 needs db1+db2 (1 violation), n2 needs db3+web (no violation: one disruption allowed).
  ASSERT_TRUE(Run(Pending("p", 10, "2"), &r).ok());
  EXPECT_EQ(w_.in.Str(r.nominated_node_name), "n2");
  EXPECT_EQ(r.num_pdb_violations, 0);
  // With minAvailable 1, of db4 and db5 only one may go: db5 (second in importance order) is the
  // PDB-violating one and is reprieved first, so db4 (older, more important) becomes the victim.
  pdb.min_available = api::IntOrPercent{1, false};
  SetNodes({&w_.NodeWith(Node("n3", "2"), {&labelled("db4", "n3", 0), &labelled("db5", "n3", 1)})});
  framework::PostFilterResult r2;
  ASSERT_TRUE(Run(Pending("q", 10, "1"), &r2).ok());
  EXPECT_EQ(VictimNames(r2), std::vector<std::string>{"db4"});
  EXPECT_EQ(r2.num_pdb_violations, 0);
  EXPECT_FALSE(r2.victims[0].violates_pdb);
  // With minAvailable 2 nothing may go: the victim violates the budget.
  pdb.min_available = api::IntOrPercent{2, false};
  framework::PostFilterResult r3;
  ASSERT_TRUE(Run(Pending("q2", 10, "1"), &r3).ok());
  EXPECT_EQ(VictimNames(r3), std::vector<std::string>{"db5"});
  EXPECT_EQ(r3.num_pdb_violations, 1);
  EXPECT_TRUE(r3.victims[0].violates_pdb);
}

// ---- the dry-run memo (CorralPreemptionMemo) ----

// A second preemptor identical to the first reuses the first one's per-node dry-run results unless
// something a result depends on changed; the decision is the same as with the memo off.
TEST_F(DefaultPreemptionTest, DryRunMemo) {
  struct Env {
    NodeInfo* n1;
    NodeInfo* n2;
    NodeInfo* n3;
    api::Pod* second;  // the second preemptor (may be replaced by `change`)
  };
  struct Case {
    std::string name;
    std::function<void(Env&)> change;  // between the first and the second preemptor
    int64_t want_hits, want_misses;    // of the second preemptor's dry run
  };
  int serial = 0;
  auto pending = [&](int32_t priority, std::string_view cpu) -> api::Pod& {
    return Pending("p" + std::to_string(serial++), priority, cpu);
  };
  const std::vector<Case> cases = {
      {"unchanged: every node from the memo", [](Env&) {}, 3, 0},
      {"a node's pods changed",
       [&](Env& e) {
         e.n2->AddPod(&w_.Info(Bound("extra" + std::to_string(serial++), "n2", 1, "0")));
       },
       2, 1},
      {"a node's nominations changed", [&](Env& e) { ++h_.versions[e.n1->name()]; }, 2, 1},
      {"the preemptor is nominated to a node: that node is computed, not memoized",
       [&](Env& e) {
         h_.nominated_[e.n1->name()] = {&w_.Info(*e.second)};
         ++h_.versions[e.n1->name()];
       },
       2, 0},
      {"a PodDisruptionBudget appeared: successes are recomputed, failures kept",
       [&](Env&) {
         static api::PodDisruptionBudget pdb;
         pdb.meta.name = w_.S("none");
         pdb.meta.namespace_ = w_.S("default");
         pdb.selector = w_.Sel().Label("app", "none").Obj();
         pdb.min_available = api::IntOrPercent{1, false};
         h_.AddPdb(&pdb);
       },
       1, 2},
      {"another priority", [&](Env& e) { e.second = &pending(5, "3"); }, 0, 3},
      {"another request", [&](Env& e) { e.second = &pending(10, "2"); }, 0, 3},
      {"gate off", [&](Env&) { ASSERT_TRUE(w_.gates.Set("CorralPreemptionMemo", false).ok()); }, 0,
       0},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Build(nullptr);
    h_.versioned = true;
    h_.versions.clear();
    h_.nominated_.clear();
    ASSERT_TRUE(w_.gates.Set("CorralPreemptionMemo", true).ok());
    // n1: two 2-cpu victims needed; n2: one 3-cpu victim (the pick); n3: its lower-priority pod
    // frees too little (a memoized failure).
    Env env{
        &w_.NodeWith(Node("n1", "4"), {&Bound("a" + std::to_string(serial++), "n1", 1, "2", 1),
                                       &Bound("b" + std::to_string(serial++), "n1", 1, "2", 2)}),
        &w_.NodeWith(Node("n2", "4"), {&Bound("c" + std::to_string(serial++), "n2", 1, "3", 3)}),
        &w_.NodeWith(Node("n3", "4"), {&Bound("d" + std::to_string(serial++), "n3", 10, "2"),
                                       &Bound("e" + std::to_string(serial++), "n3", 1, "1")}),
        nullptr};
    SetNodes({env.n1, env.n2, env.n3});
    framework::PostFilterResult first;
    ASSERT_TRUE(Run(pending(10, "3"), &first).ok());
    EXPECT_EQ(w_.in.Str(first.nominated_node_name), "n2");
    EXPECT_EQ(Plugin().memo_hits(), 0);
    EXPECT_EQ(Plugin().memo_misses(), 3);
    env.second = &pending(10, "3");
    tc.change(env);
    SetNodes({env.n1, env.n2, env.n3});  // the snapshot's lists follow the changed NodeInfos
    const int64_t hits = Plugin().memo_hits(), misses = Plugin().memo_misses();
    framework::PostFilterResult with;
    Status s_with = Run(*env.second, &with);
    EXPECT_EQ(Plugin().memo_hits() - hits, tc.want_hits);
    EXPECT_EQ(Plugin().memo_misses() - misses, tc.want_misses);
    // The same pod with the memo off decides the same.
    ASSERT_TRUE(w_.gates.Set("CorralPreemptionMemo", false).ok());
    framework::PostFilterResult without;
    Status s_without = Run(*env.second, &without);
    EXPECT_EQ(s_with.code(), s_without.code());
    EXPECT_EQ(s_with.Message(), s_without.Message());
    EXPECT_EQ(with.nominated_node_name, without.nominated_node_name);
    EXPECT_EQ(VictimNames(with), VictimNames(without));
    EXPECT_EQ(with.num_pdb_violations, without.num_pdb_violations);
  }
  ASSERT_TRUE(w_.gates.Set("CorralPreemptionMemo", true).ok());
}

// The memo applies only while every filter that runs is node-local (Framework::NodeLocalFilterKey):
// InterPodAffinity reads other nodes, so a preemptor it filters is never memoized, while one it
// skips is.
TEST_F(DefaultPreemptionTest, DryRunMemoNeedsNodeLocalFilters) {
  framework::ProfileConfig profile;
  for (std::string_view n : {"PrioritySort", "NodeResourcesFit", "InterPodAffinity",
                             "DefaultPreemption", "DefaultBinder"}) {
    profile.plugins.multi_point.enabled.push_back({std::string(n), 0});
  }
  auto f = framework::Framework::New(profile, registry_, h_);
  ASSERT_TRUE(f.ok()) << f.error().message;
  fwk_ = std::move(*f);
  h_.fwk = fwk_.get();
  h_.versioned = true;
  SetNodes({&w_.NodeWith(Node("n1", "2"), {&Bound("low", "n1", 1, "2")})});
  auto anti = [&](std::string_view name) -> api::Pod& {
    return w_.Pod(name)
        .Priority(10)
        .Req({{"cpu", "1"}})
        .AffinityIn(testing::PodBuilder::AffinityKind::kRequiredAntiAffinity, "app",
                    "kubernetes.io/hostname", {"nothing"})
        .Obj();
  };
  framework::PostFilterResult r1, r2;
  ASSERT_TRUE(Run(anti("x1"), &r1).ok());
  ASSERT_TRUE(Run(anti("x2"), &r2).ok());
  EXPECT_EQ(Plugin().memo_hits() + Plugin().memo_misses(), 0);  // not node-local: no memo
  framework::PostFilterResult r3, r4;
  ASSERT_TRUE(Run(Pending("y1", 10, "1"), &r3).ok());
  ASSERT_TRUE(Run(Pending("y2", 10, "1"), &r4).ok());
  EXPECT_EQ(Plugin().memo_misses(), 1);  // InterPodAffinity skipped: memoized
  EXPECT_EQ(Plugin().memo_hits(), 1);
  EXPECT_EQ(VictimNames(r4), std::vector<std::string>{"low"});
}

// A victim order that compares a pod without status.startTime ("now") with one that has it reads
// the clock: the memo entry is valid only at the same instant.
TEST_F(DefaultPreemptionTest, DryRunMemoKeysClockDependentOrders) {
  h_.versioned = true;
  api::Pod& no_start = w_.Pod("nostart").NodeName("n1").Priority(1).Req({{"cpu", "1"}}).Obj();
  SetNodes({&w_.NodeWith(Node("n1", "2"), {&Bound("old", "n1", 1, "1", 5), &no_start})});
  framework::PostFilterResult r1, r2, r3;
  ASSERT_TRUE(Run(Pending("q1", 10, "1"), &r1).ok());
  ASSERT_TRUE(Run(Pending("q2", 10, "1"), &r2).ok());
  EXPECT_EQ(Plugin().memo_hits(), 1);
  h_.clock_.Advance(std::chrono::seconds(1));
  ASSERT_TRUE(Run(Pending("q3", 10, "1"), &r3).ok());
  EXPECT_EQ(Plugin().memo_hits(), 1);
  EXPECT_EQ(Plugin().memo_misses(), 2);
  EXPECT_EQ(VictimNames(r3), VictimNames(r1));
}

// Memoized candidates keep PickOneNodeForPreemption's scores without the clock: a highest-priority
// victim without status.startTime starts "now", which moves. n1's victim started at 100 s, n2's has
// no start time (neither node's importance order reads the clock, so both entries stay valid): the
// latest start wins, n1 while now < 100 s, n2 once now > 100 s.
TEST_F(DefaultPreemptionTest, DryRunMemoScoresReadTheClockWhenPicking) {
  h_.versioned = true;
  api::Pod& no_start = w_.Pod("nostart").NodeName("n2").Priority(1).Req({{"cpu", "2"}}).Obj();
  SetNodes({&w_.NodeWith(Node("n1", "2"), {&Bound("started", "n1", 1, "2", 100)}),
            &w_.NodeWith(Node("n2", "2"), {&no_start})});
  framework::PostFilterResult r1, r2, off;
  ASSERT_TRUE(Run(Pending("q1", 10, "2"), &r1).ok());
  EXPECT_EQ(w_.in.Str(r1.nominated_node_name), "n1");
  h_.clock_.Advance(std::chrono::seconds(200));
  ASSERT_TRUE(Run(Pending("q2", 10, "2"), &r2).ok());
  EXPECT_EQ(Plugin().memo_hits(), 2);
  EXPECT_EQ(Plugin().memo_misses(), 2);
  EXPECT_EQ(w_.in.Str(r2.nominated_node_name), "n2");
  EXPECT_EQ(VictimNames(r2), std::vector<std::string>{"nostart"});
  ASSERT_TRUE(w_.gates.Set("CorralPreemptionMemo", false).ok());
  ASSERT_TRUE(Run(Pending("q3", 10, "2"), &off).ok());
  EXPECT_EQ(off.nominated_node_name, r2.nominated_node_name);
  ASSERT_TRUE(w_.gates.Set("CorralPreemptionMemo", true).ok());
}

// Memoized failures are counted into the "not helpful" message only when no candidate is found;
// the message is the one computed without the memo.
TEST_F(DefaultPreemptionTest, DryRunMemoFailuresMakeTheSameMessage) {
  h_.versioned = true;
  SetNodes({&w_.NodeWith(Node("n1", "2"),
                         {&Bound("high1", "n1", 10, "1"), &Bound("low1", "n1", 1, "1")}),
            &w_.NodeWith(Node("n2", "2"),
                         {&Bound("high2", "n2", 10, "1"), &Bound("low2", "n2", 1, "1")}),
            &w_.NodeWith(Node("n3", "2"), {&Bound("high3", "n3", 10, "2")})});
  framework::PostFilterResult r1, r2, off;
  const Status first = Run(Pending("q1", 10, "2"), &r1);
  const Status second = Run(Pending("q2", 10, "2"), &r2);
  EXPECT_EQ(Plugin().memo_misses(), 2);
  EXPECT_EQ(Plugin().memo_hits(), 2);
  ASSERT_TRUE(w_.gates.Set("CorralPreemptionMemo", false).ok());
  const Status without = Run(Pending("q3", 10, "2"), &off);
  ASSERT_TRUE(w_.gates.Set("CorralPreemptionMemo", true).ok());
  EXPECT_EQ(second.code(), Code::kUnschedulable);
  EXPECT_EQ(first.Message(), without.Message());
  EXPECT_EQ(second.Message(), without.Message());
  EXPECT_EQ(second.Message(),
            "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
            "2 Insufficient cpu.");
}

// Entries are stored by node name but belong to one NodeInfo object: another NodeInfo of the same
// node (here an unmutated copy, which even shares the generation) is computed again.
TEST_F(DefaultPreemptionTest, DryRunMemoKeysTheNodeInfoObject) {
  h_.versioned = true;
  NodeInfo& n1 = w_.NodeWith(Node("n1", "2"), {&Bound("low", "n1", 1, "2")});
  SetNodes({&n1});
  framework::PostFilterResult r1, r2, r3;
  ASSERT_TRUE(Run(Pending("q1", 10, "2"), &r1).ok());
  ASSERT_TRUE(Run(Pending("q2", 10, "2"), &r2).ok());
  EXPECT_EQ(Plugin().memo_hits(), 1);
  NodeInfo copy = n1;
  ASSERT_EQ(copy.generation(), n1.generation());
  SetNodes({&copy});
  ASSERT_TRUE(Run(Pending("q3", 10, "2"), &r3).ok());
  EXPECT_EQ(Plugin().memo_hits(), 1);
  EXPECT_EQ(Plugin().memo_misses(), 2);
  EXPECT_EQ(VictimNames(r3), std::vector<std::string>{"low"});
}

// Nodes that come and go get new memo slots; once the slots outnumber twice the nodes (plus 64)
// every table starts over, and decisions are unaffected.
TEST_F(DefaultPreemptionTest, DryRunMemoSlotsStartOverAfterNodeChurn) {
  h_.versioned = true;
  for (int i = 0; i < 80; ++i) {
    const std::string name = "churn" + std::to_string(i);
    SetNodes({&w_.NodeWith(Node(name, "2"), {&Bound("low" + std::to_string(i), name, 1, "2")})});
    framework::PostFilterResult r;
    ASSERT_TRUE(Run(Pending("q" + std::to_string(i), 10, "2"), &r).ok());
    EXPECT_EQ(w_.in.Str(r.nominated_node_name), name);
    EXPECT_EQ(VictimNames(r), std::vector<std::string>{"low" + std::to_string(i)});
  }
  EXPECT_EQ(Plugin().memo_misses(), 80);
}

// kube's TestCalculateNumCandidates.
TEST_F(DefaultPreemptionTest, NumCandidates) {
  struct Case {
    int32_t pct, abs, nodes, want;
  };
  for (const auto& tc : std::vector<Case>{{10, 100, 0, 0},
                                          {10, 100, 50, 50},
                                          {10, 100, 1000, 100},
                                          {40, 100, 1000, 400},
                                          {10, 0, 50, 5},
                                          {10, 50, 10, 10}}) {
    auto args = std::make_shared<DefaultPreemptionArgs>();
    args->min_candidate_nodes_percentage = tc.pct;
    args->min_candidate_nodes_absolute = tc.abs;
    Build(args);
    EXPECT_EQ(Plugin().NumCandidates(tc.nodes), tc.want)
        << tc.pct << "% " << tc.abs << " of " << tc.nodes;
  }
}

// kube's TestValidateDefaultPreemptionArgs.
TEST_F(DefaultPreemptionTest, ArgsValidation) {
  auto check = [](int32_t pct, int32_t abs) {
    DefaultPreemptionArgs a;
    a.min_candidate_nodes_percentage = pct;
    a.min_candidate_nodes_absolute = abs;
    auto r = a.Validate();
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_EQ(check(10, 100), "");
  EXPECT_EQ(check(-1, 100),
            "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]");
  EXPECT_EQ(check(101, 100),
            "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]");
  EXPECT_EQ(check(10, -1),
            "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)");
  EXPECT_EQ(check(0, 0),
            "[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
            "minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be "
            "zero at the same "
            "time as minCandidateNodesPercentage]");
  EXPECT_EQ(check(-1, -1),
            "[minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100], "
            "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)]");
}

}  // namespace
}  // namespace corral::plugins
