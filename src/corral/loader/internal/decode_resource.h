#pragma once
// Decoders of resource.k8s.io/v1 kinds (decode_resource.cc) and the generation of the
// ResourceClaims that pods' claim templates stand for (resource_claims.cc). Internal
// to corral/loader.

#include <vector>

#include "corral/api/resource/types.h"
#include "corral/api/types.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/doc/decoder.h"
#include "corral/doc/node.h"

namespace corral::loader::internal {

void DecodeDeviceClass(doc::Decoder& d, const doc::Node& root, api::resource::DeviceClass& out);
void DecodeResourceSlice(doc::Decoder& d, const doc::Node& root, api::resource::ResourceSlice& out);
void DecodeResourceClaim(doc::Decoder& d, const doc::Node& root, api::resource::ResourceClaim& out);
void DecodeResourceClaimTemplate(doc::Decoder& d, const doc::Node& root,
                                 api::resource::ResourceClaimTemplate& out);

// Creates the ResourceClaim of every pod claim that names a ResourceClaimTemplate and has no
// generated claim yet, as kube's resourceclaim controller does when the pod is created: the
// template's spec, a name of generateName "<pod>-<podClaim>-" (beyond 57 characters both parts
// are shortened in proportion and joined as "<pod>-<podClaim>", without the last hyphen) plus a
// 5-character suffix of kube's alphabet derived from the namespace, pod and claim names
// (deterministic, where kube's is random), the pod as controlling owner, and the annotation
// resource.kubernetes.io/pod-claim-name. Sets the pod claim's generated_claim_name. A missing
// template leaves the claim ungenerated: the pod then waits at PreEnqueue, as in kube. Claims named
// by status.resourceClaimStatuses must exist in the input.
void GenerateTemplateClaims(Interner& in, std::vector<api::Pod>& pods,
                            api::resource::ResourceObjects& objects);

// The same for the PodGroups' claims (DRAWorkloadResourceClaims): each group claim that names a
// ResourceClaimTemplate and has no generated claim (status.resourceClaimStatuses) gets one, named
// "<podgroup>-<claim>-" plus a suffix derived from the namespace, group and claim names, owned by
// the PodGroup; its name becomes the entry's generated_claim_name. Made whatever the gate: a
// scheduler with DRAWorkloadResourceClaims off never reads it (each pod has its own claim then).
void GenerateGroupTemplateClaims(Interner& in, api::resource::ResourceObjects& objects);

// The claim kube's resourceclaim controller makes for PodGroup claim `gc` of `group` from template
// `t` (see GenerateGroupTemplateClaims); `pod_claim_annotation` is the interned
// "resource.kubernetes.io/pod-claim-name".
api::resource::ResourceClaim MakePodGroupClaim(Interner& in,
                                               const api::resource::PodGroupClaims& group,
                                               const api::resource::PodGroupResourceClaim& gc,
                                               const api::resource::ResourceClaimTemplate& t,
                                               Symbol pod_claim_annotation);

}  // namespace corral::loader::internal
