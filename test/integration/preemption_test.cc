// Preemption through the whole scheduler (DefaultPreemption, the nominator, victim eviction).
// Property tests (RapidCheck) on random clusters: low-priority pods are placed first, then
// preemptors of higher priorities arrive one at a time:
//   (1) no victim has a priority ≥ its preemptor's;
//   (2) victim sets are minimal: with any single victim put back the preemptor does not fit on the
//       nominated node, and with every victim gone it does (replayed on a fresh scheduler);
//   (3) a preemptor is placed on its nominated node once its victims are gone (nothing of higher
//       priority arrives in between);
//   (4) the same inputs and seed give the same preemptions and placements.
// Plus scenario tests of the scheduler wiring: delayed victim deletion, eligibility while victims
// terminate, nominations honoured and cleared, metrics.

#include <deque>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "test/testing/builders.h"

namespace corral {
namespace {

struct Event {
  enum Kind { kPlaced, kPreempted } kind;
  const api::Pod* pod;  // placed pod, or the preemptor
  Symbol node;
  std::vector<const api::Pod*> victims;
};

class Recorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    events.push_back({Event::kPlaced, &pod, node, {}});
  }
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    Event e{Event::kPreempted, p.preemptor, p.node, {}};
    for (const auto& v : p.victims) e.victims.push_back(v.pod);
    events.push_back(std::move(e));
  }
  std::vector<Event> events;
};

struct World {
  Interner in = api::NewInterner();
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;

  api::Node& AddNode(int cpu_milli, int max_pods) {
    api::Node& n = nodes.emplace_back();
    testing::MakeCpuNode(n, in, "node-" + std::to_string(nodes.size() - 1), cpu_milli, max_pods);
    return n;
  }
  api::Pod& AddPod(std::string_view prefix, int cpu_milli, int priority, int host_port = 0) {
    api::Pod& p = pods.emplace_back();
    p.meta.name = in.Intern(std::string(prefix) + std::to_string(pods.size() - 1));
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.scheduler_name = api::wk::kDefaultScheduler;
    p.priority = priority;
    api::Container c;
    c.name = in.Intern("c");
    c.resources.requests.push_back({api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)});
    if (host_port > 0)
      c.ports.push_back({Symbol(), 8080, host_port, api::Protocol::kTCP, Symbol()});
    p.containers.push_back(std::move(c));
    return p;
  }
};

std::unique_ptr<scheduler::Scheduler> NewScheduler(World& w, const Clock& clock, uint64_t seed,
                                                   bool delete_immediately = true) {
  scheduler::Scheduler::Options opts;
  opts.seed = seed;
  opts.delete_victims_immediately = delete_immediately;
  opts.gates.ParseFlag("OpportunisticBatching=false").ok();
  auto registry = plugins::NewInTreeRegistry();
  auto s = scheduler::Scheduler::New(w.in, clock, std::move(opts), registry);
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

struct Spec {
  std::vector<std::pair<int, int>> nodes;       // cpu milli, max pods
  std::vector<std::pair<int, int>> low;         // cpu milli, host port (priority 0)
  std::vector<std::tuple<int, int, int>> high;  // cpu milli, priority 1..3, host port
};

struct RunResult {
  std::vector<Event> events;
  std::vector<const api::Pod*> preemptors_left_pending;
};

RunResult RunScenario(World& w, const Spec& spec, uint64_t seed) {
  ManualClock clock;
  auto s = NewScheduler(w, clock, seed);
  Recorder rec;
  s->set_observer(&rec);
  for (auto& n : w.nodes) s->AddNode(&n);
  size_t i = 0;
  for (; i < spec.low.size(); ++i) s->AddPod(&w.pods[i]);
  s->RunUntilIdle();
  RunResult out;
  for (size_t k = 0; k < spec.high.size(); ++k, ++i) {
    const api::Pod* p = &w.pods[i];
    s->AddPod(p);
    s->RunUntilIdle();
    bool preempted = false, placed = false;
    for (const auto& e : rec.events) {
      if (e.pod != p) continue;
      if (e.kind == Event::kPreempted) preempted = true;
      if (e.kind == Event::kPlaced) placed = true;
    }
    if (preempted && !placed) out.preemptors_left_pending.push_back(p);
  }
  out.events = rec.events;
  return out;
}

void FillWorld(World& w, const Spec& spec) {
  for (auto [cpu, max_pods] : spec.nodes) w.AddNode(cpu, max_pods);
  for (auto [cpu, port] : spec.low) w.AddPod("low-", cpu, 0, port);
  for (auto [cpu, prio, port] : spec.high) w.AddPod("high-", cpu, prio, port);
}

// A fresh scheduler holding `bound` (pods as bound copies), for replaying a moment of a run.
framework::Status EvaluateWith(World& w, const std::map<const api::Pod*, Symbol>& bound,
                               const std::vector<const api::Pod*>& without, const api::Pod& pod,
                               Symbol node) {
  ManualClock clock;
  auto s = NewScheduler(w, clock, 1);
  for (auto& n : w.nodes) s->AddNode(&n);
  std::deque<api::Pod> copies;
  for (const auto& [p, n] : bound) {
    if (std::find(without.begin(), without.end(), p) != without.end()) continue;
    copies.push_back(*p);
    copies.back().node_name = n;
    s->AddPod(&copies.back());
  }
  return s->Evaluate(pod, node);
}

RC_GTEST_PROP(PreemptionPropertyTest, VictimsAreLowerPriorityMinimalAndThePreemptorIsPlaced, ()) {
  Spec spec;
  spec.nodes = *rc::gen::resize(
      6, rc::gen::nonEmpty(rc::gen::container<std::vector<std::pair<int, int>>>(
             rc::gen::pair(rc::gen::inRange(1000, 4001), rc::gen::inRange(2, 8)))));
  spec.low = *rc::gen::resize(
      20,
      rc::gen::container<std::vector<std::pair<int, int>>>(rc::gen::pair(
          rc::gen::inRange(100, 1501),
          rc::gen::weightedOneOf<int>({{5, rc::gen::just(0)}, {1, rc::gen::inRange(80, 82)}}))));
  spec.high = *rc::gen::resize(
      8, rc::gen::container<std::vector<std::tuple<int, int, int>>>(rc::gen::tuple(
             rc::gen::inRange(100, 3001), rc::gen::inRange(1, 4),
             rc::gen::weightedOneOf<int>({{5, rc::gen::just(0)}, {1, rc::gen::inRange(80, 82)}}))));
  const auto seed = *rc::gen::inRange<uint64_t>(1, 1000);
  World w;
  FillWorld(w, spec);
  RunResult r = RunScenario(w, spec, seed);

  RC_CLASSIFY(std::any_of(r.events.begin(), r.events.end(),
                          [](const Event& e) { return e.kind == Event::kPreempted; }),
              "some preemption");
  std::map<const api::Pod*, Symbol> bound;
  std::map<const api::Pod*, Symbol> nominated;
  for (const auto& e : r.events) {
    if (e.kind == Event::kPlaced) {
      bound[e.pod] = e.node;
      // (3) Placed on its nominated node.
      if (auto it = nominated.find(e.pod); it != nominated.end()) RC_ASSERT(it->second == e.node);
      continue;
    }
    RC_ASSERT(!e.victims.empty());
    for (const api::Pod* v : e.victims) {
      // (1) Lower priority only, and on the nominated node.
      RC_ASSERT(v->priority < e.pod->priority);
      RC_ASSERT(bound.at(v) == e.node);
    }
    // (2) Minimal: the pod fits with every victim gone, not with any one of them back.
    RC_ASSERT(EvaluateWith(w, bound, e.victims, *e.pod, e.node).ok());
    for (const api::Pod* keep : e.victims) {
      std::vector<const api::Pod*> others;
      for (const api::Pod* v : e.victims) {
        if (v != keep) others.push_back(v);
      }
      RC_ASSERT(!EvaluateWith(w, bound, others, *e.pod, e.node).ok());
    }
    for (const api::Pod* v : e.victims) bound.erase(v);
    nominated[e.pod] = e.node;
  }
  // (3) Every preemptor was placed once its victims were gone.
  RC_ASSERT(r.preemptors_left_pending.empty());
  // (4) Determinism.
  World w2;
  FillWorld(w2, spec);
  RunResult again = RunScenario(w2, spec, seed);
  RC_ASSERT(again.events.size() == r.events.size());
  for (size_t i = 0; i < r.events.size(); ++i) {
    RC_ASSERT(again.events[i].kind == r.events[i].kind);
    RC_ASSERT(w2.in.Str(again.events[i].pod->meta.name) == w.in.Str(r.events[i].pod->meta.name));
    RC_ASSERT(w2.in.Str(again.events[i].node) == w.in.Str(r.events[i].node));
  }
}

// ---- scenarios ----

class PreemptionScenarioTest : public ::testing::Test {
 protected:
  std::unique_ptr<scheduler::Scheduler> New(bool delete_immediately) {
    auto s = NewScheduler(w_, clock_, 1, delete_immediately);
    s->set_observer(&rec_);
    return s;
  }
  bool Placed(const api::Pod& p, std::string_view node) const {
    for (const auto& e : rec_.events) {
      if (e.kind == Event::kPlaced && e.pod == &p) return w_.in.Str(e.node) == node;
    }
    return false;
  }
  size_t NumPreemptions() const {
    return static_cast<size_t>(
        std::count_if(rec_.events.begin(), rec_.events.end(),
                      [](const Event& e) { return e.kind == Event::kPreempted; }));
  }

  World w_;
  ManualClock clock_;
  Recorder rec_;
};

TEST_F(PreemptionScenarioTest, VictimsDeletedImmediatelyThePreemptorSchedules) {
  auto s = New(true);
  api::Node& n = w_.AddNode(2000, 10);
  s->AddNode(&n);
  api::Pod& low = w_.AddPod("low-", 1500, 0);
  s->AddPod(&low);
  s->RunUntilIdle();
  api::Pod& high = w_.AddPod("high-", 1000, 10);
  s->AddPod(&high);
  s->RunUntilIdle();
  ASSERT_EQ(NumPreemptions(), 1u);
  EXPECT_TRUE(Placed(high, "node-0"));
  EXPECT_EQ(s->NumPendingPods(), 0u);
  std::string text = s->metrics().PrometheusText();
  EXPECT_NE(text.find("scheduler_preemption_attempts_total 1"), std::string::npos) << text;
  EXPECT_NE(text.find("scheduler_preemption_victims_bucket{le=\"1\"} 1"), std::string::npos)
      << text;
}

TEST_F(PreemptionScenarioTest, DelayedDeletionKeepsThePreemptorWaitingAndNominated) {
  auto s = New(false);
  api::Node& n = w_.AddNode(2000, 10);
  s->AddNode(&n);
  api::Pod& low = w_.AddPod("low-", 1500, 0);
  s->AddPod(&low);
  s->RunUntilIdle();
  api::Pod& high = w_.AddPod("high-", 1000, 10);
  s->AddPod(&high);
  s->RunUntilIdle();
  ASSERT_EQ(NumPreemptions(), 1u);
  EXPECT_FALSE(Placed(high, "node-0"));
  // A pod of the victim's priority fits the free 500m, but not beside the nominated preemptor while
  // the victim terminates (1500m + 1000m + 400m > 2000m), and it has nobody to preempt.
  api::Pod& mid = w_.AddPod("mid-", 400, 0);
  s->AddPod(&mid);
  s->RunUntilIdle();
  EXPECT_FALSE(Placed(mid, "node-0"));
  // Retrying the preemptor while the victim terminates does not preempt again.
  s->FlushUnschedulableLeftover();
  clock_.Advance(std::chrono::minutes(6));
  s->FlushUnschedulableLeftover();
  s->RunUntilIdle();
  EXPECT_EQ(NumPreemptions(), 1u);
  auto pending = s->PendingPods();
  bool saw = false;
  for (const auto& [p, msg] : pending) {
    if (p == &high) {
      saw = true;
      EXPECT_NE(
          msg.find("preemption: not eligible due to a terminating pod on the nominated node."),
          std::string::npos)
          << msg;
    }
  }
  EXPECT_TRUE(saw);
  // The victim's grace period ends: the preemptor schedules, then mid fits beside it.
  s->DeletePod(&low);
  s->RunUntilIdle();
  EXPECT_TRUE(Placed(high, "node-0"));
  EXPECT_TRUE(Placed(mid, "node-0"));
}

TEST_F(PreemptionScenarioTest, NominatedPodKeepsItsRoomAgainstLowerPriorityPods) {
  auto s = New(false);
  api::Node& n0 = w_.AddNode(2000, 10);
  s->AddNode(&n0);
  api::Pod& low = w_.AddPod("low-", 2000, 0);
  s->AddPod(&low);
  s->RunUntilIdle();
  api::Pod& high = w_.AddPod("high-", 2000, 10);
  s->AddPod(&high);
  s->RunUntilIdle();
  ASSERT_EQ(NumPreemptions(), 1u);
  s->DeletePod(&low);  // the victim is gone; before the preemptor retries, a lower pod arrives
  api::Pod& other = w_.AddPod("other-", 1000, 5);
  s->AddPod(&other);
  s->RunUntilIdle();
  EXPECT_TRUE(Placed(high, "node-0"));
  EXPECT_FALSE(Placed(other, "node-0"));
}

TEST_F(PreemptionScenarioTest, PreemptionPolicyNeverAndEqualPriority) {
  auto s = New(true);
  api::Node& n0 = w_.AddNode(1000, 10);
  s->AddNode(&n0);
  api::Pod& low = w_.AddPod("low-", 1000, 0);
  s->AddPod(&low);
  s->RunUntilIdle();
  api::Pod& never = w_.AddPod("never-", 1000, 10);
  never.preemption_policy = api::PreemptionPolicy::kNever;
  api::Pod& same = w_.AddPod("same-", 1000, 0);
  s->AddPod(&never);
  s->AddPod(&same);
  s->RunUntilIdle();
  EXPECT_EQ(NumPreemptions(), 0u);
  std::map<std::string, std::string> msgs;
  for (const auto& [p, msg] : s->PendingPods()) msgs[std::string(w_.in.Str(p->meta.name))] = msg;
  EXPECT_EQ(msgs["never-1"],
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
            "not eligible due to "
            "preemptionPolicy=Never.");
  EXPECT_EQ(msgs["same-2"],
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: "
            "0/1 nodes are available: 1 "
            "No preemption "
            "victims found for incoming pod.");
}

}  // namespace
}  // namespace corral
