#include "corral/sim/fleet_preemption.h"

#include <algorithm>
#include <climits>

namespace corral::sim {

std::vector<int32_t> RequesterEstimator::MaxAvailableReplicas(
    std::span<const api::Cluster* const> clusters,
    const api::ReplicaRequirements* requirements) const {
  const fleet::ClaimDeductingEstimator deducting(inner_, claims_, key_, priority_, in_);
  return deducting.MaxAvailableReplicas(clusters, requirements);
}

FleetPreemption::FleetPreemption(const Clock& clock, TimePoint start,
                                 const fleet::FeatureGates& gates,
                                 const fleet::ReplicaEstimator& raw, const Interner& interner,
                                 const fleet::PreemptionOptions& options)
    : clock_(clock),
      start_(start),
      gates_(gates),
      options_(options),
      raw_(raw),
      in_(interner),
      claims_(clock),
      requester_(raw, claims_, interner) {}

void FleetPreemption::BeforeAttempt(const api::FleetWork& work) {
  requester_.SetRequester(fleet::BindingKey(work, in_), work.priority);
}

void FleetPreemption::Count(std::string_view result) {
  for (auto& [name, n] : attempts_) {
    if (name == result) {
      ++n;
      return;
    }
  }
  attempts_.push_back({std::string(result), 1});
}

std::optional<FleetPreemption::Attempt> FleetPreemption::Try(
    const api::FleetWork& work, std::string_view name, const fleet::BindingSchedule& failed,
    std::span<const api::Cluster> clusters, std::span<const api::FleetWork> bindings,
    int64_t now_ns) {
  const bool fleetwide = options_.mode == fleet::PreemptionMode::kFleetwide;
  const fleet::Eligibility e = fleet::CheckEligibility(work, gates_);
  // The fleet-wide mode also takes Divided bindings weighted by available replicas; TryPreempt
  // tells (its skip reason names the division rule).
  if (!e.ok() && !(fleetwide && e.rule == fleet::EligibilityRule::kNotAggregated)) {
    return std::nullopt;
  }
  const fleet::ReplicaEstimator* raw[] = {&raw_};
  Attempt a;
  a.outcome =
      fleet::TryPreempt(work, failed, clusters, raw, bindings, claims_, gates_, in_, options_);
  const fleet::PreemptionOutcome& o = a.outcome;
  if (!e.ok() && !o.preempting && o.skipped.starts_with("replicaScheduling is not Divided")) {
    return std::nullopt;
  }
  if (!o.preempting) {
    const std::string& why = o.skipped;
    const bool all_claimed =
        !o.considered.empty() &&
        std::all_of(o.considered.begin(), o.considered.end(),
                    [](const auto& c) { return c.reason.find("claim") != std::string::npos; });
    if (why.find("active preemption claim") != std::string::npos || all_claimed) {
      Count("blocked");
    } else if (why.find("fit on none") != std::string::npos) {
      Count("no_victims");
    } else if (why.find("not enough to cover") != std::string::npos ||
               why.find("no deficit") != std::string::npos ||
               why.find("request is empty") != std::string::npos) {
      Count("no_victims");
    } else {
      Count("not_applicable");
    }
    Sweep(now_ns);
    return a;
  }
  Count("preempting");
  const std::string key = fleet::BindingKey(work, in_);
  // The preemptor's earlier claim (another cluster, or expired) ends here.
  if (auto it = open_.find(key); it != open_.end()) {
    FleetPreemptionResult& old = records_[it->second];
    const int64_t expiry = old.claim_set_ns + fleet::kClaimTtl.count();
    old.claim_end_ns = std::min(now_ns, expiry);
    old.claim_end = now_ns >= expiry ? "expired" : "replaced";
    open_.erase(it);
  }
  FleetPreemptionResult r;
  r.preemptor = std::string(name);
  r.priority = work.priority;
  r.cluster = o.cluster;
  r.why = o.why;
  r.at_ns = now_ns;
  r.cluster_available = o.cluster_available;
  r.deficit = o.deficit;
  for (const fleet::Victim& v : o.victims) r.victims.push_back({v.name, v.priority, v.replicas});
  for (const fleet::Victim& v : o.reprieved)
    r.reprieved.push_back({v.name, v.priority, v.replicas});
  r.result = "preempting";
  r.message = o.condition_message;
  r.claim_set_ns = now_ns;
  if (fleetwide) r.mode = "fleetwide";
  r.simulated = o.simulated;
  for (const fleet::GangEviction& g : o.gang_evictions) {
    FleetVictimResult v{g.victim.name, g.victim.priority, g.victim.replicas};
    v.cluster = g.cluster;
    r.gang_victims.push_back(std::move(v));
  }
  for (const fleet::ClusterConsidered& c : o.considered) {
    r.considered.push_back({c.cluster, c.feasible, c.chosen, c.reason, c.highest_victim_priority,
                            c.priority_sum, c.victim_replicas,
                            static_cast<int64_t>(c.victim_bindings)});
  }
  a.record = records_.size();
  records_.push_back(std::move(r));
  open_[key] = a.record;
  Sweep(now_ns);  // the claims Set replaced
  return a;
}

void FleetPreemption::EvictionFailed(size_t record, const std::string& key, std::string message,
                                     int64_t now_ns) {
  FleetPreemptionResult& r = records_[record];
  r.result = "eviction failed";
  r.message = std::move(message);
  for (auto& [name, n] : attempts_) {
    if (name == "preempting") --n;
  }
  Count("eviction_failed");
  Close(key, "eviction failed", now_ns);
}

void FleetPreemption::Close(const std::string& key, std::string_view how, int64_t now_ns) {
  Sweep(now_ns);
  claims_.Clear(key);
  auto it = open_.find(key);
  if (it == open_.end()) return;
  FleetPreemptionResult& r = records_[it->second];
  r.claim_end_ns = now_ns;
  r.claim_end = std::string(how);
  open_.erase(it);
}

void FleetPreemption::Sweep(int64_t now_ns) {
  for (auto it = open_.begin(); it != open_.end();) {
    FleetPreemptionResult& r = records_[it->second];
    const std::optional<fleet::PreemptionClaim> c = claims_.Get(it->first);
    if (c && c->cluster == r.cluster &&
        Ns(c->expiry) == r.claim_set_ns + fleet::kClaimTtl.count()) {
      ++it;
      continue;
    }
    const int64_t expiry = r.claim_set_ns + fleet::kClaimTtl.count();
    r.claim_end_ns = std::min(now_ns, expiry);
    r.claim_end = now_ns >= expiry ? "expired" : "replaced";
    it = open_.erase(it);
  }
}

int64_t FleetPreemption::NextExpiry() const {
  int64_t next = INT64_MAX;
  for (const auto& [key, i] : open_) {
    next = std::min(next, records_[i].claim_set_ns + fleet::kClaimTtl.count());
  }
  return next;
}

void FleetPreemption::Fill(FleetResult& out, int64_t end_ns) const {
  out.preemption_attempts = attempts_;
  std::erase_if(out.preemption_attempts, [](const auto& kv) { return kv.second == 0; });
  std::sort(out.preemption_attempts.begin(), out.preemption_attempts.end());
  out.preemption_victims = victims_;
  out.preemptions = records_;
  // A claim still open at the end expired if its TTL ran out before it.
  for (const auto& [key, i] : open_) {
    FleetPreemptionResult& r = out.preemptions[i];
    const int64_t expiry = r.claim_set_ns + fleet::kClaimTtl.count();
    if (end_ns >= expiry) {
      r.claim_end_ns = expiry;
      r.claim_end = "expired";
    }
  }
}

}  // namespace corral::sim
