// Opportunistic batching (KEP-5598) on kube's scheduler_perf batching shapes
// (test/integration/scheduler_perf/batching), end to end through Scheduler::RunUntilIdle with the
// default profile (CorralBatchingExtensions on: the pods are selected by no Service, so they sign)
// and the adaptive percentageOfNodesToScore, batching on (arg 2 = 1) and off (arg 2 = 0) in the
// same run. The scheduler's clock is the system clock, so batches expire after 500 ms as in kube.
//   ResourceSaturation   nodes 4 cpu / 32Gi / 110 pods; pods request 3 cpu: one pod per node
//   HostPortConflict     pods 100m / 500Mi with hostPort 8080: one pod per node
//   MultiPodPerNode      pods 100m / 128Mi: ten per node (rescoring)
//   AlternatingSignatures pods 100m and 200m alternating pod by pod: every batch flushes
//   PreferredAntiAffinity (Corral, beyond kube) pods 100m / 128Mi labelled app=web with a preferred
//                         anti-affinity (weight 100) to app=web by zone; nodes in 50 zones
//   ScheduleAnywaySpread  (Corral, beyond kube) pods 100m / 128Mi with a ScheduleAnyway zone
//                         spread of app=web (maxSkew 1); nodes in 50 zones
// For the two beyond-kube shapes arg 2 is the mode: 0 batching off, 1 on (Rescore hook and
// incremental PreScore), 2 on without the Rescore hook (CorralBatchingRescoreHook=false: the pods
// are unsignable, as in kube), 3 on with the hook but without incremental PreScore
// (CorralIncrementalPreScore=false). items_per_second = measured pods / CPU time. Counters: batched
// pods, batch cache bytes (peak) and bytes per cached node at that peak.

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

enum class Shape {
  kResourceSaturation,
  kHostPortConflict,
  kMultiPodPerNode,
  kAlternating,
  kPreferredAntiAffinity,
  kScheduleAnywaySpread,
};

api::Quantity Q(std::string_view s) {
  return *api::Quantity::Parse(s);
}

class PeakBatch : public scheduler::SchedulerObserver {
 public:
  explicit PeakBatch(const scheduler::Scheduler*& s) : s_(s) {}
  void OnScheduled(const api::Pod&, Symbol, std::string_view) override {
    if (++n_ % 256 != 0 || s_ == nullptr) return;
    if (const auto* b = s_->batch("default-scheduler"); b != nullptr && b->MemoryBytes() > peak) {
      peak = b->MemoryBytes();
      peak_rows = b->rows();
    }
  }
  size_t peak = 0;
  size_t peak_rows = 0;

 private:
  const scheduler::Scheduler*& s_;
  size_t n_ = 0;
};

void Run(benchmark::State& state, Shape shape) {
  const int num_nodes = static_cast<int>(state.range(0));
  const int num_pods = static_cast<int>(state.range(1));
  const int64_t mode = state.range(2);
  const bool batching = mode != 0;
  int64_t batched = 0;
  size_t peak = 0;
  size_t peak_rows = 0;
  int64_t incremental = 0;
  int64_t hooked = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Interner in = api::NewInterner();
    std::vector<api::Node> nodes(static_cast<size_t>(num_nodes));
    for (int i = 0; i < num_nodes; ++i) {
      api::Node& n = nodes[static_cast<size_t>(i)];
      n.meta.name = in.Intern("node-" + std::to_string(i));
      n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
      n.meta.labels.Set(api::wk::kZoneLabel, in.Intern("zone-" + std::to_string(i % 50)));
      n.capacity = {
          {api::wk::kCpu, Q("4")}, {api::wk::kMemory, Q("32Gi")}, {api::wk::kPods, Q("110")}};
      std::sort(n.capacity.begin(), n.capacity.end(),
                [](auto& a, auto& b) { return a.first < b.first; });
      n.allocatable = n.capacity;
    }
    std::vector<api::Pod> pods(static_cast<size_t>(num_pods));
    for (int i = 0; i < num_pods; ++i) {
      api::Pod& p = pods[static_cast<size_t>(i)];
      p.meta.name = in.Intern("pod-" + std::to_string(i));
      p.meta.namespace_ = in.Intern("sched-0");
      p.scheduler_name = api::wk::kDefaultScheduler;
      api::Container c;
      c.name = in.Intern("pause");
      c.image = in.Intern("registry.k8s.io/pause:3.10");
      switch (shape) {
        case Shape::kResourceSaturation:
          c.resources.requests = {{api::wk::kCpu, Q("3")}};
          break;
        case Shape::kHostPortConflict:
          c.resources.requests = {{api::wk::kCpu, Q("100m")}, {api::wk::kMemory, Q("500Mi")}};
          c.ports.push_back({Symbol(), 8080, 8080, api::Protocol::kTCP, Symbol()});
          break;
        case Shape::kMultiPodPerNode:
          c.resources.requests = {{api::wk::kCpu, Q("100m")}, {api::wk::kMemory, Q("128Mi")}};
          break;
        case Shape::kAlternating:
          c.resources.requests = {{api::wk::kCpu, Q(i % 2 == 0 ? "100m" : "200m")}};
          break;
        case Shape::kPreferredAntiAffinity:
        case Shape::kScheduleAnywaySpread: {
          c.resources.requests = {{api::wk::kCpu, Q("100m")}, {api::wk::kMemory, Q("128Mi")}};
          const Symbol app_key = in.Intern("app");
          const Symbol web = in.Intern("web");
          p.meta.labels.Set(app_key, web);
          api::LabelSelector sel;
          sel.match_labels.Set(app_key, web);
          if (shape == Shape::kPreferredAntiAffinity) {
            api::WeightedPodAffinityTerm t;
            t.weight = 100;
            t.pod_affinity_term.label_selector = sel;
            t.pod_affinity_term.topology_key = api::wk::kZoneLabel;
            p.affinity.emplace().pod_anti_affinity.emplace().preferred.push_back(std::move(t));
          } else {
            api::TopologySpreadConstraint t;
            t.max_skew = 1;
            t.topology_key = api::wk::kZoneLabel;
            t.when_unsatisfiable = api::WhenUnsatisfiable::kScheduleAnyway;
            t.label_selector = sel;
            p.topology_spread_constraints.push_back(std::move(t));
          }
          break;
        }
      }
      std::sort(c.resources.requests.begin(), c.resources.requests.end(),
                [](auto& a, auto& b) { return a.first < b.first; });
      p.containers.push_back(std::move(c));
    }
    SystemClock clock;
    scheduler::Scheduler::Options opts;
    if (!batching) (void)opts.gates.Set("OpportunisticBatching", false);
    if (mode == 2) (void)opts.gates.Set("CorralBatchingRescoreHook", false);
    if (mode == 3) (void)opts.gates.Set("CorralIncrementalPreScore", false);
    framework::Registry registry = plugins::NewInTreeRegistry();
    auto s = scheduler::Scheduler::New(in, clock, std::move(opts), registry);
    if (!s.ok()) {
      state.SkipWithError(s.error().message.c_str());
      return;
    }
    const scheduler::Scheduler* sp = s->get();
    PeakBatch obs(sp);
    (*s)->set_observer(&obs);
    for (auto& n : nodes) (*s)->AddNode(&n);
    for (auto& p : pods) (*s)->AddPod(&p);
    state.ResumeTiming();
    (*s)->RunUntilIdle();
    state.PauseTiming();
    if ((*s)->stats().scheduled != num_pods) state.SkipWithError("not every pod was scheduled");
    batched = (*s)->stats().batched;
    if (const auto* b = (*s)->batch("default-scheduler"); b != nullptr) {
      incremental = b->incremental_prescores();
      hooked = b->hook_rescored_nodes();
    }
    peak = obs.peak;
    peak_rows = obs.peak_rows;
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * num_pods);
  state.counters["batched"] = static_cast<double>(batched);
  state.counters["batch_bytes"] = static_cast<double>(peak);
  state.counters["incremental_prescores"] = static_cast<double>(incremental);
  state.counters["hook_rescored_nodes"] = static_cast<double>(hooked);
  state.counters["bytes_per_node"] =
      peak_rows == 0 ? 0.0 : static_cast<double>(peak) / static_cast<double>(peak_rows);
}

void BM_ResourceSaturation(benchmark::State& s) {
  Run(s, Shape::kResourceSaturation);
}
void BM_HostPortConflict(benchmark::State& s) {
  Run(s, Shape::kHostPortConflict);
}
void BM_MultiPodPerNode(benchmark::State& s) {
  Run(s, Shape::kMultiPodPerNode);
}
void BM_AlternatingSignatures(benchmark::State& s) {
  Run(s, Shape::kAlternating);
}
void BM_PreferredAntiAffinity(benchmark::State& s) {
  Run(s, Shape::kPreferredAntiAffinity);
}
void BM_ScheduleAnywaySpread(benchmark::State& s) {
  Run(s, Shape::kScheduleAnywaySpread);
}

BENCHMARK(BM_ResourceSaturation)
    ->Args({20000, 20000, 0})
    ->Args({20000, 20000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_HostPortConflict)
    ->Args({20000, 20000, 0})
    ->Args({20000, 20000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_MultiPodPerNode)
    ->Args({5000, 50000, 0})
    ->Args({5000, 50000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_AlternatingSignatures)
    ->Args({5000, 10000, 0})
    ->Args({5000, 10000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_PreferredAntiAffinity)
    ->Args({5000, 10000, 0})
    ->Args({5000, 10000, 2})
    ->Args({5000, 10000, 3})
    ->Args({5000, 10000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_ScheduleAnywaySpread)
    ->Args({5000, 10000, 0})
    ->Args({5000, 10000, 2})
    ->Args({5000, 10000, 3})
    ->Args({5000, 10000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace corral

BENCHMARK_MAIN();
