#pragma once
// Karmada's SpreadConstraint filter (pkg/scheduler/framework/plugins/spreadconstraint): spreading
// by provider, region or zone rejects a cluster without that property ("cluster(s) did not have
// provider property", "... region property", "... zones property"); the first constraint that
// fails decides.

#include <string_view>

#include "corral/api/cluster.h"
#include "corral/framework/status.h"

namespace corral::fleet {

class SpreadConstraintFilter {
 public:
  static constexpr std::string_view kName = "SpreadConstraint";
  framework::Status Filter(const api::FleetWork& work, const api::Cluster& cluster) const;
};

}  // namespace corral::fleet
