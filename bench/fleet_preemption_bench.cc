// Binding preemption decisions at fleet scale: 50 member clusters full of 20,000 running
// low-priority bindings, 500 high-priority arrivals; each arrival is one decision: one attempt of
// Karmada's scheduler with claim deduction (fleet/karmada_scheduler.h, fleet/claims.h) and, as it
// fails for want of capacity, one TryPreempt (fleet/preemption_fleetwide.h).
//
//   clusters   50 Karmada clusters with resource summaries: 400 cpu, 1,600Gi, 1,000 pods each,
//              every cpu allocated to the running bindings
//   running    20,000 ResourceBindings of 1 replica (1 cpu, 4Gi), 400 per cluster, priorities
//              0–99, creation times spread over a day
//   arrivals   500 ResourceBindings of 4 replicas (1 cpu, 4Gi), Divided/Aggregated into one
//              cluster (spread by cluster, at most one group), clusterAffinity naming all 50
//              clusters, PreemptLowerPriority, priorities 1,000, 1,001, ... (each later arrival
//              outranks the claims already set, so every arrival may preempt)
//
// Each pass starts from the same running set and an empty claim store; a preemption's victims go
// into graceful eviction from their cluster before the next arrival, as Karmada's scheduler
// patches them. Summaries do not change within a pass (the victims have not left yet).
//
//   BM_PreemptionKarmada     Karmada's rule: the one cluster selected with capacity ignored
//   BM_PreemptionFleetwide   every feasible cluster weighed, the cheapest in kube's order
//   BM_PreemptionFleetwideEarlyExit  the same choice, skipping clusters that cannot beat the
//                            cheapest so far (PreemptionOptions::weigh_every_cluster = false)
//
// items_per_second = preemption decisions / CPU time (single-threaded). Peak memory: run the
// binary under /usr/bin/time -v with --benchmark_filter (docs/performance.md).

#include <string>
#include <unordered_map>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "corral/api/cluster.h"
#include "corral/api/well_known.h"
#include "corral/fleet/claims.h"
#include "corral/fleet/estimator.h"
#include "corral/fleet/karmada_scheduler.h"
#include "corral/fleet/preemption_fleetwide.h"

namespace corral {
namespace {

constexpr int kClusters = 50;
constexpr int kRunning = 20000;
constexpr int kArrivals = 500;
constexpr int kCpuPerCluster = kRunning / kClusters;

struct Fleet {
  Interner in = api::NewInterner();
  std::vector<api::Cluster> clusters;
  std::vector<api::FleetWork> running;
  std::vector<api::FleetWork> arrivals;
  std::unordered_map<std::string, size_t> by_name;  // "ns/name" -> index in running
};

api::ResourceList Request(const Interner&) {
  return {{api::wk::kCpu, api::Quantity::FromInt(1)},
          {api::wk::kMemory, *api::Quantity::Parse("4Gi")}};
}

const Fleet& GetFleet() {
  static const Fleet* fleet = [] {
    auto* f = new Fleet;
    Interner& in = f->in;
    const Symbol ns = in.Intern("batch");
    for (int c = 0; c < kClusters; ++c) {
      api::Cluster cl;
      cl.meta.name = in.Intern(fmt::format("member-{:02}", c));
      cl.resource_summary.emplace();
      cl.resource_summary->allocatable = {
          {api::wk::kCpu, api::Quantity::FromInt(kCpuPerCluster)},
          {api::wk::kMemory, *api::Quantity::Parse(fmt::format("{}Gi", 4 * kCpuPerCluster))},
          {api::wk::kPods, api::Quantity::FromInt(1000)}};
      cl.resource_summary->allocated = {
          {api::wk::kCpu, api::Quantity::FromInt(kCpuPerCluster)},
          {api::wk::kMemory, *api::Quantity::Parse(fmt::format("{}Gi", 4 * kCpuPerCluster))},
          {api::wk::kPods, api::Quantity::FromInt(kCpuPerCluster)}};
      cl.api_enablements = {{in.Intern("apps/v1"), {in.Intern("Deployment")}}};
      f->clusters.push_back(std::move(cl));
    }
    auto binding = [&](std::string name, int32_t priority) {
      api::FleetWork w;
      w.meta.name = in.Intern(name);
      w.meta.namespace_ = ns;
      w.resource = {in.Intern("apps/v1"), in.Intern("Deployment"), ns, w.meta.name, {}};
      w.replica_requirements.emplace();
      w.replica_requirements->resource_request = Request(in);
      w.priority = priority;
      w.preemption_policy = api::PreemptionPolicy::kPreemptLowerPriority;
      w.placement.cluster_affinity.emplace();
      for (const api::Cluster& c : f->clusters) {
        w.placement.cluster_affinity->cluster_names.push_back(c.meta.name);
      }
      w.placement.replica_scheduling = api::ReplicaSchedulingStrategy{
          api::ReplicaSchedulingType::kDivided, api::ReplicaDivisionPreference::kAggregated, {}};
      return w;
    };
    for (int i = 0; i < kRunning; ++i) {
      api::FleetWork w = binding(fmt::format("job-{:05}", i), (i * 37) % 100);
      w.replicas = 1;
      w.meta.creation_timestamp = TimePoint{} + std::chrono::seconds((i * 7919) % 86400);
      w.clusters.push_back({f->clusters[i % kClusters].meta.name, 1});
      f->by_name.emplace(fmt::format("batch/{}", in.Str(w.meta.name)), f->running.size());
      f->running.push_back(std::move(w));
    }
    for (int i = 0; i < kArrivals; ++i) {
      api::FleetWork w = binding(fmt::format("train-{:03}", i), 1000 + i);
      w.replicas = 4;
      w.meta.creation_timestamp = TimePoint{} + std::chrono::hours(25);
      w.placement.spread_constraints = {{api::SpreadByField::kCluster, {}, 1, 1}};
      f->arrivals.push_back(std::move(w));
    }
    return f;
  }();
  return *fleet;
}

void RunPreemption(benchmark::State& state, fleet::PreemptionMode mode, bool weigh_every = true) {
  const Fleet& f = GetFleet();
  const fleet::FeatureGates gates{true, true};
  fleet::PreemptionOptions options;
  options.mode = mode;
  options.weigh_every_cluster = weigh_every;
  fleet::GeneralEstimator general(f.in);
  int64_t decisions = 0, preempting = 0, victims = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<api::FleetWork> running = f.running;
    ManualClock clock;
    fleet::ClaimStore claims(clock);
    state.ResumeTiming();
    for (const api::FleetWork& w : f.arrivals) {
      const std::string key = fleet::BindingKey(w, f.in);
      fleet::ClaimDeductingEstimator deducting(general, claims, key, w.priority, f.in);
      const fleet::ReplicaEstimator* with_claims[] = {&deducting};
      const fleet::ReplicaEstimator* raw[] = {&general};
      fleet::BindingSchedule s = fleet::ScheduleBinding(w, f.clusters, with_claims, f.in);
      fleet::PreemptionOutcome p =
          fleet::TryPreempt(w, s, f.clusters, raw, running, claims, gates, f.in, options);
      ++decisions;
      if (!p.preempting) continue;
      ++preempting;
      const Symbol cluster = *f.in.Find(p.cluster);
      for (const fleet::Victim& v : p.victims) {
        running[f.by_name.at(v.name)].graceful_eviction_clusters.push_back(cluster);
        ++victims;
      }
    }
  }
  state.SetItemsProcessed(decisions);
  state.counters["preempting"] =
      benchmark::Counter(static_cast<double>(preempting) / static_cast<double>(decisions));
  state.counters["victims_per_preemption"] = benchmark::Counter(
      preempting == 0 ? 0.0 : static_cast<double>(victims) / static_cast<double>(preempting));
}

void BM_PreemptionKarmada(benchmark::State& state) {
  RunPreemption(state, fleet::PreemptionMode::kKarmada);
}
void BM_PreemptionFleetwide(benchmark::State& state) {
  RunPreemption(state, fleet::PreemptionMode::kFleetwide);
}
void BM_PreemptionFleetwideEarlyExit(benchmark::State& state) {
  RunPreemption(state, fleet::PreemptionMode::kFleetwide, /*weigh_every=*/false);
}
BENCHMARK(BM_PreemptionKarmada)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PreemptionFleetwide)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PreemptionFleetwideEarlyExit)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace corral

BENCHMARK_MAIN();
