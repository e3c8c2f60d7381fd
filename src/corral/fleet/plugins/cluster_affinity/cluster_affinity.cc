#include "corral/fleet/plugins/cluster_affinity/cluster_affinity.h"

#include "corral/fleet/plugins/normalize.h"

namespace corral::fleet {

framework::Status ClusterAffinity::Filter(const api::FleetWork& work,
                                          const api::Cluster& cluster) const {
  const api::Placement& p = work.placement;
  if (p.cluster_affinity) {
    if (api::ClusterMatches(cluster, *p.cluster_affinity, interner_)) return {};
    return framework::Status::Unschedulable(kReason);
  }
  for (const api::ClusterAffinityTerm& term : p.cluster_affinities) {
    if (term.affinity_name != work.scheduler_observed_affinity_name) continue;
    if (api::ClusterMatches(cluster, term.affinity, interner_)) return {};
    if (work.IsWorkload()) {
      for (const api::ClusterAffinityTerm& overflow : term.overflow) {
        if (api::ClusterMatches(cluster, overflow.affinity, interner_)) return {};
      }
    }
    return framework::Status::Unschedulable(kReason);
  }
  return {};
}

int64_t ClusterAffinity::Score(const api::FleetWork&, const api::Cluster&) const {
  return kMinClusterScore;
}

}  // namespace corral::fleet
