#include "corral/fleet/preemption.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "corral/fleet/preemption_fleetwide.h"
#include "corral/pipeline/reprieve.h"

#include "fmt/format.h"

namespace corral::fleet {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// request × replicas over the positive quantities (resourceListForReplicas).
ResourceAmounts Times(const api::ResourceList& request, int64_t replicas) {
  ResourceAmounts out;
  if (replicas <= 0) return out;
  for (const auto& [name, q] : request) {
    if (q.MilliValue() <= 0) continue;
    out.emplace_back(name, static_cast<Int128>(q.MilliValue()) * replicas);
  }
  return out;
}

Int128 Amount(const ResourceAmounts& a, Symbol name) {
  for (const auto& [n, v] : a) {
    if (n == name) return v;
  }
  return 0;
}

void Add(ResourceAmounts& dst, const ResourceAmounts& add, int sign) {
  for (const auto& [name, v] : add) {
    auto it = std::find_if(dst.begin(), dst.end(),
                           [&key = name](const auto& p) { return p.first == key; });
    if (it == dst.end()) {
      dst.emplace_back(name, sign * v);
    } else {
      it->second += sign * v;
    }
  }
}

// resourceListCovers: an empty need is never covered; otherwise every positive needed amount.
bool Covers(const ResourceAmounts& available, const ResourceAmounts& needed) {
  if (needed.empty()) return false;
  return std::all_of(needed.begin(), needed.end(), [&](const auto& p) {
    return p.second <= 0 || Amount(available, p.first) >= p.second;
  });
}

}  // namespace

Result<FeatureGates> ParseFeatureGates(std::string_view spec) {
  FeatureGates g;
  spec = Trim(spec);
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = Trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Error::Invalid(fmt::format("missing bool value for {}", item));
    }
    std::string_view name = Trim(item.substr(0, eq));
    std::string_view value = Trim(item.substr(eq + 1));
    bool on = false;
    if (value == "true" || value == "True" || value == "TRUE" || value == "1" || value == "t" ||
        value == "T") {
      on = true;
    } else if (value == "false" || value == "False" || value == "FALSE" || value == "0" ||
               value == "f" || value == "F") {
      on = false;
    } else {
      return Error::Invalid(fmt::format(
          "invalid value of {}={}, err: strconv.ParseBool: parsing {:?}: invalid syntax", name,
          value, value));
    }
    if (name == "PriorityBasedScheduling") {
      g.priority_based_scheduling = on;
    } else if (name == "PriorityBasedPreemptiveScheduling") {
      g.priority_based_preemptive_scheduling = on;
    } else {
      return Error::Invalid(fmt::format("unrecognized feature gate: {}", name));
    }
  }
  return g;
}

Eligibility CheckEligibility(const api::FleetWork& w, const FeatureGates& gates) {
  using R = EligibilityRule;
  if (!gates.PreemptionEnabled()) {
    return {R::kGatesOff,
            "the PriorityBasedScheduling and PriorityBasedPreemptiveScheduling feature gates are "
            "not both enabled"};
  }
  if (!(w.replicas > 0 || w.replica_requirements)) {
    return {R::kNotWorkload, "the binding is not a workload (no replicas)"};
  }
  // len(components) <= 1: the loader rejects components, so this rule always holds.
  if (w.source_kind != api::FleetWorkSourceKind::kResourceBinding &&
      w.source_kind != api::FleetWorkSourceKind::kPolicyMatch) {
    return {R::kNotResourceBinding, "only a ResourceBinding preempts"};
  }
  if (w.preemption_policy != api::PreemptionPolicy::kPreemptLowerPriority) {
    return {R::kPolicyNotPreempting,
            "schedulePriority.preemptionPolicy is not PreemptLowerPriority"};
  }
  if (!w.replica_requirements ||
      std::none_of(w.replica_requirements->resource_request.begin(),
                   w.replica_requirements->resource_request.end(),
                   [](const auto& p) { return p.second.MilliValue() > 0; })) {
    return {R::kNoResourceRequest, "replicaRequirements.resourceRequest is empty"};
  }
  if (!w.placement.cluster_affinity) {
    return {R::kNoClusterAffinity, "placement.clusterAffinity is not set"};
  }
  if (!w.placement.cluster_affinities.empty()) {
    return {R::kClusterAffinities, "placement.clusterAffinities is set"};
  }
  const auto& rs = w.placement.replica_scheduling;
  if (!rs || rs->type != api::ReplicaSchedulingType::kDivided ||
      rs->division_preference != api::ReplicaDivisionPreference::kAggregated) {
    return {R::kNotAggregated, "replicaScheduling is not Divided with Aggregated division"};
  }
  return {};
}

std::string BindingKey(const api::FleetWork& w, const Interner& in) {
  if (w.source_kind == api::FleetWorkSourceKind::kClusterResourceBinding) {
    return fmt::format("clusterresourcebinding/{}", in.Str(w.meta.name));
  }
  return fmt::format("resourcebinding/{}/{}", in.Str(w.meta.namespace_), in.Str(w.meta.name));
}

Result<std::vector<VictimCandidate>> ListVictimCandidates(std::span<const api::FleetWork> bindings,
                                                          std::string_view cluster,
                                                          int32_t preemptor_priority,
                                                          const Interner& in) {
  std::vector<const api::FleetWork*> on_cluster;
  for (const api::FleetWork& b : bindings) {
    for (const api::TargetCluster& t : b.clusters) {
      if (in.Str(t.name) == cluster) on_cluster.push_back(&b);
    }
  }
  return CandidatesOnCluster(on_cluster, cluster, preemptor_priority, in);
}

Result<std::vector<VictimCandidate>> CandidatesOnCluster(
    std::span<const api::FleetWork* const> on_cluster, std::string_view cluster,
    int32_t preemptor_priority, const Interner& in) {
  if (on_cluster.size() > kMaxVictimCandidates) {
    return Error::Invalid(
        fmt::format("too many preemption victim candidates on cluster {:?}: {} exceeds cap {}",
                    cluster, on_cluster.size(), kMaxVictimCandidates));
  }
  std::vector<VictimCandidate> out;
  // A cluster name never interned is on no binding.
  const std::optional<Symbol> name = in.Find(cluster);
  if (!name.has_value()) return out;
  for (const api::FleetWork* b : on_cluster) {
    if (b->priority >= preemptor_priority) continue;
    if (b->ClusterInGracefulEvictionTasks(*name)) continue;
    int32_t replicas = 0;
    for (const api::TargetCluster& t : b->clusters) {
      if (t.name == *name) replicas = t.replicas;  // AssignedReplicasForCluster
    }
    if (replicas <= 0) continue;
    VictimCandidate c;
    c.name = fmt::format("{}/{}", in.Str(b->meta.namespace_), in.Str(b->meta.name));
    c.priority = b->priority;
    c.created = b->meta.creation_timestamp.value_or(TimePoint{});
    c.replicas = replicas;
    if (b->replica_requirements) c.request = b->replica_requirements->resource_request;
    c.source = b;
    out.push_back(std::move(c));
  }
  return out;
}

bool MoreImportantCandidate(const VictimCandidate& a, const VictimCandidate& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.created != b.created) return a.created < b.created;
  return a.name < b.name;
}

std::vector<bool> RemoveAllThenReprieve(std::span<const VictimCandidate> ordered,
                                        const ResourceAmounts& deficit) {
  ResourceAmounts freed;  // every candidate removed
  for (const VictimCandidate& c : ordered) Add(freed, Times(c.request, c.replicas), +1);
  std::vector<bool> victim(ordered.size(), true);
  std::vector<size_t> units(ordered.size());
  std::iota(units.begin(), units.end(), size_t{0});
  // No candidate violates a budget, and nothing is re-placed between the passes: the first pass
  // visits none, the second every candidate.
  const pipeline::Status s = pipeline::ReprieveUnits(
      std::span<size_t>(units), pipeline::SecondPass::kNonViolators, [](size_t) { return false; },
      [&](size_t i) {
        const ResourceAmounts own = Times(ordered[i].request, ordered[i].replicas);
        Add(freed, own, -1);
        if (Covers(freed, deficit)) {
          victim[i] = false;  // reprieved: the rest still cover the deficit
        } else {
          Add(freed, own, +1);
        }
        return pipeline::Status();
      },
      [] { return pipeline::Status(); });
  (void)s;  // the summary-based reprieve never fails
  return victim;
}

void SortByImportance(std::vector<VictimCandidate>& candidates) {
  // Discovery order = position in name order, so that pipeline's lone-unit order (priority, start,
  // discovery) is MoreImportantCandidate's (priority, creation, name).
  const size_t n = candidates.size();
  std::vector<size_t> by_name(n);
  std::iota(by_name.begin(), by_name.end(), size_t{0});
  std::sort(by_name.begin(), by_name.end(),
            [&](size_t a, size_t b) { return candidates[a].name < candidates[b].name; });
  struct Unit {
    pipeline::VictimRank rank;
    size_t index = 0;
  };
  std::vector<Unit> units(n);
  for (size_t k = 0; k < n; ++k) {
    const VictimCandidate& c = candidates[by_name[k]];
    units[by_name[k]] = {{c.priority, /*group=*/false, /*size=*/1, c.created, k}, by_name[k]};
  }
  pipeline::SortByImportance(std::span<Unit>(units), [](const Unit& u) { return u.rank; });
  std::vector<VictimCandidate> sorted;
  sorted.reserve(n);
  for (const Unit& u : units) sorted.push_back(std::move(candidates[u.index]));
  candidates = std::move(sorted);
}

Result<std::vector<Victim>> SelectVictims(const api::ResourceList& preemptor_request,
                                          int32_t preemptor_replicas, int32_t preemptor_priority,
                                          std::vector<VictimCandidate> candidates,
                                          int64_t cluster_available) {
  const int64_t deficit = int64_t{preemptor_replicas} - cluster_available;
  if (deficit <= 0) return std::vector<Victim>{};
  const ResourceAmounts need = Times(preemptor_request, deficit);
  if (need.empty()) return Error::Invalid("preemptor resource request is empty");
  std::erase_if(candidates, [&](const VictimCandidate& c) {
    return c.priority >= preemptor_priority || c.replicas <= 0 ||
           Times(c.request, c.replicas).empty();
  });
  ResourceAmounts total;
  for (const VictimCandidate& c : candidates) Add(total, Times(c.request, c.replicas), +1);
  if (!Covers(total, need)) {
    return Error::Invalid("candidate resources are not enough to cover deficit resources");
  }
  SortByImportance(candidates);
  std::vector<bool> victim = RemoveAllThenReprieve(candidates, need);
  std::vector<Victim> out;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (victim[i])
      out.push_back({candidates[i].name, candidates[i].replicas, candidates[i].priority});
  }
  return out;
}

Result<std::vector<bool>> SelectVictimsOrdered(const api::ResourceList& preemptor_request,
                                               int32_t preemptor_replicas,
                                               int32_t preemptor_priority,
                                               std::span<const VictimCandidate> ordered,
                                               int64_t cluster_available) {
  const int64_t deficit = int64_t{preemptor_replicas} - cluster_available;
  if (deficit <= 0) return std::vector<bool>{};
  const ResourceAmounts need = Times(preemptor_request, deficit);
  if (need.empty()) return Error::Invalid("preemptor resource request is empty");
  // The candidates SelectVictims keeps, in the same (importance) order.
  std::vector<VictimCandidate> kept;
  std::vector<size_t> at;
  ResourceAmounts total;
  for (size_t i = 0; i < ordered.size(); ++i) {
    const VictimCandidate& c = ordered[i];
    if (c.priority >= preemptor_priority || c.replicas <= 0) continue;
    const ResourceAmounts own = Times(c.request, c.replicas);
    if (own.empty()) continue;
    Add(total, own, +1);
    at.push_back(i);
  }
  if (!Covers(total, need)) {
    return Error::Invalid("candidate resources are not enough to cover deficit resources");
  }
  if (at.size() == ordered.size()) return RemoveAllThenReprieve(ordered, need);
  kept.reserve(at.size());
  for (size_t i : at) kept.push_back(ordered[i]);
  const std::vector<bool> victim = RemoveAllThenReprieve(kept, need);
  std::vector<bool> out(ordered.size(), false);
  for (size_t k = 0; k < at.size(); ++k) out[at[k]] = victim[k];
  return out;
}

bool LowerPrioritiesCover(std::span<const api::FleetWork* const> on_cluster, Symbol cluster,
                          int32_t preemptor_priority, int32_t ceiling,
                          const api::ResourceList& preemptor_request, int64_t deficit_replicas) {
  const ResourceAmounts need = Times(preemptor_request, deficit_replicas);
  ResourceAmounts total;
  for (const api::FleetWork* b : on_cluster) {
    if (b->priority >= preemptor_priority || b->priority > ceiling) continue;
    if (b->ClusterInGracefulEvictionTasks(cluster)) continue;
    int32_t replicas = 0;
    for (const api::TargetCluster& t : b->clusters) {
      if (t.name == cluster) replicas = t.replicas;
    }
    if (replicas <= 0 || !b->replica_requirements) continue;
    Add(total, Times(b->replica_requirements->resource_request, replicas), +1);
    if (Covers(total, need)) return true;
  }
  return false;
}

PreemptionOutcome TryPreempt(const api::FleetWork& work, const BindingSchedule& failed,
                             std::span<const api::Cluster> clusters,
                             std::span<const ReplicaEstimator* const> estimators,
                             std::span<const api::FleetWork> bindings, ClaimStore& claims,
                             const FeatureGates& gates, const Interner& in) {
  return TryPreempt(work, failed, clusters, estimators, bindings, claims, gates, in,
                    PreemptionOptions{});
}

}  // namespace corral::fleet
