#pragma once
// The volume binder of kube's VolumeBinding plugin (binder.go): it sorts a pod's claims into
// bound, unbound with delayed binding and unbound immediate ones, and for one node finds the
// PersistentVolumes that its unbound claims would bind to and the claims that would be provisioned
// (with the storage capacity that allows it). Reads a state::VolumeCache; never changes it.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "corral/api/storage.h"
#include "corral/framework/status.h"
#include "corral/state/volume_cache.h"

namespace corral::plugins::volume_binding {

// kube's ConflictReasons, in the order FindPodVolumes appends them.
inline constexpr std::string_view kErrReasonNodeConflict =
    "node(s) had volume node affinity conflict";
inline constexpr std::string_view kErrReasonBindConflict =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr std::string_view kErrReasonNotEnoughSpace =
    "node(s) did not have enough free storage";
inline constexpr std::string_view kErrReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr std::string_view kErrUnboundImmediate =
    "pod has unbound immediate PersistentVolumeClaims";

// A claim to bind to a pre-provisioned volume.
struct StaticBinding {
  const api::PersistentVolume* pv;
  const api::PersistentVolumeClaim* claim;
};
// A claim to provision; `capacity` is the CSIStorageCapacity that allowed it (null when the driver
// does not track capacity or the claim requests no storage).
struct DynamicProvision {
  const api::PersistentVolumeClaim* claim;
  const api::CSIStorageCapacity* capacity;
};

struct PodVolumes {
  std::vector<StaticBinding> static_bindings;
  std::vector<DynamicProvision> dynamic_provisions;
};

struct PodVolumeClaims {
  std::vector<const api::PersistentVolumeClaim*> bound;
  std::vector<const api::PersistentVolumeClaim*> unbound_delay_binding;
  std::vector<const api::PersistentVolumeClaim*> unbound_immediate;
};

// The name of the claim that a pod volume uses ("<pod>-<volume>" for a generic ephemeral volume);
// empty for other volumes.
std::string ClaimNameOf(const api::Pod& pod, const api::Volume& v, const Interner& interner);
// The claim itself, or null when it does not exist (or the volume uses none).
const api::PersistentVolumeClaim* LookupClaim(const api::Pod& pod, const api::Volume& v,
                                              const state::VolumeCache& cache);
// kube's ephemeral.VolumeIsForPod: success when the pod controls the claim, else the error text.
framework::Status EphemeralClaimIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& c,
                                         const Interner& interner);

// kube's VolumeBinding.podHasPVCs: whether the pod has claim volumes (`*has`), and an
// UnschedulableAndUnresolvable status when one of them is missing, lost, being deleted, or (for an
// ephemeral volume) not owned by the pod.
framework::Status PodHasPVCs(const api::Pod& pod, const state::VolumeCache& cache, bool* has);

// Whether the claim is fully bound: volumeName set and the bind-completed annotation present.
bool IsClaimFullyBound(const api::PersistentVolumeClaim& claim, const state::VolumeCache& cache);

// kube's arePodVolumesBound: every claim of the pod exists and is fully bound.
bool ArePodVolumesBound(const api::Pod& pod, const state::VolumeCache& cache);

// kube's GetPodVolumeClaims: an error when a claim does not exist or an ephemeral volume's claim is
// not the pod's (PodHasPVCs reports both first on the plugin's path).
framework::Status GetPodVolumeClaims(const api::Pod& pod, const state::VolumeCache& cache,
                                     PodVolumeClaims* out);

// kube's FindPodVolumes for one node: `reasons` receives the conflict reasons in kube's order (none
// when the node fits); `out` the bindings and provisions. A non-success status is an error.
framework::Status FindPodVolumes(const PodVolumeClaims& claims, const api::Node& node,
                                 const state::VolumeCache& cache, PodVolumes* out,
                                 std::vector<std::string_view>* reasons);

// kube's volume.FindMatchingVolume on the scheduler path: the pre-bound volume of the claim, else
// the smallest available volume of the claim's class whose size, volume mode, selector, node
// affinity and access modes match (first in input order among equal sizes); null when none.
const api::PersistentVolume* FindMatchingVolume(
    const api::PersistentVolumeClaim& claim, std::span<const api::PersistentVolume* const> volumes,
    const api::Node& node, const std::vector<const api::PersistentVolume*>& excluded,
    const Interner& interner);

// kube's CheckNodeAffinity: no node affinity, or the node's labels match its required terms.
bool VolumeNodeAffinityMatches(const api::PersistentVolume& pv, const api::LabelSet& labels,
                               const Interner& interner);

}  // namespace corral::plugins::volume_binding
