// Scheduling throughput on kube's scheduler_perf shapes (test/integration/scheduler_perf):
//   node template: 4 cpu, 32Gi, 110 pods;  pod template: 100m cpu, 500Mi (request = limit)
//   SchedulingBasic/5000Nodes_10000Pods: 5000 nodes, 1000 initial pods, 10000 measured pods.
// Reports pods/s over the measured pods (items_per_second) with the default plugins, batching off.

#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/core/clock.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral {
namespace {

struct Cluster {
  Interner in = api::NewInterner();
  std::vector<api::Node> nodes;
  std::vector<api::Pod> init_pods;
  std::vector<api::Pod> pods;
};

api::Quantity Q(std::string_view s) { return *api::Quantity::Parse(s); }

void MakeNodes(Cluster& c, int n) {
  c.nodes.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    api::Node& node = c.nodes[static_cast<size_t>(i)];
    node.meta.name = c.in.Intern("scheduler-perf-" + std::to_string(i));
    node.meta.labels.Set(api::wk::kHostnameLabel, node.meta.name);
    node.capacity = {{api::wk::kCpu, Q("4")}, {api::wk::kMemory, Q("32Gi")}, {api::wk::kPods, Q("110")}};
    std::sort(node.capacity.begin(), node.capacity.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    node.allocatable = node.capacity;
  }
}

void MakePods(Cluster& c, std::vector<api::Pod>& out, int n, std::string_view prefix) {
  out.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    api::Pod& p = out[static_cast<size_t>(i)];
    p.meta.name = c.in.Intern(std::string(prefix) + std::to_string(i));
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.scheduler_name = api::wk::kDefaultScheduler;
    api::Container ctr;
    ctr.name = c.in.Intern("pause");
    ctr.image = c.in.Intern("registry.k8s.io/pause:3.10");
    ctr.resources.requests = {{api::wk::kCpu, Q("100m")}, {api::wk::kMemory, Q("500Mi")}};
    ctr.resources.limits = ctr.resources.requests;
    ctr.ports.push_back({Symbol(), 80, 0, api::Protocol::kTCP, Symbol()});
    p.containers.push_back(std::move(ctr));
  }
}

void BM_SchedulingBasic(benchmark::State& state) {
  const int num_nodes = static_cast<int>(state.range(0));
  const int num_init = static_cast<int>(state.range(1));
  const int num_pods = static_cast<int>(state.range(2));
  for (auto _ : state) {
    state.PauseTiming();
    Cluster c;
    MakeNodes(c, num_nodes);
    MakePods(c, c.init_pods, num_init, "init-pod-");
    MakePods(c, c.pods, num_pods, "pod-");
    ManualClock clock;
    scheduler::Scheduler::Options opts;
    opts.gates.ParseFlag("OpportunisticBatching=false").ok();
    framework::Registry registry = plugins::NewInTreeRegistry();
    auto s = scheduler::Scheduler::New(c.in, clock, std::move(opts), registry);
    if (!s.ok()) {
      state.SkipWithError(s.error().message.c_str());
      return;
    }
    for (auto& n : c.nodes) (*s)->AddNode(&n);
    for (auto& p : c.init_pods) (*s)->AddPod(&p);
    (*s)->RunUntilIdle();
    for (auto& p : c.pods) (*s)->AddPod(&p);
    state.ResumeTiming();
    (*s)->RunUntilIdle();
    state.PauseTiming();
    if ((*s)->stats().scheduled != num_init + num_pods) state.SkipWithError("not every pod was scheduled");
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * num_pods);
}
BENCHMARK(BM_SchedulingBasic)
    ->Args({500, 500, 1000})
    ->Args({5000, 1000, 10000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace corral

BENCHMARK_MAIN();
