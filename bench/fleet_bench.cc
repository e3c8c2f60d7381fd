// Fleet dispatch throughput: 100 member clusters × 1,000 nodes, 10,000 work items, one attempt of
// Karmada's scheduler per item (filter, score, estimate, select, divide; fleet/karmada_scheduler.h)
// with each estimator.
//
//   members   100 Karmada clusters, each given as its own nodes and bound pods (app/
//             dispatch_members.h) with its own scheduler; its summary computed from them
//   nodes     1,000 per member: 32 cpu, 128Gi, 110 pods; every tenth also 8 nvidia.com/gpu
//   pods      4 bound per node (3–6 cpu, 8–20Gi; on GPU nodes one of them takes 4 GPUs):
//             about 60 % of cpu in use
//   items     10,000 ResourceBindings of 1–20 replicas, Divided by dynamic weight (every cluster is
//             estimated, the estimates weigh the split), drawn from 40 request shapes (cpu 250m–4,
//             memory 512Mi–16Gi, one in ten with 1 or 4 GPUs), as replicas of a few dozen
//             Deployment templates would be
//
//   BM_DispatchGeneral            the general estimator (summaries)
//   BM_DispatchAccurate           general + accurate, a fresh AccurateEstimator per pass (its
//                                 memo starts empty: every shape is estimated on every member once
//                                 per pass, through the member's scheduler, 1,000 nodes each)
//   BM_DispatchAccurateDistinct   general + accurate, 100 items of 100 distinct shapes (no memo
//                                 hit: every item filters 100 × 1,000 nodes)
//   BM_TrialPlacement/N           one trial placement on a copy of one member (1,000 nodes, 4,000
//                                 bound pods) of N copies with required anti-affinity by host
//
// items_per_second = work items / CPU time (single-threaded). Peak memory: run the binary under
// /usr/bin/time -v (docs/performance.md).

#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "corral/api/cluster.h"
#include "corral/api/well_known.h"
#include "corral/app/dispatch_members.h"
#include "corral/fleet/estimator.h"
#include "corral/fleet/karmada_scheduler.h"
#include "corral/scheduler/estimate.h"

namespace corral {
namespace {

constexpr int kMembers = 100;
constexpr int kNodesPerMember = 1000;
constexpr int kItems = 10000;

api::Quantity Q(std::string_view s) {
  return *api::Quantity::Parse(s);
}

api::ResourceList Sorted(api::ResourceList l) {
  std::sort(l.begin(), l.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return l;
}

// One member's nodes and bound pods (the shape described above).
api::ObjectSet MemberObjects(Interner& in, int m, Symbol gpu) {
  api::ObjectSet objects;
  objects.nodes.resize(kNodesPerMember);
  for (int i = 0; i < kNodesPerMember; ++i) {
    api::Node& n = objects.nodes[static_cast<size_t>(i)];
    n.meta.name = in.Intern(fmt::format("m{}-node-{}", m, i));
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    n.capacity = {
        {api::wk::kCpu, Q("32")}, {api::wk::kMemory, Q("128Gi")}, {api::wk::kPods, Q("110")}};
    if (i % 10 == 0) n.capacity.emplace_back(gpu, Q("8"));
    n.capacity = Sorted(n.capacity);
    n.allocatable = n.capacity;
    for (int k = 0; k < 4; ++k) {
      api::Pod p;
      p.meta.name = in.Intern(fmt::format("m{}-pod-{}-{}", m, i, k));
      p.meta.namespace_ = api::wk::kDefaultNamespace;
      p.scheduler_name = api::wk::kDefaultScheduler;
      p.node_name = n.meta.name;
      p.phase = api::PodPhase::kRunning;
      api::Container c;
      c.name = in.Intern("c");
      c.resources.requests = {{api::wk::kCpu, Q(std::to_string(3 + (i + k + m) % 4))},
                              {api::wk::kMemory, Q(fmt::format("{}Gi", 8 + 4 * ((i + k) % 4)))}};
      if (i % 10 == 0 && k == 0) c.resources.requests.emplace_back(gpu, Q("4"));
      c.resources.requests = Sorted(c.resources.requests);
      p.containers.push_back(std::move(c));
      objects.pods.push_back(std::move(p));
    }
  }
  return objects;
}

struct Fleet {
  Interner in = api::NewInterner();
  std::unique_ptr<app::Members> members;
  std::vector<api::Cluster> clusters;
  std::vector<api::FleetWork> items;
  std::vector<api::FleetWork> distinct;
  Symbol gpu;

  Fleet() {
    gpu = in.Intern("nvidia.com/gpu");
    members = std::make_unique<app::Members>(in);
    for (int m = 0; m < kMembers; ++m) {
      api::ObjectSet objects = MemberObjects(in, m, gpu);
      auto added =
          members->Add(in.Intern(fmt::format("member-{:03}", m)), "bench", std::move(objects));
      if (!added.ok()) std::abort();
    }
    if (!members->Attach(clusters).ok()) std::abort();
    const char* cpus[] = {"250m", "500m", "1", "2", "4"};
    const char* mems[] = {"512Mi", "1Gi", "4Gi", "16Gi"};
    for (int i = 0; i < kItems; ++i) {
      const int shape = i % 40;
      api::ResourceList request = {{api::wk::kCpu, Q(cpus[shape % 5])},
                                   {api::wk::kMemory, Q(mems[(shape / 5) % 4])}};
      if (shape % 10 == 9) request.emplace_back(gpu, Q(shape % 20 == 19 ? "4" : "1"));
      items.push_back(Work(i, 1 + (i * 7) % 20, Sorted(std::move(request))));
    }
    for (int i = 0; i < 100; ++i) {
      api::ResourceList request = {{api::wk::kCpu, api::Quantity::FromMilli(100 + i)},
                                   {api::wk::kMemory, Q("1Gi")}};
      distinct.push_back(Work(i, 1 + (i * 7) % 20, Sorted(std::move(request))));
    }
  }

  api::FleetWork Work(int i, int32_t replicas, api::ResourceList request) {
    api::FleetWork w;
    w.meta.name = in.Intern(fmt::format("work-{}", i));
    w.meta.namespace_ = api::wk::kDefaultNamespace;
    w.resource = {in.Intern("apps/v1"), in.Intern("Deployment"), w.meta.namespace_, w.meta.name,
                  in.Intern(fmt::format("uid-{}", i))};
    w.replicas = replicas;
    w.replica_requirements.emplace();
    w.replica_requirements->resource_request = std::move(request);
    w.replica_requirements->namespace_ = w.meta.namespace_;
    api::ReplicaSchedulingStrategy rs;
    rs.type = api::ReplicaSchedulingType::kDivided;
    rs.division_preference = api::ReplicaDivisionPreference::kWeighted;
    rs.weight_preference.emplace();
    rs.weight_preference->dynamic_weight_by_available_replicas = true;
    w.placement.replica_scheduling = rs;
    return w;
  }
};

Fleet& TheFleet() {
  static Fleet* fleet = new Fleet();
  return *fleet;
}

void Dispatch(benchmark::State& state, bool accurate, const std::vector<api::FleetWork>& items) {
  Fleet& f = TheFleet();
  fleet::GeneralEstimator general(f.in);
  int64_t failed = 0;
  int64_t hits = 0;
  int64_t computed = 0;
  for (auto _ : state) {
    app::AccurateEstimator estimator(*f.members);
    std::vector<const fleet::ReplicaEstimator*> estimators = {&general};
    if (accurate) estimators.push_back(&estimator);
    for (const api::FleetWork& w : items) {
      fleet::BindingSchedule s = fleet::ScheduleBinding(w, f.clusters, estimators, f.in);
      failed += s.ok() ? 0 : 1;
      benchmark::DoNotOptimize(s);
    }
    hits += estimator.memo_hits();
    computed += estimator.computed();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(items.size()));
  state.counters["failed_per_pass"] =
      static_cast<double>(failed) / static_cast<double>(state.iterations());
  if (accurate) {
    state.counters["member_estimates_per_pass"] =
        static_cast<double>(computed) / static_cast<double>(state.iterations());
    state.counters["memo_hits_per_pass"] =
        static_cast<double>(hits) / static_cast<double>(state.iterations());
  }
}

void BM_DispatchGeneral(benchmark::State& state) {
  Dispatch(state, false, TheFleet().items);
}
void BM_DispatchAccurate(benchmark::State& state) {
  Dispatch(state, true, TheFleet().items);
}
void BM_DispatchAccurateDistinct(benchmark::State& state) {
  Dispatch(state, true, TheFleet().distinct);
}

// The accurate estimator's trial placement (scheduler::EstimateReplicas on a copy of one member
// of 1,000 nodes and 4,000 bound pods), for copies with required pod anti-affinity by host: the
// cost of one estimate that `corral simulate` cannot answer in place, by the copies tried
// (state.range(0), the work item's replicas).
void BM_TrialPlacement(benchmark::State& state) {
  static Interner* in = new Interner(api::NewInterner());
  static app::Members* members = [] {
    auto* m = new app::Members(*in);
    const Symbol gpu = in->Intern("nvidia.com/gpu");
    if (!m->Add(in->Intern("member-000"), "bench", MemberObjects(*in, 0, gpu)).ok()) std::abort();
    std::vector<api::Cluster> clusters;
    if (!m->Attach(clusters).ok()) std::abort();
    return m;
  }();
  app::MemberCluster& member = *members->Find(in->Intern("member-000"));
  api::Pod pod;
  pod.meta.name = in->Intern("replica");
  pod.meta.namespace_ = api::wk::kDefaultNamespace;
  pod.scheduler_name = api::wk::kDefaultScheduler;
  pod.meta.labels.Set(in->Intern("app"), in->Intern("spread"));
  api::Container c;
  c.name = in->Intern("c");
  c.resources.requests = Sorted({{api::wk::kCpu, Q("1")}, {api::wk::kMemory, Q("1Gi")}});
  pod.containers.push_back(std::move(c));
  api::PodAffinityTerm term;
  term.topology_key = api::wk::kHostnameLabel;
  term.label_selector.emplace();
  term.label_selector->match_labels.Set(in->Intern("app"), in->Intern("spread"));
  pod.affinity.emplace();
  pod.affinity->pod_anti_affinity.emplace();
  pod.affinity->pod_anti_affinity->required.push_back(std::move(term));
  const scheduler::MemberSource source{in, &member.objects, &member.options, &members->registry()};
  const auto copies = static_cast<int32_t>(state.range(0));
  int64_t placed = 0;
  for (auto _ : state) {
    auto n = scheduler::EstimateReplicas(*member.scheduler, source, pod, copies);
    if (!n.ok()) std::abort();
    placed += *n;
  }
  state.counters["placed_per_estimate"] =
      static_cast<double>(placed) / static_cast<double>(state.iterations());
}

BENCHMARK(BM_DispatchGeneral)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DispatchAccurate)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DispatchAccurateDistinct)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TrialPlacement)->Arg(1)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace corral

BENCHMARK_MAIN();
