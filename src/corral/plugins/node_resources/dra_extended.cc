#include "corral/plugins/node_resources/dra_extended.h"

namespace corral::plugins::noderesources {

void ApplyDraExtendedResources(const framework::NodeInfo& node, const ResourceRequests& requests,
                               const framework::DraManager* dra, const Interner& in,
                               dra::ClassDeviceCounter& counter, NodeResourceVectors* v) {
  if (dra == nullptr) return;
  for (size_t i = 0; i < requests.size(); ++i) {
    const ResourceRequest& r = requests[i];
    // kube: a scalar the pod requests that the node does not offer (allocatable 0).
    if (r.kind != ResourceKind::kScalar || r.pod_request == 0 || r.name.empty() ||
        v->allocatable[i] != 0) {
      continue;
    }
    const api::resource::DeviceClass* cls = dra->DeviceClassForResource(r.name);
    if (cls == nullptr) continue;
    int64_t capacity = 0;
    int64_t allocated = 0;
    if (!counter.Count(*dra, *cls, *node.node(), in, &capacity, &allocated) || capacity == 0) {
      continue;
    }
    v->allocatable[i] = capacity;
    v->allocated[i] = allocated;
    v->requested[i] = allocated + r.pod_request;
  }
}

bool RequestsDraBackedResource(const framework::Resource& request,
                               const framework::DraManager* dra) {
  if (dra == nullptr) return false;
  for (const auto& [name, q] : request.scalar) {
    if (q != 0 && dra->DeviceClassForResource(name) != nullptr) return true;
  }
  return false;
}

}  // namespace corral::plugins::noderesources
