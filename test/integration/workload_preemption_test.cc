// Workload-aware preemption (KEP-5710) through the whole scheduler: a gang that does not fit in its
// workload cycle preempts lower-priority pods and pod groups anywhere in the cluster. Table tests
// of the victim choice (priority order, groups before pods, disruptionMode all/single,
// PodDisruptionBudgets), the minCount rule, nominations (set, honoured, cleared on failure) and no
// new preemption while victims terminate.

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "test/testing/builders.h"
#include "test/testing/scheduler_fixture.h"

namespace corral {
namespace {

class WorkloadPreemptionTest : public testing::SchedulerFixture {
 public:
  scheduler::Scheduler& Sched() { return Build(delete_immediately_, /*add_running=*/false); }
  // Call before Sched(): nodes named n0, n1, … with `cpu` cores.
  void Nodes(int n, std::string_view cpu) {
    for (int i = 0; i < n; ++i) {
      nodes_.push_back(&w_.Node("n" + std::to_string(nodes_.size()))
                            .Capacity({{"cpu", cpu}, {"memory", "64Gi"}, {"pods", "110"}})
                            .Obj());
    }
  }
  // Call before Sched().
  api::PodGroup& Group(std::string_view name, int32_t min_count, std::optional<int32_t> priority,
                       api::DisruptionMode mode = api::DisruptionMode::kSingle) {
    objects_.pod_groups.emplace_back();
    auto& g = objects_.pod_groups.back();
    g.meta.name = w_.S(name);
    g.meta.namespace_ = api::wk::kDefaultNamespace;
    g.policy.kind =
        min_count > 0 ? api::PodGroupPolicyKind::kGang : api::PodGroupPolicyKind::kBasic;
    g.policy.min_count = min_count;
    g.priority = priority;
    g.disruption_mode = mode;
    return g;
  }
  // A running pod (bound before the run), priority `prio`, `cpu` cores, started at second `start`.
  api::Pod& Running(std::string_view name, std::string_view node, int32_t prio,
                    std::string_view cpu = "1", int start = 0, std::string_view group = "") {
    api::Pod& p = w_.Pod(name).Req({{"cpu", cpu}}).NodeName(node).Priority(prio).Obj();
    p.start_time = TimePoint(std::chrono::seconds(start));
    if (!group.empty()) p.scheduling_group = api::PodSchedulingGroup{w_.S(group)};
    running_.push_back(&p);
    return p;
  }
  api::Pod& Member(std::string_view name, std::string_view group, std::string_view cpu,
                   int32_t prio = 0) {
    api::Pod& p = w_.Pod(name).Req({{"cpu", cpu}}).Priority(prio).Obj();
    p.scheduling_group = api::PodSchedulingGroup{w_.S(group)};
    return p;
  }
  void Start() {
    Sched();
    for (api::Pod* p : running_) Sched().AddPod(p);
  }
  std::set<std::string> VictimNames(const scheduler::PreemptionRecord& r) const {
    std::set<std::string> out;
    for (const auto& v : r.victims) out.insert(std::string(w_.in.Str(v.pod->meta.name)));
    return out;
  }
  double Metric(std::string_view name) {
    std::string text = Sched().metrics().PrometheusText();
    double sum = 0;
    size_t pos = 0;
    while ((pos = text.find(name, pos)) != std::string::npos) {
      if (pos == 0 || text[pos - 1] == '\n') {
        size_t sp = text.find(' ', pos);
        size_t eol = text.find('\n', pos);
        if (text.compare(pos, name.size(), name) == 0 &&
            (text[pos + name.size()] == ' ' || text[pos + name.size()] == '{')) {
          sum += std::stod(text.substr(sp + 1, eol - sp - 1));
        }
      }
      pos += name.size();
    }
    return sum;
  }

  bool delete_immediately_ = true;
};

TEST_F(WorkloadPreemptionTest, GangEvictsTheFewestLowerPriorityPodsAndIsPlacedOnceTheyAreGone) {
  Nodes(2, "4");
  Group("g", 2, 100);
  for (int i = 0; i < 4; ++i) Running("a" + std::to_string(i), "n0", 0, "1", i);
  for (int i = 0; i < 4; ++i) Running("b" + std::to_string(i), "n1", 0, "1", i);
  auto& m0 = Member("m0", "g", "2");
  auto& m1 = Member("m1", "g", "2");
  Start();
  Sched().AddPod(&m0);
  Sched().AddPod(&m1);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  const auto& r = rec_.preemptions[0];
  EXPECT_EQ(r.group, "default/g");
  EXPECT_EQ(r.priority, 100);
  EXPECT_EQ(r.nominations.size(), 2u);
  // Two cores per member: 4 victims in all, never more.
  EXPECT_EQ(r.victims.size(), 4u);
  for (const auto& v : r.victims) EXPECT_LT(v.priority, 100);
  // Reprieve runs in importance order (earlier start = more important), so the later-started
  // pods go.
  EXPECT_EQ(VictimNames(r), (std::set<std::string>{"a2", "a3", "b2", "b3"}));
  EXPECT_TRUE(rec_.bound.contains(&m0));
  EXPECT_TRUE(rec_.bound.contains(&m1));
  // Bound members are no longer nominated.
  EXPECT_TRUE(Sched().NominatedNodeOf(&m0).empty());
  EXPECT_EQ(Metric("scheduler_workload_preemption_attempts_total"), 1);
  EXPECT_EQ(Metric("scheduler_preemption_attempts_total"), 1);
}

TEST_F(WorkloadPreemptionTest, LowerPrioritiesAreEvictedFirst) {
  Nodes(2, "4");
  Group("g", 2, 100);
  // n0: two priority-10 pods and two priority-50 pods; n1: four priority-50 pods.
  Running("low0", "n0", 10, "1", 5);
  Running("low1", "n0", 10, "1", 6);
  Running("mid0", "n0", 50, "1", 0);
  Running("mid1", "n0", 50, "1", 1);
  for (int i = 0; i < 4; ++i) Running("midb" + std::to_string(i), "n1", 50, "1", i);
  auto& m0 = Member("m0", "g", "1");
  auto& m1 = Member("m1", "g", "1");
  Start();
  Sched().AddPod(&m0);
  Sched().AddPod(&m1);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  // Evicting the two priority-10 pods is enough: no priority-50 pod goes.
  EXPECT_EQ(VictimNames(rec_.preemptions[0]), (std::set<std::string>{"low0", "low1"}));
  for (const auto& [pod, node] : rec_.preemptions[0].nominations) EXPECT_EQ(w_.in.Str(node), "n0");
  EXPECT_EQ(rec_.bound.size(), 2u);
}

TEST_F(WorkloadPreemptionTest, LonePodsGoBeforePodGroupMembersOfEqualPriority) {
  Nodes(1, "4");
  Group("g", 1, 100);
  Group("batch", 1, 10);
  // Same priority and start: the group members are more important, so the lone pods are evicted.
  Running("grp0", "n0", 10, "1", 0, "batch");
  Running("grp1", "n0", 10, "1", 0, "batch");
  Running("lone0", "n0", 10, "1", 0);
  Running("lone1", "n0", 10, "1", 0);
  auto& m0 = Member("m0", "g", "2");
  Start();
  Sched().AddPod(&m0);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  EXPECT_EQ(VictimNames(rec_.preemptions[0]), (std::set<std::string>{"lone0", "lone1"}));
}

// One core is needed; a low-priority group of four one-core pods runs on two two-core nodes.
void DisruptionCase(WorkloadPreemptionTest& t, api::DisruptionMode mode) {
  t.Nodes(2, "2");
  t.Group("g", 1, 100);
  t.Group("low", 4, 10, mode);
  t.Running("l0", "n0", 10, "1", 0, "low");
  t.Running("l1", "n0", 10, "1", 1, "low");
  t.Running("l2", "n1", 10, "1", 2, "low");
  t.Running("l3", "n1", 10, "1", 3, "low");
  auto& m0 = t.Member("m0", "g", "1");
  t.Start();
  t.Sched().AddPod(&m0);
  t.Sched().RunUntilIdle();
  ASSERT_EQ(t.rec_.preemptions.size(), 1u);
  const auto& r = t.rec_.preemptions[0];
  if (mode == api::DisruptionMode::kAll) {
    EXPECT_EQ(r.victims.size(), 4u);  // one core would do, but the group goes whole
    for (const auto& v : r.victims) EXPECT_EQ(v.unit, "default/low");
  } else {
    ASSERT_EQ(r.victims.size(), 1u);
    EXPECT_EQ(r.victims[0].unit, "");
  }
  EXPECT_TRUE(t.rec_.bound.contains(&m0));
}

TEST_F(WorkloadPreemptionTest, DisruptionModeAllEvictsTheWholeGroup) {
  DisruptionCase(*this, api::DisruptionMode::kAll);
}

TEST_F(WorkloadPreemptionTest, DisruptionModeSingleEvictsMembersOneByOne) {
  DisruptionCase(*this, api::DisruptionMode::kSingle);
}

TEST_F(WorkloadPreemptionTest, PdbViolatorsAreReprievedFirst) {
  Nodes(2, "2");
  Group("g", 1, 100);
  // db pods are protected (no disruption allowed); web pods are not. Same priority; the db pods
  // started later, so without the PDB they would be evicted first.
  Running("web0", "n0", 0, "1", 0);
  Running("db0", "n0", 0, "1", 5).meta.labels.Set(w_.S("app"), w_.S("db"));
  Running("web1", "n1", 0, "1", 0);
  Running("db1", "n1", 0, "1", 5).meta.labels.Set(w_.S("app"), w_.S("db"));
  DbPdb(2);
  auto& m0 = Member("m0", "g", "1");
  Start();
  Sched().AddPod(&m0);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  const auto& r = rec_.preemptions[0];
  ASSERT_EQ(r.victims.size(), 1u);
  EXPECT_EQ(w_.in.Str(r.victims[0].pod->meta.name).substr(0, 3), "web");
  EXPECT_FALSE(r.victims[0].violates_pdb);
  EXPECT_EQ(r.num_pdb_violations, 0);
}

TEST_F(WorkloadPreemptionTest, PdbIsViolatedWhenNothingElseHelps) {
  Nodes(1, "2");
  Group("g", 1, 100);
  Running("db0", "n0", 0, "2", 0).meta.labels.Set(w_.S("app"), w_.S("db"));
  DbPdb(1);
  auto& m0 = Member("m0", "g", "2");
  Start();
  Sched().AddPod(&m0);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  EXPECT_EQ(rec_.preemptions[0].num_pdb_violations, 1);
  EXPECT_TRUE(rec_.preemptions[0].victims[0].violates_pdb);
  EXPECT_EQ(Metric("scheduler_preemption_pdb_violations_total"), 1);
}

TEST_F(WorkloadPreemptionTest, NeverPreemptsToPlaceFewerThanMinCount) {
  Nodes(3, "4");
  Group("g", 3, 100);
  // n0 and n1 can be freed; n2 is held by a higher-priority pod. 4-core members: only 2 of 3
  // could fit.
  Running("low0", "n0", 0, "4");
  Running("low1", "n1", 0, "4");
  Running("vip", "n2", 1000, "4");
  auto& m0 = Member("m0", "g", "4");
  auto& m1 = Member("m1", "g", "4");
  auto& m2 = Member("m2", "g", "4");
  Start();
  for (auto* m : {&m0, &m1, &m2}) Sched().AddPod(m);
  Sched().RunUntilIdle();
  EXPECT_TRUE(rec_.preemptions.empty());
  EXPECT_TRUE(rec_.bound.empty());
  EXPECT_TRUE(Sched().NominatedNodeOf(&m0).empty());
  EXPECT_NE(PendingMessage(&m0).find("preemption: 2/3 members of gang default/g fit with every "
                                     "lower-priority pod and pod group evicted, "
                                     "minCount 3."),
            std::string::npos)
      << PendingMessage(&m0);
  EXPECT_EQ(Metric("scheduler_workload_preemption_attempts_total"),
            Metric("scheduler_preemption_attempts_total"));
}

TEST_F(WorkloadPreemptionTest, PreemptionPolicyNeverAndNoVictims) {
  Nodes(1, "2");
  Group("g", 1, 100);
  Group("h", 1, 100);
  Running("vip", "n0", 1000, "2");
  auto& never = Member("never", "g", "1");
  never.preemption_policy = api::PreemptionPolicy::kNever;
  auto& m = Member("m", "h", "1");
  Start();
  Sched().AddPod(&never);
  Sched().AddPod(&m);
  Sched().RunUntilIdle();
  EXPECT_TRUE(rec_.preemptions.empty());
  EXPECT_NE(PendingMessage(&never).find("preemption: not eligible due to preemptionPolicy=Never."),
            std::string::npos)
      << PendingMessage(&never);
  EXPECT_NE(PendingMessage(&m).find(
                "preemption: no lower-priority pods or pod groups to preempt for default/h."),
            std::string::npos)
      << PendingMessage(&m);
}

TEST_F(WorkloadPreemptionTest,
       NoNewPreemptionWhileVictimsTerminateAndFailedRetryClearsNominations) {
  delete_immediately_ = false;
  Nodes(2, "2");
  Group("g", 2, 100);
  auto& l0 = Running("l0", "n0", 0, "2");
  auto& l1 = Running("l1", "n1", 0, "2");
  auto& m0 = Member("m0", "g", "2");
  auto& m1 = Member("m1", "g", "2");
  Start();
  Sched().AddPod(&m0);
  Sched().AddPod(&m1);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  EXPECT_EQ(rec_.preemptions[0].victims.size(), 2u);
  EXPECT_FALSE(Sched().NominatedNodeOf(&m0).empty());
  EXPECT_FALSE(Sched().NominatedNodeOf(&m1).empty());
  // Retry while the victims are still terminating: no second preemption, nominations kept.
  Sched().FlushUnschedulableLeftover();
  clock_.Advance(std::chrono::minutes(6));
  Sched().FlushUnschedulableLeftover();
  Sched().RunUntilIdle();
  EXPECT_EQ(rec_.preemptions.size(), 1u);
  EXPECT_NE(PendingMessage(&m0).find(
                "preemption: not eligible due to a terminating pod on the nominated node."),
            std::string::npos)
      << PendingMessage(&m0);
  EXPECT_FALSE(Sched().NominatedNodeOf(&m0).empty());
  // Something of higher priority takes one node before the victims are gone; once they are gone the
  // retry fails for good (preemption cannot help) and every nomination of the gang is cleared.
  auto& vip = w_.Pod("vip").Req({{"cpu", "2"}}).NodeName("n0").Priority(1000).Obj();
  Sched().DeletePod(&l0);
  Sched().AddPod(&vip);
  Sched().DeletePod(&l1);
  Sched().RunUntilIdle();
  EXPECT_EQ(rec_.preemptions.size(), 1u);
  EXPECT_FALSE(rec_.bound.contains(&m0));
  EXPECT_TRUE(Sched().NominatedNodeOf(&m0).empty());
  EXPECT_TRUE(Sched().NominatedNodeOf(&m1).empty());
}

TEST_F(WorkloadPreemptionTest, NominatedMembersHoldTheirRoomAgainstLowerPriorityPods) {
  delete_immediately_ = false;
  Nodes(1, "4");
  Group("g", 2, 100);
  auto& l0 = Running("l0", "n0", 0, "4");
  auto& m0 = Member("m0", "g", "2");
  auto& m1 = Member("m1", "g", "2");
  Start();
  Sched().AddPod(&m0);
  Sched().AddPod(&m1);
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.preemptions.size(), 1u);
  Sched().DeletePod(&l0);
  // A lower-priority pod arriving now must not take the room.
  auto& late = w_.Pod("late").Req({{"cpu", "1"}}).Priority(5).Obj();
  Sched().AddPod(&late);
  Sched().RunUntilIdle();
  EXPECT_TRUE(rec_.bound.contains(&m0));
  EXPECT_TRUE(rec_.bound.contains(&m1));
  EXPECT_FALSE(rec_.bound.contains(&late));
}

}  // namespace
}  // namespace corral
