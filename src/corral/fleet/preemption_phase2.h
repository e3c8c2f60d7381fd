#pragma once
// Phase 2 of Karmada's binding preemption (proposal PR #7327, "Estimator-Based Preemption"): the
// victims on a cluster are chosen by simulating on the member's real nodes instead of comparing
// resource summaries. The scheduler side owns the policy (who is a candidate, in which order); the
// member side owns feasibility, here a VictimSimulator that `app/` implements over the member's
// own scheduler (scheduler/estimate.h), as it implements the accurate estimator. `fleet/` never
// includes `scheduler/`.
//
// The algorithm is kube's SelectVictimsOnNode, lifted to bindings: remove every candidate's pods;
// if the preemptor's replicas do not fit even then, the cluster is infeasible (the simulator's
// "feasible: false" is trusted, there is no fallback to the summary); otherwise add the candidates
// back most important first, each kept (reprieved) when the preemptor still fits with it back, and
// the candidates not reprieved are the victims. When fitting only gets easier as more pods leave,
// the victim set is minimal: without any one victim the preemptor does not fit.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/result.h"

namespace corral::fleet {

// The member side of Phase 2. An implementation answers for the clusters it can simulate (a member
// given with its nodes and pods, whose pods name their binding); for any other cluster, and for a
// cluster where some candidate's pods cannot be identified, Simulates is false and the
// summary-based Phase 1 decides (the proposal's fallback when candidates lack the pod label).
class VictimSimulator {
 public:
  virtual ~VictimSimulator() = default;

  // Whether this cluster is simulated for these candidates (each must own pods there).
  virtual bool Simulates(const api::Cluster& cluster,
                         std::span<const api::FleetWork* const> candidates) const = 0;

  // Whether `replicas` copies of `preemptor` fit on `cluster` all at once once every pod of the
  // `removed` bindings is gone from it. Errors: the member's copy cannot be built.
  virtual Result<bool> FitsWithout(const api::Cluster& cluster, const api::FleetWork& preemptor,
                                   int32_t replicas,
                                   std::span<const api::FleetWork* const> removed) const = 0;
};

// The Phase 2 selection over `ordered` (most important first). Returns, per candidate, whether it
// is a victim. Errors: the preemptor does not fit with every candidate removed ("preemptor does
// not fit on cluster \"C\" even with every candidate's pods removed"), or the simulator's error.
Result<std::vector<bool>> SelectVictimsBySimulation(const VictimSimulator& simulator,
                                                    const api::Cluster& cluster,
                                                    const api::FleetWork& preemptor,
                                                    int32_t replicas,
                                                    std::span<const api::FleetWork* const> ordered,
                                                    std::string_view cluster_name);

}  // namespace corral::fleet
