#include "corral/fleet/selection.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

namespace corral::fleet {

namespace {

constexpr int64_t kWeightUnit = 1000;
constexpr int32_t kInvalidReplicas = -1;

bool HasSpreadBy(const api::Placement& p, api::SpreadByField f) {
  return std::any_of(p.spread_constraints.begin(), p.spread_constraints.end(),
                     [&](const api::SpreadConstraint& c) { return c.spread_by_field == f; });
}

const api::SpreadConstraint* SpreadBy(const api::Placement& p, api::SpreadByField f) {
  const api::SpreadConstraint* last = nullptr;  // a later constraint of the same field wins
  for (const api::SpreadConstraint& c : p.spread_constraints) {
    if (c.spread_by_field == f) last = &c;
  }
  return last;
}

// shouldIgnoreSpreadConstraint: Divided + Weighted with no weight preference, or with static
// weights and no dynamic weight.
bool IgnoreSpreadConstraint(const api::Placement& p) {
  const auto& rs = p.replica_scheduling;
  if (!rs || rs->type != api::ReplicaSchedulingType::kDivided ||
      rs->division_preference != api::ReplicaDivisionPreference::kWeighted) {
    return false;
  }
  if (!rs->weight_preference) return true;
  return !rs->weight_preference->static_weight_list.empty() &&
         !rs->weight_preference->dynamic_weight_by_available_replicas;
}

// shouldIgnoreAvailableResource: Duplicated (or no replica scheduling).
bool IgnoreAvailableResource(const api::Placement& p) {
  return !p.replica_scheduling ||
         p.replica_scheduling->type == api::ReplicaSchedulingType::kDuplicated;
}

bool TopologyIgnored(const api::Placement& p) {
  const auto& sc = p.spread_constraints;
  if (sc.empty() || (sc.size() == 1 && sc[0].spread_by_field == api::SpreadByField::kCluster)) {
    return true;
  }
  return IgnoreSpreadConstraint(p);
}

// sortClusters with the available-replicas comparison. The order is total for distinct names, so
// sorting positions and then moving each entry once gives the same list as sorting the entries.
void SortClusters(std::vector<ClusterDetail>& cs) {
  std::vector<uint32_t> order(cs.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t i, uint32_t j) {
    const ClusterDetail& a = cs[i];
    const ClusterDetail& b = cs[j];
    if (a.overflow_order != b.overflow_order) return a.overflow_order < b.overflow_order;
    if (a.score != b.score) return a.score > b.score;
    if (a.available_replicas != b.available_replicas) {
      return a.available_replicas > b.available_replicas;
    }
    return a.name < b.name;
  });
  std::vector<ClusterDetail> sorted;
  sorted.reserve(cs.size());
  for (uint32_t i : order) sorted.push_back(std::move(cs[i]));
  cs = std::move(sorted);
}

int32_t AssignedReplicasFor(const api::FleetWork& work, Symbol cluster) {
  for (const api::TargetCluster& t : work.clusters) {
    if (t.name == cluster) return t.replicas;
  }
  return 0;
}

void ScoreGroups(std::map<std::string, GroupInfo>& groups, const api::FleetWork& work,
                 api::SpreadByField field) {
  const api::SpreadConstraint* c = SpreadBy(work.placement, field);
  int32_t min_groups = c != nullptr ? c->min_groups : 0;
  for (auto& [name, g] : groups) g.score = CalcGroupScore(g.clusters, work, min_groups);
}

void AddTo(std::map<std::string, GroupInfo>& groups, std::string_view name,
           const ClusterDetail& c) {
  GroupInfo& g = groups[std::string(name)];
  g.name = std::string(name);
  g.clusters.push_back(c);
  g.available_replicas += c.available_replicas;
}

// dfsPath of select_groups.go.
struct Path {
  int id = 0;
  std::vector<const SelectGroup*> groups;
  int64_t weight = 0;
  int value = 0;
};

void SortPathGroups(std::vector<const SelectGroup*>& groups) {
  std::sort(groups.begin(), groups.end(), [](const SelectGroup* a, const SelectGroup* b) {
    if (a->weight != b->weight) return a->weight > b->weight;
    return a->name < b->name;
  });
}

bool MatchSubPath(const Path& path, const Path& sub) {
  if (sub.groups.size() >= path.groups.size()) return false;
  for (size_t i = 0; i < sub.groups.size(); ++i) {
    if (path.groups[i]->name != sub.groups[i]->name) return false;
  }
  return true;
}

std::vector<ClusterDetail> SelectByAvailableResource(std::vector<ClusterDetail> candidates,
                                                     size_t need_count, int32_t need_replicas) {
  auto enough = [&](size_t n) {
    int64_t total = 0;
    for (size_t i = 0; i < n; ++i) total += candidates[i].available_replicas;
    return total >= need_replicas;
  };
  // Selected = candidates[0, need_count), the rest after it; swaps replace the lowest-scored
  // selected cluster, from the tail, by the rest's cluster with the most available replicas.
  for (int64_t update = static_cast<int64_t>(need_count) - 1; !enough(need_count) && update >= 0;
       --update) {
    int64_t best = -1;
    int64_t most = candidates[static_cast<size_t>(update)].available_replicas;
    for (size_t i = need_count; i < candidates.size(); ++i) {
      if (most < candidates[i].available_replicas) {
        best = static_cast<int64_t>(i);
        most = candidates[i].available_replicas;
      }
    }
    if (best < 0) continue;
    std::swap(candidates[static_cast<size_t>(update)], candidates[static_cast<size_t>(best)]);
  }
  if (!enough(need_count)) return {};
  candidates.resize(need_count);
  return candidates;
}

Selection SelectByCluster(const api::SpreadConstraint& c, const GroupClustersInfo& info,
                          int32_t need_replicas) {
  Selection s;
  size_t total = info.clusters.size();
  if (static_cast<int64_t>(total) < c.min_groups) {
    s.error = "the number of feasible clusters is less than spreadConstraint.MinGroups";
    return s;
  }
  size_t need = std::min(total, static_cast<size_t>(std::max(0, c.max_groups)));
  if (need_replicas == kInvalidReplicas) {
    s.clusters.assign(info.clusters.begin(), info.clusters.begin() + static_cast<ptrdiff_t>(need));
    return s;
  }
  s.clusters = SelectByAvailableResource(info.clusters, need, need_replicas);
  if (s.clusters.empty())
    s.error = "no enough resource when selecting " + std::to_string(need) + " clusters";
  return s;
}

Selection SelectByRegion(const api::Placement& p, const GroupClustersInfo& info) {
  Selection s;
  const api::SpreadConstraint* region = SpreadBy(p, api::SpreadByField::kRegion);
  const api::SpreadConstraint* cluster = SpreadBy(p, api::SpreadByField::kCluster);
  api::SpreadConstraint none;
  if (cluster == nullptr) cluster = &none;
  if (static_cast<int64_t>(info.regions.size()) < region->min_groups) {
    s.error = "the number of feasible region is less than spreadConstraint.MinGroups";
    return s;
  }
  std::vector<SelectGroup> groups;
  for (const auto& [name, r] : info.regions) {
    groups.push_back({name, static_cast<int>(r.clusters.size()), r.score});
  }
  std::vector<SelectGroup> chosen =
      SelectGroups(std::move(groups), region->min_groups, region->max_groups, cluster->min_groups);
  if (chosen.empty()) {
    s.error = "the number of clusters is less than the cluster spreadConstraint.MinGroups";
    return s;
  }
  std::vector<ClusterDetail> candidates;
  for (const SelectGroup& g : chosen) {
    const GroupInfo& r = info.regions.at(g.name);
    s.clusters.push_back(r.clusters[0]);
    candidates.insert(candidates.end(), r.clusters.begin() + 1, r.clusters.end());
  }
  int64_t need = std::min<int64_t>(static_cast<int64_t>(candidates.size() + s.clusters.size()),
                                   cluster->max_groups);
  int64_t rest = need - static_cast<int64_t>(s.clusters.size());
  if (rest > 0) {
    SortClusters(candidates);
    s.clusters.insert(s.clusters.end(), candidates.begin(), candidates.begin() + rest);
  }
  return s;
}

}  // namespace

int32_t ClusterOverflowOrder(const api::Cluster& cluster, const api::FleetWork& work,
                             const Interner& interner) {
  const api::Placement& p = work.placement;
  if (p.cluster_affinity || p.cluster_affinities.empty()) return 0;
  for (const api::ClusterAffinityTerm& term : p.cluster_affinities) {
    if (term.affinity_name != work.scheduler_observed_affinity_name) continue;
    if (api::ClusterMatches(cluster, term.affinity, interner)) return 0;
    for (size_t i = 0; i < term.overflow.size(); ++i) {
      if (api::ClusterMatches(cluster, term.overflow[i].affinity, interner)) {
        return static_cast<int32_t>(i + 1);
      }
    }
    break;
  }
  return 1000;
}

GroupClustersInfo GroupClusters(std::span<const ScoredCluster> scored,
                                std::span<const int32_t> allocatable, const api::FleetWork& work,
                                const Interner& interner) {
  GroupClustersInfo info;
  info.clusters.reserve(scored.size());
  for (size_t i = 0; i < scored.size(); ++i) {
    const api::Cluster& c = *scored[i].cluster;
    ClusterDetail& d = info.clusters.emplace_back();
    d.name = interner.Str(c.meta.name);
    d.cluster = &c;
    d.score = scored[i].score;
    d.overflow_order = ClusterOverflowOrder(c, work, interner);
    d.allocatable_replicas = i < allocatable.size() ? allocatable[i] : 0;
    d.available_replicas = int64_t{d.allocatable_replicas} + AssignedReplicasFor(work, c.meta.name);
  }
  SortClusters(info.clusters);
  const api::Placement& p = work.placement;
  if (TopologyIgnored(p)) return info;
  if (HasSpreadBy(p, api::SpreadByField::kZone)) {
    for (const ClusterDetail& d : info.clusters) {
      for (Symbol z : d.cluster->zones) AddTo(info.zones, interner.Str(z), d);
    }
    ScoreGroups(info.zones, work, api::SpreadByField::kZone);
  }
  if (HasSpreadBy(p, api::SpreadByField::kRegion)) {
    for (const ClusterDetail& d : info.clusters) {
      if (!d.cluster->region.empty()) AddTo(info.regions, interner.Str(d.cluster->region), d);
    }
    ScoreGroups(info.regions, work, api::SpreadByField::kRegion);
  }
  if (HasSpreadBy(p, api::SpreadByField::kProvider)) {
    for (const ClusterDetail& d : info.clusters) {
      if (!d.cluster->provider.empty()) AddTo(info.providers, interner.Str(d.cluster->provider), d);
    }
    ScoreGroups(info.providers, work, api::SpreadByField::kProvider);
  }
  return info;
}

int64_t CalcGroupScore(std::span<const ClusterDetail> clusters, const api::FleetWork& work,
                       int32_t min_groups) {
  const api::Placement& p = work.placement;
  if (!p.replica_scheduling ||
      p.replica_scheduling->type == api::ReplicaSchedulingType::kDuplicated) {
    // calcGroupScoreForDuplicate.
    int64_t target = work.replicas;
    int64_t valid = 0;
    int64_t sum_score = 0;
    for (const ClusterDetail& c : clusters) {
      if (c.available_replicas >= target) {
        ++valid;
        sum_score += c.score;
      }
    }
    if (valid == 0) return 0;
    return valid * kWeightUnit + sum_score / valid;
  }
  // Go's math.Ceil(float64(replicas) / float64(minGroups)); minGroups 0 divides by zero into +Inf,
  // whose int64 conversion is the minimum int64 on amd64.
  int64_t target;
  if (min_groups == 0) {
    target = std::numeric_limits<int64_t>::min();
  } else {
    target = static_cast<int64_t>(
        std::ceil(static_cast<double>(work.replicas) / static_cast<double>(min_groups)));
  }
  int64_t cluster_min_groups = 0;
  for (const api::SpreadConstraint& c : p.spread_constraints) {
    if (c.spread_by_field == api::SpreadByField::kCluster) cluster_min_groups = c.min_groups;
  }
  cluster_min_groups = std::max<int64_t>(cluster_min_groups, min_groups);
  int64_t sum_available = 0;
  int64_t sum_score = 0;
  int64_t valid = 0;
  for (const ClusterDetail& c : clusters) {
    sum_available += c.available_replicas;
    sum_score += c.score;
    ++valid;
    if (valid >= cluster_min_groups && sum_available >= target) break;
  }
  if (sum_available < target) {
    return sum_available * kWeightUnit + sum_score / static_cast<int64_t>(clusters.size());
  }
  // Go's int64 arithmetic wraps; so does Corral's here (the +Inf target above times 1000 is 0).
  return static_cast<int64_t>(static_cast<uint64_t>(target) * static_cast<uint64_t>(kWeightUnit)) +
         sum_score / valid;
}

std::vector<SelectGroup> SelectGroups(std::vector<SelectGroup> groups, int min_groups,
                                      int max_groups, int target) {
  if (groups.empty()) return {};
  std::sort(groups.begin(), groups.end(), [](const SelectGroup& a, const SelectGroup& b) {
    if (a.value != b.value) return a.value < b.value;
    if (a.weight != b.weight) return a.weight > b.weight;
    return a.name < b.name;
  });
  std::vector<Path> paths;
  Path root;
  std::function<void(int, size_t)> dfs = [&](int sum, size_t begin) {
    int length = static_cast<int>(root.groups.size());
    if (sum >= target && length >= min_groups && length <= max_groups) {
      root.id++;  // dfsPath.next
      Path p;
      p.id = root.id;
      p.groups = root.groups;
      for (const SelectGroup* g : p.groups) {
        p.weight += g->weight;
        p.value += g->value;
      }
      SortPathGroups(p.groups);
      paths.push_back(std::move(p));
      return;
    }
    if (length >= max_groups) return;
    for (size_t i = begin; i < groups.size(); ++i) {
      sum += groups[i].value;
      root.groups.push_back(&groups[i]);
      dfs(sum, i + 1);
      if (static_cast<int>(groups.size()) == min_groups) break;
      sum -= groups[i].value;
      root.groups.pop_back();
    }
  };
  dfs(0, 0);
  if (paths.empty()) return {};
  const Path* best = &paths[0];
  if (paths.size() > 1) {
    std::sort(paths.begin(), paths.end(), [](const Path& a, const Path& b) {
      if (a.weight != b.weight) return a.weight > b.weight;
      if (a.value != b.value) return a.value > b.value;
      return a.id < b.id;
    });
    best = &paths[0];
    for (size_t i = 1; i < paths.size(); ++i) {
      if (MatchSubPath(*best, paths[i])) best = &paths[i];
    }
  }
  std::vector<SelectGroup> out;
  for (const SelectGroup* g : best->groups) out.push_back(*g);
  return out;
}

Selection SelectBestClusters(const api::Placement& placement, GroupClustersInfo&& info,
                             int32_t need_replicas) {
  if (placement.spread_constraints.empty() || IgnoreSpreadConstraint(placement)) {
    return Selection{std::move(info.clusters), {}};
  }
  return SelectBestClusters(placement, std::as_const(info), need_replicas);
}

Selection SelectBestClusters(const api::Placement& placement, const GroupClustersInfo& info,
                             int32_t need_replicas) {
  if (placement.spread_constraints.empty() || IgnoreSpreadConstraint(placement)) {
    return Selection{info.clusters, {}};
  }
  if (IgnoreAvailableResource(placement)) need_replicas = kInvalidReplicas;
  if (HasSpreadBy(placement, api::SpreadByField::kRegion)) return SelectByRegion(placement, info);
  if (const api::SpreadConstraint* c = SpreadBy(placement, api::SpreadByField::kCluster)) {
    return SelectByCluster(*c, info, need_replicas);
  }
  Selection s;
  s.error = "just support cluster and region spread constraint";
  return s;
}

}  // namespace corral::fleet
