// Gang scheduling through the whole scheduler (GangScheduling + Permit waiting + timers), in the
// Permit-only mode (kube's alpha: members scheduled one by one, held at Permit until the quorum)
// and in the workload cycle mode (kube's beta: the group scheduled as one entity, all or nothing).

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "test/testing/builders.h"

namespace corral {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

class Recorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    bound.emplace_back(&pod, node);
  }
  void OnUnschedulable(const api::Pod& pod, const std::string& message) override {
    failures.emplace_back(&pod, message);
  }
  std::vector<std::pair<const api::Pod*, Symbol>> bound;
  std::vector<std::pair<const api::Pod*, std::string>> failures;
};

class GangFixture {
 protected:
  bool WorkloadCycle() const { return workload_cycle_; }

  scheduler::Scheduler& Sched() {
    if (!sched_) {
      scheduler::Scheduler::Options opts;
      opts.config.percentage_of_nodes_to_score = 100;
      opts.workload_cycle = WorkloadCycle();
      for (const auto& [gate, on] : gates_) EXPECT_TRUE(opts.gates.Set(gate, on).ok()) << gate;
      opts.config.profiles.emplace_back();
      opts.config.profiles.emplace_back();
      opts.config.profiles.back().scheduler_name = "other-scheduler";
      auto registry = plugins::NewInTreeRegistry();
      auto s = scheduler::Scheduler::New(w_.in, clock_, std::move(opts), registry);
      EXPECT_TRUE(s.ok()) << s.error().message;
      sched_ = std::move(s).value();
      sched_->set_observer(&rec_);
      sched_->SetClusterObjects(&objects_);
    }
    return *sched_;
  }
  // Nodes with `cpu` cores each.
  void Nodes(int n, std::string_view cpu, std::string_view zone_label = "") {
    for (int i = 0; i < n; ++i) {
      auto b = w_.Node("n" + std::to_string(nodes_++))
                   .Capacity({{"cpu", cpu}, {"memory", "64Gi"}, {"pods", "110"}});
      if (!zone_label.empty()) b.Label("rack", zone_label);
      Sched().AddNode(&b.Obj());
    }
  }
  api::PodGroup& Group(std::string_view name, int32_t min_count) {
    objects_.pod_groups.emplace_back();
    auto& g = objects_.pod_groups.back();
    g.meta.name = w_.S(name);
    g.meta.namespace_ = api::wk::kDefaultNamespace;
    g.policy.kind =
        min_count > 0 ? api::PodGroupPolicyKind::kGang : api::PodGroupPolicyKind::kBasic;
    g.policy.min_count = min_count;
    return g;
  }
  api::Workload& LegacyWorkload(std::string_view name, std::string_view group, int32_t min_count) {
    objects_.workloads.emplace_back();
    auto& wl = objects_.workloads.back();
    wl.meta.name = w_.S(name);
    wl.meta.namespace_ = api::wk::kDefaultNamespace;
    wl.generation = api::WorkloadApiGeneration::kV1Alpha1;
    wl.pod_groups.push_back({w_.S(group), {api::PodGroupPolicyKind::kGang, min_count}});
    return wl;
  }
  api::Pod& Member(std::string_view name, std::string_view group, std::string_view cpu = "1") {
    api::Pod& p = w_.Pod(name).Req({{"cpu", cpu}}).Obj();
    p.scheduling_group = api::PodSchedulingGroup{w_.S(group)};
    return p;
  }
  api::Pod& LegacyMember(std::string_view name, std::string_view workload, std::string_view group,
                         std::string_view replica = "", std::string_view cpu = "1") {
    api::Pod& p = w_.Pod(name).Req({{"cpu", cpu}}).Obj();
    p.workload_ref = api::WorkloadReference{w_.S(workload), w_.S(group), w_.S(replica)};
    return p;
  }
  // corral schedule's driver: run, then advance virtual time across Permit timeouts until a round
  // binds nothing.
  void Drive() {
    Sched().RunUntilIdle();
    for (int round = 0; round < 100; ++round) {
      auto d = Sched().NextTimerDeadline();
      if (!d) break;
      int64_t before = Sched().stats().scheduled;
      if (*d > clock_.Now()) clock_.Set(*d);
      Sched().FireTimers();
      Sched().RunUntilIdle();
      if (Sched().stats().scheduled == before) break;
    }
  }
  int BoundOf(std::initializer_list<const api::Pod*> pods) const {
    int n = 0;
    for (const auto& [p, node] : rec_.bound) {
      for (const api::Pod* q : pods) n += p == q;
    }
    return n;
  }
  std::string PendingMessage(const api::Pod* pod) {
    for (const auto& [p, m] : Sched().PendingPods()) {
      if (p == pod) return m;
    }
    return "<not pending>";
  }

  testing::TestWorld w_;
  ManualClock clock_;
  api::ObjectSet objects_;
  Recorder rec_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  int nodes_ = 0;
  bool workload_cycle_ = false;
  std::vector<std::pair<std::string, bool>>
      gates_;  // feature gates set before the scheduler is built
};

class GangSchedulerTest : public GangFixture, public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { workload_cycle_ = GetParam(); }
};

TEST_P(GangSchedulerTest, GangThatFitsIsBoundWhole) {
  Group("g", 3);
  Nodes(2, "2");
  auto& a = Member("a", "g");
  auto& b = Member("b", "g");
  auto& c = Member("c", "g");
  for (auto* p : {&a, &b, &c}) Sched().AddPod(p);
  Drive();
  EXPECT_EQ(BoundOf({&a, &b, &c}), 3);
  EXPECT_EQ(Sched().NumWaitingOnPermit(), 0u);
}

TEST_P(GangSchedulerTest, MembersAreGatedUntilMinCountArrive) {
  Group("g", 3);
  Nodes(2, "2");
  auto& a = Member("a", "g");
  auto& b = Member("b", "g");
  Sched().AddPod(&a);
  Sched().AddPod(&b);
  Drive();
  EXPECT_EQ(rec_.bound.size(), 0u);
  EXPECT_EQ(PendingMessage(&a),
            "waiting for minCount pods from a gang to appear in scheduling queue");
  auto& c = Member("c", "g");
  Sched().AddPod(&c);
  Drive();
  EXPECT_EQ(BoundOf({&a, &b, &c}), 3);
}

TEST_P(GangSchedulerTest, MissingGroupObjectGatesTheMembers) {
  Nodes(1, "4");
  auto& a = Member("a", "nowhere");
  auto& l = LegacyMember("l", "no-such-job", "workers");
  Sched().AddPod(&a);
  Sched().AddPod(&l);
  Drive();
  EXPECT_EQ(PendingMessage(&a),
            "waiting for pod's pod group \"nowhere\" to appear in scheduling queue");
  EXPECT_EQ(PendingMessage(&l),
            "waiting for pods's workload \"no-such-job\" to appear in scheduling queue");
}

TEST_P(GangSchedulerTest, V1Alpha1ReplicaKeysAreIndependentGangs) {
  LegacyWorkload("job", "workers", 2);
  Nodes(1, "3");
  auto& r0a = LegacyMember("r0a", "job", "workers", "r0");
  auto& r0b = LegacyMember("r0b", "job", "workers", "r0");
  auto& r1a = LegacyMember("r1a", "job", "workers", "r1");
  auto& r1b = LegacyMember("r1b", "job", "workers", "r1");
  for (auto* p : {&r0a, &r0b, &r1a, &r1b}) Sched().AddPod(p);
  Drive();
  // 3 cores: one replica (2 pods) fits, the other would need 4.
  EXPECT_EQ(BoundOf({&r0a, &r0b}), 2);
  EXPECT_EQ(BoundOf({&r1a, &r1b}), 0);
}

TEST_P(GangSchedulerTest, MixedSchedulerNamesMakeTheGroupUnschedulable) {
  Group("g", 2);
  Nodes(2, "4");
  auto& a = Member("a", "g");
  auto& b = Member("b", "g");
  w_.pods.back().scheduler_name = w_.S("other-scheduler");
  Sched().AddPod(&a);
  Sched().AddPod(&b);
  Drive();
  EXPECT_EQ(rec_.bound.size(), 0u);
  EXPECT_EQ(PendingMessage(&a), "pods of the pod group have different schedulerNames");
  EXPECT_EQ(PendingMessage(&b), "pods of the pod group have different schedulerNames");
}

TEST_P(GangSchedulerTest, ForeignSchedulerMemberMakesTheGroupUnschedulable) {
  Group("g", 1);
  Nodes(1, "4");
  auto& a = Member("a", "g");
  auto& x = Member("x", "g");
  x.scheduler_name = w_.S("not-here");
  EXPECT_FALSE(Sched().AddPod(&x));
  Sched().AddPod(&a);
  Drive();
  EXPECT_EQ(rec_.bound.size(), 0u);
}

TEST_P(GangSchedulerTest, TwoGangsCompetingForTheSameCapacityDoNotDeadlock) {
  // 4 cores; gangs of 3 × 1 core arriving interleaved: each fits alone, not both.
  Group("a", 3);
  Group("b", 3);
  Nodes(2, "2");
  std::vector<api::Pod*> as, bs;
  for (int i = 0; i < 3; ++i) {
    as.push_back(&Member("a" + std::to_string(i), "a"));
    bs.push_back(&Member("b" + std::to_string(i), "b"));
  }
  for (int i = 0; i < 3; ++i) {
    Sched().AddPod(as[static_cast<size_t>(i)]);
    Sched().AddPod(bs[static_cast<size_t>(i)]);
  }
  Drive();
  int a_bound = BoundOf({as[0], as[1], as[2]});
  int b_bound = BoundOf({bs[0], bs[1], bs[2]});
  EXPECT_TRUE((a_bound == 3 && b_bound == 0) || (a_bound == 0 && b_bound == 3))
      << a_bound << " " << b_bound;
}

INSTANTIATE_TEST_SUITE_P(Modes, GangSchedulerTest, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "WorkloadCycle" : "PermitOnly"; });

// ---- Workload-cycle paths (kube beta, KEP-5732) ----

class WorkloadCycleTest : public GangFixture, public ::testing::Test {
 protected:
  void SetUp() override { workload_cycle_ = true; }
  double GroupAttempts(std::string_view result) {
    return Sched().metrics().CounterSum(
        "scheduler_podgroup_schedule_attempts_total",
        {{"result", std::string(result)}, {"profile", "default-scheduler"}});
  }
  // A bound pod (spec.nodeName) requesting `cpu` (empty: no requests, counted with kube's
  // non-zero 100m).
  void Bound(std::string_view name, std::string_view node, std::string_view cpu) {
    auto b = w_.Pod(name).NodeName(node);
    if (cpu.empty()) {
      b.Req({});
    } else {
      b.Req({{"cpu", cpu}});
    }
    Sched().AddPod(&b.Obj());
  }
};

TEST_F(WorkloadCycleTest, FailedCycleLeavesNoReservationAndRequeuesEveryMember) {
  Group("g", 3);
  Nodes(1, "2");
  auto& a = Member("a", "g");
  auto& b = Member("b", "g");
  auto& c = Member("c", "g");
  for (auto* p : {&a, &b, &c}) Sched().AddPod(p);
  Sched().RunUntilIdle();
  // Two members fit, the third does not: nothing is assumed, nothing waits, the capacity is free.
  EXPECT_EQ(rec_.bound.size(), 0u);
  EXPECT_EQ(Sched().NumWaitingOnPermit(), 0u);
  EXPECT_EQ(Sched().workloads().groups()[0]->assumed.size(), 0u);
  EXPECT_EQ(Sched().workloads().groups()[0]->failure,
            "gang default/g: 2/3 members fit, minCount 3. preemption: no lower-priority pods or "
            "pod groups to preempt for default/g.");
  auto& plain = w_.Pod("plain").Req({{"cpu", "2"}}).Obj();
  EXPECT_TRUE(Sched().Evaluate(plain, w_.S("n0")).ok());
  EXPECT_EQ(PendingMessage(&a),
            "gang default/g: 2/3 members fit, minCount 3. preemption: no lower-priority pods or "
            "pod groups to preempt for default/g.");
  EXPECT_EQ(PendingMessage(&c),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: no lower-priority pods or "
            "pod groups to preempt for default/g.");
  // One group attempt (not three pod attempts) and every member requeued.
  EXPECT_EQ(GroupAttempts("unschedulable"), 1.0);
  EXPECT_EQ(GroupAttempts("scheduled"), 0.0);
  EXPECT_EQ(Sched().NumPendingPods(), 3u);
  // More capacity: the whole group is placed in one attempt.
  Nodes(1, "2");
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({&a, &b, &c}), 3);
  EXPECT_EQ(GroupAttempts("scheduled"), 1.0);
  EXPECT_EQ(Sched().workloads().groups()[0]->failure, "");
}

TEST_F(WorkloadCycleTest, FailedGroupBacksOffUpToMaxBackoffTimesSqrtSize) {
  Group("g", 4);
  Nodes(1, "3");  // 3 of the 4 members fit: every group cycle fails
  std::vector<api::Pod*> ms;
  for (int i = 0; i < 4; ++i) ms.push_back(&Member("m" + std::to_string(i), "g"));
  auto& big = w_.Pod("big").Req({{"cpu", "4"}}).Obj();  // a plain pod that never fits
  for (auto* p : ms) Sched().AddPod(p);
  Sched().AddPod(&big);
  Sched().RunUntilIdle();
  EXPECT_EQ(Sched().PendingBackoff(ms[0]), seconds(1));
  EXPECT_EQ(Sched().PendingBackoff(&big), seconds(1));
  // Five more failed attempts each (kube's 5-minute flush retries the unschedulable pods): the pod
  // backoff stops at the 10 s max, the group's at 10 s × √4 = 20 s.
  for (int i = 0; i < 5; ++i) {
    clock_.Advance(minutes(6));
    Sched().FlushUnschedulableLeftover();
    Sched().RunUntilIdle();
  }
  EXPECT_EQ(GroupAttempts("unschedulable"), 6.0);
  EXPECT_EQ(Sched().PendingBackoff(&big), seconds(10));
  for (auto* p : ms) EXPECT_EQ(Sched().PendingBackoff(p), seconds(20));
  // Once the group commits, its members are back to the pod cap.
  Nodes(1, "1");
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({ms[0], ms[1], ms[2], ms[3]}), 4);
}

TEST_F(WorkloadCycleTest, LaterMembersOfARunningGroupJoinThroughTheCycle) {
  Group("g", 2);
  Nodes(1, "2");
  auto& a = Member("a", "g");
  auto& b = Member("b", "g");
  Sched().AddPod(&a);
  Sched().AddPod(&b);
  Sched().RunUntilIdle();
  ASSERT_EQ(BoundOf({&a, &b}), 2);
  // A third member is not gated (the quorum is known) and is placed by a group cycle that counts
  // the two bound members towards minCount; it does not fit, which fails only itself.
  auto& c = Member("c", "g");
  Sched().AddPod(&c);
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({&c}), 0);
  EXPECT_EQ(GroupAttempts("scheduled"), 2.0);
  EXPECT_EQ(PendingMessage(&c), "0/1 nodes are available: 1 Insufficient cpu.");
  Nodes(1, "1");
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({&c}), 1);
  EXPECT_EQ(GroupAttempts("scheduled"), 3.0);
  EXPECT_EQ(Sched().workloads().groups()[0]->assigned.size(), 3u);
}

TEST_F(WorkloadCycleTest, BasicGroupCommitsWhateverFits) {
  Group("basic", 0);
  Nodes(1, "2");
  auto& a = Member("a", "basic");
  auto& b = Member("b", "basic");
  auto& c = Member("c", "basic");
  for (auto* p : {&a, &b, &c}) Sched().AddPod(p);
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({&a, &b, &c}), 2);
  EXPECT_EQ(GroupAttempts("scheduled"), 1.0);
  EXPECT_EQ(PendingMessage(&c), "0/1 nodes are available: 1 Insufficient cpu.");
  // A later attempt where nothing fits is still a committed attempt of a running group (bound
  // members count towards minCount 1): the member keeps its own failure, the group has no failure.
  clock_.Advance(minutes(6));
  Sched().FlushUnschedulableLeftover();  // kube's 5-minute flush retries c
  Sched().RunUntilIdle();
  EXPECT_EQ(GroupAttempts("scheduled"), 2.0);
  EXPECT_EQ(GroupAttempts("unschedulable"), 0.0);
  EXPECT_EQ(PendingMessage(&c), "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(Sched().workloads().groups()[0]->failure, "");
}

TEST_F(WorkloadCycleTest, TopologyGangIsNeverSplitAcrossDomains) {
  Group("g", 3).topology_keys.push_back(w_.S("rack"));
  Nodes(2, "1", "r1");  // 2 cores in rack r1
  Nodes(2, "1", "r2");  // 2 cores in rack r2: 4 in total, but no rack holds 3
  std::vector<api::Pod*> ms;
  for (int i = 0; i < 3; ++i) ms.push_back(&Member("m" + std::to_string(i), "g"));
  for (auto* p : ms) Sched().AddPod(p);
  Sched().RunUntilIdle();
  EXPECT_EQ(rec_.bound.size(), 0u);
  EXPECT_EQ(Sched().workloads().groups()[0]->failure,
            "gang default/g: 2/3 members fit in one rack domain, minCount 3. preemption: no "
            "lower-priority pods or pod groups to preempt for default/g.");
  Nodes(1, "1", "r2");
  Sched().RunUntilIdle();
  ASSERT_EQ(rec_.bound.size(), 3u);
  for (const auto& [p, node] : rec_.bound) {
    EXPECT_TRUE(node == w_.S("n2") || node == w_.S("n3") || node == w_.S("n4"))
        << "outside rack r2";
  }
  EXPECT_EQ(Sched().workloads().groups()[0]->domain, "rack=r2");
}

TEST_F(WorkloadCycleTest, TopologyConstraintIsIgnoredWithTheGateOff) {
  gates_.emplace_back("TopologyAwareWorkloadScheduling", false);
  Group("g", 3).topology_keys.push_back(w_.S("rack"));
  Nodes(2, "1", "r1");
  Nodes(2, "1", "r2");
  std::vector<api::Pod*> ms;
  for (int i = 0; i < 3; ++i) ms.push_back(&Member("m" + std::to_string(i), "g"));
  for (auto* p : ms) Sched().AddPod(p);
  Sched().RunUntilIdle();
  // kube without the gate: the constraint is not considered, the gang spans both racks.
  EXPECT_EQ(rec_.bound.size(), 3u);
  EXPECT_EQ(Sched().workloads().groups()[0]->domain, "");
}

TEST_F(WorkloadCycleTest, TopologyPlacementIsScoredAsKubesPlacementBinPacking) {
  // Rack a: a 4-core node running 20 pods without requests; rack b: a 4-core node running
  // a 1.5-core pod. By actual requests rack b is the fuller one (12% vs 50% cpu). kube's placement
  // scorer counts non-zero requests (100m / 200Mi per container that requests nothing), the member
  // (500m) included:
  //   a: cpu (2000 + 500) * 100 / 4000 = 62, memory 21 × 200Mi * 100 / 64Gi = 6  → (62 + 6) / 2 =
  //   34 b: cpu (1500 + 500) * 100 / 4000 = 50, memory  2 × 200Mi * 100 / 64Gi = 0  → (50 + 0) / 2
  //   = 25
  Group("g", 1).topology_keys.push_back(w_.S("rack"));
  Nodes(1, "4", "a");
  Nodes(1, "4", "b");
  for (int i = 0; i < 20; ++i) Bound("be" + std::to_string(i), "n0", "");
  Bound("big", "n1", "1500m");
  auto& m = Member("m", "g", "500m");
  Sched().AddPod(&m);
  Sched().RunUntilIdle();
  ASSERT_EQ(BoundOf({&m}), 1);
  EXPECT_EQ(Sched().workloads().groups()[0]->domain, "rack=a");
}

TEST_F(WorkloadCycleTest, RunningTopologyGroupKeepsItsDomain) {
  Group("g", 2).topology_keys.push_back(w_.S("rack"));
  Nodes(1, "2", "a");
  Nodes(1, "8", "b");
  auto& x = Member("x", "g");
  auto& y = Member("y", "g");
  Sched().AddPod(&x);
  Sched().AddPod(&y);
  Sched().RunUntilIdle();
  ASSERT_EQ(BoundOf({&x, &y}), 2);
  ASSERT_EQ(Sched().workloads().groups()[0]->domain, "rack=a");  // full: 100% cpu
  // A later member fits only in rack b, but the group's domain is rack a: it stays pending.
  auto& z = Member("z", "g");
  Sched().AddPod(&z);
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({&z}), 0);
  Nodes(1, "1", "a");
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({&z}), 1);
  EXPECT_EQ(rec_.bound.back().second, w_.S("n2"));
}

// ---- Permit-only paths (kube alpha) ----

class PermitOnlyTest : public GangFixture, public ::testing::Test {};

TEST_F(PermitOnlyTest, PartialGangWaitsAtPermitThenTimesOutAndIsRequeued) {
  Group("g", 3);
  Nodes(1, "2");
  auto& a = Member("a", "g");
  auto& b = Member("b", "g");
  auto& c = Member("c", "g");
  for (auto* p : {&a, &b, &c}) Sched().AddPod(p);
  Sched().RunUntilIdle();
  // a and b fit and wait at Permit (assumed), c does not fit.
  EXPECT_EQ(Sched().NumWaitingOnPermit(), 2u);
  EXPECT_TRUE(Sched().IsWaitingOnPermit(&a));
  EXPECT_EQ(rec_.bound.size(), 0u);
  ASSERT_TRUE(Sched().NextTimerDeadline().has_value());
  EXPECT_EQ(*Sched().NextTimerDeadline(), TimePoint{} + minutes(5));
  // The assumed members hold the capacity: a plain pod does not fit.
  auto& plain = w_.Pod("plain").Req({{"cpu", "1"}}).Obj();
  Sched().AddPod(&plain);
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({&plain}), 0);

  // Not yet: nothing happens before the deadline.
  clock_.Advance(minutes(4));
  Sched().FireTimers();
  EXPECT_EQ(Sched().NumWaitingOnPermit(), 2u);

  clock_.Set(TimePoint{} + minutes(5));
  Sched().FireTimers();
  EXPECT_EQ(Sched().NumWaitingOnPermit(), 0u);
  EXPECT_EQ(BoundOf({&a, &b, &c}), 0);
  // Rejected with kube's timeout message (FailedScheduling) and requeued; the capacity is
  // free again.
  std::vector<std::string> timeouts;
  for (const auto& [p, m] : rec_.failures) {
    if (p == &a || p == &b) timeouts.push_back(m);
  }
  ASSERT_GE(timeouts.size(), 2u);
  EXPECT_EQ(timeouts.back(), "rejected due to timeout after waiting 5m0s at plugin GangScheduling");
  EXPECT_TRUE(Sched().Evaluate(plain, w_.S("n0")).ok());
  EXPECT_EQ(Sched().workloads().groups()[0]->assumed.size(), 0u);
  // The next attempt starts a fresh 5-minute deadline.
  Sched().RunUntilIdle();
  ASSERT_TRUE(Sched().NextTimerDeadline().has_value());
  EXPECT_EQ(*Sched().NextTimerDeadline(), TimePoint{} + minutes(10));
}

TEST_F(PermitOnlyTest, LaterMembersGetTheRestOfTheSharedDeadline) {
  Group("g", 2);
  Nodes(1, "1");
  auto& a = Member("a", "g");
  auto& b = Member("b", "g");
  Sched().AddPod(&a);
  Sched().AddPod(&b);
  Sched().RunUntilIdle();
  ASSERT_EQ(Sched().NumWaitingOnPermit(), 1u);
  // 2 minutes later a second node appears: b is tried again and reaches Permit with 3 minutes left.
  clock_.Advance(minutes(2));
  auto& n = w_.Node("late").Capacity({{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "10"}}).Obj();
  Sched().AddNode(&n);
  Sched().RunUntilIdle();
  EXPECT_EQ(BoundOf({&a, &b}), 2);
  EXPECT_FALSE(Sched().NextTimerDeadline().has_value());
}

TEST_F(PermitOnlyTest, DeletingAWaitingMemberReleasesItsReservation) {
  Group("g", 2);
  Nodes(1, "1");
  auto& a = Member("a", "g");
  auto& b = Member("b", "g");
  Sched().AddPod(&a);
  Sched().AddPod(&b);
  Sched().RunUntilIdle();
  ASSERT_TRUE(Sched().IsWaitingOnPermit(&a));
  Sched().DeletePod(&a);
  EXPECT_EQ(Sched().NumWaitingOnPermit(), 0u);
  EXPECT_FALSE(Sched().NextTimerDeadline().has_value());
  EXPECT_EQ(Sched().workloads().groups()[0]->assumed.size(), 0u);
}

TEST_F(PermitOnlyTest, GoDurationFormatsLikeGo) {
  EXPECT_EQ(scheduler::GoDuration(minutes(5)), "5m0s");
  EXPECT_EQ(scheduler::GoDuration(seconds(210)), "3m30s");
  EXPECT_EQ(scheduler::GoDuration(std::chrono::milliseconds(1500)), "1.5s");
  EXPECT_EQ(scheduler::GoDuration(std::chrono::hours(1)), "1h0m0s");
  EXPECT_EQ(scheduler::GoDuration(std::chrono::milliseconds(300)), "300ms");
  EXPECT_EQ(scheduler::GoDuration(Duration::zero()), "0s");
}

}  // namespace
}  // namespace corral
