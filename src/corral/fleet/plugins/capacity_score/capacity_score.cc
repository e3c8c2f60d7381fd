#include "corral/fleet/plugins/capacity_score/capacity_score.h"

#include "corral/api/well_known.h"

namespace corral::fleet {

namespace {

// cpu in millicores, every other resource in units (kube's framework.Resource).
int64_t Amount(const api::ResourceList& list, Symbol name) {
  const api::Quantity* q = api::FindResource(list, name);
  if (q == nullptr) return 0;
  return name == api::wk::kCpu ? q->MilliValue() : q->Value();
}

}  // namespace

int64_t CapacityScore::Score(const api::FleetWork& work, const api::Cluster& cluster) const {
  if (!cluster.resource_summary.has_value() || !work.replica_requirements.has_value()) return 0;
  const api::ResourceSummary& s = *cluster.resource_summary;
  int64_t sum = 0;
  int64_t count = 0;
  for (const auto& [name, quantity] : work.replica_requirements->resource_request) {
    const int64_t request = name == api::wk::kCpu ? quantity.MilliValue() : quantity.Value();
    if (request <= 0) continue;
    const int64_t allocatable = Amount(s.allocatable, name);
    if (allocatable <= 0) continue;
    const int64_t free =
        allocatable - Amount(s.allocated, name) - Amount(s.allocating, name) - request;
    sum += free < 0 ? 0 : free * 100 / allocatable;
    ++count;
  }
  return count == 0 ? 0 : sum / count;
}

}  // namespace corral::fleet
