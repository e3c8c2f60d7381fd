#include "corral/plugins/default_preemption/default_preemption.h"

#include <chrono>
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
        if (p == &pod) return node;
      }
    }
    return {};
  }
  bool IsTerminatingByPreemption(const PodInfo& pod) const override {
    return std::find(terminating.begin(), terminating.end(), &pod) != terminating.end();
  }
  const framework::Framework* GetFramework(Symbol) const override { return fwk; }

  absl::flat_hash_map<Symbol, std::vector<const PodInfo*>> nominated_;
  std::vector<const PodInfo*> terminating;
  const framework::Framework* fwk = nullptr;
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
  // Reprieve order: high (5), old (t=10), mid (t=20), new (t=40). 2 cpu are needed: high and old
  // stay.
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
