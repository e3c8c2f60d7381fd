#include "corral/fleet/karmada_scheduler.h"

#include <algorithm>
#include <map>
#include <utility>

#include "corral/fleet/division.h"
#include "corral/fleet/plugins/api_enablement/api_enablement.h"
#include "corral/fleet/plugins/cluster_affinity/cluster_affinity.h"
#include "corral/fleet/plugins/cluster_eviction/cluster_eviction.h"
#include "corral/fleet/plugins/cluster_locality/cluster_locality.h"
#include "corral/fleet/plugins/spread_constraint/spread_constraint.h"
#include "corral/fleet/plugins/taint_toleration/taint_toleration.h"
#include "corral/fleet/selection.h"

#include "fmt/format.h"

namespace corral::fleet {

namespace {

// util.RescheduleRequired.
bool RescheduleRequired(const api::FleetWork& w) {
  return w.reschedule_triggered_at && w.last_scheduled_time &&
         *w.reschedule_triggered_at > *w.last_scheduled_time;
}

// enableOverflow: the observed clusterAffinities term has overflow affinities.
bool EnableOverflow(const api::FleetWork& w) {
  const api::Placement& p = w.placement;
  if (p.cluster_affinity || p.cluster_affinities.empty() ||
      w.scheduler_observed_affinity_name.empty()) {
    return false;
  }
  return std::any_of(p.cluster_affinities.begin(), p.cluster_affinities.end(),
                     [&](const api::ClusterAffinityTerm& t) {
                       return t.affinity_name == w.scheduler_observed_affinity_name &&
                              !t.overflow.empty();
                     });
}

BindingSchedule Attempt(const api::FleetWork& work, std::span<const api::Cluster> clusters,
                        std::span<const ReplicaEstimator* const> estimators,
                        const Interner& interner) {
  BindingSchedule out;
  const ApiEnablement api_enablement;
  const TaintToleration taints(interner);
  const ClusterAffinity affinity(interner);
  const SpreadConstraintFilter spread;
  const ClusterEviction eviction;
  const ClusterLocality locality;

  out.clusters.reserve(clusters.size());
  std::vector<const api::Cluster*> feasible;
  std::vector<size_t> feasible_index;
  feasible.reserve(clusters.size());
  feasible_index.reserve(clusters.size());
  std::map<std::string, int> histogram;
  size_t diagnosed = 0;
  for (size_t i = 0; i < clusters.size(); ++i) {
    const api::Cluster& c = clusters[i];
    // One verdict per cluster, in input order (reserved above, so the reference stays valid).
    ClusterVerdict& v = out.clusters.emplace_back();
    v.name = interner.Str(c.meta.name);
    if (c.meta.deletion_timestamp) {
      v.deleting = true;
      continue;
    }
    struct Step {
      std::string_view name;
      framework::Status status;
    };
    const Step steps[] = {
        {ApiEnablement::kName, api_enablement.Filter(work, c)},
        {TaintToleration::kName, taints.Filter(work, c)},
        {ClusterAffinity::kName, affinity.Filter(work, c)},
        {SpreadConstraintFilter::kName, spread.Filter(work, c)},
        {ClusterEviction::kName, eviction.Filter(work, c)},
    };
    v.passed = true;
    for (const Step& s : steps) {
      if (s.status.ok()) continue;
      v.passed = false;
      v.filter_plugin = std::string(s.name);
      v.reason = s.status.Message();
      for (std::string_view r : s.status.reasons()) histogram[std::string(r)]++;
      ++diagnosed;
      break;
    }
    if (v.passed) {
      v.affinity_score = affinity.Score(work, c);
      v.locality_score = locality.Score(work, c);
      v.score = v.affinity_score + v.locality_score;
      feasible.push_back(&c);
      feasible_index.push_back(i);
    }
  }
  if (feasible.empty()) {
    std::string reasons = "no cluster exists";
    if (!clusters.empty() && diagnosed > 0) {
      std::vector<std::string> parts;
      for (const auto& [reason, n] : histogram) parts.push_back(fmt::format("{} {}", n, reason));
      std::sort(parts.begin(), parts.end());
      reasons = fmt::format("{}", fmt::join(parts, ", "));
    }
    out.error = fmt::format("0/{} clusters are available: {}.", clusters.size(), reasons);
    out.failure = FailureKind::kNoFeasibleCluster;
    return out;
  }

  const api::ReplicaRequirements* req =
      work.replica_requirements ? &*work.replica_requirements : nullptr;
  std::vector<int32_t> allocatable = CalAvailableReplicas(estimators, feasible, work.replicas, req);
  std::vector<ScoredCluster> scored;
  scored.reserve(feasible.size());
  for (size_t k = 0; k < feasible.size(); ++k) {
    scored.push_back({feasible[k], out.clusters[feasible_index[k]].score});
  }
  GroupClustersInfo groups = GroupClusters(scored, allocatable, work, interner);
  // out.clusters holds one verdict per input cluster, in input order.
  auto verdict_of = [&](const ClusterDetail& d) -> ClusterVerdict* {
    if (d.cluster != nullptr) {
      return &out.clusters[static_cast<size_t>(d.cluster - clusters.data())];
    }
    for (ClusterVerdict& v : out.clusters) {
      if (v.name == d.name) return &v;
    }
    return nullptr;
  };
  for (const ClusterDetail& d : groups.clusters) {
    if (ClusterVerdict* v = verdict_of(d)) {
      v->allocatable_replicas = d.allocatable_replicas;
      v->available_replicas = d.available_replicas;
    }
  }
  Selection selection = SelectBestClusters(work.placement, std::move(groups), work.replicas);
  if (!selection.ok()) {
    out.error = "failed to select clusters: " + selection.error;
    // The one selection error Karmada types as UnschedulableError.
    out.failure = selection.error.starts_with("no enough resource")
                      ? FailureKind::kInsufficientCapacity
                      : FailureKind::kConstraint;
    return out;
  }
  for (const ClusterDetail& d : selection.clusters) {
    if (ClusterVerdict* v = verdict_of(d)) v->selected = true;
  }
  DivisionRequest request;
  request.replicas = work.replicas;
  for (const api::TargetCluster& t : work.clusters) {
    request.previous.push_back({std::string(interner.Str(t.name)), t.replicas});
  }
  request.uid = std::string(interner.Str(work.resource.uid));
  request.mode = RescheduleRequired(work) ? AssignmentMode::kFresh : AssignmentMode::kSteady;
  Division division =
      AssignReplicas(selection.clusters, work.placement, work.replica_requirements.has_value(),
                     EnableOverflow(work), request, interner);
  if (!division.ok()) {
    out.error = "failed to assign replicas: " + division.error;
    out.failure =
        division.unschedulable ? FailureKind::kInsufficientCapacity : FailureKind::kConstraint;
    return out;
  }
  out.result = std::move(division.clusters);
  return out;
}

}  // namespace

BindingSchedule ScheduleBinding(const api::FleetWork& work, std::span<const api::Cluster> clusters,
                                std::span<const ReplicaEstimator* const> estimators,
                                const Interner& interner) {
  const auto& terms = work.placement.cluster_affinities;
  if (terms.empty()) return Attempt(work, clusters, estimators, interner);
  size_t index = 0;  // getAffinityIndex
  if (!RescheduleRequired(work)) {
    for (size_t i = 0; i < terms.size(); ++i) {
      if (terms[i].affinity_name == work.scheduler_observed_affinity_name) index = i;
    }
  }
  std::optional<BindingSchedule> first;
  for (; index < terms.size(); ++index) {
    api::FleetWork attempt = work;
    attempt.scheduler_observed_affinity_name = terms[index].affinity_name;
    BindingSchedule s = Attempt(attempt, clusters, estimators, interner);
    s.affinity_name = std::string(interner.Str(terms[index].affinity_name));
    if (s.ok()) return s;
    if (!first) first = std::move(s);
  }
  return std::move(*first);
}

}  // namespace corral::fleet
