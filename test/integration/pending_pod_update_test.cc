// The update of a pending pod through the whole scheduler (Scheduler::UpdatePendingPod): kube's
// PriorityQueue.Update with queueing hints. The cases follow kube's TestPriorityQueue_Update
// (pkg/scheduler/backend/queue/scheduling_queue_test.go) for a pod in the unschedulable pool, and
// the plugin hints event_handling's EventHandlingPodUpdate relies on: NodeUnschedulable and
// TaintToleration for an added toleration, SchedulingGates for the removal of the last gate.

#include <deque>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral {
namespace {

class Recorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol, std::string_view) override {
    scheduled.push_back(&pod);
  }
  std::vector<const api::Pod*> scheduled;
};

struct Fixture {
  Interner in = api::NewInterner();
  ManualClock clock;
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;
  Recorder rec;
  std::unique_ptr<scheduler::Scheduler> sched;

  Fixture() {
    scheduler::Scheduler::Options opts;
    auto registry = plugins::NewInTreeRegistry();
    auto s = scheduler::Scheduler::New(in, clock, std::move(opts), registry);
    EXPECT_TRUE(s.ok());
    sched = std::move(s).value();
    sched->set_observer(&rec);
  }

  api::Node& AddNode(std::string_view name) {
    api::Node& n = nodes.emplace_back();
    n.meta.name = in.Intern(name);
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    n.capacity = {{api::wk::kCpu, api::Quantity::FromInt(4)},
                  {api::wk::kMemory, api::Quantity::FromInt(int64_t{32} << 30)},
                  {api::wk::kPods, api::Quantity::FromInt(110)}};
    std::sort(n.capacity.begin(), n.capacity.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    n.allocatable = n.capacity;
    return n;
  }

  api::Pod& AddPending(std::string_view name) {
    api::Pod& p = pods.emplace_back();
    p.meta.name = in.Intern(name);
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.meta.uid = in.Intern(std::string(name) + "-uid");
    p.scheduler_name = api::wk::kDefaultScheduler;
    api::Container c;
    c.name = in.Intern("pause");
    p.containers.push_back(std::move(c));
    return p;
  }

  api::Toleration Exists(std::string_view key) {
    api::Toleration t;
    t.key = in.Intern(key);
    t.op = api::TolerationOp::kExists;
    t.effect = api::TaintEffect::kNoSchedule;
    return t;
  }

  // The driver's update of `p` in place, as the simulator makes it.
  template <class F>
  void Update(api::Pod& p, F&& mutate) {
    const api::Pod old = p;
    mutate(p);
    sched->UpdatePendingPod(&p, old);
  }

  bool Scheduled(const api::Pod& p) const {
    return std::find(rec.scheduled.begin(), rec.scheduled.end(), &p) != rec.scheduled.end();
  }
};

// kube: "when updating a pod which is in unschedulable queue and is backing off, it will be moved
// to backoff queue" — and popped from there at once (SchedulerPopFromBackoffQ).
TEST(PendingPodUpdate, AddedTolerationRequeuesAPodNodeUnschedulableRejected) {
  Fixture f;
  api::Node& n = f.AddNode("unschedulable-node");
  n.unschedulable = true;
  f.sched->AddNode(&n);
  api::Pod& p = f.AddPending("pod-nodeunschedulable-0");
  ASSERT_TRUE(f.sched->AddPod(&p));
  f.sched->RunUntilIdle();
  EXPECT_FALSE(f.Scheduled(p));
  EXPECT_EQ(f.sched->NumPendingPods(), 1u);
  f.Update(p, [&](api::Pod& x) { x.tolerations = {f.Exists("node.kubernetes.io/unschedulable")}; });
  f.sched->RunUntilIdle();
  EXPECT_TRUE(f.Scheduled(p));
  EXPECT_EQ(f.sched->NumPendingPods(), 0u);
}

// kube: "when updating a pod which is in unschedulable pods but the plugin returns skip, it will
// remain in unschedulablePods" — a label update is not UpdatePodToleration.
TEST(PendingPodUpdate, UnrelatedUpdateLeavesThePodUnschedulable) {
  Fixture f;
  api::Node& n = f.AddNode("node-with-taint");
  n.taints.push_back({f.in.Intern("toleration"), Symbol(), api::TaintEffect::kNoSchedule, {}});
  f.sched->AddNode(&n);
  api::Pod& p = f.AddPending("pod-tainttoleration-0");
  ASSERT_TRUE(f.sched->AddPod(&p));
  f.sched->RunUntilIdle();
  f.Update(p, [&](api::Pod& x) { x.meta.labels.Set(f.in.Intern("color"), f.in.Intern("green")); });
  EXPECT_FALSE(f.sched->ScheduleOne());  // nothing was moved out of the unschedulable pool
  EXPECT_FALSE(f.Scheduled(p));
  f.Update(p, [&](api::Pod& x) { x.tolerations = {f.Exists("toleration")}; });
  f.sched->RunUntilIdle();
  EXPECT_TRUE(f.Scheduled(p));
}

// kube's gated pods: only the removal of the last gate re-runs PreEnqueue.
TEST(PendingPodUpdate, RemovingTheLastGateAdmitsAGatedPod) {
  Fixture f;
  f.sched->AddNode(&f.AddNode("node-1"));
  api::Pod& p = f.AddPending("pod-schedulinggates-0");
  p.scheduling_gates = {f.in.Intern("a"), f.in.Intern("test.k8s.io/hold")};
  ASSERT_TRUE(f.sched->AddPod(&p));
  EXPECT_FALSE(f.sched->ScheduleOne());
  f.Update(p, [&](api::Pod& x) { x.scheduling_gates = {f.in.Intern("test.k8s.io/hold")}; });
  EXPECT_FALSE(f.sched->ScheduleOne());
  f.Update(p, [&](api::Pod& x) { x.scheduling_gates.clear(); });
  f.sched->RunUntilIdle();
  EXPECT_TRUE(f.Scheduled(p));
}

// kube: "when updating a pod which is in active queue, it will be updated in activeQ" — its next
// cycle sees the update (here a toleration of the node's taint).
TEST(PendingPodUpdate, APodInActiveQIsUpdatedInPlace) {
  Fixture f;
  api::Node& n = f.AddNode("node-with-taint");
  n.taints.push_back({f.in.Intern("toleration"), Symbol(), api::TaintEffect::kNoSchedule, {}});
  f.sched->AddNode(&n);
  api::Pod& p = f.AddPending("p");
  ASSERT_TRUE(f.sched->AddPod(&p));
  f.Update(p, [&](api::Pod& x) { x.tolerations = {f.Exists("toleration")}; });
  EXPECT_TRUE(f.sched->ScheduleOne());
  EXPECT_TRUE(f.Scheduled(p));
}

}  // namespace
}  // namespace corral
