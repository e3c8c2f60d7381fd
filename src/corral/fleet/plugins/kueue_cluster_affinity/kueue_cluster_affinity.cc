#include "corral/fleet/plugins/kueue_cluster_affinity/kueue_cluster_affinity.h"

#include <algorithm>

#include "corral/api/selectors.h"
#include "corral/fleet/plugins/normalize.h"

namespace corral::fleet {

framework::Status KueueClusterAffinity::Filter(const api::FleetWork& work,
                                               const api::Cluster& cluster) const {
  if (!api::MatchesLabels(work.cluster_selector, cluster.meta.labels)) {
    return framework::Status::Unschedulable(kReason);
  }
  if (work.kueue_cluster_affinity && work.kueue_cluster_affinity->required) {
    const auto& terms = *work.kueue_cluster_affinity->required;
    bool any = std::any_of(terms.begin(), terms.end(), [&](const api::LabelSelector& t) {
      return api::Matches(t, cluster.meta.labels);
    });
    if (!any) return framework::Status::Unschedulable(kReason);
  }
  return {};
}

int64_t KueueClusterAffinityScore::Score(const api::FleetWork& work,
                                         const api::Cluster& cluster) const {
  if (!work.kueue_cluster_affinity) return 0;
  int64_t sum = 0;
  for (const api::PreferredClusterTerm& t : work.kueue_cluster_affinity->preferred) {
    if (api::Matches(t.preference, cluster.meta.labels)) sum += t.weight;
  }
  return sum;
}

void KueueClusterAffinityScore::NormalizeScore(std::span<int64_t> scores) const {
  DefaultNormalizeScore(kMaxClusterScore, false, scores);
}

}  // namespace corral::fleet
