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
  member_counts_.resize(w_.members.size());
  if (w_.spec.fleet == nullptr) return;
  const FleetSpec& f = *w_.spec.fleet;
  for (size_t i = 0; i < f.works.size(); ++i) {
    const api::FleetWork& work = f.works[i];
    if (!work.replica_requirements.has_value() ||
        work.replica_requirements->pod_template == nullptr) {
      continue;
    }
    TemplateInfo& info = info_[work.replica_requirements->pod_template.get()];
    info.replicas = std::max({info.replicas, work.replicas, 1});
    if (i < f.work_topology_key.size()) info.topology_key = f.work_topology_key[i];
  }
}

uint32_t SimAccurateEstimator::MemberOf(const api::Cluster& cluster) const {
  auto it = member_of_.find(cluster.meta.name);
  if (it == member_of_.end() || it->second >= w_.members.size()) return UINT32_MAX;
  return it->second;
}

const SimAccurateEstimator::TemplateInfo& SimAccurateEstimator::InfoOf(const api::Pod& tmpl) const {
  static const TemplateInfo kNoInfo;
  auto it = info_.find(&tmpl);
  return it == info_.end() ? kNoInfo : it->second;
}

const api::Pod& SimAccurateEstimator::PodOf(const api::Pod& tmpl) const {
  auto [it, fresh] = pods_.try_emplace(&tmpl);
  if (fresh) it->second = EstimatePod(tmpl);
  return it->second;
}

void SimAccurateEstimator::Count(uint32_t m, bool answered, bool memoized) const {
  EstimateCounts* per_member = m < member_counts_.size() ? &member_counts_[m] : nullptr;
  for (EstimateCounts* c : {&counts_, per_member}) {
    if (c == nullptr) continue;
    ++c->asked;
    if (!answered) {
      ++c->refused;
    } else if (memoized) {
      ++c->memoized;
    } else {
      ++c->computed;
    }
  }
}

int32_t SimAccurateEstimator::Estimate(uint32_t m, const api::Pod& tmpl, bool& memoized) const {
  Member& member = *w_.members[m];
  Memo& memo = memo_[{m, &tmpl}];
  if (memo.epoch == member.epoch()) {
    memoized = true;
    return memo.answer;
  }
  memoized = false;
  const api::Pod& pod = PodOf(tmpl);
  memo.epoch = member.epoch();
  if (scheduler::IndependentReplicas(pod)) {
    // No cap but the member's own room: the answer weighs dynamic division, as Karmada's does.
    memo.answer =
        member.sched().EstimateIndependentReplicas(pod, std::numeric_limits<int32_t>::max());
    return memo.answer;
  }
  // A trial placement on a copy of the member, bounded by the replicas the work item asks for.
  if (member.trial_options() == nullptr || member.trial_registry() == nullptr) {
    memo.answer = fleet::kUnauthenticReplica;
    return memo.answer;
  }
  const api::ObjectSet objects = member.TrialObjects();
  const scheduler::MemberSource source{&w_.in, &objects, member.trial_options(),
                                       member.trial_registry()};
  auto n = scheduler::EstimateReplicas(member.sched(), source, pod, InfoOf(tmpl).replicas);
  memo.answer = n.ok() ? *n : fleet::kUnauthenticReplica;
  return memo.answer;
}

std::optional<bool> SimAccurateEstimator::FitsInOneDomain(uint32_t m, const api::Pod& tmpl,
                                                          int32_t replicas, Symbol key,
                                                          bool& memoized) const {
  Member& member = *w_.members[m];
  Memo& memo = memo_[{m, &tmpl}];
  if (memo.whole_epoch == member.epoch()) {
    memoized = true;
    return memo.whole < 0 ? std::nullopt : std::optional<bool>(memo.whole == 1);
  }
  memoized = false;
  memo.whole_epoch = member.epoch();
  memo.whole = -1;
  if (member.trial_options() == nullptr || member.trial_registry() == nullptr) return std::nullopt;
  const api::Pod& pod = PodOf(tmpl);
  const api::ObjectSet objects = member.TrialObjects();
  const scheduler::MemberSource source{&w_.in, &objects, member.trial_options(),
                                       member.trial_registry()};
  const scheduler::PodSetRequest set{&pod, replicas};
  auto fits = scheduler::GangFits(member.sched(), source, std::span(&set, 1), key);
  if (!fits.ok()) return std::nullopt;
  memo.whole = *fits ? 1 : 0;
  return *fits;
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
      Count(m, false, false);
      out.push_back(fleet::kUnauthenticReplica);
      continue;
    }
    bool memoized = false;
    const int32_t n = Estimate(m, *requirements->pod_template, memoized);
    Count(m, n != fleet::kUnauthenticReplica, memoized);
    out.push_back(n);
  }
  return out;
}

std::optional<bool> SimAccurateEstimator::FitsWhole(const api::Cluster& cluster,
                                                    const api::FleetWork& work) const {
  const uint32_t m = MemberOf(cluster);
  if (m == UINT32_MAX || !reachable_(m) || !work.replica_requirements.has_value() ||
      work.replica_requirements->pod_template == nullptr) {
    Count(m, false, false);
    return std::nullopt;
  }
  const api::Pod& tmpl = *work.replica_requirements->pod_template;
  const int32_t replicas = std::max(work.replicas, 1);
  bool memoized = false;
  if (const Symbol key = InfoOf(tmpl).topology_key; !key.empty()) {
    std::optional<bool> fits = FitsInOneDomain(m, tmpl, replicas, key, memoized);
    Count(m, fits.has_value(), memoized);
    return fits;
  }
  const int32_t n = Estimate(m, tmpl, memoized);
  Count(m, n != fleet::kUnauthenticReplica, memoized);
  if (n == fleet::kUnauthenticReplica) return std::nullopt;
  return n >= replicas;
}

std::vector<int32_t> SimGeneralReplicaEstimator::MaxAvailableReplicas(
    std::span<const api::Cluster* const> clusters,
    const api::ReplicaRequirements* requirements) const {
  std::vector<int32_t> out = general_->MaxAvailableReplicas(clusters, requirements);
  for (int32_t n : out) {
    ++counts_.asked;
    ++(n == fleet::kUnauthenticReplica ? counts_.refused : counts_.computed);
  }
  return out;
}

std::optional<bool> SimGeneralWorkloadEstimator::FitsWhole(const api::Cluster& cluster,
                                                           const api::FleetWork& work) const {
  ++counts_.asked;
  if (!cluster.resource_summary.has_value()) {
    ++counts_.refused;
    return std::nullopt;
  }
  ++counts_.computed;
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
    : kind_(kind),
      general_(w.in),
      general_counted_(general_, general_counts_),
      general_whole_(general_, general_counts_) {
  if (kind_ != FleetEstimatorKind::kGeneral) {
    accurate_ = std::make_unique<SimAccurateEstimator>(w, std::move(reachable));
  }
  if (kind_ == FleetEstimatorKind::kShadow) shadow_ = std::make_unique<ShadowEstimator>(*accurate_);
}

std::vector<const fleet::ReplicaEstimator*> FleetEstimators::replica() const {
  std::vector<const fleet::ReplicaEstimator*> out = {&general_counted_};
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
