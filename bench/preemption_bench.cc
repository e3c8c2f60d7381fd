// Preemption throughput on kube's scheduler_perf preemption shapes (misc/performance-config.yaml),
// end to end through Scheduler::RunUntilIdle with the default plugins (DefaultPreemption included),
// batching off, victims deleted immediately:
//   node template: 4 cpu, 32Gi, 110 pods
//   pod-low-priority:  900m, 500Mi, priority 0 (4 per node fill 3.6 of 4 cpu)
//   pod-high-priority: 3000m, 500Mi, priority 10 (must preempt 3 of the 4 low pods)
//   pod-default:       100m, 500Mi, priority 0
//   PreemptionBasic   nodes / initial low pods / measured high-priority pods
//   PreemptionAsync   nodes / initial low pods / measured high-priority pods, plus kube's churn op
//                     (one more high-priority pod every 200 ms): the bench has no wall clock, so
//                     one unmeasured churn preemptor follows every 1000 measured pods (200 ms at
//                     the 5,000 pods/s goal); gate SchedulerAsyncPreemption on (its default)
//   PreemptionMixed   not a kube shape: measured high-priority and default pods interleaved one
//                     for one, so every default pod filters past nominated and full nodes
//   GangPreemption    nodes / initial low pods (350m, priority 0: 10 per node) / gangs of 8 members
//                     (3000m each, PodGroup priority 10, minCount 8): each gang takes 8 nodes
//                     through workload-aware preemption (KEP-5710) and binds once its victims
//                     are gone
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

api::Quantity Q(std::string_view s) {
  return *api::Quantity::Parse(s);
}

struct Cluster {
  Interner in = api::NewInterner();
  std::vector<api::Node> nodes;
  std::vector<api::Pod> init_pods;
  std::vector<api::Pod> pods;
};

void MakeNodes(Cluster& c, int n) {
  c.nodes.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    api::Node& node = c.nodes[static_cast<size_t>(i)];
    node.meta.name = c.in.Intern("scheduler-perf-" + std::to_string(i));
    node.meta.labels.Set(api::wk::kHostnameLabel, node.meta.name);
    node.capacity = {
        {api::wk::kCpu, Q("4")}, {api::wk::kMemory, Q("32Gi")}, {api::wk::kPods, Q("110")}};
    std::sort(node.capacity.begin(), node.capacity.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    node.allocatable = node.capacity;
  }
}

void MakePod(Cluster& c, api::Pod& p, std::string name, std::string_view cpu, int32_t priority) {
  p.meta.name = c.in.Intern(name);
  p.meta.namespace_ = c.in.Intern("sched-0");
  p.scheduler_name = api::wk::kDefaultScheduler;
  p.priority = priority;
  p.termination_grace_period_seconds = 0;
  api::Container ctr;
  ctr.name = c.in.Intern("pause");
  ctr.image = c.in.Intern("registry.k8s.io/pause:3.10");
  ctr.resources.requests = {{api::wk::kCpu, Q(cpu)}, {api::wk::kMemory, Q("500Mi")}};
  std::sort(ctr.resources.requests.begin(), ctr.resources.requests.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  ctr.resources.limits = ctr.resources.requests;
  ctr.ports.push_back({Symbol(), 80, 0, api::Protocol::kTCP, Symbol()});
  p.containers.push_back(std::move(ctr));
}

class Counter : public scheduler::SchedulerObserver {
 public:
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    ++preemptions;
    victims += static_cast<int64_t>(p.victims.size());
  }
  int64_t preemptions = 0, victims = 0;
};

// One benchmark iteration on a built cluster (timing paused on entry and on return): a scheduler
// with the default plugins and batching off, the initial pods bound, then the measured pods
// scheduled with timing on. False (after SkipWithError) if the scheduler cannot be built.
bool MeasureOnce(benchmark::State& state, Cluster& c, const api::ObjectSet* objects, int num_init,
                 Counter& counter, int64_t& measured) {
  ManualClock clock;
  std::unique_ptr<scheduler::Scheduler> s = NewBenchScheduler(state, c.in, clock);
  if (s == nullptr) return false;
  s->set_observer(&counter);
  if (objects != nullptr) s->SetClusterObjects(objects);
  for (auto& n : c.nodes) s->AddNode(&n);
  for (auto& p : c.init_pods) s->AddPod(&p);
  s->RunUntilIdle();
  if (s->stats().scheduled != num_init) state.SkipWithError("not every initial pod was scheduled");
  for (auto& p : c.pods) s->AddPod(&p);
  const int64_t before = s->stats().scheduled;
  state.ResumeTiming();
  s->RunUntilIdle();
  state.PauseTiming();
  measured += static_cast<int64_t>(c.pods.size());
  state.counters["placed"] = static_cast<double>(s->stats().scheduled - before);
  state.counters["pending"] = static_cast<double>(s->NumPendingPods());
  return true;
}

// What follows each measured preemptor in Run.
enum class Interleave { kNone, kChurn, kDefault };
constexpr int kChurnEvery = 1000;

void Run(benchmark::State& state, Interleave interleave) {
  const int num_nodes = static_cast<int>(state.range(0));
  const int num_init = static_cast<int>(state.range(1));
  const int num_high = static_cast<int>(state.range(2));
  Counter counter;
  int64_t measured = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Cluster c;
    MakeNodes(c, num_nodes);
    c.init_pods.resize(static_cast<size_t>(num_init));
    for (int i = 0; i < num_init; ++i) {
      MakePod(c, c.init_pods[static_cast<size_t>(i)], "low-" + std::to_string(i), "900m", 0);
    }
    c.pods.reserve(static_cast<size_t>(2 * num_high));
    int num_unmeasured = 0;
    for (int i = 0; i < num_high; ++i) {
      MakePod(c, c.pods.emplace_back(), "high-" + std::to_string(i), "3000m", 10);
      if (interleave == Interleave::kDefault) {
        MakePod(c, c.pods.emplace_back(), "default-" + std::to_string(i), "100m", 0);
      } else if (interleave == Interleave::kChurn && (i + 1) % kChurnEvery == 0) {
        MakePod(c, c.pods.emplace_back(), "churn-" + std::to_string(i), "3000m", 10);
        ++num_unmeasured;
      }
    }
    if (!MeasureOnce(state, c, nullptr, num_init, counter, measured)) return;
    measured -= num_unmeasured;
    state.ResumeTiming();
  }
  state.counters["preemptions"] = static_cast<double>(counter.preemptions);
  state.counters["victims"] = static_cast<double>(counter.victims);
  state.SetItemsProcessed(measured);
}

void BM_GangPreemption(benchmark::State& state) {
  const int num_nodes = static_cast<int>(state.range(0));
  const int num_init = static_cast<int>(state.range(1));
  const int num_gangs = static_cast<int>(state.range(2));
  constexpr int kGangSize = 8;
  Counter counter;
  int64_t measured = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Cluster c;
    MakeNodes(c, num_nodes);
    c.init_pods.resize(static_cast<size_t>(num_init));
    for (int i = 0; i < num_init; ++i) {
      MakePod(c, c.init_pods[static_cast<size_t>(i)], "low-" + std::to_string(i), "350m", 0);
    }
    api::ObjectSet objects;
    objects.pod_groups.resize(static_cast<size_t>(num_gangs));
    c.pods.resize(static_cast<size_t>(num_gangs * kGangSize));
    for (int g = 0; g < num_gangs; ++g) {
      api::PodGroup& pg = objects.pod_groups[static_cast<size_t>(g)];
      pg.meta.name = c.in.Intern("gang-" + std::to_string(g));
      pg.meta.namespace_ = c.in.Intern("sched-0");
      pg.policy = {api::PodGroupPolicyKind::kGang, kGangSize};
      pg.priority = 10;
      for (int m = 0; m < kGangSize; ++m) {
        api::Pod& p = c.pods[static_cast<size_t>(g * kGangSize + m)];
        MakePod(c, p, "gang-" + std::to_string(g) + "-" + std::to_string(m), "3000m", 10);
        p.scheduling_group = api::PodSchedulingGroup{pg.meta.name};
      }
    }
    if (!MeasureOnce(state, c, &objects, num_init, counter, measured)) return;
    state.ResumeTiming();
  }
  state.counters["preemptions"] = static_cast<double>(counter.preemptions);
  state.counters["victims"] = static_cast<double>(counter.victims);
  state.SetItemsProcessed(measured);
}

void BM_PreemptionBasic(benchmark::State& s) {
  Run(s, Interleave::kNone);
}
void BM_PreemptionAsync(benchmark::State& s) {
  Run(s, Interleave::kChurn);
}
void BM_PreemptionMixed(benchmark::State& s) {
  Run(s, Interleave::kDefault);
}

BENCHMARK(BM_PreemptionBasic)
    ->Args({500, 2000, 500})
    ->Args({5000, 20000, 5000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_PreemptionAsync)
    ->Args({500, 2000, 500})
    ->Args({5000, 20000, 5000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_PreemptionMixed)
    ->Args({500, 2000, 500})
    ->Args({5000, 20000, 5000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_GangPreemption)
    ->Args({1000, 10000, 100})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace corral

BENCHMARK_MAIN();
