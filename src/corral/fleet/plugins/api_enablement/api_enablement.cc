#include "corral/fleet/plugins/api_enablement/api_enablement.h"

namespace corral::fleet {

framework::Status ApiEnablement::Filter(const api::FleetWork& work,
                                        const api::Cluster& cluster) const {
  if (work.TargetContains(cluster.meta.name)) return {};
  if (api::ClusterApiEnablement(cluster, work.resource.api_version, work.resource.kind) ==
      api::ApiEnablementStatus::kEnabled) {
    return {};
  }
  return framework::Status::Unschedulable(kReason);
}

}  // namespace corral::fleet
