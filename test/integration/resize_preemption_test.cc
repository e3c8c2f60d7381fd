// Preemption for deferred in-place resizes (KEP-5836) through the whole scheduler: a bound pod
// whose resize the node's agent deferred is queued (InPlacePodVerticalScalingSchedulerPreemption),
// filtered on its own node only with itself already counted there, preempts lower-priority pods
// of that node, keeps its nominatedNodeName empty, and leaves the queue once the resize is
// actuated. The cases of TestDeferredResizePodPreemption are kube's
// (test/integration/scheduler/preemption/resize_preemption_test.go), with its expected victims.

#include <deque>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/pod_resize.h"
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
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    for (const auto& v : p.victims) victims.push_back(v.pod);
  }
  std::vector<const api::Pod*> scheduled;
  std::vector<const api::Pod*> victims;
};

constexpr int32_t kLow = 100;
constexpr int32_t kHigh = 1000;

struct Fixture {
  Interner in = api::NewInterner();
  ManualClock clock;
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;
  Recorder rec;
  std::unique_ptr<scheduler::Scheduler> sched;

  explicit Fixture(bool gate) {
    scheduler::Scheduler::Options opts;
    opts.gates.ParseFlag("OpportunisticBatching=false").ok();
    if (gate) {
      EXPECT_TRUE(opts.gates.Set("InPlacePodVerticalScalingSchedulerPreemption", true).ok());
    }
    auto registry = plugins::NewInTreeRegistry();
    auto s = scheduler::Scheduler::New(in, clock, std::move(opts), registry);
    EXPECT_TRUE(s.ok());
    sched = std::move(s).value();
    sched->set_observer(&rec);
  }

  // kube's node: pods 32 and the given cpu (milli) and memory (bytes).
  void AddNode(std::string_view name, int64_t cpu_milli, int64_t memory) {
    api::Node& n = nodes.emplace_back();
    n.meta.name = in.Intern(name);
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    n.capacity = {{api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)},
                  {api::wk::kMemory, api::Quantity::FromInt(memory)},
                  {api::wk::kPods, api::Quantity::FromInt(32)}};
    std::sort(n.capacity.begin(), n.capacity.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    n.allocatable = n.capacity;
    sched->AddNode(&n);
  }

  // A running pod bound to `node` requesting cpu (milli) and memory (bytes).
  api::Pod& AddBound(std::string_view name, std::string_view node, int32_t priority,
                     int64_t cpu_milli, int64_t memory) {
    api::Pod& p = pods.emplace_back();
    p.meta.name = in.Intern(name);
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.scheduler_name = api::wk::kDefaultScheduler;
    p.priority = priority;
    p.node_name = in.Intern(node);
    p.phase = api::PodPhase::kRunning;
    api::Container c;
    c.name = in.Intern("pause");
    c.resources.requests = {{api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)},
                            {api::wk::kMemory, api::Quantity::FromInt(memory)}};
    p.containers.push_back(std::move(c));
    EXPECT_TRUE(sched->AddPod(&p));
    return p;
  }

  // The node agent defers a resize of `p` to cpu (milli): kube's accounting while it is pending,
  // max(spec, allocated), is the new request (a scale-up).
  void Defer(api::Pod& p, int64_t cpu_milli, bool preemption_disabled = false) {
    p.containers[0].resources.requests[0].second = api::Quantity::FromMilli(cpu_milli);
    p.conditions.push_back(
        {in.Intern(api::kPodResizePending), api::wk::kTrue, in.Intern(api::kPodReasonDeferred)});
    if (preemption_disabled) {
      p.conditions.push_back(
          {in.Intern(api::kPodResizePreemptionDisabled), api::wk::kTrue, Symbol()});
    }
    sched->UpdateAssignedPod(&p);
  }

  // The node agent actuated the resize: the condition is gone.
  void Actuate(api::Pod& p) {
    p.conditions.clear();
    sched->UpdateAssignedPod(&p);
  }

  std::vector<std::string> VictimNames() const {
    std::vector<std::string> out;
    for (const api::Pod* v : rec.victims) out.emplace_back(in.Str(v->meta.name));
    return out;
  }
};

struct VictimSpec {
  std::string name;
  int64_t cpu_milli;
  int64_t memory;
};

// kube TestDeferredResizePodPreemption: node1 (cpu 300m, memory 300), low-priority victims
// running there, and a high-priority pod whose resize from 100m to 300m cpu (memory 100) is
// Deferred. The "version skew node-level fallback" case needs Node.spec.podPreemptionPolicy, which
// Corral's Node does not have (docs/deviations.md).
TEST(ResizePreemption, DeferredResizePodPreemption) {
  struct Case {
    std::string name;
    std::vector<VictimSpec> victims;
    api::PreemptionPolicy policy;
    std::vector<std::string> want_evicted;
  };
  const std::vector<Case> cases = {
      {"preempt single low priority pod",
       {{"victim-1", 200, 100}},
       api::PreemptionPolicy::kPreemptLowerPriority,
       {"victim-1"}},
      {"preempt multiple low priority pods",
       {{"victim-1", 100, 50}, {"victim-2", 100, 50}},
       api::PreemptionPolicy::kPreemptLowerPriority,
       {"victim-1", "victim-2"}},
      {"no preemption when preemptor policy is PreemptNever",
       {{"victim-1", 200, 100}},
       api::PreemptionPolicy::kNever,
       {}},
      {"parking strategy when deferred resize fits on node",
       {},
       api::PreemptionPolicy::kPreemptLowerPriority,
       {}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Fixture f(/*gate=*/true);
    f.AddNode("node1", 300, 300);
    for (const VictimSpec& v : tc.victims) f.AddBound(v.name, "node1", kLow, v.cpu_milli, v.memory);
    api::Pod& pre = f.AddBound("preemptor-pod", "node1", kHigh, 100, 100);
    pre.preemption_policy = tc.policy;
    f.Defer(pre, 300);
    EXPECT_EQ(f.sched->NumPendingPods(), 1U);  // queued by the update
    f.sched->RunUntilIdle();
    std::vector<std::string> got = f.VictimNames();
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, tc.want_evicted);
    // Never bound again, never nominated, still queued (parked) until the agent actuates it.
    EXPECT_TRUE(f.rec.scheduled.empty());
    EXPECT_TRUE(f.sched->NominatedNodeOf(&pre).empty());
    ASSERT_EQ(f.sched->NumPendingPods(), 1U);
    f.Actuate(pre);
    EXPECT_EQ(f.sched->NumPendingPods(), 0U);
  }
}

// A deferred resize that fits its node is parked by DeferredPodScheduling's Permit with kube's
// message (kube TestDeferredPodScheduling_Permit).
TEST(ResizePreemption, ParkedWithPermitMessage) {
  Fixture f(/*gate=*/true);
  f.AddNode("node1", 300, 300);
  api::Pod& pre = f.AddBound("preemptor-pod", "node1", kHigh, 100, 100);
  f.Defer(pre, 300);
  f.sched->RunUntilIdle();
  auto pending = f.sched->PendingPods();
  ASSERT_EQ(pending.size(), 1U);
  EXPECT_EQ(pending[0].first, &pre);
  EXPECT_EQ(pending[0].second, "pod resize fits, waiting for Kubelet actuation");
}

// The victims of a deferred resize are on its own node only: a lower-priority pod elsewhere is
// never chosen, even where it would free more.
TEST(ResizePreemption, VictimsOnTheResizedPodsNodeOnly) {
  Fixture f(/*gate=*/true);
  f.AddNode("node1", 300, 300);
  f.AddNode("node2", 300, 300);
  f.AddBound("other-node-victim", "node2", kLow, 250, 10);
  f.AddBound("victim-1", "node1", kLow, 200, 10);
  api::Pod& pre = f.AddBound("preemptor-pod", "node1", kHigh, 100, 10);
  f.Defer(pre, 300);
  f.sched->RunUntilIdle();
  EXPECT_EQ(f.VictimNames(), std::vector<std::string>{"victim-1"});
}

// Nothing of lower priority to evict: the pod stays Deferred and queued, and nothing is preempted.
TEST(ResizePreemption, NoLowerPriorityPods) {
  Fixture f(/*gate=*/true);
  f.AddNode("node1", 300, 300);
  f.AddBound("same-priority", "node1", kHigh, 200, 10);
  api::Pod& pre = f.AddBound("preemptor-pod", "node1", kHigh, 100, 10);
  f.Defer(pre, 300);
  f.sched->RunUntilIdle();
  EXPECT_TRUE(f.rec.victims.empty());
  EXPECT_EQ(f.sched->NumPendingPods(), 1U);
}

// Without the gate a deferred resize is not the scheduler's: never queued, nothing preempted
// (kube's assigned-pod update handler ignores it).
TEST(ResizePreemption, GateOffLeavesDeferredResizeAlone) {
  Fixture f(/*gate=*/false);
  f.AddNode("node1", 300, 300);
  f.AddBound("victim-1", "node1", kLow, 200, 100);
  api::Pod& pre = f.AddBound("preemptor-pod", "node1", kHigh, 100, 100);
  f.Defer(pre, 300);
  EXPECT_EQ(f.sched->NumPendingPods(), 0U);
  f.sched->RunUntilIdle();
  EXPECT_TRUE(f.rec.victims.empty());
}

// kube TestDeferredResizeQueueingHandlers: a deferred pod with PodResizePreemptionDisabled=True
// is not queued.
TEST(ResizePreemption, PreemptionDisabledConditionIsNotQueued) {
  Fixture f(/*gate=*/true);
  f.AddNode("node1", 200, 300);
  api::Pod& pre = f.AddBound("deferred-pod", "node1", kLow, 50, 10);
  f.Defer(pre, 100, /*preemption_disabled=*/true);
  EXPECT_EQ(f.sched->NumPendingPods(), 0U);
}

// A pending pod of lower priority is not placed into room the resize already holds: while
// Deferred, the node accounts the resized pod at its new request.
TEST(ResizePreemption, DeferredRequestIsAccountedOnItsNode) {
  Fixture f(/*gate=*/false);
  f.AddNode("node1", 300, 300);
  api::Pod& pre = f.AddBound("preemptor-pod", "node1", kHigh, 100, 10);
  f.Defer(pre, 250);
  api::Pod& late = f.pods.emplace_back();
  late.meta.name = f.in.Intern("late");
  late.meta.namespace_ = api::wk::kDefaultNamespace;
  late.scheduler_name = api::wk::kDefaultScheduler;
  late.priority = kLow;
  late.preemption_policy = api::PreemptionPolicy::kNever;
  api::Container c;
  c.name = f.in.Intern("pause");
  c.resources.requests = {{api::wk::kCpu, api::Quantity::FromMilli(100)}};
  late.containers.push_back(std::move(c));
  ASSERT_TRUE(f.sched->AddPod(&late));
  f.sched->RunUntilIdle();
  EXPECT_TRUE(f.rec.scheduled.empty());  // 250m + 100m > 300m
}

}  // namespace
}  // namespace corral
