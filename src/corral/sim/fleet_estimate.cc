#include "corral/sim/fleet_estimate.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "corral/scheduler/estimate.h"
#include "corral/sim/member.h"
#include "corral/sim/world.h"

namespace corral::sim {

namespace {

bool HasHostPort(const std::vector<api::Container>& containers) {
  return std::any_of(containers.begin(), containers.end(), [](const api::Container& c) {
    return std::any_of(c.ports.begin(), c.ports.end(),
                       [](const api::ContainerPort& p) { return p.host_port > 0; });
  });
}

}  // namespace

api::Pod EstimatePod(const api::Pod& tmpl) {
  api::Pod pod = tmpl;
  pod.node_name = Symbol();
  pod.nominated_node_name = Symbol();
  pod.workload_ref.reset();
  pod.scheduling_group.reset();
  pod.phase = api::PodPhase::kPending;
  return pod;
}

std::string EstimatePodProblem(const api::Pod& tmpl) {
  const api::Pod pod = EstimatePod(tmpl);
  if (scheduler::IndependentReplicas(pod)) return "";
  if (HasHostPort(pod.containers) || HasHostPort(pod.init_containers)) return "host ports";
  if (pod.affinity.has_value() &&
      ((pod.affinity->pod_affinity.has_value() && !pod.affinity->pod_affinity->required.empty()) ||
       (pod.affinity->pod_anti_affinity.has_value() &&
        !pod.affinity->pod_anti_affinity->required.empty()))) {
    return "required inter-pod affinity or anti-affinity";
  }
  for (const api::TopologySpreadConstraint& c : pod.topology_spread_constraints) {
    if (c.when_unsatisfiable == api::WhenUnsatisfiable::kDoNotSchedule) {
      return "a DoNotSchedule topology spread constraint";
    }
  }
  return "volumes or resource claims";
}

SimAccurateEstimator::SimAccurateEstimator(World& w, std::function<bool(uint32_t)> reachable)
    : w_(w), reachable_(std::move(reachable)) {
  for (uint32_t i = 0; i < w_.spec.clusters.size(); ++i) {
    member_of_.emplace(w_.in.Intern(w_.spec.clusters[i].name), i);
  }
}

uint32_t SimAccurateEstimator::MemberOf(const api::Cluster& cluster) const {
  auto it = member_of_.find(cluster.meta.name);
  if (it == member_of_.end() || it->second >= w_.members.size()) return UINT32_MAX;
  return it->second;
}

int32_t SimAccurateEstimator::Estimate(uint32_t m, const api::Pod& tmpl) const {
  Member& member = *w_.members[m];
  Memo& memo = memo_[{m, &tmpl}];
  if (memo.epoch == member.epoch()) {
    ++hits_;
    return memo.answer;
  }
  ++computed_;
  auto [it, fresh] = pods_.try_emplace(&tmpl);
  if (fresh) it->second = EstimatePod(tmpl);
  // No cap but the member's own room: the answer weighs dynamic division, as Karmada's does.
  memo.answer =
      member.sched().EstimateIndependentReplicas(it->second, std::numeric_limits<int32_t>::max());
  memo.epoch = member.epoch();
  return memo.answer;
}

std::vector<int32_t> SimAccurateEstimator::MaxAvailableReplicas(
    std::span<const api::Cluster* const> clusters,
    const api::ReplicaRequirements* requirements) const {
  std::vector<int32_t> out;
  out.reserve(clusters.size());
  for (const api::Cluster* c : clusters) {
    const uint32_t m = MemberOf(*c);
    if (m == UINT32_MAX || !reachable_(m) || requirements == nullptr ||
        requirements->pod_template == nullptr) {
      out.push_back(fleet::kUnauthenticReplica);
      continue;
    }
    out.push_back(Estimate(m, *requirements->pod_template));
  }
  return out;
}

std::optional<bool> SimAccurateEstimator::FitsWhole(const api::Cluster& cluster,
                                                    const api::FleetWork& work) const {
  const uint32_t m = MemberOf(cluster);
  if (m == UINT32_MAX || !reachable_(m) || !work.replica_requirements.has_value() ||
      work.replica_requirements->pod_template == nullptr) {
    return std::nullopt;
  }
  return Estimate(m, *work.replica_requirements->pod_template) >= std::max(work.replicas, 1);
}

std::optional<bool> SimGeneralWorkloadEstimator::FitsWhole(const api::Cluster& cluster,
                                                           const api::FleetWork& work) const {
  if (!cluster.resource_summary.has_value()) return std::nullopt;
  const api::ReplicaRequirements* r =
      work.replica_requirements.has_value() ? &*work.replica_requirements : nullptr;
  return general_.MaxAvailableReplicas(cluster, r) >= std::max(work.replicas, 1);
}

std::vector<int32_t> ShadowEstimator::MaxAvailableReplicas(
    std::span<const api::Cluster* const> clusters,
    const api::ReplicaRequirements* requirements) const {
  std::vector<int32_t> answers = inner_.MaxAvailableReplicas(clusters, requirements);
  std::fill(answers.begin(), answers.end(), fleet::kUnauthenticReplica);
  return answers;
}

std::optional<bool> ShadowEstimator::FitsWhole(const api::Cluster& cluster,
                                               const api::FleetWork& work) const {
  (void)inner_.FitsWhole(cluster, work);
  return std::nullopt;
}

FleetEstimators::FleetEstimators(World& w, FleetEstimatorKind kind,
                                 std::function<bool(uint32_t)> reachable)
    : kind_(kind), general_(w.in), general_whole_(general_) {
  if (kind_ != FleetEstimatorKind::kGeneral) {
    accurate_ = std::make_unique<SimAccurateEstimator>(w, std::move(reachable));
  }
  if (kind_ == FleetEstimatorKind::kShadow) shadow_ = std::make_unique<ShadowEstimator>(*accurate_);
}

std::vector<const fleet::ReplicaEstimator*> FleetEstimators::replica() const {
  std::vector<const fleet::ReplicaEstimator*> out = {&general_};
  if (kind_ == FleetEstimatorKind::kAccurate) out.push_back(accurate_.get());
  if (kind_ == FleetEstimatorKind::kShadow) out.push_back(shadow_.get());
  return out;
}

std::vector<const fleet::WorkloadEstimator*> FleetEstimators::workload() const {
  std::vector<const fleet::WorkloadEstimator*> out = {&general_whole_};
  if (kind_ == FleetEstimatorKind::kAccurate) out.push_back(accurate_.get());
  if (kind_ == FleetEstimatorKind::kShadow) out.push_back(shadow_.get());
  return out;
}

}  // namespace corral::sim
