#include "corral/fleet/estimator.h"

#include <algorithm>
#include <limits>
#include <map>

#include "corral/api/selectors.h"
#include "corral/api/well_known.h"

#include "fmt/format.h"

namespace corral::fleet {

namespace {

constexpr int64_t kMaxPodsPerNode = 110;  // maxPodsCountPerNode

// a − b, saturating at the int64 range of Value() when the exact result is out of Quantity's range.
api::Quantity SubOrSaturate(const api::Quantity& a, const api::Quantity& b) {
  Result<api::Quantity> r = a.Sub(b);
  if (r.ok()) return *r;
  return api::Quantity::FromInt(a >= b ? std::numeric_limits<int64_t>::max()
                                       : std::numeric_limits<int64_t>::min());
}

int64_t PodsValue(const api::ResourceList& list) {
  const api::Quantity* q = api::FindResource(list, api::wk::kPods);
  return q == nullptr ? 0 : q->Value();
}

// util.Resource as the resource-model simulation keeps it for one synthetic node.
struct NodeCapacity {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t pods = 0;
  std::map<Symbol, int64_t> scalars;
};

void Add(NodeCapacity& r, Symbol name, const api::Quantity& q, const Interner& interner) {
  if (name == api::wk::kCpu) {
    r.milli_cpu += q.MilliValue();
  } else if (name == api::wk::kMemory) {
    r.memory += q.Value();
  } else if (name == api::wk::kPods) {
    r.pods += q.Value();
  } else if (name == api::wk::kEphemeralStorage) {
    r.ephemeral_storage += q.Value();
  } else if (api::IsScalarResourceName(interner.Str(name))) {
    r.scalars[name] += q.Value();
  }
}

// Resource.MaxDivided with a request of one replica (pods ignored in the request, the node's pod
// capacity capping the answer).
int64_t MaxDivided(const NodeCapacity& r, const api::ResourceList& request,
                   const Interner& interner) {
  int64_t res = std::numeric_limits<int64_t>::max();
  for (const auto& [name, q] : request) {
    if (name == api::wk::kCpu) {
      if (int64_t cpu = q.MilliValue(); cpu > 0) res = std::min(res, r.milli_cpu / cpu);
    } else if (name == api::wk::kMemory) {
      if (int64_t mem = q.Value(); mem > 0) res = std::min(res, r.memory / mem);
    } else if (name == api::wk::kEphemeralStorage) {
      if (int64_t es = q.Value(); es > 0) res = std::min(res, r.ephemeral_storage / es);
    } else if (api::IsScalarResourceName(interner.Str(name))) {
      auto it = r.scalars.find(name);
      int64_t have = it == r.scalars.end() ? 0 : it->second;
      if (int64_t s = q.Value(); s > 0) res = std::min(res, have / s);
    }
  }
  return std::min(res, r.pods);
}

}  // namespace

int64_t AllowedPodNumber(const api::ResourceSummary& summary) {
  int64_t allowed =
      PodsValue(summary.allocatable) - PodsValue(summary.allocated) - PodsValue(summary.allocating);
  return allowed <= 0 ? 0 : allowed;
}

namespace {

// One requested resource of a replica as step 4 divides by it: Value() for every resource but cpu,
// MilliValue() for cpu. Resources whose Value() is not positive are left out.
struct Requested {
  Symbol name;
  int64_t per_replica = 0;
  bool cpu = false;
};

std::vector<Requested> RequestedResources(const api::ReplicaRequirements& requirements) {
  std::vector<Requested> out;
  out.reserve(requirements.resource_request.size());
  for (const auto& [name, value] : requirements.resource_request) {
    int64_t requested = value.Value();
    if (requested <= 0) continue;
    const bool cpu = name == api::wk::kCpu;
    out.push_back({name, cpu ? value.MilliValue() : requested, cpu});
  }
  return out;
}

int64_t MaxReplicasBasedOnClusterSummary(const api::ResourceSummary& summary,
                                         std::span<const Requested> requested) {
  int64_t maximum = std::numeric_limits<int64_t>::max();
  for (const Requested& r : requested) {
    const api::Quantity* allocatable = api::FindResource(summary.allocatable, r.name);
    if (allocatable == nullptr) return 0;
    api::Quantity available = *allocatable;
    if (const api::Quantity* q = api::FindResource(summary.allocated, r.name)) {
      available = SubOrSaturate(available, *q);
    }
    if (const api::Quantity* q = api::FindResource(summary.allocating, r.name)) {
      available = SubOrSaturate(available, *q);
    }
    int64_t available_value = available.Value();
    if (available_value <= 0) return 0;
    if (r.cpu) available_value = available.MilliValue();
    maximum = std::min(maximum, available_value / r.per_replica);
  }
  return maximum;
}

}  // namespace

int64_t MaxReplicasBasedOnClusterSummary(const api::ResourceSummary& summary,
                                         const api::ReplicaRequirements& requirements,
                                         const Interner& interner) {
  (void)interner;
  return MaxReplicasBasedOnClusterSummary(summary, RequestedResources(requirements));
}

Result<int64_t> MaxReplicasBasedOnResourceModels(const api::Cluster& cluster,
                                                 const api::ReplicaRequirements& requirements,
                                                 const Interner& interner) {
  if (!cluster.resource_summary) return Error::Invalid("resource summary is nil");
  if (cluster.resource_models.empty()) return Error::Invalid("no resource models defined");
  std::map<uint32_t, NodeCapacity> capacity_by_grade;
  for (const api::ResourceModel& m : cluster.resource_models) {
    // The grade's template: each range's minimum (a repeated name takes the last), then 110 pods.
    std::map<Symbol, api::Quantity> tmpl;
    for (const api::ResourceModelRange& r : m.ranges) tmpl[r.name] = r.min;
    tmpl[api::wk::kPods] = api::Quantity::FromInt(kMaxPodsPerNode);
    NodeCapacity cap;
    for (const auto& [name, q] : tmpl) Add(cap, name, q, interner);
    capacity_by_grade[m.grade] = std::move(cap);
  }
  std::map<uint32_t, int64_t> count_by_grade;
  for (const api::AllocatableModeling& a : cluster.resource_summary->allocatable_modelings) {
    if (a.count < 0)
      return Error::Invalid(fmt::format("negative node count for grade {}", a.grade));
    count_by_grade[a.grade] += a.count;
  }
  // First-fit over grades in ascending order; the upper bound is MaxInt32 as in Karmada.
  int64_t total = 0;
  const int64_t upper = std::numeric_limits<int32_t>::max();
  for (const auto& [grade, cap] : capacity_by_grade) {
    auto it = count_by_grade.find(grade);
    if (it == count_by_grade.end() || it->second == 0) continue;
    int64_t per_node = MaxDivided(cap, requirements.resource_request, interner);
    if (per_node <= 0) continue;
    total = std::min(upper, total + std::min(upper, per_node) * std::min(upper, it->second));
  }
  return total;
}

namespace {

// Steps 1–4 for one cluster, with the request's amounts already taken apart.
int32_t Estimate(const api::Cluster& cluster, const api::ReplicaRequirements* requirements,
                 std::span<const Requested> requested, bool resource_modeling,
                 const Interner& interner) {
  if (!cluster.resource_summary) return 0;
  const api::ResourceSummary& summary = *cluster.resource_summary;
  int64_t maximum = AllowedPodNumber(summary);
  if (maximum <= 0) return 0;
  if (requirements == nullptr) return static_cast<int32_t>(maximum);
  if (resource_modeling && !summary.allocatable_modelings.empty()) {
    Result<int64_t> num = MaxReplicasBasedOnResourceModels(cluster, *requirements, interner);
    if (num.ok()) return static_cast<int32_t>(std::min(maximum, *num));
  }
  int64_t num = MaxReplicasBasedOnClusterSummary(summary, requested);
  return static_cast<int32_t>(std::min(maximum, num));
}

}  // namespace

int32_t GeneralEstimator::MaxAvailableReplicas(const api::Cluster& cluster,
                                               const api::ReplicaRequirements* requirements) const {
  if (requirements == nullptr) return Estimate(cluster, nullptr, {}, resource_modeling_, interner_);
  return Estimate(cluster, requirements, RequestedResources(*requirements), resource_modeling_,
                  interner_);
}

std::vector<int32_t> GeneralEstimator::MaxAvailableReplicas(
    std::span<const api::Cluster* const> clusters,
    const api::ReplicaRequirements* requirements) const {
  // The request's per-replica amounts are the same for every cluster: computed once.
  std::vector<Requested> requested;
  if (requirements != nullptr) requested = RequestedResources(*requirements);
  std::vector<int32_t> out;
  out.reserve(clusters.size());
  for (const api::Cluster* c : clusters)
    out.push_back(Estimate(*c, requirements, requested, resource_modeling_, interner_));
  return out;
}

std::vector<int32_t> CalAvailableReplicas(std::span<const ReplicaEstimator* const> estimators,
                                          std::span<const api::Cluster* const> clusters,
                                          int32_t replicas,
                                          const api::ReplicaRequirements* requirements) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> available(clusters.size(), kMax);
  if (replicas != 0) {
    for (const ReplicaEstimator* e : estimators) {
      std::vector<int32_t> res = e->MaxAvailableReplicas(clusters, requirements);
      for (size_t i = 0; i < available.size() && i < res.size(); ++i) {
        if (res[i] != kUnauthenticReplica) available[i] = std::min(available[i], res[i]);
      }
    }
  }
  for (int32_t& a : available) {
    if (a == kMax) a = replicas;
  }
  return available;
}

std::optional<bool> GeneralEstimator::FitsWhole(const api::Cluster& cluster,
                                                const api::FleetWork& work) const {
  if (!cluster.resource_summary.has_value()) return std::nullopt;
  const api::ReplicaRequirements* r =
      work.replica_requirements.has_value() ? &*work.replica_requirements : nullptr;
  return MaxAvailableReplicas(cluster, r) >= 1;
}

}  // namespace corral::fleet
