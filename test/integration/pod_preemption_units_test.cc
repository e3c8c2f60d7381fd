// KEP-5710 for single-pod preemptors (DefaultPreemption, victim_units.h) through the whole
// scheduler: a lone pod that preempts on a node hosting a member of a `disruptionMode: all`
// PodGroup evicts that group whole (members on other nodes too) or not at all. Table tests in
// kube's style (whole group evicted, group reprieved whole, equal-priority group before a lone pod,
// PDB counting over every pod of a unit, protected groups, single mode unchanged) and a RapidCheck
// property test over random clusters (with or without a PodDisruptionBudget):
//   (1) a disruptionMode-all group is evicted whole or not at all;
//   (2) no victim has a priority ≥ the preemptor's;
//   (3) every victim is recorded on the node it ran on;
//   (4) the same inputs give the same preemptions, with the dry-run memo on or off.

#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "test/testing/builders.h"
#include "test/testing/scheduler_fixture.h"

namespace corral {
namespace {

class PodPreemptsUnitsTest : public testing::SchedulerFixture {
 public:
  scheduler::Scheduler& Sched() { return Build(/*delete_victims_immediately=*/true, true); }
  void Node(std::string_view name, std::string_view cpu) {
    nodes_.push_back(
        &w_.Node(name).Capacity({{"cpu", cpu}, {"memory", "64Gi"}, {"pods", "110"}}).Obj());
  }
  // A gang PodGroup (minCount = 1) in the default namespace.
  api::PodGroup& Group(std::string_view name, std::optional<int32_t> priority,
                       api::DisruptionMode mode = api::DisruptionMode::kAll) {
    auto& g = objects_.pod_groups.emplace_back();
    g.meta.name = w_.S(name);
    g.meta.namespace_ = api::wk::kDefaultNamespace;
    g.policy.kind = api::PodGroupPolicyKind::kGang;
    g.policy.min_count = 1;
    g.priority = priority;
    g.disruption_mode = mode;
    return g;
  }
  // A pod bound before the run (call before Sched()).
  api::Pod& Running(std::string_view name, std::string_view node, int32_t prio,
                    std::string_view group = "", int start = 0, bool db = false) {
    auto b = w_.Pod(name).Req({{"cpu", "1"}}).NodeName(node).Priority(prio);
    if (db) b.Label("app", "db");
    api::Pod& p = b.Obj();
    p.start_time = TimePoint(std::chrono::seconds(start));
    if (!group.empty()) p.scheduling_group = api::PodSchedulingGroup{w_.S(group)};
    running_.push_back(&p);
    return p;
  }
  api::Pod& Preemptor(std::string_view name, int32_t prio) {
    return w_.Pod(name).Req({{"cpu", "1"}}).Priority(prio).Obj();
  }
  // "pod@node" for each victim, sorted.
  std::set<std::string> Victims(const scheduler::PreemptionRecord& r) const {
    std::set<std::string> out;
    for (const auto& v : r.victims)
      out.insert(fmt::format("{}@{}", w_.in.Str(v.pod->meta.name), w_.in.Str(v.node)));
    return out;
  }
};

// KEP-5710 integration test: "Pods from a single PodGroup with DisruptionMode=PodGroup are
// preempted all together even when preempting a single pod would be enough to free up the space for
// the higher priority individual pod."
TEST_F(PodPreemptsUnitsTest, AllModeGroupIsEvictedWholeAcrossNodes) {
  Node("n0", "2");
  Node("n1", "1");
  Group("g", 10);
  Running("g0", "n0", 0, "g");
  Running("l", "n0", 20);
  Running("g1", "n1", 0, "g");
  auto& hi = Preemptor("hi", 100);
  Sched().AddPod(&hi);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  const auto& r = rec_.preemptions[0];
  // n0: the priority-20 pod is reprieved (g0 gone is enough), the group is not, so g1 goes too.
  // n1: the group again. Either way the victims are the whole group, each on its own node.
  EXPECT_EQ(Victims(r), (std::set<std::string>{"g0@n0", "g1@n1"}));
  for (const auto& v : r.victims) {
    EXPECT_EQ(v.unit, "default/g");
    EXPECT_EQ(v.priority, 10);
    EXPECT_FALSE(v.violates_pdb);
  }
  EXPECT_EQ(r.num_pdb_violations, 0);
  EXPECT_TRUE(rec_.bound.contains(&hi));
}

TEST_F(PodPreemptsUnitsTest, AllModeGroupIsReprievedWhole) {
  Node("n0", "2");
  Node("n1", "1");
  Group("g", 10);
  Running("g0", "n0", 0, "g");
  Running("l", "n0", 5);
  Running("g1", "n1", 0, "g");
  auto& hi = Preemptor("hi", 100);
  Sched().AddPod(&hi);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  const auto& r = rec_.preemptions[0];
  // n0: the group (priority 10) is reprieved whole and the priority-5 pod goes; n1 would need the
  // whole group. The lower highest victim priority wins: n0.
  EXPECT_EQ(Victims(r), (std::set<std::string>{"l@n0"}));
  EXPECT_EQ(w_.in.Str(r.node), "n0");
  EXPECT_EQ(r.victims[0].unit, "");
  EXPECT_TRUE(rec_.bound.contains(&hi));
}

// KEP-5710 §Preemption algorithm: "within a single priority prioritizing pod groups over
// individual pods". The lone pod started earlier (more important as a pod) but the group is
// reprieved first, so the lone pod is the victim.
TEST_F(PodPreemptsUnitsTest, AtEqualPriorityTheGroupIsReprievedBeforeTheLonePod) {
  Node("n0", "3");
  Group("g", 10);
  Running("l", "n0", 10, "", /*start=*/0);
  Running("g0", "n0", 0, "g", /*start=*/5);
  Running("g1", "n0", 0, "g", /*start=*/5);
  auto& hi = Preemptor("hi", 100);
  Sched().AddPod(&hi);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  EXPECT_EQ(Victims(rec_.preemptions[0]), (std::set<std::string>{"l@n0"}));
}

// The budget allows one disruption; the group has two pods, one per node, both under it. Counted
// over every pod the unit evicts, the group violates the budget, so on n0 it is reprieved first
// and the priority-20 pod goes instead (no violation), which beats n1 (two violations).
TEST_F(PodPreemptsUnitsTest, PdbIsCountedOverEveryPodOfTheUnit) {
  Node("n0", "2");
  Node("n1", "1");
  Group("g", 10);
  DbPdb(1);
  Running("g0", "n0", 0, "g", 0, /*db=*/true);
  Running("l", "n0", 20);
  Running("g1", "n1", 0, "g", 0, /*db=*/true);
  auto& hi = Preemptor("hi", 100);
  Sched().AddPod(&hi);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  EXPECT_EQ(Victims(rec_.preemptions[0]), (std::set<std::string>{"l@n0"}));
  EXPECT_EQ(rec_.preemptions[0].num_pdb_violations, 0);
}

// When only the violating group frees room, it is evicted whole and each of its pods counts as
// a violation.
TEST_F(PodPreemptsUnitsTest, AViolatingGroupIsEvictedWholeWhenNothingElseHelps) {
  Node("n0", "1");
  Node("n1", "1");
  Group("g", 10);
  DbPdb(1);
  Running("g0", "n0", 0, "g", 0, /*db=*/true);
  Running("g1", "n1", 0, "g", 0, /*db=*/true);
  auto& hi = Preemptor("hi", 100);
  Sched().AddPod(&hi);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  const auto& r = rec_.preemptions[0];
  EXPECT_EQ(Victims(r), (std::set<std::string>{"g0@n0", "g1@n1"}));
  EXPECT_EQ(r.num_pdb_violations, 2);
  for (const auto& v : r.victims) EXPECT_TRUE(v.violates_pdb);
}

// Without a group priority an `all` group is as important as its most important member: a
// priority-500 member protects the priority-5 one from a priority-100 preemptor.
TEST_F(PodPreemptsUnitsTest, AGroupWithAMoreImportantMemberIsNotAVictim) {
  Node("n0", "1");
  Node("n1", "1");
  Group("g", std::nullopt);
  Running("g0", "n0", 5, "g");
  Running("g1", "n1", 500, "g");
  auto& hi = Preemptor("hi", 100);
  Sched().AddPod(&hi);
  Sched().RunUntilIdle();
  EXPECT_TRUE(rec_.preemptions.empty());
  EXPECT_NE(PendingMessage(&hi).find("No preemption victims found for incoming pod"),
            std::string::npos)
      << PendingMessage(&hi);
}

// disruptionMode single: members are lone pods (kube's per-pod dry run), one is enough.
TEST_F(PodPreemptsUnitsTest, SingleModeMembersArePreemptedOneByOne) {
  Node("n0", "1");
  Node("n1", "1");
  Group("g", 10, api::DisruptionMode::kSingle);
  Running("g0", "n0", 0, "g", 0);
  Running("g1", "n1", 0, "g", 1);
  auto& hi = Preemptor("hi", 100);
  Sched().AddPod(&hi);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  ASSERT_EQ(rec_.preemptions[0].victims.size(), 1u);
  EXPECT_EQ(rec_.preemptions[0].victims[0].unit, "");
}

// ---- property test ----

struct Spec {
  std::vector<int> node_cpu;  // cores
  struct G {
    bool all;
    std::optional<int> priority;
    std::vector<int> member_nodes;  // indexes into node_cpu
    std::vector<int> member_prios;
    std::vector<bool> member_db;  // labelled app=db
  };
  std::vector<G> groups;
  std::vector<std::pair<int, int>> lone;  // {node, priority}
  std::vector<bool> lone_db;
  int pdb_min_available = -1;   // a PodDisruptionBudget over app=db when ≥ 0
  std::vector<int> preemptors;  // priorities
  uint64_t seed = 1;
};

rc::Gen<Spec> GenSpec() {
  return rc::gen::exec([] {
    Spec s;
    const int nodes = *rc::gen::inRange(1, 5);
    for (int i = 0; i < nodes; ++i) s.node_cpu.push_back(*rc::gen::inRange(1, 4));
    std::vector<int> free = s.node_cpu;
    auto place = [&]() -> int {
      std::vector<int> open;
      for (int i = 0; i < nodes; ++i) {
        if (free[i] > 0) open.push_back(i);
      }
      if (open.empty()) return -1;
      const int n = open[*rc::gen::inRange<size_t>(0, open.size())];
      --free[n];
      return n;
    };
    const int groups = *rc::gen::inRange(0, 4);
    for (int g = 0; g < groups; ++g) {
      Spec::G grp;
      grp.all = *rc::gen::arbitrary<bool>();
      if (*rc::gen::arbitrary<bool>()) grp.priority = *rc::gen::element(0, 10, 50, 150);
      const int members = *rc::gen::inRange(1, 4);
      for (int m = 0; m < members; ++m) {
        const int n = place();
        if (n < 0) break;
        grp.member_nodes.push_back(n);
        grp.member_prios.push_back(*rc::gen::element(0, 10, 50, 150));
        grp.member_db.push_back(*rc::gen::arbitrary<bool>());
      }
      if (!grp.member_nodes.empty()) s.groups.push_back(std::move(grp));
    }
    const int lone = *rc::gen::inRange(0, 6);
    for (int l = 0; l < lone; ++l) {
      const int n = place();
      if (n < 0) break;
      s.lone.emplace_back(n, *rc::gen::element(0, 10, 50, 150));
      s.lone_db.push_back(*rc::gen::arbitrary<bool>());
    }
    const int preemptors = *rc::gen::inRange(1, 4);
    for (int p = 0; p < preemptors; ++p) s.preemptors.push_back(*rc::gen::element(20, 60, 100));
    if (*rc::gen::arbitrary<bool>()) s.pdb_min_available = *rc::gen::inRange(0, 4);
    s.seed = *rc::gen::inRange<uint64_t>(1, 1000);
    return s;
  });
}

RC_GTEST_PROP(PodPreemptsUnitsProperty, AllGroupsGoWholeAndVictimsAreLowerPriority, ()) {
  const Spec spec = *GenSpec();
  testing::TestWorld w;
  ManualClock clock;
  api::ObjectSet objects;
  std::vector<api::Node*> nodes;
  for (size_t i = 0; i < spec.node_cpu.size(); ++i) {
    nodes.push_back(
        &w.Node(fmt::format("n{}", i))
             .Capacity(
                 {{"cpu", std::to_string(spec.node_cpu[i])}, {"memory", "64Gi"}, {"pods", "110"}})
             .Obj());
  }
  std::vector<api::Pod*> running;
  std::map<const api::Pod*, int> group_of;  // all-mode members only
  std::map<int, std::set<const api::Pod*>> live;
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const Spec::G& grp = spec.groups[g];
    auto& pg = objects.pod_groups.emplace_back();
    pg.meta.name = w.S(fmt::format("g{}", g));
    pg.meta.namespace_ = api::wk::kDefaultNamespace;
    pg.policy.kind = api::PodGroupPolicyKind::kGang;
    pg.policy.min_count = 1;
    pg.priority = grp.priority;
    pg.disruption_mode = grp.all ? api::DisruptionMode::kAll : api::DisruptionMode::kSingle;
    for (size_t m = 0; m < grp.member_nodes.size(); ++m) {
      auto b = w.Pod(fmt::format("g{}-{}", g, m))
                   .Req({{"cpu", "1"}})
                   .NodeName(fmt::format("n{}", grp.member_nodes[m]))
                   .Priority(grp.member_prios[m]);
      if (grp.member_db[m]) b.Label("app", "db");
      api::Pod& p = b.Obj();
      p.scheduling_group = api::PodSchedulingGroup{w.S(fmt::format("g{}", g))};
      p.start_time = TimePoint(std::chrono::seconds(static_cast<int>(m)));
      running.push_back(&p);
      if (grp.all) {
        group_of[&p] = static_cast<int>(g);
        live[static_cast<int>(g)].insert(&p);
      }
    }
  }
  for (size_t l = 0; l < spec.lone.size(); ++l) {
    auto b = w.Pod(fmt::format("l{}", l))
                 .Req({{"cpu", "1"}})
                 .NodeName(fmt::format("n{}", spec.lone[l].first))
                 .Priority(spec.lone[l].second);
    if (spec.lone_db[l]) b.Label("app", "db");
    api::Pod& p = b.Obj();
    running.push_back(&p);
  }
  if (spec.pdb_min_available >= 0) {
    api::PodDisruptionBudget& pdb = objects.pod_disruption_budgets.emplace_back();
    pdb.meta.name = w.S("db");
    pdb.meta.namespace_ = api::wk::kDefaultNamespace;
    pdb.selector = w.Sel().Label("app", "db").Obj();
    pdb.min_available = api::IntOrPercent{spec.pdb_min_available, false};
  }
  std::vector<api::Pod*> preemptors;
  for (size_t i = 0; i < spec.preemptors.size(); ++i) {
    preemptors.push_back(
        &w.Pod(fmt::format("hi{}", i)).Req({{"cpu", "1"}}).Priority(spec.preemptors[i]).Obj());
  }
  // One run over the same objects (the scheduler never mutates them).
  auto run = [&](bool memo, testing::PreemptionRecorder& rec) {
    scheduler::Scheduler::Options opts;
    opts.config.percentage_of_nodes_to_score = 100;
    opts.config.profiles.emplace_back();
    opts.seed = spec.seed;
    RC_ASSERT(opts.gates.Set("CorralPreemptionMemo", memo).ok());
    auto registry = plugins::NewInTreeRegistry();
    auto s = scheduler::Scheduler::New(w.in, clock, std::move(opts), registry);
    RC_ASSERT(s.ok());
    (*s)->set_observer(&rec);
    (*s)->SetClusterObjects(&objects);
    for (api::Node* n : nodes) (*s)->AddNode(n);
    for (api::Pod* p : running) (*s)->AddPod(p);
    for (api::Pod* p : preemptors) (*s)->AddPod(p);
    (*s)->RunUntilIdle();
  };
  auto transcript = [&](const testing::PreemptionRecorder& rec) {
    std::string out;
    for (const auto& r : rec.preemptions) {
      out += fmt::format("{} -> {}:", w.in.Str(r.preemptor->meta.name), w.in.Str(r.node));
      for (const auto& v : r.victims) {
        out += fmt::format(" {}@{}[{}]{}", w.in.Str(v.pod->meta.name), w.in.Str(v.node), v.unit,
                           v.violates_pdb ? "!" : "");
      }
      out += '\n';
    }
    return out;
  };
  testing::PreemptionRecorder rec;
  run(/*memo=*/true, rec);
  for (const auto& r : rec.preemptions) {
    std::map<int, std::set<const api::Pod*>> evicted;
    for (const auto& v : r.victims) {
      // (2) Lower priority than the preemptor, as preemption saw it.
      RC_ASSERT(v.priority < r.priority);
      // (3) Recorded on the node it ran on.
      const Symbol ran_on = v.pod->IsBound() ? v.pod->node_name : rec.bound.at(v.pod);
      RC_ASSERT(v.node == ran_on);
      if (auto it = group_of.find(v.pod); it != group_of.end()) {
        evicted[it->second].insert(v.pod);
        RC_ASSERT(v.unit == fmt::format("default/g{}", it->second));
      }
    }
    // (1) Whole or nothing: every member still running at the time.
    for (auto& [g, pods] : evicted) {
      RC_ASSERT(pods == live[g]);
      live[g].clear();
    }
  }
  // (4) The same decisions again, and with the dry-run memo off (unit nodes bypass it).
  testing::PreemptionRecorder again, no_memo;
  run(/*memo=*/true, again);
  run(/*memo=*/false, no_memo);
  RC_ASSERT(transcript(again) == transcript(rec));
  RC_ASSERT(transcript(no_memo) == transcript(rec));
}

}  // namespace
}  // namespace corral
