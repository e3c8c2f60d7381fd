#pragma once
// Extended resources backed by DRA (DRAExtendedResource, KEP-5004), as kube v1.37's
// DynamicResources plugin handles them (dynamicresources/extendeddynamicresources.go) and as
// NodeResourcesFit scores them (noderesources/resource_allocation.go):
//   - a DeviceClass backs the extended resource named by its spec.extendedResourceName and the
//     implicit "deviceclass.resource.kubernetes.io/<class>" (framework::DraManager resolves them);
//   - PreFilter: a pod that requests a backed resource gets an in-memory special claim with no
//     requests ("<extended-resources>", owned by the pod);
//   - Filter, per node: a backed resource the node does not advertise (allocatable 0) is allocated
//     through DRA, one device per unit, with the device requests of kube's
//     createRequestsAndMappings; a DRA-named resource the node neither advertises nor any class
//     backs fails with "cannot fit resource";
//   - PreBind writes the claim (allocated, reserved for the pod); the pod's deletion deletes it.
// Scoring: a backed resource the node does not advertise has as allocatable the devices of the
// class on the node and as requested the allocated ones among them plus the pod's request.

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/resource/types.h"
#include "corral/api/types.h"
#include "corral/core/interner.h"
#include "corral/framework/dra_manager.h"
#include "corral/framework/pod_info.h"

namespace corral::plugins::dra {

// One non-zero pod request with a DRA extended-resource name (kube's podScalarResources, filtered
// as filterExtendedResources reads them).
struct ExtendedResourceRequest {
  Symbol resource;
  int64_t quantity = 0;
  const api::resource::DeviceClass* device_class = nullptr;  // null: not backed by DRA
  // The device requests this resource needs when DRA provides it (backed resources only), before
  // kube's final sort by name.
  std::vector<api::resource::DeviceRequest> requests;
};

// The pod's DRA extended-resource requests, computed at PreFilter.
struct PodExtendedResources {
  std::vector<ExtendedResourceRequest> resources;
  Symbol special_claim_name;  // interned "<extended-resources>"
  Symbol annotation_key;      // interned kExtendedResourceClaimAnnotation
  Symbol annotation_value;    // interned "true"
  Symbol pod_kind;            // interned "Pod" (the owner reference's kind)
};

// kube's hasDeviceClassMappedExtendedResource and the request half of createRequestsAndMappings:
// false (and `out` untouched) when no request of the pod is backed by a class; `error` is set
// when a name the loader should have interned is missing (an internal error).
bool CollectPodExtendedResources(const framework::PodInfo& pod, const framework::DraManager& dra,
                                 const Interner& in, PodExtendedResources* out, std::string* error);

// Whether some container of `pod` requests a resource a class backs (a deleted pod then held a
// special claim).
bool PodRequestsBackedResource(const api::Pod& pod, const framework::DraManager& dra);

// Whether `resource` is among the node's allocatable scalar resources (kube's okScalar).
bool NodeAdvertises(const framework::Resource& allocatable, Symbol resource);

// kube's filterExtendedResources for one node. Returns false with kube's reason when a request
// is neither advertised nor backed. Otherwise `claim` is set to the node-specific special claim
// when some backed resource must come from DRA on this node, and left empty when none must.
bool BuildNodeExtendedResourceClaim(const PodExtendedResources& ext, const api::Pod& pod,
                                    const framework::Resource& node_allocatable, const Interner& in,
                                    std::optional<api::resource::ResourceClaim>* claim,
                                    std::string* reason);

// The two halves of BuildNodeExtendedResourceClaim, so that the claim can be built once per set
// of needed resources rather than once per node. NeededExtendedResources: false with kube's
// reason when a request is neither advertised nor backed; otherwise `mask` has bit i set when
// ext.resources[i] must come from DRA on this node. Requires at most kMaxMaskedResources
// resources. MakeExtendedResourceClaim: the special claim for the resources of `mask` (non-zero).
inline constexpr size_t kMaxMaskedResources = 64;
bool NeededExtendedResources(const PodExtendedResources& ext,
                             const framework::Resource& node_allocatable, uint64_t* mask,
                             std::string* reason);
api::resource::ResourceClaim MakeExtendedResourceClaim(const PodExtendedResources& ext,
                                                       const api::Pod& pod, uint64_t mask,
                                                       const Interner& in);

// Devices of a class on a node, for NodeResourcesFit's scoring (kube's calculateDRAResourceTotals):
// the slices that apply to the node (its name, allNodes, a matching node selector; per device
// with perDeviceNodeSelection), every device the class's selectors accept. The matching devices
// are cached per (class, node) while the manager's objects stay the same; safe to call from
// several threads.
class ClassDeviceCounter {
 public:
  // Capacity and allocated count of `cls`'s devices on `node`; false on a CEL run-time error
  // (kube then leaves the resource out of the score).
  bool Count(const framework::DraManager& dra, const api::resource::DeviceClass& cls,
             const api::Node& node, const Interner& in, int64_t* capacity, int64_t* allocated);

 private:
  std::mutex mu_;
  uint64_t generation_ = 0;  // the manager's ObjectsGeneration the cache was built from
  const framework::DraManager* dra_ = nullptr;
  absl::flat_hash_map<std::pair<const api::resource::DeviceClass*, Symbol>,
                      std::shared_ptr<const std::vector<framework::DeviceId>>>
      devices_;
};

}  // namespace corral::plugins::dra
