#pragma once
// ResourceClaims shared by the pods of a PodGroup (DRAWorkloadResourceClaims, KEP-5729), as kube
// v1.37's k8s.io/dynamic-resource-allocation/resourceclaim helpers resolve them for the
// DynamicResources plugin:
//   - a pod's claim stands for its PodGroup's claim when the pod belongs to the group
//     (spec.schedulingGroup.podGroupName) and the group's spec.resourceClaims has an entry with the
//     same name and the same source (the same resourceClaimName, or the same
//     resourceClaimTemplateName); otherwise it is the pod's own claim;
//   - a group claim made from a template is the group's generated claim (its
//     status.resourceClaimStatuses), owned by the PodGroup;
//   - such a claim is reserved for the PodGroup (reservedFor resource "podgroups"), once for all
//     members, so it is allocated once and every member uses that allocation.
// With the gate off none of this applies: kube's API server drops a PodGroup's resourceClaims, so
// every pod claim is the pod's own (and a template claim is generated per pod).

#include <string>

#include "corral/api/resource/types.h"
#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/framework/dra_manager.h"

namespace corral::plugins::dra {

// The claims of the pod's PodGroup, or null when the pod belongs to no PodGroup or its group has
// no claims. Callers check the gate first.
const api::resource::PodGroupClaims* PodGroupClaimsOf(const framework::DraManager& dra,
                                                      const api::Pod& pod);

// The entry of `group` that the pod's claim `pc` matches exactly (name and source), or null
// (kube's BindTo chooses the PodGroup as consumer exactly then).
const api::resource::PodGroupResourceClaim* MatchPodGroupClaim(
    const api::resource::PodGroupClaims* group, const api::PodResourceClaim& pc);

// kube's NameFromPodGroup: the claim's name, or "" with `*error` set to kube's text when the
// group's template claim has not been made yet. `*must_check_owner` is set for a template claim
// (its owner must be the PodGroup).
Symbol PodGroupClaimName(const Interner& in, const api::resource::PodGroupClaims& group,
                         const api::resource::PodGroupResourceClaim& claim, bool* must_check_owner,
                         std::string* error);

// Whether `claim` is controlled by the PodGroup (kube's IsForPodGroup owner check).
bool IsOwnedByPodGroup(const api::resource::ResourceClaim& claim,
                       const api::resource::PodGroupClaims& group);

// Whether `claim` lists the PodGroup among its consumers (the PodGroup half of kube's
// IsReservedForPod with acceptPodGroup).
bool IsReservedForPodGroup(const api::resource::ResourceClaim& claim,
                           const api::resource::PodGroupClaims& group, Symbol pod_groups_resource);

}  // namespace corral::plugins::dra
