#include "corral/fleet/claims.h"

#include <algorithm>
#include <limits>

namespace corral::fleet {

namespace {
__extension__ using Int128 = __int128;
}  // namespace

void ClaimStore::Sweep() {
  const TimePoint now = clock_.Now();
  std::erase_if(claims_, [&](const auto& kv) { return !(kv.second.expiry > now); });
}

void ClaimStore::Set(PreemptionClaim claim) {
  Sweep();
  std::erase_if(claims_, [&](const auto& kv) {
    return kv.first != claim.binding && kv.second.cluster == claim.cluster &&
           kv.second.priority < claim.priority;
  });
  claim.expiry = clock_.Now() + ttl_;
  claims_[claim.binding] = std::move(claim);
}

std::optional<PreemptionClaim> ClaimStore::Get(const std::string& binding) {
  Sweep();
  auto it = claims_.find(binding);
  if (it == claims_.end()) return std::nullopt;
  return it->second;
}

void ClaimStore::Clear(const std::string& binding) {
  claims_.erase(binding);
}

bool ClaimStore::HasClaimOnCluster(const std::string& cluster) {
  Sweep();
  return std::any_of(claims_.begin(), claims_.end(),
                     [&](const auto& kv) { return kv.second.cluster == cluster; });
}

bool ClaimStore::HasBlockingClaimOnCluster(const std::string& cluster, const std::string& requester,
                                           int32_t requester_priority) {
  Sweep();
  return std::any_of(claims_.begin(), claims_.end(), [&](const auto& kv) {
    return kv.first != requester && kv.second.cluster == cluster &&
           kv.second.priority >= requester_priority;
  });
}

std::vector<PreemptionClaim> ClaimStore::List() {
  Sweep();
  std::vector<PreemptionClaim> out;
  for (const auto& [key, c] : claims_) out.push_back(c);
  return out;
}

int32_t ClaimReplicaDeduction(const PreemptionClaim& claim,
                              const api::ReplicaRequirements* requester) {
  if (requester == nullptr || requester->resource_request.empty() || claim.resource_need.empty()) {
    return claim.replicas;
  }
  Int128 deduction = 0;
  for (const auto& [name, q] : requester->resource_request) {
    const int64_t d = q.MilliValue();
    if (d <= 0) continue;
    const api::Quantity* claimed = api::FindResource(claim.resource_need, name);
    if (claimed == nullptr || claimed->MilliValue() <= 0) continue;
    const Int128 n = static_cast<Int128>(claimed->MilliValue()) * claim.replicas;
    deduction = std::max(deduction, (n + d - 1) / d);
  }
  if (deduction <= 0) return 0;
  return static_cast<int32_t>(std::min<Int128>(deduction, std::numeric_limits<int32_t>::max()));
}

std::vector<int32_t> ClaimStore::Deduct(std::span<const std::string> clusters,
                                        std::span<const int32_t> available,
                                        const std::string& requester, int32_t requester_priority,
                                        const api::ReplicaRequirements* requester_requirements) {
  std::map<std::string, int64_t> by_cluster;
  for (const PreemptionClaim& c : List()) {
    if (c.binding == requester || c.priority < requester_priority || c.replicas <= 0) continue;
    by_cluster[c.cluster] += ClaimReplicaDeduction(c, requester_requirements);
  }
  std::vector<int32_t> out(available.begin(), available.end());
  for (size_t i = 0; i < out.size() && i < clusters.size(); ++i) {
    auto it = by_cluster.find(clusters[i]);
    if (it == by_cluster.end() || out[i] == kUnauthenticReplica) continue;
    out[i] = static_cast<int32_t>(std::max<int64_t>(0, int64_t{out[i]} - it->second));
  }
  return out;
}

std::vector<int32_t> ClaimDeductingEstimator::MaxAvailableReplicas(
    std::span<const api::Cluster* const> clusters,
    const api::ReplicaRequirements* requirements) const {
  std::vector<int32_t> raw = inner_.MaxAvailableReplicas(clusters, requirements);
  std::vector<std::string> names;
  for (const api::Cluster* c : clusters) names.emplace_back(interner_.Str(c->meta.name));
  return claims_.Deduct(names, raw, requester_, priority_, requirements);
}

}  // namespace corral::fleet
