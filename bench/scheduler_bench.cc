// Scheduling throughput on kube's scheduler_perf shapes (test/integration/scheduler_perf), end to
// end through Scheduler::RunUntilIdle with the default plugins and batching off:
//   node template: 4 cpu, 32Gi, 110 pods;  pod template: 100m cpu, 500Mi (request = limit), port 80
//   SchedulingBasic/5000Nodes_10000Pods      5000 nodes, 1000 initial, 10000 measured pods
//   SchedulingPodAntiAffinity/5000Nodes_2000Pods  required hostname anti-affinity to color=green
//                                            (namespaces sched-0, sched-1), 1000 initial,
//                                            2000 measured
//   SchedulingPodAffinity/5000Nodes_5000Pods  all nodes in zone1, required zone affinity to foo="",
//                                            5000 initial, 5000 measured
//   TopologySpreading/5000Nodes_5000Pods     nodes over moon-1..3, DoNotSchedule zone spread
//                                            (maxSkew 5, color=blue), 1000 initial, 5000 measured
// items_per_second = measured pods / CPU time of the measured phase (the scheduler
// is single-threaded).

#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/core/clock.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "bench_scheduler.h"

namespace corral {
namespace {

struct Cluster {
  Interner in = api::NewInterner();
  std::vector<api::Node> nodes;
  std::vector<api::Pod> init_pods;
  std::vector<api::Pod> pods;
};

api::Quantity Q(std::string_view s) {
  return *api::Quantity::Parse(s);
}

enum class Shape { kBasic, kAntiAffinity, kAffinity, kSpread };

api::LabelSelector Selector(Cluster& c, std::string_view k, std::string_view v) {
  api::LabelSelector sel;
  sel.match_labels.Set(c.in.Intern(k), c.in.Intern(v));
  return sel;
}

void Decorate(Cluster& c, Shape shape, api::Pod& p) {
  switch (shape) {
    case Shape::kBasic:
      break;
    case Shape::kAntiAffinity: {
      p.meta.labels.Set(c.in.Intern("color"), c.in.Intern("green"));
      p.meta.labels.Set(c.in.Intern("name"), c.in.Intern("test"));
      api::PodAffinityTerm t;
      t.label_selector = Selector(c, "color", "green");
      t.topology_key = api::wk::kHostnameLabel;
      t.namespaces = {c.in.Intern("sched-1"), c.in.Intern("sched-0")};
      p.affinity.emplace().pod_anti_affinity.emplace().required.push_back(std::move(t));
      break;
    }
    case Shape::kAffinity: {
      p.meta.labels.Set(c.in.Intern("foo"), c.in.Intern(""));
      api::PodAffinityTerm t;
      t.label_selector = Selector(c, "foo", "");
      t.topology_key = api::wk::kZoneLabel;
      t.namespaces = {c.in.Intern("sched-1"), c.in.Intern("sched-0")};
      p.affinity.emplace().pod_affinity.emplace().required.push_back(std::move(t));
      break;
    }
    case Shape::kSpread: {
      p.meta.labels.Set(c.in.Intern("color"), c.in.Intern("blue"));
      api::TopologySpreadConstraint tsc;
      tsc.max_skew = 5;
      tsc.topology_key = api::wk::kZoneLabel;
      tsc.when_unsatisfiable = api::WhenUnsatisfiable::kDoNotSchedule;
      tsc.label_selector = Selector(c, "color", "blue");
      p.topology_spread_constraints.push_back(std::move(tsc));
      break;
    }
  }
}

void MakeNodes(Cluster& c, int n, Shape shape) {
  c.nodes.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    api::Node& node = c.nodes[static_cast<size_t>(i)];
    node.meta.name = c.in.Intern("scheduler-perf-" + std::to_string(i));
    node.meta.labels.Set(api::wk::kHostnameLabel, node.meta.name);
    if (shape == Shape::kAffinity) node.meta.labels.Set(api::wk::kZoneLabel, c.in.Intern("zone1"));
    if (shape == Shape::kSpread) {
      node.meta.labels.Set(api::wk::kZoneLabel, c.in.Intern("moon-" + std::to_string(i % 3 + 1)));
    }
    node.capacity = {
        {api::wk::kCpu, Q("4")}, {api::wk::kMemory, Q("32Gi")}, {api::wk::kPods, Q("110")}};
    std::sort(node.capacity.begin(), node.capacity.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    node.allocatable = node.capacity;
  }
}

void MakePods(Cluster& c, std::vector<api::Pod>& out, int n, std::string_view prefix,
              std::string_view ns, Shape shape) {
  out.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    api::Pod& p = out[static_cast<size_t>(i)];
    p.meta.name = c.in.Intern(std::string(prefix) + std::to_string(i));
    p.meta.namespace_ = c.in.Intern(ns);
    p.scheduler_name = api::wk::kDefaultScheduler;
    api::Container ctr;
    ctr.name = c.in.Intern("pause");
    ctr.image = c.in.Intern("registry.k8s.io/pause:3.10");
    ctr.resources.requests = {{api::wk::kCpu, Q("100m")}, {api::wk::kMemory, Q("500Mi")}};
    ctr.resources.limits = ctr.resources.requests;
    ctr.ports.push_back({Symbol(), 80, 0, api::Protocol::kTCP, Symbol()});
    p.containers.push_back(std::move(ctr));
    Decorate(c, shape, p);
  }
}

void RunShape(benchmark::State& state, Shape shape, Shape init_shape) {
  const int num_nodes = static_cast<int>(state.range(0));
  const int num_init = static_cast<int>(state.range(1));
  const int num_pods = static_cast<int>(state.range(2));
  for (auto _ : state) {
    state.PauseTiming();
    Cluster c;
    MakeNodes(c, num_nodes, shape);
    MakePods(c, c.init_pods, num_init, "init-pod-", "sched-0", init_shape);
    MakePods(c, c.pods, num_pods, "pod-", "sched-1", shape);
    ManualClock clock;
    std::unique_ptr<scheduler::Scheduler> s = NewBenchScheduler(state, c.in, clock);
    if (s == nullptr) return;
    for (auto& n : c.nodes) s->AddNode(&n);
    for (auto& p : c.init_pods) s->AddPod(&p);
    s->RunUntilIdle();
    for (auto& p : c.pods) s->AddPod(&p);
    state.ResumeTiming();
    s->RunUntilIdle();
    state.PauseTiming();
    if (s->stats().scheduled != num_init + num_pods)
      state.SkipWithError("not every pod was scheduled");
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * num_pods);
}
void BM_SchedulingBasic(benchmark::State& s) {
  RunShape(s, Shape::kBasic, Shape::kBasic);
}
void BM_SchedulingPodAntiAffinity(benchmark::State& s) {
  RunShape(s, Shape::kAntiAffinity, Shape::kAntiAffinity);
}
void BM_SchedulingPodAffinity(benchmark::State& s) {
  RunShape(s, Shape::kAffinity, Shape::kAffinity);
}
void BM_TopologySpreading(benchmark::State& s) {
  RunShape(s, Shape::kSpread, Shape::kBasic);
}

BENCHMARK(BM_SchedulingBasic)
    ->Args({500, 500, 1000})
    ->Args({5000, 1000, 10000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_SchedulingPodAntiAffinity)
    ->Args({5000, 1000, 2000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_SchedulingPodAffinity)
    ->Args({5000, 5000, 5000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_TopologySpreading)
    ->Args({5000, 1000, 5000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace corral

BENCHMARK_MAIN();
