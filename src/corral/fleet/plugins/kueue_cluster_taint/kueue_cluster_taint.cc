#include "corral/fleet/plugins/kueue_cluster_taint/kueue_cluster_taint.h"

#include "corral/api/selectors.h"
#include "corral/fleet/plugins/normalize.h"

namespace corral::fleet {

framework::Status KueueClusterTaints::Filter(const api::FleetWork& work,
                                             const api::Cluster& cluster) const {
  if (api::FindUntoleratedTaint(cluster.taints, work.placement.cluster_tolerations,
                                {api::TaintEffect::kNoSchedule}) != nullptr) {
    return framework::Status::Unschedulable(kReason);
  }
  return {};
}

int64_t KueueClusterTaintScore::Score(const api::FleetWork& work,
                                      const api::Cluster& cluster) const {
  int64_t count = 0;
  for (const api::Taint& t : cluster.taints) {
    if (t.effect != api::TaintEffect::kPreferNoSchedule) continue;
    if (!api::TolerationsTolerateTaint(work.placement.cluster_tolerations, t)) ++count;
  }
  return count;
}

void KueueClusterTaintScore::NormalizeScore(std::span<int64_t> scores) const {
  DefaultNormalizeScore(kMaxClusterScore, true, scores);
}

}  // namespace corral::fleet
