#pragma once
// Karmada's TaintToleration filter (pkg/scheduler/framework/plugins/tainttoleration): a cluster
// that already holds the work passes (the taint manager evicts later); otherwise the first
// NoSchedule or NoExecute taint that placement.clusterTolerations do not tolerate rejects the
// cluster with "cluster(s) had untolerated taint {key=value:effect}" (corev1 Taint.ToString).

#include <string>
#include <string_view>

#include "corral/api/cluster.h"
#include "corral/framework/status.h"

namespace corral::fleet {

// corev1 Taint.ToString: "key=value:effect", "key:effect" without a value.
std::string TaintToString(const api::Taint& taint, const Interner& interner);

class TaintToleration {
 public:
  static constexpr std::string_view kName = "TaintToleration";
  explicit TaintToleration(const Interner& interner) : interner_(interner) {}
  framework::Status Filter(const api::FleetWork& work, const api::Cluster& cluster) const;

 private:
  const Interner& interner_;
};

}  // namespace corral::fleet
