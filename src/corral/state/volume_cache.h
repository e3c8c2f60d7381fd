#pragma once
// VolumeCache: the storage objects that kube's volume plugins read (its PV and PVC assume caches
// and the StorageClass, CSINode, CSIDriver and CSIStorageCapacity listers), together with the
// volume binder's in-memory assumptions.
//
// Contract:
//  (1) The cache owns copies of the loader's objects; pointers it returns stay valid for its
//      lifetime (objects live in deques and are never erased).
//  (2) Assume* changes an object in place and keeps its original; Restore* puts the original back
//      (kube's AssumeCache Assume/Restore); Bind* commits. Two pods therefore never take the same
//      PersistentVolume: the first one's Reserve makes it pre-bound to its claim.
//  (3) Lists are in input order (kube lists from an informer cache, in no defined order).
//  (4) It is mutated only between scheduling cycles (Reserve, Unreserve, PreBind), never during
//      Filter or Score.

#include <cstdint>
#include <deque>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/storage.h"
#include "corral/core/interner.h"

namespace corral::state {

class VolumeCache {
 public:
  VolumeCache(const api::StorageObjects& objects, Interner& interner);
  VolumeCache(const VolumeCache&) = delete;
  VolumeCache& operator=(const VolumeCache&) = delete;

  const Interner& interner() const { return interner_; }

  // Lookups; null when absent.
  const api::PersistentVolumeClaim* GetClaim(Symbol ns, Symbol name) const;
  const api::PersistentVolume* GetVolume(Symbol name) const;
  const api::StorageClass* GetClass(Symbol name) const;
  const api::CSINode* GetCSINode(Symbol node) const;
  const api::CSIDriver* GetCSIDriver(Symbol name) const;
  // Every CSIStorageCapacity, in input order.
  std::span<const api::CSIStorageCapacity* const> Capacities() const { return capacities_; }
  // The PersistentVolumes of a storage class ("" for none), in input order (kube's ListPVs).
  std::span<const api::PersistentVolume* const> VolumesOfClass(Symbol storage_class) const;

  // Bumped by every change to the objects or lookups above (assume, restore, bind, provision,
  // claim added or deleted): what a consumer derived from them holds while the epoch is the same.
  uint64_t epoch() const { return epoch_; }

  // Whether `meta` has annotation `key`.
  bool HasAnnotation(const api::ObjectMeta& meta, std::string_view key) const;
  // The annotation's value, or null.
  const std::string* Annotation(const api::ObjectMeta& meta, std::string_view key) const;

  // kube's GetBindVolumeToClaim followed by the PV cache's Assume: the volume's claimRef becomes
  // the claim (with its uid) and, unless it was already bound to it, it gets the
  // bound-by-controller annotation. Returns the volume as assumed.
  const api::PersistentVolume* AssumeVolumeBound(const api::PersistentVolume* pv,
                                                 const api::PersistentVolumeClaim* claim);
  // The PVC cache's Assume of a claim to provision: the selected-node annotation is set to `node`.
  const api::PersistentVolumeClaim* AssumeClaimProvisioned(const api::PersistentVolumeClaim* claim,
                                                           Symbol node);
  // Puts back the volume / claim as it was before any assumption (no-op when none).
  void RestoreVolume(Symbol name);
  void RestoreClaim(Symbol ns, Symbol name);

  // PreBind of a static binding, completed at once as kube's PV controller would: the claim gets
  // volumeName, the bind-completed annotation and phase Bound; the volume phase Bound.
  void BindVolume(const api::PersistentVolume* pv, const api::PersistentVolumeClaim* claim);
  // PreBind of a dynamic provisioning, completed at once as an external provisioner would: a new
  // volume "pvc-<claim uid>" ("pvc-<namespace>-<name>" without a uid) of the requested size, the
  // claim's access modes and class, bound to the claim, with node affinity to the selected node's
  // values of the topology keys that its CSINode lists for the provisioner (none when it lists
  // none). Returns the new volume.
  const api::PersistentVolume* ProvisionVolume(const api::PersistentVolumeClaim* claim,
                                               const api::StorageClass& storage_class,
                                               const api::Node& node);

  // ---- the simulator's PV controller (claims created and deleted while a simulation runs) ----
  // Adds a claim; an existing claim of the same namespace and name is kept and returned (a
  // StatefulSet's claims outlive its pods).
  const api::PersistentVolumeClaim* AddClaim(api::PersistentVolumeClaim claim);
  // Deletes a claim. Its bound volume is released and reclaimed per its policy: Delete removes the
  // volume from every lookup and list, Retain keeps it in phase Released, still referring to the
  // deleted claim, so that no other claim binds it. Returns the volume's name (empty if none).
  Symbol DeleteClaim(Symbol ns, Symbol name);
  // kube's PV controller for a claim of an Immediate class: binds it to the smallest Available
  // volume of its class that satisfies it (access modes, volume mode, selector, size), or
  // provisions one (without node affinity) when its class names a provisioner. Returns the
  // volume, or null when the claim stays pending.
  const api::PersistentVolume* BindImmediate(const api::PersistentVolumeClaim* claim);

 private:
  api::PersistentVolume* MutableVolume(const api::PersistentVolume* pv);
  api::PersistentVolumeClaim* MutableClaim(const api::PersistentVolumeClaim* claim);
  void SetAnnotation(api::ObjectMeta& meta, std::string_view key, std::string value);
  void IndexVolume(api::PersistentVolume* pv);

  Interner& interner_;
  uint64_t epoch_ = 0;
  std::deque<api::PersistentVolume> volumes_;
  std::deque<api::PersistentVolumeClaim> claims_;
  std::vector<api::StorageClass> classes_;
  std::vector<api::CSINode> csi_nodes_;
  std::vector<api::CSIDriver> csi_drivers_;
  std::vector<api::CSIStorageCapacity> capacity_objects_;
  std::vector<const api::CSIStorageCapacity*> capacities_;

  absl::flat_hash_map<std::pair<Symbol, Symbol>, api::PersistentVolumeClaim*> claim_by_name_;
  absl::flat_hash_map<Symbol, api::PersistentVolume*> volume_by_name_;
  absl::flat_hash_map<Symbol, std::vector<const api::PersistentVolume*>> volumes_by_class_;
  absl::flat_hash_map<Symbol, const api::StorageClass*> class_by_name_;
  absl::flat_hash_map<Symbol, const api::CSINode*> csi_node_by_name_;
  absl::flat_hash_map<Symbol, const api::CSIDriver*> csi_driver_by_name_;

  // Originals of assumed objects.
  absl::flat_hash_map<Symbol, api::PersistentVolume> assumed_volumes_;
  absl::flat_hash_map<std::pair<Symbol, Symbol>, api::PersistentVolumeClaim> assumed_claims_;
};

}  // namespace corral::state
