#pragma once
// Preemption claims: the in-memory reservations Karmada's scheduler keeps while a preemptor waits
// for its victims to leave (binding preemption, PR #7832 pkg/scheduler/core/preemption_claims.go).
//
// Contract:
//   - One claim per preemptor, keyed by the binding ("resourcebinding/ns/name"). Set replaces the
//     preemptor's earlier claim (migration to another cluster) and drops other preemptors' claims
//     of strictly lower priority on the same cluster.
//   - A claim lives kClaimTtl (10 minutes) from its Set on the injected clock; a claim whose expiry
//     is not after now is gone (every read sweeps first).
//   - Clear removes a claim: the preemptor scheduled, was deleted, or eviction of a victim failed.
//   - Blocking: another preemptor's claim on a cluster with priority ≥ the requester's stops the
//     requester from preempting there (a lower one does not; the requester's own never does).
//   - Deduction: a requester of priority ≤ a claim's sees that cluster's available replicas reduced
//     by the claim, converted to its own replicas: for each resource both request, ⌈claimed
//     quantity × claim replicas / requester's quantity⌉ in milli-units, the maximum over resources;
//     the claim's raw replicas when either side requests nothing. The owner is never reduced by its
//     own claim. Results are clamped at 0; kUnauthenticReplica answers are left alone.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/fleet/estimator.h"

namespace corral::fleet {

inline constexpr Duration kClaimTtl = std::chrono::minutes(10);

struct PreemptionClaim {
  std::string binding;  // the preemptor's key
  std::string cluster;
  int32_t priority = 0;
  int32_t replicas = 0;             // the preemptor's spec.replicas
  api::ResourceList resource_need;  // per replica; may be empty
  TimePoint expiry{};               // set by Set
};

class ClaimStore {
 public:
  // `clock` must outlive the store.
  explicit ClaimStore(const Clock& clock, Duration ttl = kClaimTtl) : clock_(clock), ttl_(ttl) {}

  void Set(PreemptionClaim claim);
  std::optional<PreemptionClaim> Get(const std::string& binding);
  void Clear(const std::string& binding);
  bool HasClaimOnCluster(const std::string& cluster);
  bool HasBlockingClaimOnCluster(const std::string& cluster, const std::string& requester,
                                 int32_t requester_priority);
  // Live claims, by binding key.
  std::vector<PreemptionClaim> List();

  // withClaimDeductions: `available[i]` is the estimators' answer for `clusters[i]`; returns the
  // answers reduced by the claims the requester must respect (see the contract above).
  std::vector<int32_t> Deduct(std::span<const std::string> clusters,
                              std::span<const int32_t> available, const std::string& requester,
                              int32_t requester_priority,
                              const api::ReplicaRequirements* requester_requirements);

 private:
  void Sweep();

  const Clock& clock_;
  Duration ttl_;
  std::map<std::string, PreemptionClaim> claims_;
};

// claimReplicaDeduction: one claim in the requester's replicas (see the contract above).
int32_t ClaimReplicaDeduction(const PreemptionClaim& claim,
                              const api::ReplicaRequirements* requester_requirements);

// An estimator whose answers the claim store has reduced for one requester: the general
// estimator's available replicas less claim deduction. Each of `inner`, `claims` and `interner`
// must outlive it.
class ClaimDeductingEstimator final : public ReplicaEstimator {
 public:
  ClaimDeductingEstimator(const ReplicaEstimator& inner, ClaimStore& claims, std::string requester,
                          int32_t requester_priority, const Interner& interner)
      : inner_(inner),
        claims_(claims),
        requester_(std::move(requester)),
        priority_(requester_priority),
        interner_(interner) {}

  std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const override;

 private:
  const ReplicaEstimator& inner_;
  ClaimStore& claims_;
  std::string requester_;
  int32_t priority_;
  const Interner& interner_;
};

}  // namespace corral::fleet
