#pragma once
// DraManager: the scheduler's view of resource.k8s.io objects for the DynamicResources plugin
// (kube's SharedDRAManager with its claim assume cache and in-flight allocations). Implemented by
// state::DraStore; reached through Handle::SharedDRAManager().
//
// Claims are read with their current status: the allocation and reservedFor the input gave them,
// plus what PreBind wrote since, minus what pod deletions released. An allocation "in flight"
// (signalled by Reserve, not yet written by PreBind) makes its devices unavailable to every other
// claim, so two pods never get the same device between Reserve and PreBind.
//
// Runs on the scheduling thread only.

#include <cstdint>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "corral/api/resource/types.h"
#include "corral/api/types.h"
#include "corral/core/clock.h"
#include "corral/core/interner.h"

namespace corral::framework {

// A device by driver, pool and name (kube's structured.DeviceID).
struct DeviceId {
  Symbol driver;
  Symbol pool;
  Symbol device;
  bool operator==(const DeviceId&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const DeviceId& d) {
    return H::combine(std::move(h), d.driver, d.pool, d.device);
  }
};

// The shares of one device with allowMultipleAllocations that allocated claims and allocations in
// flight hold (kube's AllocatedState.AggregatedCapacity entry): how many, and the capacity they
// consume together, summed per capacity name.
struct DeviceShares {
  int shares = 0;
  std::vector<api::resource::ConsumedCapacity> consumed;
};
using SharedDeviceMap = absl::flat_hash_map<DeviceId, DeviceShares>;

class DraManager {
 public:
  virtual ~DraManager() = default;

  virtual const api::resource::DeviceClass* GetDeviceClass(Symbol name) const = 0;
  virtual std::span<const api::resource::DeviceClass* const> DeviceClasses() const = 0;
  virtual std::span<const api::resource::ResourceSlice* const> ResourceSlices() const = 0;
  // DeviceTaintRules (DRADeviceTaints): their taints count as taints of the devices they select.
  virtual std::span<const api::resource::DeviceTaintRule* const> DeviceTaintRules() const {
    return {};
  }
  // Changes whenever the classes or slices are replaced (caches over them key on it).
  virtual uint64_t ObjectsGeneration() const { return 0; }
  // The claim with its current status, or null if there is none.
  virtual const api::resource::ResourceClaim* GetClaim(Symbol ns, Symbol name) const = 0;

  // Devices held by allocated claims and by allocations in flight (results with adminAccess do not
  // hold their device).
  virtual const absl::flat_hash_set<DeviceId>& AllocatedDevices() const = 0;
  // Devices with allowMultipleAllocations that some allocation shares (none by default).
  virtual const SharedDeviceMap& SharedDevices() const {
    static const SharedDeviceMap kNone;
    return kNone;
  }

  virtual bool ClaimHasPendingAllocation(const api::resource::ResourceClaim& claim) const = 0;
  // Reserve: `allocation` is in flight for `claim` (its devices count as allocated).
  virtual void SignalClaimPendingAllocation(const api::resource::ResourceClaim& claim,
                                            api::resource::AllocationResult allocation) = 0;
  // Unreserve: forgets an in-flight allocation. False if there was none.
  virtual bool RemoveClaimPendingAllocation(const api::resource::ResourceClaim& claim) = 0;
  // PreBind: writes the in-flight allocation (if any) into the claim's status and adds the pod to
  // reservedFor. Returns kube's error text, or "" on success.
  virtual std::string BindClaim(const api::resource::ResourceClaim& claim, Symbol pod_name,
                                Symbol pod_uid) = 0;
  // Unreserve after PreBind: removes the pod from reservedFor.
  virtual void UnreserveClaim(const api::resource::ResourceClaim& claim, Symbol pod_uid) = 0;
  // PostFilter: clears the claim's allocation, reservedFor and status.devices.
  virtual void DeallocateClaim(const api::resource::ResourceClaim& claim) = 0;

  // ---- ResourceClaims of PodGroups (DRAWorkloadResourceClaims) ----
  // The defaults (no PodGroup has claims) serve test fakes; state::DraStore implements them all.
  // The spec.resourceClaims of PodGroup ns/name with their generated claims, or null.
  virtual const api::resource::PodGroupClaims* GetPodGroupClaims(Symbol ns, Symbol name) const {
    (void)ns;
    (void)name;
    return nullptr;
  }
  // The allocation in flight for `claim` (Reserve done, PreBind not yet), or null.
  virtual const api::resource::AllocationResult* PendingAllocation(
      const api::resource::ResourceClaim& claim) const {
    (void)claim;
    return nullptr;
  }
  // PreBind of a PodGroup's claim: as BindClaim, but reserves the claim for the PodGroup (resource
  // "podgroups") rather than for the pod.
  virtual std::string BindClaimToPodGroup(const api::resource::ResourceClaim& claim,
                                          Symbol group_name, Symbol group_uid) {
    (void)claim;
    (void)group_name;
    (void)group_uid;
    return "PodGroup claims are not supported by this DRA manager";
  }

  // ---- Device binding conditions (DRADeviceBindingConditions, binding_conditions.h) ----
  // PreBind: sets status.allocation.allocationTimestamp of the (allocated) claim when unset.
  virtual void SetAllocationTimestamp(const api::resource::ResourceClaim& claim, TimePoint t) {
    (void)claim, (void)t;
  }
  // Counts the claim status changes made outside a pod's binding (deallocations, drivers' device
  // status updates): the scheduler compares it around a cycle, as kube's queue sees ResourceClaim
  // update events that arrive while a pod is in flight.
  virtual uint64_t ClaimStatusVersion() const { return 0; }

  // ---- Extended resources backed by DRA (DRAExtendedResource) ----
  // The defaults (no class backs any resource) serve managers that hold no DeviceClass with an
  // extended resource, such as test fakes; state::DraStore implements them all.
  // The class that backs extended resource `resource` through its spec.extendedResourceName or its
  // implicit name "deviceclass.resource.kubernetes.io/<class>", or null. Of several classes with
  // the same name, the one created last wins, then the lexicographically first name (KEP-5004).
  virtual const api::resource::DeviceClass* DeviceClassForResource(Symbol resource) const {
    (void)resource;
    return nullptr;
  }
  // The special claim PreBind created for the pod's extended resources, or null.
  virtual const api::resource::ResourceClaim* ExtendedResourceClaimOf(const api::Pod& pod) const {
    (void)pod;
    return nullptr;
  }
  // PreBind: stores `claim` (named, allocated, reserved for and owned by `pod`) as the pod's
  // extended-resource claim; its devices become allocated. Returns the stored claim.
  virtual const api::resource::ResourceClaim* CreateExtendedResourceClaim(
      const api::Pod& pod, api::resource::ResourceClaim claim) {
    (void)pod;
    (void)claim;
    return nullptr;
  }
  // Unreserve after PreBind: deletes the pod's extended-resource claim, releasing its devices.
  virtual void DeleteExtendedResourceClaim(const api::Pod& pod) { (void)pod; }
};

}  // namespace corral::framework
