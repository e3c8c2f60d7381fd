#pragma once
// The node-resources plugins' part of extended resources backed by DRA (DRAExtendedResource):
// scoring a resource that a DeviceClass backs on a node that does not advertise it (kube's
// calculateDRAExtendedResourceAllocatableRequest) and the signature refusal.

#include "corral/framework/dra_manager.h"
#include "corral/framework/node_info.h"
#include "corral/framework/pod_info.h"
#include "corral/plugins/dynamic_resources/extended_resource.h"
#include "corral/plugins/node_resources/resource_allocation.h"

namespace corral::plugins::noderesources {

// For each configured scalar the pod requests whose node entry is empty (allocatable 0) and that a
// class backs: when the node has devices of the class, allocatable becomes their count and
// requested the allocated ones plus the pod's request. No-op without a manager.
void ApplyDraExtendedResources(const framework::NodeInfo& node, const ResourceRequests& requests,
                               const framework::DraManager* dra, const Interner& in,
                               dra::ClassDeviceCounter& counter, NodeResourceVectors* v);

// Whether some non-zero request of the pod is backed by a class (such a pod is not signed).
bool RequestsDraBackedResource(const framework::Resource& request,
                               const framework::DraManager* dra);

// kube's SignPod refusal text.
inline constexpr std::string_view kDraExtendedResourceSignRefusal =
    "signature disabled when dra extended resources enabled";

}  // namespace corral::plugins::noderesources
