#pragma once
// FleetPreemption: Karmada's binding preemption carried out over the virtual clock of a simulation
// (fleet/preemption.h decides; this keeps the claims and the story). The fleet lane (fleet_lane.h)
// owns one when the scenario's fleet gates enable preemption, and drives it:
//
//   - Before each scheduling attempt the requester is set (BeforeAttempt), so that the estimator
//     the dispatch loop consults (estimator()) answers the general estimator's replicas less the
//     claims that requester must respect (fleet::ClaimDeductingEstimator): a claim hides its
//     capacity from bindings of equal or lower priority, never from its owner.
//   - A Karmada attempt that failed for want of capacity calls Try: an eligible binding runs
//     fleet::TryPreempt on the raw estimator's answers; when it chose victims the claim is set
//     (the store replaces the preemptor's earlier claim and other preemptors' lower ones on that
//     cluster) and a FleetPreemptionResult is opened. The lane then evicts the victims.
//   - A claim ends when its preemptor is scheduled (Scheduled), deleted (Deleted), when an
//     eviction fails (EvictionFailed), when it expires (kClaimTtl after its set, on the virtual
//     clock) or when another claim replaces it; Sweep notices the last two.
//
// Contract: every decision reads the injected clock (the world's virtual clock); records are kept
// in the order the preemptions happened, so the outputs are deterministic.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/fleet/claims.h"
#include "corral/fleet/estimator.h"
#include "corral/fleet/karmada_scheduler.h"
#include "corral/fleet/preemption.h"
#include "corral/fleet/preemption_fleetwide.h"
#include "corral/sim/fleet_spec.h"

namespace corral::sim {

// The general estimator's answers less the claims the current requester must respect.
class RequesterEstimator final : public fleet::ReplicaEstimator {
 public:
  RequesterEstimator(const fleet::ReplicaEstimator& inner, fleet::ClaimStore& claims,
                     const Interner& interner)
      : inner_(inner), claims_(claims), in_(interner) {}
  void SetRequester(std::string key, int32_t priority) {
    key_ = std::move(key);
    priority_ = priority;
  }
  std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const override;

 private:
  const fleet::ReplicaEstimator& inner_;
  fleet::ClaimStore& claims_;
  const Interner& in_;
  std::string key_;
  int32_t priority_ = 0;
};

class FleetPreemption {
 public:
  // `clock` reads the virtual clock (`start` is its time 0); `raw` is the general estimator. Each
  // must outlive this, as must `interner` and the simulators `options` points to. `options` choose
  // the cluster (Karmada's rule or fleet-wide) and the victims (summaries or Phase 2).
  FleetPreemption(const Clock& clock, TimePoint start, const fleet::FeatureGates& gates,
                  const fleet::ReplicaEstimator& raw, const Interner& interner,
                  const fleet::PreemptionOptions& options = {});

  const fleet::ReplicaEstimator& estimator() const { return requester_; }
  void BeforeAttempt(const api::FleetWork& work);

  // tryPreempt for `work` (named `name` in the outputs) after `failed`. nullopt when it did not
  // preempt (not eligible: no attempt counted); otherwise the outcome, and when it preempts the
  // index of the opened record (record()).
  struct Attempt {
    fleet::PreemptionOutcome outcome;
    size_t record = SIZE_MAX;
  };
  std::optional<Attempt> Try(const api::FleetWork& work, std::string_view name,
                             const fleet::BindingSchedule& failed,
                             std::span<const api::Cluster> clusters,
                             std::span<const api::FleetWork> bindings, int64_t now_ns);

  FleetPreemptionResult& record(size_t i) { return records_[i]; }
  // Live claims (tests and properties).
  std::vector<fleet::PreemptionClaim> claims() { return claims_.List(); }
  // The first victim whose eviction failed: the claim is cleared, the attempt counted as
  // eviction_failed instead of preempting.
  void EvictionFailed(size_t record, const std::string& key, std::string message, int64_t now_ns);
  void Scheduled(const std::string& key, int64_t now_ns) { Close(key, "scheduled", now_ns); }
  void Deleted(const std::string& key, int64_t now_ns) { Close(key, "deleted", now_ns); }
  // Closes the records whose claims expired or were replaced.
  void Sweep(int64_t now_ns);
  // The earliest expiry of an open claim (INT64_MAX: none).
  int64_t NextExpiry() const;
  void VictimEvicted() { ++victims_; }
  // Copies the records and counters into `out`; `end_ns` is the end of the run.
  void Fill(FleetResult& out, int64_t end_ns) const;

 private:
  void Close(const std::string& key, std::string_view how, int64_t now_ns);
  void Count(std::string_view result);
  int64_t Ns(TimePoint t) const { return (t - start_).count(); }

  const Clock& clock_;
  TimePoint start_;
  fleet::FeatureGates gates_;
  fleet::PreemptionOptions options_;
  const fleet::ReplicaEstimator& raw_;
  const Interner& in_;
  fleet::ClaimStore claims_;
  RequesterEstimator requester_;
  std::vector<FleetPreemptionResult> records_;
  std::map<std::string, size_t> open_;  // binding key → its open record
  std::vector<std::pair<std::string, int64_t>> attempts_;
  int64_t victims_ = 0;
};

}  // namespace corral::sim
