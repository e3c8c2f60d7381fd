#include "corral/fleet/plugins/cluster_feasibility/cluster_feasibility.h"

namespace corral::fleet {

framework::Status ClusterFeasibility::Filter(const api::FleetWork& work,
                                             const api::Cluster& cluster) const {
  bool answered = false;
  for (const WorkloadEstimator* e : estimators_) {
    std::optional<bool> fits = e->FitsWhole(cluster, work);
    if (!fits.has_value()) continue;
    if (!*fits) return framework::Status::Unschedulable(kInsufficient);
    answered = true;
  }
  if (!answered) return framework::Status::Unschedulable(kUnknown);
  return {};
}

}  // namespace corral::fleet
