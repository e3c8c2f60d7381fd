#pragma once
// The simulator's claim controllers for the pods that workload controllers create, acting on the
// member's scheduler state (its VolumeCache and DraStore) before the pod reaches its queue, as
// kube's controllers create claims before (or while) the pod waits:
//  - StatefulSet: the claims of its volumeClaimTemplates, "<template>-<pod>", labelled with the
//    template's labels and the selector's matchLabels, kept when the pod goes (retention Retain);
//  - generic ephemeral volumes: "<pod>-<volume>" owned by the pod, deleted with it;
//  - DRA: a ResourceClaim per ResourceClaimTemplate reference, "<pod>-<claim>-<5 random>" (kube's
//    resourceclaim controller), owned by the pod; the scheduler's DraStore deallocates and
//    deletes it when the pod is deleted.
// A claim of an Immediate storage class binds (or is provisioned) at once, as kube's PV
// controller does; WaitForFirstConsumer claims wait for the scheduler's VolumeBinding, whose
// PreBind completes the binding. A deleted claim releases its volume per its reclaim
// policy (VolumeCache::DeleteClaim).

#include <string_view>

#include "corral/api/types.h"
#include "corral/core/rng.h"
#include "corral/sim/controllers/controllers.h"
#include "corral/sim/world.h"

namespace corral::sim::controllers {

// Creates the StatefulSet's claims for `pod_name` that do not exist yet. Returns false after a
// World::Fail (an input the controller cannot honour).
bool EnsureStatefulSetClaims(World& w, ControllerState& c, std::string_view pod_name);

// Creates the pod's generic ephemeral and DRA template claims on `member` and records their
// names in `pod`. Returns false after a World::Fail.
bool CreatePodClaims(World& w, uint16_t member, api::Pod& pod, Rng& rng);

// A StatefulSet with whenScaled: Delete scaled `pod_name` away: its claims are deleted.
void DeleteStatefulSetClaims(World& w, ControllerState& c, std::string_view pod_name);

// The pod is gone: its generic ephemeral claims are deleted (DRA claims go with the
// scheduler's DeletePod).
void DeletePodClaims(World& w, uint16_t member, const api::Pod& pod);

}  // namespace corral::sim::controllers
