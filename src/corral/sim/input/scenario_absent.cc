// Member clusters absent from a run: the scenario as if the named clusters had never been declared
// (contract of ScenarioOptions::absent_clusters).

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "corral/sim/input/scenario_input.h"

namespace corral::sim::scenario_internal {

namespace {

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The first cluster of `absent` that the affinity names (in clusterNames or exclude), or "".
std::string NamedIn(const api::ClusterAffinity& a, const std::vector<std::string>& absent,
                    const Interner& interner) {
  for (const auto* list : {&a.cluster_names, &a.exclude}) {
    for (Symbol s : *list) {
      if (Contains(absent, interner.Str(s))) return std::string(interner.Str(s));
    }
  }
  return "";
}

std::string NamedIn(const api::Placement& p, const std::vector<std::string>& absent,
                    const Interner& interner) {
  std::vector<const api::ClusterAffinity*> affinities;
  if (p.cluster_affinity) affinities.push_back(&*p.cluster_affinity);
  for (const auto& term : p.cluster_affinities) {
    affinities.push_back(&term.affinity);
    for (const auto& o : term.overflow) affinities.push_back(&o.affinity);
  }
  if (p.replica_scheduling && p.replica_scheduling->weight_preference) {
    for (const auto& w : p.replica_scheduling->weight_preference->static_weight_list) {
      affinities.push_back(&w.target_cluster);
    }
  }
  for (const auto* a : affinities) {
    if (std::string n = NamedIn(*a, absent, interner); !n.empty()) return n;
  }
  return "";
}

}  // namespace

void RemoveAbsentClusters(ScenarioIn& in, std::string_view file, const Interner& interner,
                          Diagnostics& diags, const ScenarioOptions& opts) {
  const std::vector<std::string>& absent = opts.absent_clusters;
  const std::string f(file);
  auto error = [&](const Node* at, std::string path, std::string msg) {
    diags.Error(f, at != nullptr ? at->line() : 0, std::move(path), std::move(msg));
  };
  const size_t errors_before = diags.error_count();
  if (in.clusters.empty()) {
    error(nullptr, fmt::format("clusters.{}=absent", absent.front()),
          "the scenario declares no member clusters (removing a cluster applies to a scenario "
          "with `clusters:`)");
    return;
  }
  std::string declared;
  for (const ClusterIn& c : in.clusters) declared += (declared.empty() ? "" : ", ") + c.name;
  for (const std::string& name : absent) {
    if (std::none_of(in.clusters.begin(), in.clusters.end(),
                     [&](const ClusterIn& c) { return c.name == name; })) {
      error(nullptr, fmt::format("clusters.{}=absent", name),
            fmt::format("the scenario has no member cluster {:?} (clusters: {})", name, declared));
    }
  }
  if (std::all_of(in.clusters.begin(), in.clusters.end(),
                  [&](const ClusterIn& c) { return Contains(absent, c.name); })) {
    error(nullptr, fmt::format("clusters.{}=absent", absent.front()),
          "every member cluster would be absent (a run keeps at least one)");
  }
  if (in.fleet.self != nullptr && !in.fleet.objects.empty()) {
    error(in.fleet.objects.front().second, "fleet.objects",
          "removing a member cluster applies to a fleet described in the scenario (its objects "
          "may name the cluster; describe the members under fleet.members)");
  }
  // What names an absent cluster keeps it: an error at its position.
  const std::string why =
      "is absent from this run (corral compact --clusters, clusters.NAME=absent)";
  for (size_t i = 0; i < in.workloads.size(); ++i) {
    const WorkloadIn& w = in.workloads[i];
    if (w.cluster_node != nullptr && Contains(absent, w.cluster)) {
      error(w.cluster_node, fmt::format("workloads[{}].cluster", i),
            fmt::format("cluster {:?} {}", w.cluster, why));
    }
    if (w.fleet.placement) {
      if (std::string n = NamedIn(*w.fleet.placement, absent, interner); !n.empty()) {
        error(w.fleet.placement_node, fmt::format("workloads[{}].fleet.placement", i),
              fmt::format("names cluster {:?}, which {}", n, why));
      }
    }
  }
  std::vector<std::string> gone_pools;  // the pools of absent clusters, with their cluster
  std::vector<std::string> gone_owner;
  for (const PoolIn& p : in.pools) {
    if (p.cluster < in.clusters.size() && Contains(absent, in.clusters[p.cluster].name)) {
      gone_pools.push_back(p.name);
      gone_owner.push_back(in.clusters[p.cluster].name);
    }
  }
  for (size_t i = 0; i < in.ops.size(); ++i) {
    const OpIn& o = in.ops[i];
    auto it = std::find(gone_pools.begin(), gone_pools.end(), o.pool);
    if (o.pool.empty() || it == gone_pools.end()) continue;
    error(o.pool_node, fmt::format("ops[{}].pool", i),
          fmt::format("pool {:?} belongs to cluster {:?}, which {}", o.pool,
                      gone_owner[static_cast<size_t>(it - gone_pools.begin())], why));
  }
  if (diags.error_count() > errors_before) return;

  // Drop the clusters, renumbering the pools' cluster indices.
  std::vector<int64_t> renumber(in.clusters.size(), -1);
  std::vector<ClusterIn> kept;
  for (size_t c = 0; c < in.clusters.size(); ++c) {
    if (Contains(absent, in.clusters[c].name)) continue;
    renumber[c] = static_cast<int64_t>(kept.size());
    kept.push_back(std::move(in.clusters[c]));
    if (kept.back().index < 0) kept.back().index = static_cast<int32_t>(c);
  }
  in.clusters = std::move(kept);
  std::vector<PoolIn> pools;
  for (PoolIn& p : in.pools) {
    if (p.cluster < renumber.size() && renumber[p.cluster] < 0) continue;
    if (p.cluster < renumber.size()) p.cluster = static_cast<uint32_t>(renumber[p.cluster]);
    pools.push_back(std::move(p));
  }
  in.pools = std::move(pools);
  FleetIn& fl = in.fleet;
  std::erase_if(fl.members, [&](const FleetMemberIn& m) { return Contains(absent, m.name); });
  std::erase_if(fl.outages, [&](const FleetOutageIn& o) { return Contains(absent, o.cluster); });
  std::erase_if(fl.config_order, [&](const auto& c) { return Contains(absent, c.first); });
}

}  // namespace corral::sim::scenario_internal
