// Gang scheduling on kube's scheduler_perf gang shapes
// (test/integration/scheduler_perf/gangscheduling, podgroup/gangscheduling, podgroup/tas), end to
// end through Scheduler::RunUntilIdle with the default plugins (GangScheduling included):
//   node template: 4 cpu, 32Gi, 110 pods;  pod template: 100m cpu, 500Mi
//   Gangs/<nodes>/<gangs>/<size>        gangs of `size` pods (PodGroup, gang minCount = size)
//   TopologyGangs/<racks>/<per rack>/<gangs>/<size>  the same with schedulingConstraints.topology
//                                       on a rack label (100 racks of 50 nodes)
// Reported (CPU time of the scheduling thread: the machine is shared, wall time is noise):
//   ms_per_attempt  CPU time of the whole measured phase (RunUntilIdle: queue, group cycles,
//                   binding) / group attempts (scheduler_podgroup_schedule_attempts_total): an
//                   upper bound of the average of kube's
//                   scheduler_podgroup_scheduling_attempt_duration_seconds, whose CI ceiling is
//                   8–12 ms for 1000–3000 gangs of 3 on 5000 nodes. Workload cycle only (0 in
//                   Permit-only mode, which has no group attempts). The scheduler's own duration
//                   histogram is not used: a thread-CPU clock costs a system call per read, several
//                   per member cycle, which would inflate what it measures.
//   attempts        group attempts (= gangs when every gang fits at its first attempt)
//   ms_per_group    CPU time of the measured phase / number of gangs
//   items = pods.
// Arg `cycle`: 1 = workload cycle (default), 0 = Permit-only mode.

#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <time.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/core/clock.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral {
namespace {

api::Quantity Q(std::string_view s) {
  return *api::Quantity::Parse(s);
}

// CPU time of the calling thread.
TimePoint ThreadCpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return TimePoint{std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec)};
}

struct Cluster {
  Interner in = api::NewInterner();
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  api::ObjectSet objects;
};

void Build(Cluster& c, int num_nodes, int nodes_per_rack, int gangs, int size, bool topology) {
  const Symbol rack_key = c.in.Intern("topology.example.com/rack");
  c.nodes.resize(static_cast<size_t>(num_nodes));
  for (int i = 0; i < num_nodes; ++i) {
    api::Node& n = c.nodes[static_cast<size_t>(i)];
    n.meta.name = c.in.Intern("node-" + std::to_string(i));
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    if (nodes_per_rack > 0)
      n.meta.labels.Set(rack_key, c.in.Intern("rack-" + std::to_string(i / nodes_per_rack)));
    n.capacity = {
        {api::wk::kCpu, Q("4")}, {api::wk::kMemory, Q("32Gi")}, {api::wk::kPods, Q("110")}};
    std::sort(n.capacity.begin(), n.capacity.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    n.allocatable = n.capacity;
  }
  const Symbol ns = c.in.Intern("sched-0");
  for (int g = 0; g < gangs; ++g) {
    api::PodGroup pg;
    pg.meta.name = c.in.Intern("gang-" + std::to_string(g));
    pg.meta.namespace_ = ns;
    pg.policy = {api::PodGroupPolicyKind::kGang, size};
    if (topology) pg.topology_keys.push_back(rack_key);
    c.objects.pod_groups.push_back(pg);
  }
  c.pods.resize(static_cast<size_t>(gangs) * static_cast<size_t>(size));
  size_t k = 0;
  for (int g = 0; g < gangs; ++g) {
    for (int i = 0; i < size; ++i, ++k) {
      api::Pod& p = c.pods[k];
      p.meta.name = c.in.Intern("gang-" + std::to_string(g) + "-" + std::to_string(i));
      p.meta.namespace_ = ns;
      p.scheduler_name = api::wk::kDefaultScheduler;
      p.scheduling_group =
          api::PodSchedulingGroup{c.objects.pod_groups[static_cast<size_t>(g)].meta.name};
      api::Container ctr;
      ctr.name = c.in.Intern("pause");
      ctr.image = c.in.Intern("registry.k8s.io/pause:3.10");
      ctr.resources.requests = {{api::wk::kCpu, Q("100m")}, {api::wk::kMemory, Q("500Mi")}};
      p.containers.push_back(std::move(ctr));
    }
  }
}

void Run(benchmark::State& state, int num_nodes, int nodes_per_rack, int gangs, int size,
         bool topology, bool cycle) {
  double total_ms = 0, attempts = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Cluster c;
    Build(c, num_nodes, nodes_per_rack, gangs, size, topology);
    ManualClock clock;
    scheduler::Scheduler::Options opts;
    opts.workload_cycle = cycle;
    framework::Registry registry = plugins::NewInTreeRegistry();
    auto s = scheduler::Scheduler::New(c.in, clock, std::move(opts), registry);
    if (!s.ok()) {
      state.SkipWithError(s.error().message.c_str());
      return;
    }
    (*s)->SetClusterObjects(&c.objects);
    for (auto& n : c.nodes) (*s)->AddNode(&n);
    for (auto& p : c.pods) (*s)->AddPod(&p);
    state.ResumeTiming();
    TimePoint t0 = ThreadCpuNow();
    (*s)->RunUntilIdle();
    total_ms += std::chrono::duration<double, std::milli>(ThreadCpuNow() - t0).count();
    state.PauseTiming();
    attempts += (*s)->metrics().CounterSum("scheduler_podgroup_schedule_attempts_total");
    if ((*s)->stats().scheduled != static_cast<int64_t>(c.pods.size())) {
      state.SkipWithError("not every pod was scheduled");
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * gangs * size);
  state.counters["ms_per_group"] = total_ms / static_cast<double>(state.iterations()) / gangs;
  state.counters["ms_per_attempt"] = attempts > 0 ? total_ms / attempts : 0.0;
  state.counters["attempts"] = attempts / static_cast<double>(state.iterations());
}

void BM_Gangs(benchmark::State& s) {
  Run(s, static_cast<int>(s.range(0)), 0, static_cast<int>(s.range(1)),
      static_cast<int>(s.range(2)), false, s.range(3) != 0);
}
void BM_TopologyGangs(benchmark::State& s) {
  Run(s, static_cast<int>(s.range(0) * s.range(1)), static_cast<int>(s.range(1)),
      static_cast<int>(s.range(2)), static_cast<int>(s.range(3)), true, true);
}

BENCHMARK(BM_Gangs)
    ->ArgNames({"nodes", "gangs", "size", "cycle"})
    ->Args({5000, 1000, 3, 1})
    ->Args({5000, 2000, 3, 1})
    ->Args({5000, 3000, 3, 1})
    ->Args({5000, 1000, 3, 0})
    ->Args({5000, 3, 1000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_TopologyGangs)
    ->ArgNames({"racks", "per_rack", "gangs", "size"})
    ->Args({100, 50, 100, 8})
    ->Args({100, 50, 3, 1000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace corral

BENCHMARK_MAIN();
