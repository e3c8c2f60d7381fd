#include "corral/fleet/preemption_fleetwide.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>

#include <absl/container/flat_hash_map.h>

#include "corral/fleet/selection.h"

#include "fmt/format.h"

namespace corral::fleet {

namespace {

bool HasRequest(const api::ResourceList& r) {
  return std::any_of(r.begin(), r.end(), [](const auto& p) { return p.second.MilliValue() > 0; });
}

std::string_view Annotation(const api::FleetWork& w, std::string_view key, const Interner& in) {
  for (const auto& [k, v] : w.meta.annotations) {
    if (in.Str(k) == key) return v;
  }
  return {};
}

bool HasAnnotation(const api::FleetWork& w, std::string_view key, const Interner& in) {
  return std::any_of(w.meta.annotations.begin(), w.meta.annotations.end(),
                     [&](const auto& a) { return in.Str(a.first) == key; });
}

// Whether the division may spread the binding over several clusters (see the header).
bool MaySpread(const api::FleetWork& w) {
  const auto& rs = w.placement.replica_scheduling;
  if (!rs || rs->type != api::ReplicaSchedulingType::kDivided) return false;
  const bool dynamic =
      rs->division_preference == api::ReplicaDivisionPreference::kAggregated ||
      (rs->division_preference == api::ReplicaDivisionPreference::kWeighted &&
       rs->weight_preference && rs->weight_preference->dynamic_weight_by_available_replicas);
  if (!dynamic) return false;
  return std::none_of(w.placement.spread_constraints.begin(), w.placement.spread_constraints.end(),
                      [](const api::SpreadConstraint& s) {
                        return s.spread_by_field == api::SpreadByField::kCluster &&
                               s.max_groups == 1;
                      });
}

// The fleet-wide mode's division rule in place of Karmada's Aggregated-only one.
bool FleetwideDivisionOk(const api::FleetWork& w) {
  const auto& rs = w.placement.replica_scheduling;
  if (!rs || rs->type != api::ReplicaSchedulingType::kDivided) return false;
  return rs->division_preference == api::ReplicaDivisionPreference::kAggregated ||
         (rs->division_preference == api::ReplicaDivisionPreference::kWeighted &&
          rs->weight_preference && rs->weight_preference->dynamic_weight_by_available_replicas);
}

// The victims on one cluster and what they cost.
struct Plan {
  const api::Cluster* cluster = nullptr;
  std::string name;
  int64_t available = 0;  // allocatable plus what the preemptor already holds there
  int32_t need = 0;       // replicas the preemptor asks of this cluster
  std::vector<Victim> victims;
  std::vector<Victim> reprieved;
  std::vector<GangEviction> gang;
  bool simulated = false;
  PreemptionCost cost;
};

Error NoDeficit(std::string_view cluster) {
  return Error::Invalid(fmt::format("no deficit on cluster {:?}", cluster));
}

// Errors are messages for the report: the candidate cap, "no deficit on cluster \"C\"", or
// "on cluster \"C\": " and why the victims cannot make room.
// Victims of `work` on `plan.cluster` among `on_cluster` (Phase 2 where the simulator simulates,
// Phase 1 elsewhere), gang victims expanded to every cluster they run on, and the cost.
Result<void> PlanVictims(const api::FleetWork& work, bool gang_preemptor,
                         std::span<const api::FleetWork* const> on_cluster,
                         const PreemptionOptions& options, const Interner& in, Plan& plan) {
  const api::ResourceList& request = work.replica_requirements->resource_request;
  auto listed = CandidatesOnCluster(on_cluster, plan.name, work.priority, in);
  if (!listed.ok()) return listed.error();
  std::vector<VictimCandidate> considered = std::move(*listed);
  SortByImportance(considered);
  std::vector<size_t> victim_index;  // each victim's position in `considered`
  std::vector<const api::FleetWork*> ordered;
  ordered.reserve(considered.size());
  for (const VictimCandidate& c : considered) ordered.push_back(c.source);
  if (options.simulator != nullptr && !ordered.empty() &&
      options.simulator->Simulates(*plan.cluster, ordered)) {
    if (plan.need <= plan.available) return NoDeficit(plan.name);
    auto victim = SelectVictimsBySimulation(*options.simulator, *plan.cluster, work, plan.need,
                                            ordered, plan.name);
    if (!victim.ok()) {
      return Error::Invalid(fmt::format("on cluster {:?}: {}", plan.name, victim.error().message));
    }
    plan.simulated = true;
    for (size_t i = 0; i < considered.size(); ++i) {
      const VictimCandidate& c = considered[i];
      ((*victim)[i] ? plan.victims : plan.reprieved).push_back({c.name, c.replicas, c.priority});
      if ((*victim)[i]) victim_index.push_back(i);
    }
  } else {
    // SelectVictims on the candidates already in importance order.
    auto victim =
        SelectVictimsOrdered(request, plan.need, work.priority, considered, plan.available);
    if (!victim.ok()) {
      return Error::Invalid(fmt::format("on cluster {:?}: {}", plan.name, victim.error().message));
    }
    if (victim->empty()) return NoDeficit(plan.name);
    for (size_t i = 0; i < considered.size(); ++i) {
      const VictimCandidate& c = considered[i];
      if ((*victim)[i]) {
        plan.victims.push_back({c.name, c.replicas, c.priority});
        victim_index.push_back(i);
      } else if (c.replicas > 0 && HasRequest(c.request)) {
        plan.reprieved.push_back({c.name, c.replicas, c.priority});
      }
    }
  }
  if (plan.victims.empty()) return NoDeficit(plan.name);
  if (gang_preemptor && !plan.simulated && options.gang_check != nullptr) {
    std::vector<const api::FleetWork*> removed;
    for (size_t i : victim_index) removed.push_back(considered[i].source);
    if (options.gang_check->Simulates(*plan.cluster, removed)) {
      auto fits = options.gang_check->FitsWithout(*plan.cluster, work, plan.need, removed);
      if (!fits.ok()) return fits.error();
      if (!*fits) {
        return Error::Invalid(fmt::format(
            "on cluster {:?}: the gang would not fit whole on the member even after evicting "
            "the victims",
            plan.name));
      }
    }
  }
  // Gangs leave whole; the cost counts every evicted replica.
  plan.cost.cluster = plan.name;
  auto count = [&](const Victim& v, TimePoint created) {
    AddVictimCost(plan.cost, v.priority, v.replicas, created);
  };
  for (size_t k = 0; k < plan.victims.size(); ++k) {
    const Victim& v = plan.victims[k];
    const api::FleetWork* b = considered[victim_index[k]].source;
    const TimePoint created = b->meta.creation_timestamp.value_or(TimePoint{});
    count(v, created);
    auto gang = ReadGang(*b, in);
    if (!gang.ok())
      return Error::Invalid(fmt::format("victim {}: {}", v.name, gang.error().message));
    if (!gang->evict_whole) continue;
    for (const api::TargetCluster& t : b->clusters) {
      if (in.Str(t.name) == plan.name || t.replicas <= 0) continue;
      if (b->ClusterInGracefulEvictionTasks(t.name)) continue;
      plan.gang.push_back({std::string(in.Str(t.name)), {v.name, t.replicas, v.priority}});
      count(plan.gang.back().victim, created);
    }
  }
  return {};
}

}  // namespace

Result<PreemptionMode> ParsePreemptionMode(std::string_view text) {
  if (text == "karmada") return PreemptionMode::kKarmada;
  if (text == "fleetwide") return PreemptionMode::kFleetwide;
  return Error::Invalid(fmt::format("{:?}: must be karmada or fleetwide", text));
}

std::string_view PreemptionModeName(PreemptionMode mode) {
  return mode == PreemptionMode::kKarmada ? "karmada" : "fleetwide";
}

Result<GangSpec> ReadGang(const api::FleetWork& w, const Interner& in) {
  GangSpec g;
  if (HasAnnotation(w, kMinMemberAnnotation, in)) {
    const std::string_view v = Annotation(w, kMinMemberAnnotation, in);
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size()) {
      return Error::Invalid(
          fmt::format("metadata.annotations[{}]: {:?} is not an integer", kMinMemberAnnotation, v));
    }
    if (n != w.replicas) {
      return Error::Invalid(fmt::format(
          "metadata.annotations[{}]: {} must equal spec.replicas ({}): a gang is the whole "
          "binding, all its replicas run together",
          kMinMemberAnnotation, n, w.replicas));
    }
    g.gang = true;
    g.evict_whole = true;
  }
  if (HasAnnotation(w, kDisruptionModeAnnotation, in)) {
    const std::string_view v = Annotation(w, kDisruptionModeAnnotation, in);
    if (v == "All") {
      g.evict_whole = true;
    } else if (v != "Single") {
      return Error::Invalid(fmt::format("metadata.annotations[{}]: {:?} must be All or Single",
                                        kDisruptionModeAnnotation, v));
    } else if (g.gang) {
      return Error::Invalid(
          fmt::format("metadata.annotations[{}]: Single contradicts {}: a gang is disrupted whole",
                      kDisruptionModeAnnotation, kMinMemberAnnotation));
    }
  }
  return g;
}

void AddVictimCost(PreemptionCost& cost, int32_t priority, int32_t replicas, TimePoint created) {
  if (priority > cost.highest_priority) {
    cost.highest_priority = priority;
    cost.earliest_start_of_highest = created;
  } else if (priority == cost.highest_priority) {
    cost.earliest_start_of_highest = std::min(cost.earliest_start_of_highest, created);
  }
  cost.priority_sum += int64_t{replicas} * (int64_t{priority} + (int64_t{1} << 31));
  cost.victim_replicas += replicas;
}

bool CheaperPreemption(const PreemptionCost& a, const PreemptionCost& b) {
  if (a.pdb_violations != b.pdb_violations) return a.pdb_violations < b.pdb_violations;
  if (a.highest_priority != b.highest_priority) return a.highest_priority < b.highest_priority;
  if (a.priority_sum != b.priority_sum) return a.priority_sum < b.priority_sum;
  if (a.victim_replicas != b.victim_replicas) return a.victim_replicas < b.victim_replicas;
  if (a.earliest_start_of_highest != b.earliest_start_of_highest) {
    return a.earliest_start_of_highest > b.earliest_start_of_highest;
  }
  return a.cluster < b.cluster;
}

PreemptionOutcome TryPreempt(const api::FleetWork& work, const BindingSchedule& failed,
                             std::span<const api::Cluster> clusters,
                             std::span<const ReplicaEstimator* const> estimators,
                             std::span<const api::FleetWork> bindings, ClaimStore& claims,
                             const FeatureGates& gates, const Interner& in,
                             const PreemptionOptions& options) {
  PreemptionOutcome out;
  if (failed.ok()) return out;
  if (failed.failure != FailureKind::kInsufficientCapacity) {
    out.skipped = "not a shortage of capacity on clusters that pass every filter";
    return out;
  }
  const bool fleetwide = options.mode == PreemptionMode::kFleetwide;
  Eligibility e = CheckEligibility(work, gates);
  if (fleetwide && e.rule == EligibilityRule::kNotAggregated) {
    if (FleetwideDivisionOk(work)) {
      e = {};
    } else {
      e.reason =
          "replicaScheduling is not Divided with Aggregated division or weights by available "
          "replicas";
    }
  }
  if (!e.ok()) {
    out.skipped = std::string(e.reason);
    return out;
  }
  auto gang = ReadGang(work, in);
  if (!gang.ok()) {
    out.skipped = gang.error().message;
    return out;
  }
  // selectClustersForPreemption: the feasible clusters, their raw estimates, capacity ignored.
  std::vector<const api::Cluster*> feasible;
  std::vector<ScoredCluster> scored;
  for (const ClusterVerdict& v : failed.clusters) {
    if (!v.passed) continue;
    for (const api::Cluster& c : clusters) {
      if (in.Str(c.meta.name) == v.name) {
        feasible.push_back(&c);
        scored.push_back({&c, v.score});
      }
    }
  }
  const api::ReplicaRequirements* req = &*work.replica_requirements;
  std::vector<int32_t> allocatable = CalAvailableReplicas(estimators, feasible, work.replicas, req);
  const std::string key = BindingKey(work, in);

  // The clusters to weigh, with the replicas each is asked for.
  std::vector<Plan> plans;
  if (!fleetwide) {
    GroupClustersInfo groups = GroupClusters(scored, allocatable, work, in);
    Selection targets = SelectBestClusters(work.placement, groups, /*InvalidReplicas=*/-1);
    if (!targets.ok()) {
      out.skipped = "selecting clusters with capacity ignored failed: " + targets.error;
      return out;
    }
    if (targets.clusters.size() != 1) {
      out.skipped = fmt::format("expected one target cluster, got {}", targets.clusters.size());
      return out;
    }
    const ClusterDetail& target = targets.clusters[0];
    if (claims.HasBlockingClaimOnCluster(target.name, key, work.priority)) {
      out.skipped = fmt::format(
          "cluster {:?} already has an equal-or-higher-priority active preemption claim",
          target.name);
      return out;
    }
    Plan p;
    p.cluster = target.cluster;
    for (const api::Cluster* c : feasible) {
      if (p.cluster == nullptr && in.Str(c->meta.name) == target.name) p.cluster = c;
    }
    p.name = target.name;
    p.available = target.available_replicas;
    p.need = work.replicas;
    plans.push_back(std::move(p));
  } else {
    std::vector<std::string> names;
    for (const api::Cluster* c : feasible) names.emplace_back(in.Str(c->meta.name));
    const std::vector<int32_t> usable = claims.Deduct(names, allocatable, key, work.priority, req);
    const std::optional<PreemptionClaim> own = claims.Get(key);
    const bool spread = !gang->gang && MaySpread(work);
    for (size_t i = 0; i < feasible.size(); ++i) {
      Plan p;
      p.cluster = feasible[i];
      p.name = names[i];
      int32_t held = 0;
      for (const api::TargetCluster& t : work.clusters) {
        if (t.name == feasible[i]->meta.name) held = t.replicas;
      }
      p.available = int64_t{std::max(allocatable[i], 0)} + held;
      int64_t others = 0;
      if (spread) {
        for (size_t k = 0; k < feasible.size(); ++k) {
          if (k != i) others += std::max(usable[k], 0);
        }
      }
      p.need = static_cast<int32_t>(std::max<int64_t>(0, work.replicas - others));
      plans.push_back(std::move(p));
      if (own.has_value() && own->cluster != names[i]) {
        out.considered.push_back({names[i], false,
                                  fmt::format("the preemptor's live claim is on cluster {:?}; one "
                                              "cluster preempts for a work item at a time",
                                              own->cluster)});
        plans.back().cluster = nullptr;
      } else if (claims.HasBlockingClaimOnCluster(names[i], key, work.priority)) {
        out.considered.push_back(
            {names[i], false, "an equal-or-higher-priority active preemption claim"});
        plans.back().cluster = nullptr;
      } else {
        out.considered.push_back({names[i], true, ""});
      }
    }
  }

  // The bindings on each weighed cluster, in input order (the candidate index).
  std::vector<std::vector<const api::FleetWork*>> on_cluster(plans.size());
  absl::flat_hash_map<uint32_t, size_t> plan_of;
  for (size_t i = 0; i < plans.size(); ++i) {
    if (plans[i].cluster != nullptr) plan_of.emplace(plans[i].cluster->meta.name.id(), i);
  }
  for (const api::FleetWork& b : bindings) {
    for (const api::TargetCluster& t : b.clusters) {
      if (auto it = plan_of.find(t.name.id()); it != plan_of.end()) {
        on_cluster[it->second].push_back(&b);
      }
    }
  }
  int best = -1;
  for (size_t i = 0; i < plans.size(); ++i) {
    Plan& p = plans[i];
    if (p.cluster == nullptr) continue;
    if (fleetwide && !options.weigh_every_cluster && best >= 0 && options.simulator == nullptr &&
        p.need > p.available) {
      // Early exit: when the candidates at or below the cheapest cost's highest victim priority
      // cannot cover the deficit, every victim set here holds a higher priority: it cannot win.
      const int32_t ceiling = plans[best].cost.highest_priority;
      if (!LowerPrioritiesCover(on_cluster[i], p.cluster->meta.name, work.priority, ceiling,
                                work.replica_requirements->resource_request,
                                int64_t{p.need} - p.available)) {
        out.considered[i].feasible = false;
        out.considered[i].reason = fmt::format(
            "not weighed: any victim set here holds a priority above {}, the cheapest so far",
            ceiling);
        continue;
      }
    }
    auto planned = PlanVictims(work, gang->gang, on_cluster[i], options, in, p);
    if (!planned.ok()) {
      if (!fleetwide) {
        out.skipped = planned.error().message;
        return out;
      }
      out.considered[i].feasible = false;
      out.considered[i].reason = planned.error().message;
      continue;
    }
    if (fleetwide) {
      ClusterConsidered& c = out.considered[i];
      c.highest_victim_priority = p.cost.highest_priority;
      c.priority_sum = p.cost.priority_sum;
      c.victim_replicas = p.cost.victim_replicas;
      c.victim_bindings = p.victims.size();
    }
    if (best < 0 || CheaperPreemption(p.cost, plans[best].cost)) best = static_cast<int>(i);
  }
  if (best < 0) {
    out.skipped = fmt::format(
        "preemption makes the work item fit on none of {} feasible cluster(s)", plans.size());
    return out;
  }
  Plan& chosen = plans[best];
  out.claim_replicas = fleetwide ? chosen.need : work.replicas;
  claims.Set({key, chosen.name, work.priority, out.claim_replicas, req->resource_request, {}});
  out.preempting = true;
  out.cluster = chosen.name;
  out.claim_priority = work.priority;
  out.simulated = chosen.simulated;
  if (fleetwide) {
    out.considered[best].chosen = true;
    size_t n = 0;
    for (const ClusterConsidered& c : out.considered) n += c.feasible ? 1 : 0;
    out.why = fmt::format(
        "the cheapest of {} cluster(s) where preemption makes it fit, in kube's node-pick order: "
        "highest victim priority {}, priority sum {}, {} evicted replica(s)",
        n, chosen.cost.highest_priority, chosen.cost.priority_sum, chosen.cost.victim_replicas);
  } else {
    out.why = "the only cluster the placement selects when capacity is ignored";
  }
  out.cluster_available = chosen.available;
  out.deficit = static_cast<int32_t>(chosen.need - chosen.available);
  out.victims = std::move(chosen.victims);
  out.reprieved = std::move(chosen.reprieved);
  out.gang_evictions = std::move(chosen.gang);
  const std::string preemptor =
      fmt::format("{}/{}", in.Str(work.meta.namespace_), in.Str(work.meta.name));
  out.condition_message = fmt::format("preemption initiated on cluster {:?} for {} victim(s)",
                                      out.cluster, out.victims.size());
  out.events.push_back(
      fmt::format("Normal PreemptionInitiated: ResourceBinding {} initiated preemption on cluster "
                  "{:?} for {} victim(s)",
                  preemptor, out.cluster, out.victims.size()));
  for (const Victim& v : out.victims) {
    out.events.push_back(
        fmt::format("Warning Preempted: ResourceBinding {} was preempted by higher-priority "
                    "ResourceBinding {} on cluster {:?}",
                    v.name, preemptor, out.cluster));
  }
  for (const GangEviction& g : out.gang_evictions) {
    out.events.push_back(
        fmt::format("Warning Preempted: ResourceBinding {} was preempted by higher-priority "
                    "ResourceBinding {} on cluster {:?} (its gang leaves whole)",
                    g.victim.name, preemptor, g.cluster));
  }
  return out;
}

}  // namespace corral::fleet
