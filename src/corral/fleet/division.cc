#include "corral/fleet/division.h"

#include <algorithm>
#include <map>
#include <utility>

#include "corral/core/check.h"

#include "fmt/format.h"

namespace corral::fleet {

namespace {

// Sums in int64: Karmada's int32 sums wrap past 2^31 − 1, Corral's do not.
int64_t SumReplicas(std::span<const TargetReplicas> list) {
  int64_t sum = 0;
  for (const TargetReplicas& t : list) sum += t.replicas;
  return sum;
}

// The replicas of `list` in descending order (Karmada's sort.Sort(TargetClustersList)). Go's sort
// keeps the input order of equal elements for up to 12 elements; a stable sort reproduces that.
void SortByReplicasDescending(std::vector<TargetReplicas>& list) {
  // Sorts positions rather than the entries, so that each name moves once.
  std::vector<uint32_t> order(list.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return list[a].replicas > list[b].replicas; });
  std::vector<TargetReplicas> sorted;
  sorted.reserve(list.size());
  for (uint32_t i : order) sorted.push_back(std::move(list[i]));
  list = std::move(sorted);
}

// util.MergeTargetClusters: adds the old replicas to the new entries of the same name, then appends
// the old entries the new list lacks (in their old order).
std::vector<TargetReplicas> MergeTargetClusters(std::span<const TargetReplicas> old_clusters,
                                                std::vector<TargetReplicas> new_clusters) {
  if (old_clusters.empty()) return new_clusters;
  if (new_clusters.empty()) return {old_clusters.begin(), old_clusters.end()};
  std::vector<bool> used(old_clusters.size(), false);
  for (TargetReplicas& n : new_clusters) {
    for (size_t i = 0; i < old_clusters.size(); ++i) {
      if (!used[i] && old_clusters[i].name == n.name) {
        n.replicas += old_clusters[i].replicas;
        used[i] = true;
        break;
      }
    }
  }
  for (size_t i = 0; i < old_clusters.size(); ++i) {
    if (!used[i]) new_clusters.push_back(old_clusters[i]);
  }
  return new_clusters;
}

Division Unschedulable(std::string message) {
  Division d;
  d.error = std::move(message);
  d.unschedulable = true;
  return d;
}

Division Wrap(Division d, std::string_view prefix) {
  if (!d.ok()) d.error = fmt::format("{}: {}", prefix, d.error);
  return d;
}

Division Ok(std::vector<TargetReplicas> clusters) {
  Division d;
  d.clusters = std::move(clusters);
  return d;
}

// buildScheduledClusters: the previous assignment restricted to the candidates.
std::vector<TargetReplicas> ScheduledClusters(std::span<const ClusterDetail> candidates,
                                              std::span<const TargetReplicas> previous) {
  std::vector<TargetReplicas> scheduled;
  for (const TargetReplicas& p : previous) {
    bool candidate = std::any_of(candidates.begin(), candidates.end(),
                                 [&](const ClusterDetail& c) { return c.name == p.name; });
    if (candidate) scheduled.push_back(p);
  }
  return scheduled;
}

std::vector<TargetReplicas> Allocatable(std::span<const ClusterDetail> candidates) {
  std::vector<TargetReplicas> out;
  out.reserve(candidates.size());
  for (const ClusterDetail& c : candidates) {
    TargetReplicas& t = out.emplace_back();
    t.name = c.name;
    t.replicas = c.allocatable_replicas;
  }
  return out;
}

Division DynamicScaleDown(DivisionStrategy strategy, std::span<const TargetReplicas> scheduled,
                          const DivisionRequest& request) {
  std::vector<TargetReplicas> available(scheduled.begin(), scheduled.end());
  SortByReplicasDescending(available);
  return DynamicDivideReplicas(strategy, std::move(available), request.replicas, {}, request.uid);
}

Division DynamicScaleUpFrom(DivisionStrategy strategy, std::span<const ClusterDetail> candidates,
                            std::span<const TargetReplicas> scheduled,
                            const DivisionRequest& request) {
  std::vector<TargetReplicas> available = Allocatable(candidates);
  SortByReplicasDescending(available);
  int64_t target = std::max<int64_t>(0, request.replicas - SumReplicas(scheduled));
  return DynamicDivideReplicas(strategy, std::move(available), static_cast<int32_t>(target),
                               scheduled, request.uid);
}

Division DynamicFreshScale(DivisionStrategy strategy, std::span<const ClusterDetail> candidates,
                           std::span<const TargetReplicas> scheduled,
                           const DivisionRequest& request) {
  std::vector<TargetReplicas> available = Allocatable(candidates);
  for (const TargetReplicas& s : scheduled) {
    for (TargetReplicas& a : available) {
      if (a.name == s.name) {
        a.replicas += s.replicas;
        break;
      }
    }
  }
  SortByReplicasDescending(available);
  return DynamicDivideReplicas(strategy, std::move(available), request.replicas, {}, request.uid);
}

Division AssignToClusters(std::span<const ClusterDetail> candidates,
                          const api::Placement& placement, const DivisionRequest& request,
                          const Interner& interner) {
  std::optional<DivisionStrategy> strategy = StrategyOf(placement);
  if (!strategy) {
    Division d;
    d.error =
        "unsupported replica scheduling strategy, replicaSchedulingType: Divided, "
        "replicaDivisionPreference: , please try another scheduling strategy";
    return d;
  }
  Division d;
  switch (*strategy) {
    case DivisionStrategy::kDuplicated:
      d = Ok(AssignByDuplicated(candidates, request.replicas));
      break;
    case DivisionStrategy::kStaticWeight: {
      const auto& rs = placement.replica_scheduling;
      const api::ClusterPreferences* pref =
          rs && rs->weight_preference ? &*rs->weight_preference : nullptr;
      d = Ok(AssignByStaticWeight(candidates, pref, request, interner));
      break;
    }
    case DivisionStrategy::kAggregated:
    case DivisionStrategy::kDynamicWeight:
      d = AssignByDynamic(*strategy, candidates, request);
      break;
  }
  if (!d.ok()) return d;
  std::erase_if(d.clusters, [](const TargetReplicas& t) { return t.replicas <= 0; });
  return d;
}

}  // namespace

std::optional<DivisionStrategy> StrategyOf(const api::Placement& placement) {
  const auto& rs = placement.replica_scheduling;
  if (!rs || rs->type == api::ReplicaSchedulingType::kDuplicated) {
    return DivisionStrategy::kDuplicated;
  }
  switch (rs->division_preference) {
    case api::ReplicaDivisionPreference::kAggregated:
      return DivisionStrategy::kAggregated;
    case api::ReplicaDivisionPreference::kWeighted:
      if (rs->weight_preference && rs->weight_preference->dynamic_weight_by_available_replicas) {
        return DivisionStrategy::kDynamicWeight;
      }
      return DivisionStrategy::kStaticWeight;
    case api::ReplicaDivisionPreference::kNone:
      break;
  }
  return std::nullopt;
}

int64_t WeightSum(std::span<const ClusterWeightInfo> list) {
  int64_t sum = 0;
  for (const ClusterWeightInfo& w : list) sum += w.weight;
  return sum;
}

Dispenser::Dispenser(int32_t num_replicas, std::vector<TargetReplicas> init, std::string_view uid)
    : num_replicas_(num_replicas), result_(std::move(init)), order_(NameOrderForUid(uid)) {}

void Dispenser::AllocateByWeight(std::span<const ClusterWeightInfo> weights) {
  if (Done()) return;
  if (WeightSum(weights) == 0) return;
  std::vector<std::pair<std::string_view, int64_t>> votes;
  votes.reserve(weights.size());
  for (const ClusterWeightInfo& w : weights) votes.emplace_back(w.cluster_name, w.weight);
  AllocateByVotes(votes);
}

void Dispenser::AllocateByTargetReplicas(std::span<const TargetReplicas> targets) {
  if (Done()) return;
  std::vector<std::pair<std::string_view, int64_t>> votes;
  votes.reserve(targets.size());
  int64_t sum = 0;
  for (const TargetReplicas& t : targets) {
    votes.emplace_back(t.name, t.replicas);
    sum += t.replicas;
  }
  if (sum == 0) return;
  AllocateByVotes(votes);
}

void Dispenser::AllocateByVotes(std::span<const std::pair<std::string_view, int64_t>> votes) {
  // Views of result_'s names: they outlive the allocation, which copies them.
  std::vector<std::pair<std::string_view, int32_t>> initial;
  initial.reserve(result_.size());
  for (const TargetReplicas& t : result_) initial.emplace_back(t.name, t.replicas);
  std::vector<Party> parties = AllocateWebsterSeats(num_replicas_, votes, initial, order_);
  std::vector<TargetReplicas> result;
  result.reserve(parties.size());
  for (Party& p : parties) {
    TargetReplicas& t = result.emplace_back();
    t.name = std::move(p.name);
    t.replicas = p.seats;
  }
  result_ = std::move(result);
  num_replicas_ = 0;
}

std::vector<ClusterWeightInfo> StaticWeightInfoListByTargetClusters(
    std::span<const TargetReplicas> targets, std::span<const TargetReplicas> scheduled) {
  std::vector<ClusterWeightInfo> out;
  out.reserve(targets.size());
  for (const TargetReplicas& t : targets) {
    int32_t last = 0;
    for (const TargetReplicas& s : scheduled) {
      if (s.name == t.name) {
        last = s.replicas;
        break;
      }
    }
    out.push_back({t.name, t.replicas, last});
  }
  return out;
}

std::vector<TargetReplicas> SpreadReplicasByTargetClusters(int32_t num_replicas,
                                                           std::span<const TargetReplicas> targets,
                                                           std::span<const TargetReplicas> init,
                                                           std::string_view uid) {
  // StaticWeightInfoListByTargetClusters(targets, init) weighs each target by its replicas; the
  // dispenser reads only names and weights, so it takes them from the targets directly.
  Dispenser d(num_replicas, {init.begin(), init.end()}, uid);
  d.AllocateByTargetReplicas(targets);
  return std::move(d).TakeResult();
}

std::vector<TargetReplicas> AssignByDuplicated(std::span<const ClusterDetail> candidates,
                                               int32_t replicas) {
  std::vector<TargetReplicas> out;
  out.reserve(candidates.size());
  for (const ClusterDetail& c : candidates) out.push_back({c.name, replicas});
  return out;
}

std::vector<TargetReplicas> AssignByStaticWeight(std::span<const ClusterDetail> candidates,
                                                 const api::ClusterPreferences* preference,
                                                 const DivisionRequest& request,
                                                 const Interner& interner) {
  std::vector<ClusterWeightInfo> list;
  for (const ClusterDetail& c : candidates) {
    int64_t weight = 0;
    if (preference == nullptr) {
      weight = 1;  // getDefaultWeightPreference: one rule of weight 1 naming each candidate
    } else {
      for (const api::StaticClusterWeight& rule : preference->static_weight_list) {
        CORRAL_CHECK_MSG(c.cluster != nullptr, "static weights need the candidate's Cluster");
        if (api::ClusterMatches(*c.cluster, rule.target_cluster, interner)) {
          weight = std::max(weight, rule.weight);
        }
      }
    }
    int32_t last = 0;
    for (const TargetReplicas& p : request.previous) {
      if (p.name == c.name) {
        last = p.replicas;
        break;
      }
    }
    if (weight > 0) list.push_back({c.name, weight, last});
  }
  if (WeightSum(list) == 0) {
    for (const ClusterDetail& c : candidates) list.push_back({c.name, 1, 0});
  }
  Dispenser d(request.replicas, {}, request.uid);
  d.AllocateByWeight(list);
  return std::move(d).TakeResult();
}

Division DynamicDivideReplicas(DivisionStrategy strategy, std::vector<TargetReplicas> available,
                               int32_t target, std::span<const TargetReplicas> scheduled,
                               std::string_view uid) {
  int64_t available_replicas = SumReplicas(available);
  if (available_replicas < target) {
    return Unschedulable(fmt::format("Clusters available replicas {} are not enough to schedule.",
                                     available_replicas));
  }
  if (strategy == DivisionStrategy::kAggregated) {
    // resortAvailableClusters: clusters that already hold replicas go first.
    auto held = [&](const TargetReplicas& a) {
      return std::any_of(scheduled.begin(), scheduled.end(), [&](const TargetReplicas& s) {
        return s.replicas > 0 && s.name == a.name;
      });
    };
    std::stable_partition(available.begin(), available.end(), held);
    int64_t sum = 0;
    for (size_t i = 0; i < available.size(); ++i) {
      sum += available[i].replicas;
      if (sum >= target) {
        available.resize(i + 1);
        break;
      }
    }
  } else {
    CORRAL_CHECK(strategy == DivisionStrategy::kDynamicWeight);
  }
  return Ok(
      MergeTargetClusters(scheduled, SpreadReplicasByTargetClusters(target, available, {}, uid)));
}

Division DynamicScaleUp(DivisionStrategy strategy, std::span<const ClusterDetail> candidates,
                        const DivisionRequest& request) {
  std::vector<TargetReplicas> scheduled = ScheduledClusters(candidates, request.previous);
  return DynamicScaleUpFrom(strategy, candidates, scheduled, request);
}

Division AssignByDynamic(DivisionStrategy strategy, std::span<const ClusterDetail> candidates,
                         const DivisionRequest& request) {
  std::vector<TargetReplicas> scheduled = ScheduledClusters(candidates, request.previous);
  if (request.mode == AssignmentMode::kFresh) {
    return Wrap(DynamicFreshScale(strategy, candidates, scheduled, request),
                "failed to do fresh scale");
  }
  int64_t assigned = SumReplicas(scheduled);
  if (assigned > request.replicas) {
    return Wrap(DynamicScaleDown(strategy, scheduled, request), "failed to scale down");
  }
  if (assigned < request.replicas) {
    return Wrap(DynamicScaleUpFrom(strategy, candidates, scheduled, request), "failed to scale up");
  }
  return Ok(std::move(scheduled));
}

Division AssignReplicas(std::span<const ClusterDetail> candidates, const api::Placement& placement,
                        bool has_replica_requirements, bool overflow,
                        const DivisionRequest& request, const Interner& interner) {
  if (candidates.empty()) {
    Division d;
    d.error = "no clusters available to schedule";
    return d;
  }
  if (request.replicas <= 0 && !has_replica_requirements) {
    std::vector<TargetReplicas> all;
    for (const ClusterDetail& c : candidates) all.push_back({c.name, 0});
    return Ok(std::move(all));
  }
  if (!overflow) return AssignToClusters(candidates, placement, request, interner);

  std::map<int32_t, std::vector<ClusterDetail>> tiers;
  std::map<int32_t, int64_t> tier_available;
  for (const ClusterDetail& c : candidates) {
    tiers[c.overflow_order].push_back(c);
    tier_available[c.overflow_order] += c.available_replicas;
  }
  std::vector<TargetReplicas> final_results;
  int32_t remaining = request.replicas;
  for (const auto& [order, tier] : tiers) {
    DivisionRequest tier_request = request;
    tier_request.replicas =
        static_cast<int32_t>(std::min<int64_t>(remaining, tier_available[order]));
    Division d = AssignToClusters(tier, placement, tier_request, interner);
    if (!d.ok()) return d;
    final_results.insert(final_results.end(), d.clusters.begin(), d.clusters.end());
    remaining -= tier_request.replicas;
    if (remaining <= 0) break;
  }
  if (remaining > 0) {
    return Unschedulable("Clusters available replicas are not enough to schedule.");
  }
  return Ok(std::move(final_results));
}

}  // namespace corral::fleet
