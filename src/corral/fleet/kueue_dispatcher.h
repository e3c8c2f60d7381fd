#pragma once
// One nomination for one Kueue workload by the composable MultiKueue dispatcher (KEP-8692),
// read-only: the profile's filters in order (ClusterHealth first, the first failure deciding), then
// each score plugin's raw scores over the feasible clusters, normalized (NormalizeScore) and
// multiplied by its weight, summed; the nominated clusters are the best one (top-1) or the best k
// (top-K) by total score, ties broken by cluster name. No feasible cluster gives the same message
// as Karmada's and kube's FitError: "0/N clusters are available: <count> <reason>, ....".
//
// The KEP leaves the tie-break unspecified; Corral orders equal totals by name so that the same
// inputs always nominate the same cluster.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/interner.h"
#include "corral/fleet/estimator.h"

namespace corral::fleet {

struct PluginScore {
  std::string plugin;
  int64_t raw = 0;
  int64_t normalized = 0;
  int64_t weighted = 0;
};

struct NominationVerdict {
  std::string name;
  bool passed = false;
  std::string filter_plugin;
  std::string reason;
  std::vector<PluginScore> scores;
  int64_t total = 0;
  bool nominated = false;
};

struct Nomination {
  std::vector<NominationVerdict> clusters;  // in input order
  std::vector<std::string> nominated;       // best first
  std::string error;
  bool ok() const { return error.empty(); }
};

// `profile` must have passed the loader (known plugin names). `estimators` answer the
// ClusterFeasibility filter (fleet/plugins/cluster_feasibility).
Nomination Nominate(const api::FleetWork& work, std::span<const api::Cluster> clusters,
                    const api::DispatcherProfile& profile, const Interner& interner,
                    std::span<const WorkloadEstimator* const> estimators = {});

// The KEP's default profile: filters ClusterHealth, ClusterAffinity, ClusterTaints; score
// ClusterAffinityScore weight 1; top-1.
api::DispatcherProfile DefaultDispatcherProfile(Interner& interner);

}  // namespace corral::fleet
