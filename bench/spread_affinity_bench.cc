// PodTopologySpread and InterPodAffinity on kube's scheduler_perf shapes, plugin calls only:
//   TopologySpreading            5000 nodes in 3 zones, 1000 init pods, pods with a zone
//                                DoNotSchedule constraint (maxSkew 5, color=blue)
//   PreferredTopologySpreading   the same with ScheduleAnyway
//   SchedulingPodAntiAffinity    5000 nodes, pods with required hostname anti-affinity to
//                                color=green
//   SchedulingPodAffinity        5000 nodes in zone1, pods with required zone affinity to
//                                color=blue
// Each iteration schedules one pod: PreFilter, Filter until enough nodes fit,
// PreScore/Score/Normalize on the first 500 feasible nodes (kube's numFeasibleNodesToFind for 5000
// nodes), then places the pod on the best node (outside the timed region).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using testing::PodBuilder;
using testing::TestWorld;
using Kind = PodBuilder::AffinityKind;

enum class Shape { kSpread, kPreferredSpread, kAntiAffinity, kAffinity };

struct Bench {
  TestWorld w;
  testing::FakeHandle h{w};
  std::vector<framework::NodeInfo*> nodes;
  std::vector<std::unique_ptr<framework::Plugin>> plugins;
  std::vector<framework::PreFilterPlugin*> pre_filter;
  std::vector<framework::FilterPlugin*> filter;
  std::vector<framework::PreScorePlugin*> pre_score;
  std::vector<framework::ScorePlugin*> score;

  Bench(Shape shape, int num_nodes, int num_init) {
    for (int i = 0; i < num_nodes; ++i) {
      auto b = w.Node("node-" + std::to_string(i));
      b.Capacity({{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}});
      b.Label("topology.kubernetes.io/zone",
              shape == Shape::kAffinity ? "zone1" : "zone" + std::to_string(i % 3));
      w.node_infos.emplace_back(&b.Obj());
      nodes.push_back(&w.node_infos.back());
    }
    for (int i = 0; i < num_init; ++i) {
      auto p = w.Pod("init-" + std::to_string(i));
      p.NodeName(w.in.Str(nodes[static_cast<size_t>(i) % nodes.size()]->name()));
      if (shape == Shape::kAntiAffinity) Decorate(shape, p);
      nodes[static_cast<size_t>(i) % nodes.size()]->AddPod(&w.Info(p.Obj()));
    }
    h.SetNodes(nodes);
    PodTopologySpreadArgs args;  // System defaulting, as kube's default profile
    plugins.push_back(PodTopologySpread::New(&args, h).value());
    plugins.push_back(InterPodAffinity::New(nullptr, h).value());
    for (auto& p : plugins) {
      pre_filter.push_back(dynamic_cast<framework::PreFilterPlugin*>(p.get()));
      filter.push_back(dynamic_cast<framework::FilterPlugin*>(p.get()));
      pre_score.push_back(dynamic_cast<framework::PreScorePlugin*>(p.get()));
      score.push_back(dynamic_cast<framework::ScorePlugin*>(p.get()));
    }
  }

  void Decorate(Shape shape, PodBuilder& p) {
    switch (shape) {
      case Shape::kSpread:
      case Shape::kPreferredSpread:
        p.Label("color", "blue")
            .SpreadConstraint(5, "topology.kubernetes.io/zone",
                              shape == Shape::kSpread ? api::WhenUnsatisfiable::kDoNotSchedule
                                                      : api::WhenUnsatisfiable::kScheduleAnyway,
                              w.Sel().Label("color", "blue").Obj());
        break;
      case Shape::kAntiAffinity:
        p.Label("color", "green")
            .AffinityIn(Kind::kRequiredAntiAffinity, "color", "kubernetes.io/hostname", {"green"});
        break;
      case Shape::kAffinity:
        p.Label("color", "blue")
            .AffinityIn(Kind::kRequiredAffinity, "color", "topology.kubernetes.io/zone", {"blue"});
        break;
    }
  }
};

// kube's numFeasibleNodesToFind for 5000 nodes (adaptive 10%), and scheduler_perf's node capacity.
constexpr size_t kNumFeasibleNodesToFind = 500;
constexpr size_t kMaxPodsPerNode = 110;

void Run(benchmark::State& state, Shape shape) {
  Bench b(shape, static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::vector<const framework::NodeInfo*> feasible;
  std::vector<framework::NodeScore> scores;
  std::vector<int64_t> total;
  int i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto pb = b.w.Pod("pod-" + std::to_string(i++));
    b.Decorate(shape, pb);
    const framework::PodInfo& pod = b.w.Info(pb.Obj());
    state.ResumeTiming();

    framework::CycleState cs;
    framework::PreFilterResult r;
    std::vector<bool> skip_filter(b.plugins.size()), skip_score(b.plugins.size());
    for (size_t k = 0; k < b.plugins.size(); ++k) {
      framework::Status s = b.pre_filter[k]->PreFilter(cs, k, pod, b.h.snapshot(), &r);
      skip_filter[k] = s.IsSkip();
    }
    feasible.clear();
    for (const framework::NodeInfo* n : b.h.snapshot().nodes()) {
      bool ok = n->pods().size() < kMaxPodsPerNode;  // NodeResourcesFit's "Too many pods"
      for (size_t k = 0; k < b.plugins.size() && ok; ++k) {
        if (!skip_filter[k]) ok = b.filter[k]->Filter(cs, k, pod, *n).ok();
      }
      if (ok) feasible.push_back(n);
      if (feasible.size() >= kNumFeasibleNodesToFind) break;
    }
    const framework::NodeInfo* best = feasible.empty() ? nullptr : feasible[0];
    if (feasible.size() > 1) {
      // NodeResourcesFit-like spreading (least allocated by pod count), so that pods do not
      // pile up.
      total.resize(feasible.size());
      for (size_t j = 0; j < feasible.size(); ++j) {
        total[j] = 100 - static_cast<int64_t>(feasible[j]->pods().size() * 100 / kMaxPodsPerNode);
      }
      for (size_t k = 0; k < b.plugins.size(); ++k) {
        if (b.pre_score[k]->PreScore(cs, k, pod, feasible).IsSkip()) continue;
        scores.clear();
        for (const auto* n : feasible) {
          int64_t s = 0;
          (void)b.score[k]->Score(cs, k, pod, *n, &s);
          scores.push_back({n->name(), s});
        }
        if (const auto* ext = b.score[k]->ScoreExtensions())
          (void)ext->NormalizeScore(cs, k, pod, scores);
        for (size_t j = 0; j < scores.size(); ++j) total[j] += 2 * scores[j].score;
      }
      best = feasible[static_cast<size_t>(std::max_element(total.begin(), total.end()) -
                                          total.begin())];
    }

    state.PauseTiming();
    if (best != nullptr) {
      auto* node = const_cast<framework::NodeInfo*>(best);
      const bool had_affinity = !node->pods_with_affinity().empty();
      const bool had_anti = !node->pods_with_required_anti_affinity().empty();
      node->AddPod(&pod);
      // Keep the snapshot's lists as the cluster cache does (appending; order is irrelevant here).
      framework::SnapshotBuilder sb(const_cast<framework::Snapshot&>(b.h.snapshot()));
      if (!had_affinity && !node->pods_with_affinity().empty()) sb.with_affinity().push_back(node);
      if (!had_anti && !node->pods_with_required_anti_affinity().empty()) {
        sb.with_required_anti_affinity().push_back(node);
      }
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_TopologySpreading(benchmark::State& s) {
  Run(s, Shape::kSpread);
}
void BM_PreferredTopologySpreading(benchmark::State& s) {
  Run(s, Shape::kPreferredSpread);
}
void BM_SchedulingPodAntiAffinity(benchmark::State& s) {
  Run(s, Shape::kAntiAffinity);
}
void BM_SchedulingPodAffinity(benchmark::State& s) {
  Run(s, Shape::kAffinity);
}

BENCHMARK(BM_TopologySpreading)
    ->Args({5000, 1000})
    ->Iterations(5000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PreferredTopologySpreading)
    ->Args({5000, 1000})
    ->Iterations(5000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SchedulingPodAntiAffinity)
    ->Args({5000, 1000})
    ->Iterations(2000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SchedulingPodAffinity)
    ->Args({5000, 1000})
    ->Iterations(5000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace corral::plugins

BENCHMARK_MAIN();
