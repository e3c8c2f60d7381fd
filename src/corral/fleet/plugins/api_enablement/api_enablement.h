#pragma once
// Karmada's APIEnablement filter (pkg/scheduler/framework/plugins/apienablement): a cluster that
// already holds the work passes; otherwise the cluster must report the resource's group/version
// and kind among its API enablements, else "cluster(s) did not have the API resource".

#include <string_view>

#include "corral/api/cluster.h"
#include "corral/framework/status.h"

namespace corral::fleet {

class ApiEnablement {
 public:
  static constexpr std::string_view kName = "APIEnablement";
  static constexpr std::string_view kReason = "cluster(s) did not have the API resource";
  framework::Status Filter(const api::FleetWork& work, const api::Cluster& cluster) const;
};

}  // namespace corral::fleet
