// The preemption dry-run memo (feature gate CorralPreemptionMemo) never changes a decision.
// Property: random clusters where several preemptors share a shape (so the memo answers many nodes)
// run through the whole scheduler twice, gate on and gate off, with the same seed; the event
// streams — placements, preemptions (node, victims in order, PDB violations) and every
// unschedulable message — are identical. The scenarios mix PodDisruptionBudgets, pods with and
// without status.startTime (with a clock that moves), host ports, delayed victim deletion and
// batches of preemptors arriving together (so nominations change between dry runs), and node churn
// between batches (a node removed and re-added under the same name, or updated to a new api::Node:
// the memo stores entries by node name, and the NodeInfo or api::Node behind the name changes).

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/default_preemption/default_preemption.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "test/testing/builders.h"

namespace corral {
namespace {

struct PodShape {
  int cpu_milli;
  int priority;
  int host_port;  // 0 = none
  bool db;        // labelled app=db (selected by the budget)
  int start;      // seconds; < 0 = no status.startTime
};

struct Spec {
  std::vector<std::pair<int, int>> nodes;  // cpu milli, max pods
  std::vector<PodShape> low;               // bound first
  std::vector<PodShape> shapes;            // preemptor shapes
  std::vector<std::vector<int>> batches;   // preemptors arriving together, as shape indices
  std::vector<int> churn;  // before batch i, when churn[i] >= 0: node churn[i] % N is re-added
                           // (even churn[i] / N) or updated to a copy of its api::Node (odd)
  int pdb_slack;  // < 0 = no budget; else minAvailable = (low db pods) − slack, so few may go
  bool delete_immediately;
  bool batching;
  uint64_t seed;
};

class Recorder : public scheduler::SchedulerObserver {
 public:
  explicit Recorder(const Interner& in) : in_(in) {}
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    events.push_back(fmt::format("placed {} {}", in_.Str(pod.meta.name), in_.Str(node)));
  }
  void OnUnschedulable(const api::Pod& pod, const std::string& message) override {
    events.push_back(fmt::format("unschedulable {}: {}", in_.Str(pod.meta.name), message));
  }
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    std::string e =
        fmt::format("preempted by {} on {}:", in_.Str(p.preemptor->meta.name), in_.Str(p.node));
    for (const auto& v : p.victims) {
      e += fmt::format(" {}{}", in_.Str(v.pod->meta.name), v.violates_pdb ? "(pdb)" : "");
      to_delete.push_back(v.pod);
    }
    events.push_back(std::move(e));
  }
  std::vector<std::string> events;
  std::vector<const api::Pod*> to_delete;

 private:
  const Interner& in_;
};

struct Outcome {
  std::vector<std::string> events;
  int64_t memo_hits = 0;
};

Outcome Run(const Spec& spec, bool memo) {
  Interner in = api::NewInterner();
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;
  api::ObjectSet objects;
  const Symbol app = in.Intern("app"), db = in.Intern("db");
  auto make_pod = [&](const std::string& name, const PodShape& s) -> api::Pod& {
    api::Pod& p = pods.emplace_back();
    p.meta.name = in.Intern(name);
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    if (s.db) p.meta.labels.Set(app, db);
    p.scheduler_name = api::wk::kDefaultScheduler;
    p.priority = s.priority;
    if (s.start >= 0) p.start_time = TimePoint{} + std::chrono::seconds(s.start);
    api::Container c;
    c.name = in.Intern("c");
    c.resources.requests.push_back({api::wk::kCpu, api::Quantity::FromMilli(s.cpu_milli)});
    if (s.host_port > 0)
      c.ports.push_back({Symbol(), 8080, s.host_port, api::Protocol::kTCP, Symbol()});
    p.containers.push_back(std::move(c));
    return p;
  };
  for (auto [cpu, max_pods] : spec.nodes) {
    api::Node& n = nodes.emplace_back();
    testing::MakeCpuNode(n, in, "node-" + std::to_string(nodes.size() - 1), cpu, max_pods);
  }
  if (spec.pdb_slack >= 0) {
    const auto db_pods =
        std::count_if(spec.low.begin(), spec.low.end(), [](const PodShape& p) { return p.db; });
    api::PodDisruptionBudget& b = objects.pod_disruption_budgets.emplace_back();
    b.meta.name = in.Intern("db");
    b.meta.namespace_ = api::wk::kDefaultNamespace;
    b.selector.emplace().match_labels.Set(app, db);
    b.min_available =
        api::IntOrPercent{std::max(0, static_cast<int>(db_pods) - spec.pdb_slack), false};
  }
  ManualClock clock;
  scheduler::Scheduler::Options opts;
  opts.seed = spec.seed;
  opts.delete_victims_immediately = spec.delete_immediately;
  RC_ASSERT(opts.gates.Set("OpportunisticBatching", spec.batching).ok());
  RC_ASSERT(opts.gates.Set("CorralPreemptionMemo", memo).ok());
  auto registry = plugins::NewInTreeRegistry();
  auto made = scheduler::Scheduler::New(in, clock, std::move(opts), registry);
  RC_ASSERT(made.ok());
  scheduler::Scheduler& s = **made;
  Recorder rec(in);
  s.set_observer(&rec);
  s.SetClusterObjects(&objects);
  for (auto& n : nodes) s.AddNode(&n);
  for (size_t i = 0; i < spec.low.size(); ++i)
    s.AddPod(&make_pod("low-" + std::to_string(i), spec.low[i]));
  s.RunUntilIdle();
  int serial = 0;
  const size_t num_nodes = nodes.size();
  for (size_t b = 0; b < spec.batches.size(); ++b) {
    const auto& batch = spec.batches[b];
    clock.Advance(std::chrono::seconds(1));  // pods without a start time read "now"
    if (b < spec.churn.size() && spec.churn[b] >= 0) {
      const auto k = static_cast<size_t>(spec.churn[b]);
      api::Node& n = nodes[k % num_nodes];
      if ((k / num_nodes) % 2 == 0) {
        s.RemoveNode(n.meta.name);
        s.AddNode(&n);
      } else {
        s.AddNode(&nodes.emplace_back(n));
      }
    }
    for (int k : batch) {
      s.AddPod(&make_pod("high-" + std::to_string(serial++),
                         spec.shapes[static_cast<size_t>(k) % spec.shapes.size()]));
    }
    s.RunUntilIdle();
    // Delayed deletion: the driver deletes the victims once the cycle is over.
    for (int round = 0; round < 8 && !rec.to_delete.empty(); ++round) {
      std::vector<const api::Pod*> victims;
      victims.swap(rec.to_delete);
      if (spec.delete_immediately) break;
      for (const api::Pod* v : victims) s.DeletePod(v);
      s.RunUntilIdle();
    }
    rec.to_delete.clear();
  }
  Outcome out;
  out.events = std::move(rec.events);
  const auto* fwk = s.profile("default-scheduler");
  RC_ASSERT(fwk != nullptr);
  const auto* dp =
      dynamic_cast<const plugins::DefaultPreemption*>(fwk->GetPlugin("DefaultPreemption"));
  RC_ASSERT(dp != nullptr);
  out.memo_hits = dp->memo_hits();
  if (!memo) RC_ASSERT(dp->memo_hits() + dp->memo_misses() == 0);
  return out;
}

rc::Gen<PodShape> GenShape(int min_priority, int max_priority, int max_cpu) {
  return rc::gen::build<PodShape>(
      rc::gen::set(&PodShape::cpu_milli, rc::gen::map(rc::gen::inRange(1, max_cpu / 250 + 1),
                                                      [](int k) { return k * 250; })),
      rc::gen::set(&PodShape::priority, rc::gen::inRange(min_priority, max_priority + 1)),
      rc::gen::set(&PodShape::host_port,
                   rc::gen::weightedOneOf<int>({{6, rc::gen::just(0)}, {1, rc::gen::just(81)}})),
      rc::gen::set(&PodShape::db, rc::gen::weightedOneOf<bool>(
                                      {{1, rc::gen::just(false)}, {1, rc::gen::just(true)}})),
      rc::gen::set(&PodShape::start, rc::gen::inRange(-3, 6)));
}

RC_GTEST_PROP(PreemptionMemoPropertyTest, GateOnAndOffDecideIdentically, ()) {
  Spec spec;
  spec.nodes = *rc::gen::resize(
      10, rc::gen::nonEmpty(rc::gen::container<std::vector<std::pair<int, int>>>(
              rc::gen::pair(rc::gen::inRange(1000, 4001), rc::gen::inRange(2, 8)))));
  spec.low = *rc::gen::resize(30, rc::gen::container<std::vector<PodShape>>(GenShape(0, 2, 1500)));
  spec.shapes = *rc::gen::resize(
      3, rc::gen::nonEmpty(rc::gen::container<std::vector<PodShape>>(GenShape(1, 4, 3000))));
  spec.batches = *rc::gen::resize(
      5, rc::gen::container<std::vector<std::vector<int>>>(rc::gen::resize(
             4, rc::gen::nonEmpty(rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 3))))));
  spec.churn = *rc::gen::container<std::vector<int>>(
      spec.batches.size(),
      rc::gen::weightedOneOf<int>({{2, rc::gen::just(-1)}, {1, rc::gen::inRange(0, 40)}}));
  spec.pdb_slack = *rc::gen::inRange(-1, 3);
  spec.delete_immediately = *rc::gen::arbitrary<bool>();
  spec.batching = *rc::gen::arbitrary<bool>();
  spec.seed = *rc::gen::inRange<uint64_t>(1, 1000);
  const Outcome on = Run(spec, true);
  const Outcome off = Run(spec, false);
  RC_CLASSIFY(on.memo_hits > 0, "memo answered some nodes");
  RC_ASSERT(on.events == off.events);
}

}  // namespace
}  // namespace corral
