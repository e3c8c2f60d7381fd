// The cross-cycle domain counts behind PodTopologySpread's PreFilter (plugins/incremental), on
// kube's scheduler_perf shapes: 5000 nodes of a cluster cache, one pod assumed per cycle, then the
// per-domain counts brought up to date and their per-constraint minimum and number of domains
// read, as PreFilter does before Filter.
//
//   BM_SpreadCounts/<nodes>/<key>/<mode>
//     key   0: zone domains (3 zones; TopologySpreading/5000Nodes_5000Pods)
//           1: hostname domains (one per node; SchedulingWithNodeInclusionPolicy/5000Nodes)
//     mode  0: every node's generation checked and the domains walked for the minimum (the
//              plugin's PreFilter before the generation log and the group summaries)
//           1: only the nodes the generation log names, and the group summaries

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "corral/plugins/incremental/node_contributions.h"
#include "corral/state/cluster_cache.h"

#include "test/testing/builders.h"

namespace corral::plugins::incremental {
namespace {

using testing::TestWorld;

constexpr int64_t kMaxInt = std::numeric_limits<int32_t>::max();  // kube's "no domain yet"

void BM_SpreadCounts(benchmark::State& state) {
  const auto num_nodes = static_cast<int>(state.range(0));
  const bool by_host = state.range(1) == 1;
  const bool journal = state.range(2) == 1;
  TestWorld w;
  state::ClusterCache cache;
  std::vector<Symbol> names;
  for (int i = 0; i < num_nodes; ++i) {
    auto b = w.Node("node-" + std::to_string(i));
    b.Label("topology.kubernetes.io/zone", "moon-" + std::to_string(i % 3));
    cache.AddNode(&b.Obj());
    names.push_back(w.S("node-" + std::to_string(i)));
  }
  const Symbol key = by_host ? w.S("kubernetes.io/hostname") : w.S("topology.kubernetes.io/zone");
  const Symbol color = w.S("color");
  const Symbol blue = w.S("blue");
  auto derive = [&](const framework::NodeInfo& node, Contribution* out) {
    const Symbol value = by_host ? node.name() : *node.labels().Find(key);
    int64_t n = 0;
    for (const framework::PodInfo* p : node.pods()) {
      const Symbol* c = p->pod->meta.labels.Find(color);
      n += c != nullptr && *c == blue ? 1 : 0;
    }
    out->push_back({value.id(), n});
  };
  // Pods to place, made before timing.
  const size_t num_pods = static_cast<size_t>(state.max_iterations);
  std::vector<const framework::PodInfo*> pods;
  pods.reserve(num_pods);
  for (size_t i = 0; i < num_pods; ++i) {
    pods.push_back(&w.Info(w.Pod("p-" + std::to_string(i)).Label("color", "blue").Obj()));
  }
  NodeContributions counts;
  counts.set_check_every_node(!journal);
  if (journal) counts.EnableGroupSummaries();
  size_t i = 0;
  int64_t sink = 0;
  for (auto _ : state) {
    cache.AddPod(pods[i], names[(i * 7919) % names.size()], /*assumed=*/true);
    ++i;
    const framework::Snapshot& snapshot = cache.snapshot();
    int64_t min = kMaxInt;
    int64_t domains = 0;
    if (journal) {
      std::shared_ptr<const Aggregate> agg = counts.Refresh(snapshot.nodes(), derive);
      domains = counts.GroupKeys(0);
      min = counts.GroupMinCount(0, kMaxInt);
    } else {
      std::shared_ptr<const Aggregate> agg = counts.Refresh(snapshot.nodes(), derive);
      for (const auto& [k, v] : *agg) {
        (void)k;
        ++domains;
        if (v.count < min) min = v.count;
      }
    }
    sink += min + domains;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_SpreadCounts)
    ->ArgsProduct({{5000}, {0, 1}, {0, 1}})
    ->Iterations(5000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace corral::plugins::incremental

BENCHMARK_MAIN();
