#include "corral/plugins/dynamic_resources/workload_claims.h"

#include <fmt/format.h>

namespace corral::plugins::dra {

namespace res = api::resource;

const res::PodGroupClaims* PodGroupClaimsOf(const framework::DraManager& dra, const api::Pod& pod) {
  if (!pod.scheduling_group.has_value()) return nullptr;
  const res::PodGroupClaims* g =
      dra.GetPodGroupClaims(pod.meta.namespace_, pod.scheduling_group->pod_group_name);
  return g != nullptr && !g->claims.empty() ? g : nullptr;
}

const res::PodGroupResourceClaim* MatchPodGroupClaim(const res::PodGroupClaims* group,
                                                     const api::PodResourceClaim& pc) {
  if (group == nullptr) return nullptr;
  for (const res::PodGroupResourceClaim& c : group->claims) {
    if (c.name != pc.name) continue;
    // The names are unique in the group: the one entry of that name matches or nothing does.
    const bool same_source = c.resource_claim_name == pc.resource_claim_name &&
                             c.resource_claim_template_name == pc.resource_claim_template_name;
    return same_source ? &c : nullptr;
  }
  return nullptr;
}

Symbol PodGroupClaimName(const Interner& in, const res::PodGroupClaims& group,
                         const res::PodGroupResourceClaim& claim, bool* must_check_owner,
                         std::string* error) {
  *must_check_owner = false;
  if (!claim.resource_claim_name.empty()) return claim.resource_claim_name;
  if (claim.generated_claim_name.empty()) {
    *error = fmt::format("PodGroup {}/{}: ResourceClaim not created yet", in.Str(group.namespace_),
                         in.Str(group.pod_group));
    return Symbol();
  }
  *must_check_owner = true;
  return claim.generated_claim_name;
}

bool IsOwnedByPodGroup(const res::ResourceClaim& claim, const res::PodGroupClaims& group) {
  if (claim.meta.namespace_ != group.namespace_) return false;
  for (const auto& o : claim.meta.owner_references) {
    if (o.controller && o.name == group.pod_group && o.uid == group.uid) return true;
  }
  return false;
}

bool IsReservedForPodGroup(const res::ResourceClaim& claim, const res::PodGroupClaims& group,
                           Symbol pod_groups_resource) {
  for (const auto& r : claim.reserved_for) {
    if (r.resource == pod_groups_resource && r.name == group.pod_group && r.uid == group.uid) {
      return true;
    }
  }
  return false;
}

}  // namespace corral::plugins::dra
