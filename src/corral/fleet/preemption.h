#pragma once
// Karmada's binding preemption, Phase 1 (summary-based), as implementation PR #7832 builds it
// (pkg/scheduler/core/preemption.go, generic_scheduler.go tryPreempt; proposal PR #7327): a
// higher-priority ResourceBinding that fails to schedule for want of capacity picks one cluster,
// chooses lower-priority bindings there whose freed requests cover its deficit, claims the
// capacity (claims.h) and waits with Scheduled=False, Reason=Preempting. Pure and read-only: the
// caller evicts (or, in `corral dispatch`, reports).
//
// The steps of TryPreempt, each a function below:
//   1. Trigger: only FailureKind::kInsufficientCapacity (karmada_scheduler.h).
//   2. Eligibility (CheckEligibility): every rule of isPreemptionApplicable, in its order.
//   3. Cluster choice: the placement's selection re-run with capacity ignored (InvalidReplicas,
//      no claims) must give exactly one cluster; otherwise no preemption.
//   4. No other preemptor's claim of equal or higher priority on that cluster.
//   5. Candidates (ListVictimCandidates) and victims (SelectVictims); infeasible → no preemption,
//      the scheduling error stands.
//   6. The claim is set: {preemptor, cluster, priority, spec.replicas, per-replica request}.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/fleet/claims.h"
#include "corral/fleet/estimator.h"
#include "corral/fleet/karmada_scheduler.h"

namespace corral::fleet {

// ---- Feature gates ---------------------------------------------------------------------------

// Karmada's scheduler gates that bear on priority: PriorityBasedScheduling (beta, on by default)
// orders the queue; PriorityBasedPreemptiveScheduling (alpha, off) enables preemption, which needs
// both (features.PreemptionEnabled).
struct FeatureGates {
  bool priority_based_scheduling = true;
  bool priority_based_preemptive_scheduling = false;
  bool PreemptionEnabled() const {
    return priority_based_scheduling && priority_based_preemptive_scheduling;
  }
};

// Parses `--feature-gates` as Kubernetes components do: "Name=true,Name=false" (spaces around
// items allowed, empty string = defaults). Errors: an unknown gate name ("unrecognized feature
// gate: X"), a value that is not a bool ("invalid value of X=v, err: ..."), an item without '='.
Result<FeatureGates> ParseFeatureGates(std::string_view spec);

// ---- Eligibility -----------------------------------------------------------------------------

// isPreemptionApplicable's rules, in its order; the first that fails is reported.
enum class EligibilityRule {
  kEligible,
  kGatesOff,             // PriorityBasedScheduling and PriorityBasedPreemptiveScheduling
  kNotWorkload,          // IsWorkload: replicas > 0 (or requirements)
  kMultipleComponents,   // len(components) <= 1 (Corral reads no components: always holds)
  kNotResourceBinding,   // a ClusterResourceBinding (or a Kueue workload) never preempts
  kPolicyNotPreempting,  // schedulePriority.preemptionPolicy must be PreemptLowerPriority
  kNoResourceRequest,    // replicaRequirements.resourceRequest must be non-empty
  kNoClusterAffinity,    // placement.clusterAffinity must be set ...
  kClusterAffinities,    // ... and clusterAffinities empty
  kNotAggregated,        // replicaScheduling must be Divided + Aggregated
};

struct Eligibility {
  EligibilityRule rule = EligibilityRule::kEligible;
  std::string_view reason;  // a sentence for the report; empty when eligible
  bool ok() const { return rule == EligibilityRule::kEligible; }
};

Eligibility CheckEligibility(const api::FleetWork& work, const FeatureGates& gates);

// BindingIdentity.Key: "resourcebinding/<ns>/<name>" ("clusterresourcebinding/<name>").
std::string BindingKey(const api::FleetWork& work, const Interner& interner);

// ---- Victims ---------------------------------------------------------------------------------

inline constexpr size_t kMaxVictimCandidates = 1000;  // maxPreemptionVictimCandidates

struct VictimCandidate {
  std::string name;  // "ns/name", the last tie-break
  int32_t priority = 0;
  TimePoint created{};                     // metadata.creationTimestamp (epoch when absent)
  int32_t replicas = 0;                    // assigned to the target cluster
  api::ResourceList request;               // per replica
  const api::FleetWork* source = nullptr;  // the binding, when listed from bindings
};

struct Victim {
  std::string name;
  int32_t replicas = 0;
  int32_t priority = 0;
  bool operator==(const Victim&) const = default;
};

// listPreemptionVictimCandidates over the bindings given (each binding's spec.clusters is its
// current assignment): every binding assigned to `cluster` counts towards the cap (more than
// kMaxVictimCandidates is an error: "too many preemption victim candidates on cluster \"C\": N
// exceeds cap 1000"); a candidate has priority strictly below the preemptor's, no graceful eviction
// from `cluster`, and replicas > 0 there. Input order is kept.
Result<std::vector<VictimCandidate>> ListVictimCandidates(std::span<const api::FleetWork> bindings,
                                                          std::string_view cluster,
                                                          int32_t preemptor_priority,
                                                          const Interner& interner);

// ListVictimCandidates over `on_cluster`, the bindings assigned to `cluster` (in input order), as
// an index gives them.
Result<std::vector<VictimCandidate>> CandidatesOnCluster(
    std::span<const api::FleetWork* const> on_cluster, std::string_view cluster,
    int32_t preemptor_priority, const Interner& interner);

// Amounts of resources in milli-units (cpu millicores, memory milli-bytes, ...), by name.
__extension__ using Int128 = __int128;
using ResourceAmounts = std::vector<std::pair<Symbol, Int128>>;

// The victim importance order: priority descending, then creation time ascending, then name.
bool MoreImportantCandidate(const VictimCandidate& a, const VictimCandidate& b);

// "Remove all, then reprieve", on pipeline/reprieve.h's ReprieveUnits (no candidate violates a
// budget; nothing happens between the passes). REQUIRES: `ordered` sorted by importance
// (SortByImportance), and the sum of every candidate's request × replicas covers `deficit`.
// Visits the candidates most important first and reprieves each whose removal from the freed pool
// still leaves `deficit` covered. Returns, per candidate, whether it stays a victim.
std::vector<bool> RemoveAllThenReprieve(std::span<const VictimCandidate> ordered,
                                        const ResourceAmounts& deficit);

// Sorts most important first with pipeline/reprieve.h's SortByImportance: each candidate ranks as
// a lone unit {priority, start = creation time, discovery order = its position in name order},
// which is MoreImportantCandidate's order.
void SortByImportance(std::vector<VictimCandidate>& candidates);

// selectVictimsByReplicaCount. deficit = preemptor replicas − `cluster_available`; none → no
// victims. The deficit in resources is the preemptor's request × deficit (positive quantities);
// candidates at or above the preemptor's priority, without replicas or without a request are
// ignored. Errors (the PR logs them and does not preempt): "preemptor resource request is empty",
// "candidate resources are not enough to cover deficit resources". Victims in importance order.
Result<std::vector<Victim>> SelectVictims(const api::ResourceList& preemptor_request,
                                          int32_t preemptor_replicas, int32_t preemptor_priority,
                                          std::vector<VictimCandidate> candidates,
                                          int64_t cluster_available);

// SelectVictims over candidates already in importance order (SortByImportance), as
// CandidatesOnCluster lists them: the same victims, without copying or sorting again. Returns, per
// candidate, whether it is a victim (false for one SelectVictims ignores). An empty result with
// no error: no deficit.
Result<std::vector<bool>> SelectVictimsOrdered(const api::ResourceList& preemptor_request,
                                               int32_t preemptor_replicas,
                                               int32_t preemptor_priority,
                                               std::span<const VictimCandidate> ordered,
                                               int64_t cluster_available);

// Whether the bindings of `on_cluster` that would be victim candidates on `cluster` for a
// preemptor of `preemptor_priority` (CandidatesOnCluster's rules) and have a priority at most
// `ceiling` free, all together, `preemptor_request` × `deficit_replicas` (a positive deficit). When
// they do not, every victim set there holds a binding above `ceiling`.
bool LowerPrioritiesCover(std::span<const api::FleetWork* const> on_cluster, Symbol cluster,
                          int32_t preemptor_priority, int32_t ceiling,
                          const api::ResourceList& preemptor_request, int64_t deficit_replicas);

// ---- The attempt -----------------------------------------------------------------------------

// A gang victim (corral.dev/min-member or corral.dev/disruption-mode: All, preemption_fleetwide.h)
// is evicted whole: from the preemption's cluster and from each other cluster it runs on.
struct GangEviction {
  std::string cluster;
  Victim victim;
};

// One cluster the fleet-wide mode weighed: its cost in kube's node-pick terms
// (preemption_fleetwide.h), or why preemption there would not make the work item fit.
struct ClusterConsidered {
  std::string cluster;
  bool feasible = false;
  std::string reason;  // when not feasible
  int32_t highest_victim_priority = 0;
  int64_t priority_sum = 0;  // over evicted replicas, each priority + 2^31 as kube sums pods
  int64_t victim_replicas = 0;
  size_t victim_bindings = 0;
  bool chosen = false;
};

struct PreemptionOutcome {
  bool preempting = false;  // victims chosen, claim set
  std::string skipped;      // why not, when not preempting
  std::string cluster;
  std::string why;             // why that cluster
  int32_t claim_priority = 0;  // the preemptor's priority, as claimed
  int64_t cluster_available = 0;
  int32_t deficit = 0;
  std::vector<Victim> victims;
  std::vector<Victim> reprieved;  // the other candidates, in importance order
  std::string condition_message;  // Scheduled=False, Reason=Preempting: message
  std::vector<std::string> events;
  // Beyond Karmada's Phase 1 (preemption_fleetwide.h); empty or false with its defaults.
  bool simulated = false;      // victims chosen by simulating on the member (Phase 2)
  int32_t claim_replicas = 0;  // the claim's replicas (spec.replicas in Karmada's mode)
  std::vector<GangEviction> gang_evictions;
  std::vector<ClusterConsidered> considered;  // the fleet-wide mode's clusters, in input order
};

// tryPreempt after `failed` with PreemptionOptions' defaults (preemption_fleetwide.h: Karmada's
// single-cluster rule, summary-based victims) (ScheduleBinding's result for `work`). `estimators`
// are the raw ones (no claim deduction), `bindings` every binding whose spec.clusters is its
// current assignment (the preemptor may be among them), `claims` the store to read and set.
PreemptionOutcome TryPreempt(const api::FleetWork& work, const BindingSchedule& failed,
                             std::span<const api::Cluster> clusters,
                             std::span<const ReplicaEstimator* const> estimators,
                             std::span<const api::FleetWork> bindings, ClaimStore& claims,
                             const FeatureGates& gates, const Interner& interner);

}  // namespace corral::fleet
