#include "corral/plugins/dynamic_resources/extended_resource.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "corral/api/resource/extended_resource.h"
#include "corral/api/selectors.h"
#include "corral/framework/resource.h"

namespace corral::plugins::dra {

namespace res = api::resource;

namespace {

// kube's resource.Quantity.AsInt64 for a request: the integer value, or nullopt for a fractional
// one (kube then makes no device request for it).
std::optional<int64_t> AsInt64(const api::Quantity& q) {
  const int64_t milli = q.MilliValue();
  if (milli % 1000 != 0) return std::nullopt;
  return milli / 1000;
}

const api::Quantity* ContainerRequest(const api::Container& c, Symbol resource) {
  return api::FindResource(c.resources.requests, resource);
}

// kube's createResourceRequestAndMappings (the request half): the request the container at
// `index` makes for `resource`, reusing the counts of `reusable` requests first (non-sidecar init
// containers reuse the devices of later long-lived containers). Null when the container needs
// no request of its own.
std::optional<res::DeviceRequest> ContainerDeviceRequest(
    size_t index, const api::Container& c, Symbol resource, Symbol device_class,
    std::span<const std::optional<res::DeviceRequest>> reusable, const Interner& in,
    std::string* error) {
  const api::Quantity* q = ContainerRequest(c, resource);
  if (q == nullptr) return std::nullopt;
  const std::optional<int64_t> crq = AsInt64(*q);
  if (!crq.has_value() || *crq == 0) return std::nullopt;
  int64_t sum = 0;
  for (const auto& r : reusable) {
    if (!r.has_value()) continue;
    sum += r->exactly->count;
    if (sum >= *crq) return std::nullopt;
  }
  // The resource's index among the container's request names sorted as strings.
  const std::string_view name = in.Str(resource);
  size_t ridx = 0;
  for (const auto& [other, unused] : c.resources.requests) {
    if (in.Str(other) < name) ++ridx;
  }
  const std::string req_name = res::ExtendedResourceRequestName(index, ridx);
  const std::optional<Symbol> sym = in.Find(req_name);
  if (!sym.has_value()) {
    *error = fmt::format("internal error: device request name {} was not interned", req_name);
    return std::nullopt;
  }
  res::DeviceRequest out;
  out.name = *sym;
  res::DeviceRequestSpec spec;
  spec.result_name = *sym;
  spec.device_class_name = device_class;
  spec.allocation_mode = res::AllocationMode::kExactCount;
  spec.count = *crq - sum;
  out.exactly = std::move(spec);
  return out;
}

// kube's createRequestsAndMappings for one resource, before the final sort.
bool ResourceDeviceRequests(const api::Pod& pod, Symbol resource, Symbol device_class,
                            const Interner& in, std::vector<res::DeviceRequest>* out,
                            std::string* error) {
  std::vector<const api::Container*> containers;
  for (const auto& c : pod.init_containers) containers.push_back(&c);
  for (const auto& c : pod.containers) containers.push_back(&c);
  const size_t num_init = pod.init_containers.size();
  auto short_lived = [&](size_t i) {
    return i < num_init && containers[i]->restart_policy != api::ContainerRestartPolicy::kAlways;
  };
  std::vector<std::optional<res::DeviceRequest>> long_lived(containers.size());
  for (size_t i = 0; i < containers.size(); ++i) {
    if (short_lived(i)) continue;
    long_lived[i] =
        ContainerDeviceRequest(i, *containers[i], resource, device_class, {}, in, error);
    if (!error->empty()) return false;
  }
  std::optional<res::DeviceRequest> max_short;
  for (size_t i = 0; i < containers.size(); ++i) {
    if (!short_lived(i)) continue;
    auto r = ContainerDeviceRequest(i, *containers[i], resource, device_class,
                                    std::span(long_lived).subspan(i), in, error);
    if (!error->empty()) return false;
    if (r.has_value() &&
        (!max_short.has_value() || max_short->exactly->count < r->exactly->count)) {
      max_short = std::move(r);
    }
  }
  if (max_short.has_value()) out->push_back(std::move(*max_short));
  for (auto& r : long_lived) {
    if (r.has_value()) out->push_back(std::move(*r));
  }
  return true;
}

}  // namespace

bool CollectPodExtendedResources(const framework::PodInfo& pod, const framework::DraManager& dra,
                                 const Interner& in, PodExtendedResources* out,
                                 std::string* error) {
  bool any_backed = false;
  for (const auto& [name, q] : pod.request.scalar) {
    if (q != 0 && dra.DeviceClassForResource(name) != nullptr) any_backed = true;
  }
  if (!any_backed) return false;
  out->resources.clear();
  for (const auto& [name, q] : pod.request.scalar) {
    if (q == 0 || !res::IsDraExtendedResourceName(in.Str(name))) continue;
    ExtendedResourceRequest r;
    r.resource = name;
    r.quantity = q;
    r.device_class = dra.DeviceClassForResource(name);
    if (r.device_class != nullptr &&
        !ResourceDeviceRequests(*pod.pod, name, r.device_class->meta.name, in, &r.requests,
                                error)) {
      return true;
    }
    out->resources.push_back(std::move(r));
  }
  // kube sorts the resource names before building the requests; only the final order (sorted by
  // request name) is observable, and the reasons are reported for the first failing name.
  std::sort(out->resources.begin(), out->resources.end(),
            [&](const ExtendedResourceRequest& a, const ExtendedResourceRequest& b) {
              return in.Str(a.resource) < in.Str(b.resource);
            });
  auto find = [&](std::string_view s, Symbol* sym) {
    if (auto f = in.Find(s); f.has_value()) {
      *sym = *f;
      return true;
    }
    *error = fmt::format("internal error: {:?} was not interned", s);
    return false;
  };
  find(res::kSpecialClaimInMemName, &out->special_claim_name) &&
      find(res::kExtendedResourceClaimAnnotation, &out->annotation_key) &&
      find("true", &out->annotation_value) && find("Pod", &out->pod_kind);
  return true;
}

bool PodRequestsBackedResource(const api::Pod& pod, const framework::DraManager& dra) {
  for (const auto* list : {&pod.init_containers, &pod.containers}) {
    for (const api::Container& c : *list) {
      for (const auto& [name, q] : c.resources.requests) {
        if (!q.IsZero() && dra.DeviceClassForResource(name) != nullptr) return true;
      }
    }
  }
  return false;
}

bool NodeAdvertises(const framework::Resource& allocatable, Symbol resource) {
  for (const auto& [name, v] : allocatable.scalar) {
    if (name == resource) return true;
  }
  return false;
}

namespace {

// The special claim for the resources of `needed` (non-empty), in ext.resources order.
res::ResourceClaim MakeClaim(const PodExtendedResources& ext, const api::Pod& pod,
                             std::span<const ExtendedResourceRequest* const> needed,
                             const Interner& in) {
  res::ResourceClaim c;
  c.meta.name = ext.special_claim_name;
  c.meta.namespace_ = pod.meta.namespace_;
  c.meta.owner_references.push_back({});
  api::OwnerReference& owner = c.meta.owner_references.back();
  owner.kind = ext.pod_kind;
  owner.name = pod.meta.name;
  owner.uid = pod.meta.uid;
  owner.controller = true;
  c.meta.annotations.emplace_back(ext.annotation_key, std::string(in.Str(ext.annotation_value)));
  for (const ExtendedResourceRequest* r : needed) {
    c.spec.requests.insert(c.spec.requests.end(), r->requests.begin(), r->requests.end());
  }
  std::stable_sort(c.spec.requests.begin(), c.spec.requests.end(),
                   [&](const res::DeviceRequest& a, const res::DeviceRequest& b) {
                     return in.Str(a.name) < in.Str(b.name);
                   });
  return c;
}

// kube's per-resource check of filterExtendedResources: 1 when DRA must provide the resource on
// the node, 0 when the node advertises it, -1 when neither ("cannot fit resource").
int NeedsDra(const ExtendedResourceRequest& r, const framework::Resource& node_allocatable) {
  const int64_t allocatable = node_allocatable.Scalar(r.resource);
  if (r.device_class != nullptr && allocatable == 0) return 1;
  return NodeAdvertises(node_allocatable, r.resource) ? 0 : -1;
}

}  // namespace

bool BuildNodeExtendedResourceClaim(const PodExtendedResources& ext, const api::Pod& pod,
                                    const framework::Resource& node_allocatable, const Interner& in,
                                    std::optional<res::ResourceClaim>* claim, std::string* reason) {
  claim->reset();
  std::vector<const ExtendedResourceRequest*> needed;
  for (const ExtendedResourceRequest& r : ext.resources) {
    const int need = NeedsDra(r, node_allocatable);
    if (need < 0) {
      *reason = "cannot fit resource";
      return false;
    }
    if (need > 0) needed.push_back(&r);
  }
  if (needed.empty()) return true;
  *claim = MakeClaim(ext, pod, needed, in);
  return true;
}

bool NeededExtendedResources(const PodExtendedResources& ext,
                             const framework::Resource& node_allocatable, uint64_t* mask,
                             std::string* reason) {
  *mask = 0;
  for (size_t i = 0; i < ext.resources.size(); ++i) {
    const int need = NeedsDra(ext.resources[i], node_allocatable);
    if (need < 0) {
      *reason = "cannot fit resource";
      return false;
    }
    if (need > 0) *mask |= uint64_t{1} << i;
  }
  return true;
}

res::ResourceClaim MakeExtendedResourceClaim(const PodExtendedResources& ext, const api::Pod& pod,
                                             uint64_t mask, const Interner& in) {
  std::vector<const ExtendedResourceRequest*> needed;
  for (size_t i = 0; i < ext.resources.size(); ++i) {
    if ((mask >> i) & 1) needed.push_back(&ext.resources[i]);
  }
  return MakeClaim(ext, pod, needed, in);
}

bool ClassDeviceCounter::Count(const framework::DraManager& dra, const res::DeviceClass& cls,
                               const api::Node& node, const Interner& in, int64_t* capacity,
                               int64_t* allocated) {
  std::shared_ptr<const std::vector<framework::DeviceId>> devices;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (dra_ != &dra || generation_ != dra.ObjectsGeneration()) {
      devices_.clear();
      dra_ = &dra;
      generation_ = dra.ObjectsGeneration();
    }
    if (auto it = devices_.find({&cls, node.meta.name}); it != devices_.end()) devices = it->second;
  }
  if (devices == nullptr) {
    auto matching = std::make_shared<std::vector<framework::DeviceId>>();
    auto on_node = [&](Symbol node_name, bool all_nodes,
                       const std::optional<api::NodeSelector>& selector) {
      if (all_nodes || (!node_name.empty() && node_name == node.meta.name)) return true;
      return selector.has_value() &&
             api::MatchesNodeSelector(*selector, node.meta.labels, node.meta.name, in);
    };
    for (const res::ResourceSlice* s : dra.ResourceSlices()) {
      if (!s->per_device_node_selection) {
        // kube's slice-level check: a slice for another node, or whose selector does not match,
        // is skipped.
        if (!s->all_nodes && s->node_name != node.meta.name && s->node_selector.has_value()) {
          if (!api::MatchesNodeSelector(*s->node_selector, node.meta.labels, node.meta.name, in)) {
            continue;
          }
        } else if (!s->all_nodes && !s->node_name.empty() && s->node_name != node.meta.name) {
          continue;
        }
      }
      for (const res::Device& d : s->devices) {
        if (s->per_device_node_selection && !on_node(d.node_name, d.all_nodes, d.node_selector)) {
          continue;
        }
        bool selected = true;
        const cel::Device dev{
            .driver = in.Str(s->driver), .attributes = d.attributes, .capacity = d.capacity};
        for (const res::DeviceSelector& sel : cls.selectors) {
          bool matched = false;
          std::string err;
          if (!sel.program->Matches(dev, &matched, &err)) return false;
          if (!matched) {
            selected = false;
            break;
          }
        }
        if (selected) matching->push_back({s->driver, s->pool_name, d.name});
      }
    }
    devices = matching;
    std::lock_guard<std::mutex> l(mu_);
    devices_[{&cls, node.meta.name}] = std::move(matching);
  }
  const auto& held = dra.AllocatedDevices();
  int64_t n = 0;
  for (const framework::DeviceId& id : *devices) n += held.contains(id) ? 1 : 0;
  *capacity = static_cast<int64_t>(devices->size());
  *allocated = n;
  return true;
}

}  // namespace corral::plugins::dra
