#include "corral/fleet/kueue_dispatcher.h"

#include <algorithm>
#include <map>

#include "corral/fleet/plugins/capacity_score/capacity_score.h"
#include "corral/fleet/plugins/cluster_feasibility/cluster_feasibility.h"
#include "corral/fleet/plugins/cluster_health/cluster_health.h"
#include "corral/fleet/plugins/kueue_cluster_affinity/kueue_cluster_affinity.h"
#include "corral/fleet/plugins/kueue_cluster_taint/kueue_cluster_taint.h"

#include "fmt/format.h"

namespace corral::fleet {

api::DispatcherProfile DefaultDispatcherProfile(Interner& interner) {
  api::DispatcherProfile p;
  p.meta.name = interner.Intern("default");
  p.filters = {interner.Intern("ClusterHealth"), interner.Intern("ClusterAffinity"),
               interner.Intern("ClusterTaints")};
  p.scores = {{interner.Intern("ClusterAffinityScore"), 1}};
  return p;
}

Nomination Nominate(const api::FleetWork& work, std::span<const api::Cluster> clusters,
                    const api::DispatcherProfile& profile, const Interner& interner,
                    std::span<const WorkloadEstimator* const> estimators) {
  Nomination out;
  const ClusterHealth health;
  const ClusterFeasibility feasibility(estimators);
  const KueueClusterAffinity affinity;
  const KueueClusterTaints taints;
  std::map<std::string, int> histogram;
  std::vector<size_t> feasible;
  for (size_t i = 0; i < clusters.size(); ++i) {
    const api::Cluster& c = clusters[i];
    NominationVerdict v;
    v.name = std::string(interner.Str(c.meta.name));
    v.passed = true;
    for (Symbol f : profile.filters) {
      std::string_view name = interner.Str(f);
      framework::Status s;
      if (name == ClusterHealth::kName) {
        s = health.Filter(work, c);
      } else if (name == KueueClusterAffinity::kName) {
        s = affinity.Filter(work, c);
      } else if (name == KueueClusterTaints::kName) {
        s = taints.Filter(work, c);
      } else if (name == ClusterFeasibility::kName) {
        s = feasibility.Filter(work, c);
      }
      if (s.ok()) continue;
      v.passed = false;
      v.filter_plugin = std::string(name);
      v.reason = s.Message();
      for (std::string_view r : s.reasons()) histogram[std::string(r)]++;
      break;
    }
    if (v.passed) feasible.push_back(i);
    out.clusters.push_back(std::move(v));
  }
  if (feasible.empty()) {
    std::string reasons = "no cluster exists";
    if (!histogram.empty()) {
      std::vector<std::string> parts;
      for (const auto& [reason, n] : histogram) parts.push_back(fmt::format("{} {}", n, reason));
      std::sort(parts.begin(), parts.end());
      reasons = fmt::format("{}", fmt::join(parts, ", "));
    }
    out.error = fmt::format("0/{} clusters are available: {}.", clusters.size(), reasons);
    return out;
  }
  for (const auto& [plugin, weight] : profile.scores) {
    std::string_view name = interner.Str(plugin);
    std::vector<int64_t> raw;
    for (size_t i : feasible) {
      if (name == KueueClusterAffinityScore::kName) {
        raw.push_back(KueueClusterAffinityScore().Score(work, clusters[i]));
      } else if (name == CapacityScore::kName) {
        raw.push_back(CapacityScore().Score(work, clusters[i]));
      } else {
        raw.push_back(KueueClusterTaintScore().Score(work, clusters[i]));
      }
    }
    std::vector<int64_t> normalized = raw;
    if (name == KueueClusterAffinityScore::kName) {
      KueueClusterAffinityScore().NormalizeScore(normalized);
    } else if (name == CapacityScore::kName) {
      CapacityScore().NormalizeScore(normalized);
    } else {
      KueueClusterTaintScore().NormalizeScore(normalized);
    }
    for (size_t k = 0; k < feasible.size(); ++k) {
      NominationVerdict& v = out.clusters[feasible[k]];
      v.scores.push_back({std::string(name), raw[k], normalized[k], normalized[k] * weight});
      v.total += normalized[k] * weight;
    }
  }
  std::vector<size_t> order = feasible;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (out.clusters[a].total != out.clusters[b].total) {
      return out.clusters[a].total > out.clusters[b].total;
    }
    return out.clusters[a].name < out.clusters[b].name;
  });
  size_t k = profile.nomination == api::NominationMode::kTopK
                 ? static_cast<size_t>(std::max(1, profile.top_k))
                 : 1;
  for (size_t i = 0; i < order.size() && i < k; ++i) {
    out.clusters[order[i]].nominated = true;
    out.nominated.push_back(out.clusters[order[i]].name);
  }
  return out;
}

}  // namespace corral::fleet
