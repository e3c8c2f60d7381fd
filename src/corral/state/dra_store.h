#pragma once
// DraStore: the scheduler's resource.k8s.io state (framework::DraManager): the device classes and
// slices of the input, and a mutable copy of every ResourceClaim whose status the scheduler and
// the simulated resourceclaim controller change:
//   - PreBind writes an allocation and adds the pod to reservedFor (kube's PreBind API calls);
//   - ReleasePod, when a pod is deleted, removes it from reservedFor, deallocates a claim that is
//     no longer reserved for anyone, and deletes the claims generated for the pod from its
//     templates (kube's resourceclaim controller and garbage collector). A claim reserved for a
//     PodGroup (DRAWorkloadResourceClaims) stays reserved and allocated while the group exists, as
//     kube's controller keeps a reservation whose PodGroup exists; Corral never deletes a PodGroup.
// Allocations in flight (Reserve → PreBind) hold their devices, as kube's inFlightAllocations do.

#include <deque>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "corral/api/resource/types.h"
#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/framework/dra_manager.h"

namespace corral::state {

class DraStore final : public framework::DraManager {
 public:
  // Replaces every object with those of `objects` (null: none). The store copies the claims and
  // keeps pointers to the classes and slices, so `objects` must outlive it. Resetting with the
  // objects the store already holds keeps its state (drivers re-announce their object sets).
  void Reset(const api::resource::ResourceObjects* objects);

  // The simulator's resourceclaim controller: a claim created while a simulation runs (from a
  // pod's ResourceClaimTemplate, before the pod). A claim of the same namespace and name is kept.
  void AddClaim(api::resource::ResourceClaim claim);

  // A pod was deleted (or finished): see the file comment. Returns true when some claim changed.
  bool ReleasePod(const api::Pod& pod);

  // Whether `ref` names `pod` (resource "pods", same name and uid; Corral inputs often have no
  // uid, so the name is compared too).
  static bool RefersTo(const api::resource::ConsumerReference& ref, const api::Pod& pod,
                       Symbol pods_resource);

  // ---- framework::DraManager ----
  const api::resource::DeviceClass* GetDeviceClass(Symbol name) const override;
  std::span<const api::resource::DeviceClass* const> DeviceClasses() const override {
    return classes_;
  }
  std::span<const api::resource::ResourceSlice* const> ResourceSlices() const override {
    return slices_;
  }
  std::span<const api::resource::DeviceTaintRule* const> DeviceTaintRules() const override {
    return taint_rules_;
  }
  const api::resource::ResourceClaim* GetClaim(Symbol ns, Symbol name) const override;
  uint64_t ObjectsGeneration() const override { return generation_; }
  const absl::flat_hash_set<framework::DeviceId>& AllocatedDevices() const override {
    return allocated_;
  }
  const framework::SharedDeviceMap& SharedDevices() const override { return shared_; }
  bool ClaimHasPendingAllocation(const api::resource::ResourceClaim& claim) const override;
  void SignalClaimPendingAllocation(const api::resource::ResourceClaim& claim,
                                    api::resource::AllocationResult allocation) override;
  bool RemoveClaimPendingAllocation(const api::resource::ResourceClaim& claim) override;
  std::string BindClaim(const api::resource::ResourceClaim& claim, Symbol pod_name,
                        Symbol pod_uid) override;
  void UnreserveClaim(const api::resource::ResourceClaim& claim, Symbol pod_uid) override;
  void DeallocateClaim(const api::resource::ResourceClaim& claim) override;
  const api::resource::PodGroupClaims* GetPodGroupClaims(Symbol ns, Symbol name) const override;
  const api::resource::AllocationResult* PendingAllocation(
      const api::resource::ResourceClaim& claim) const override;
  std::string BindClaimToPodGroup(const api::resource::ResourceClaim& claim, Symbol group_name,
                                  Symbol group_uid) override;
  void SetAllocationTimestamp(const api::resource::ResourceClaim& claim, TimePoint t) override;
  uint64_t ClaimStatusVersion() const override { return status_version_; }

  // A driver's update of the claim's status.devices (DRAResourceClaimDeviceStatus): `devices`
  // replaces the list. False when there is no such claim.
  bool UpdateDeviceStatus(Symbol ns, Symbol name,
                          std::vector<api::resource::AllocatedDeviceStatus> devices);
  // Every claim the store holds, in creation order.
  template <class F>
  void ForEachClaim(F&& f) const {
    for (const api::resource::ResourceClaim& c : claims_) f(c);
  }
  const api::resource::DeviceClass* DeviceClassForResource(Symbol resource) const override;
  const api::resource::ResourceClaim* ExtendedResourceClaimOf(const api::Pod& pod) const override;
  const api::resource::ResourceClaim* CreateExtendedResourceClaim(
      const api::Pod& pod, api::resource::ResourceClaim claim) override;
  void DeleteExtendedResourceClaim(const api::Pod& pod) override;
  bool HasExtendedResourceClaims() const { return !extended_claims_.empty(); }

  // Interned "pods" (consumer references' resource), set by the scheduler.
  void set_pods_resource(Symbol s) { pods_resource_ = s; }
  // Interned "podgroups" (a PodGroup's reservation of its claims), set by the scheduler.
  void set_pod_groups_resource(Symbol s) { pod_groups_resource_ = s; }
  // The interner of the objects' symbols, for the class-name tie-break of DeviceClassForResource
  // (without one, the class listed first wins a tie). Set before Reset.
  void set_interner(const Interner* in) { interner_ = in; }

 private:
  api::resource::ResourceClaim* Mutable(const api::resource::ResourceClaim& claim);
  void Hold(const api::resource::AllocationResult& a);
  void Release(const api::resource::AllocationResult& a);
  // Whether class `a` backs an extended resource rather than `b` (both name it).
  bool PreferredClass(const api::resource::DeviceClass& a,
                      const api::resource::DeviceClass& b) const;

  std::vector<const api::resource::DeviceClass*> classes_;
  absl::flat_hash_map<Symbol, const api::resource::DeviceClass*> class_by_name_;
  std::vector<const api::resource::ResourceSlice*> slices_;
  std::vector<const api::resource::DeviceTaintRule*> taint_rules_;
  std::deque<api::resource::ResourceClaim> claims_;  // stable addresses
  absl::flat_hash_map<std::pair<Symbol, Symbol>, api::resource::ResourceClaim*> by_key_;
  absl::flat_hash_map<const api::resource::ResourceClaim*, api::resource::AllocationResult>
      pending_;
  absl::flat_hash_set<framework::DeviceId> allocated_;
  framework::SharedDeviceMap shared_;
  Symbol pods_resource_;
  Symbol pod_groups_resource_;
  // The PodGroups' resource claims of the objects, by (namespace, PodGroup name).
  absl::flat_hash_map<std::pair<Symbol, Symbol>, const api::resource::PodGroupClaims*>
      group_claims_;
  const Interner* interner_ = nullptr;
  uint64_t generation_ = 0;
  uint64_t status_version_ = 0;
  // Extended resource name (explicit or implicit) → backing class.
  absl::flat_hash_map<Symbol, const api::resource::DeviceClass*> class_by_resource_;
  // The scheduler's extended-resource claims, by (namespace, pod name, pod uid).
  struct PodKey {
    Symbol ns, name, uid;
    bool operator==(const PodKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const PodKey& k) {
      return H::combine(std::move(h), k.ns, k.name, k.uid);
    }
  };
  absl::flat_hash_map<PodKey, std::unique_ptr<api::resource::ResourceClaim>> extended_claims_;
  const api::resource::ResourceObjects* source_ = nullptr;
  bool initialized_ = false;
};

}  // namespace corral::state
