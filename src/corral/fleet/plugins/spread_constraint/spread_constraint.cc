#include "corral/fleet/plugins/spread_constraint/spread_constraint.h"

namespace corral::fleet {

framework::Status SpreadConstraintFilter::Filter(const api::FleetWork& work,
                                                 const api::Cluster& cluster) const {
  for (const api::SpreadConstraint& c : work.placement.spread_constraints) {
    if (c.spread_by_field == api::SpreadByField::kProvider && cluster.provider.empty()) {
      return framework::Status::Unschedulable("cluster(s) did not have provider property");
    }
    if (c.spread_by_field == api::SpreadByField::kRegion && cluster.region.empty()) {
      return framework::Status::Unschedulable("cluster(s) did not have region property");
    }
    if (c.spread_by_field == api::SpreadByField::kZone && cluster.zones.empty()) {
      return framework::Status::Unschedulable("cluster(s) did not have zones property");
    }
  }
  return {};
}

}  // namespace corral::fleet
