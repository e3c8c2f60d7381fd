#pragma once
// Binding preemption beyond Karmada's Phase 1 (preemption.h): the options TryPreempt takes, whose
// defaults keep Karmada's behaviour exactly.
//
//   - Victim selection by simulation (Phase 2, preemption_phase2.h): with a VictimSimulator, the
//     victims on a cluster it simulates are chosen on the member's real nodes; elsewhere the
//     summary-based selection stands.
//   - Fleet-wide cluster choice (PreemptionMode::kFleetwide): instead of Karmada's rule (the
//     placement re-run with capacity ignored must select exactly one cluster), every cluster that
//     passed the filters is weighed, and the preemption is made where it costs least, in the order
//     kube-scheduler's pickOneNodeForPreemption picks a node: fewest PodDisruptionBudget
//     violations (none at fleet level: Corral models no budget over bindings, every cluster
//     counts 0), lowest highest victim priority, smallest sum of victim priorities (each evicted
//     replica counts priority + 2^31, as kube counts each victim pod), fewest evicted replicas,
//     latest earliest start (creation time) among the highest-priority victims, then cluster name.
//     A Divided binding whose division may spread over several clusters (Aggregated, or Weighted
//     by available replicas, without a cluster spread constraint of at most one group) counts the
//     free replicas of the other feasible clusters (claims deducted) and asks the chosen cluster
//     only for the rest; one that must land on one cluster asks it for all its replicas.
//   - Gangs: a binding annotated corral.dev/min-member (which must equal spec.replicas: all its
//     replicas must run together) is a gang. A gang preemptor asks one cluster for all its replicas
//     and, on a simulated member, for all of them at once. A gang victim, and any binding annotated
//     corral.dev/disruption-mode: All, is evicted whole: from every cluster it runs on, never from
//     one alone; its cost counts every replica evicted.
//   - At most one cluster preempts for any one work item: in the fleet-wide mode, a preemptor that
//     holds a live claim (claims.h) weighs only its claim's cluster until the claim is cleared or
//     expires, so nominations that preempt are serialized by the claims. (Karmada's mode keeps
//     Karmada's rule: a new claim replaces the old one.)

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "corral/api/cluster.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/fleet/preemption.h"
#include "corral/fleet/preemption_phase2.h"

namespace corral::fleet {

enum class PreemptionMode { kKarmada, kFleetwide };

struct PreemptionOptions {
  PreemptionMode mode = PreemptionMode::kKarmada;
  // Phase 2 on the clusters it simulates; null: summary-based everywhere (Karmada's Phase 1).
  const VictimSimulator* simulator = nullptr;
  // The gang check of a gang preemptor whose victims were chosen from summaries: on a cluster it
  // simulates, the preemption stands only when all the gang's replicas fit at once on the member
  // without the victims ("the gang would not fit whole ..." otherwise, and the next cluster is
  // weighed). Null: no check (Phase 2 victims already place a gang whole).
  const VictimSimulator* gang_check = nullptr;
  // The fleet-wide mode's explanation: true weighs every candidate cluster and reports each one's
  // cost (`considered`); false skips a cluster whose summary-based victims cannot beat the cheapest
  // so far (the candidates at or below its highest victim priority cannot cover the deficit), and
  // reports it "not weighed". The choice is the same either way.
  bool weigh_every_cluster = true;
};

// "karmada" | "fleetwide". Errors: anything else.
Result<PreemptionMode> ParsePreemptionMode(std::string_view text);
std::string_view PreemptionModeName(PreemptionMode mode);

inline constexpr std::string_view kMinMemberAnnotation = "corral.dev/min-member";
inline constexpr std::string_view kDisruptionModeAnnotation = "corral.dev/disruption-mode";

// A work item's gang annotations.
struct GangSpec {
  bool gang = false;         // corral.dev/min-member: all replicas run together
  bool evict_whole = false;  // a gang, or corral.dev/disruption-mode: All
};

// Reads the annotations. Errors ("metadata.annotations[corral.dev/min-member]: ..."): a min-member
// that is not an integer equal to spec.replicas, a disruption mode other than All or Single.
Result<GangSpec> ReadGang(const api::FleetWork& work, const Interner& interner);

// One cluster's preemption cost in kube's node-pick terms (see above).
struct PreemptionCost {
  int32_t pdb_violations = 0;
  int32_t highest_priority = std::numeric_limits<int32_t>::min();
  int64_t priority_sum = 0;
  int64_t victim_replicas = 0;
  TimePoint earliest_start_of_highest{};
  std::string cluster;
};

// Counts one victim (`replicas` evicted replicas of a binding created at `created`) into `cost`.
// A cost starts with highest_priority = INT32_MIN.
void AddVictimCost(PreemptionCost& cost, int32_t priority, int32_t replicas, TimePoint created);

// Whether `a` is the cheaper preemption (pickOneNodeForPreemption's order, then cluster name).
bool CheaperPreemption(const PreemptionCost& a, const PreemptionCost& b);

// tryPreempt with options (the 8-argument TryPreempt is this with PreemptionOptions{}).
PreemptionOutcome TryPreempt(const api::FleetWork& work, const BindingSchedule& failed,
                             std::span<const api::Cluster> clusters,
                             std::span<const ReplicaEstimator* const> estimators,
                             std::span<const api::FleetWork> bindings, ClaimStore& claims,
                             const FeatureGates& gates, const Interner& interner,
                             const PreemptionOptions& options);

}  // namespace corral::fleet
