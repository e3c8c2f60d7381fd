#include "corral/plugins/node_resources/resource_allocation.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "corral/api/selectors.h"
#include "corral/api/well_known.h"

namespace corral::plugins::noderesources {

std::vector<ScoredResource> ClassifyResources(std::span<const ResourceSpec> specs) {
  std::vector<ScoredResource> out;
  out.reserve(specs.size());
  for (const ResourceSpec& spec : specs) {
    ScoredResource r{spec.name, spec.weight, ResourceKind::kOther};
    if (spec.name == "cpu") {
      r.kind = ResourceKind::kCpu;
    } else if (spec.name == "memory") {
      r.kind = ResourceKind::kMemory;
    } else if (spec.name == "ephemeral-storage") {
      r.kind = ResourceKind::kEphemeralStorage;
    } else if (api::IsScalarResourceName(spec.name)) {
      r.kind = ResourceKind::kScalar;
    }
    out.push_back(std::move(r));
  }
  return out;
}

ResourceRequests CalculatePodResourceRequests(const framework::PodInfo& pod,
                                              std::span<const ScoredResource> resources,
                                              bool use_requested, const Interner& interner) {
  ResourceRequests out;
  out.reserve(resources.size());
  for (const ScoredResource& r : resources) {
    ResourceRequest req{r.kind, Symbol(), r.weight, 0};
    switch (r.kind) {
      case ResourceKind::kCpu:
        req.pod_request = use_requested ? pod.request.milli_cpu : pod.non_zero_milli_cpu;
        break;
      case ResourceKind::kMemory:
        req.pod_request = use_requested ? pod.request.memory : pod.non_zero_memory;
        break;
      case ResourceKind::kEphemeralStorage:
        req.pod_request = pod.request.ephemeral_storage;
        break;
      case ResourceKind::kScalar:
        if (std::optional<Symbol> sym = interner.Find(r.name)) {
          req.name = *sym;
          req.pod_request = pod.request.Scalar(*sym);
        }
        break;
      case ResourceKind::kOther:
        break;
    }
    out.push_back(req);
  }
  return out;
}

bool IsBestEffort(const ResourceRequests& requests) {
  for (const ResourceRequest& r : requests) {
    if (r.pod_request != 0) return false;
  }
  return true;
}

void CalculateNodeVectors(const framework::NodeInfo& node, const ResourceRequests& requests,
                          bool use_requested, NodeResourceVectors* out) {
  const size_t n = requests.size();
  out->Resize(n);
  const framework::Resource& alloc = node.allocatable();
  const framework::Resource& committed =
      use_requested ? node.requested() : node.non_zero_requested();
  for (size_t i = 0; i < n; ++i) {
    const ResourceRequest& r = requests[i];
    int64_t a = 0;
    int64_t used = 0;
    switch (r.kind) {
      case ResourceKind::kCpu:
        a = alloc.milli_cpu;
        used = committed.milli_cpu;
        break;
      case ResourceKind::kMemory:
        a = alloc.memory;
        used = committed.memory;
        break;
      case ResourceKind::kEphemeralStorage:
        a = alloc.ephemeral_storage;
        used = node.requested().ephemeral_storage;
        break;
      case ResourceKind::kScalar:
        // A scalar the pod does not request is not scored (kube returns (0, 0)).
        if (r.pod_request == 0 || r.name.empty()) continue;
        a = alloc.Scalar(r.name);
        used = node.requested().Scalar(r.name);
        break;
      case ResourceKind::kOther:
        continue;
    }
    if (a == 0) continue;  // kube: "Only fill the extended resource entry when it's non-zero."
    out->allocatable[i] = a;
    out->requested[i] = used + r.pod_request;
    out->allocated[i] = used;
  }
}

std::string ResourceSignature(const framework::Resource& request, const Interner& interner) {
  std::string out = fmt::format(
      R"({{"MilliCPU":{},"Memory":{},"EphemeralStorage":{},"AllowedPodNumber":{},)"
      R"("ScalarResources":)",
      request.milli_cpu, request.memory, request.ephemeral_storage, request.allowed_pod_number);
  if (request.scalar.empty()) {
    out += "null}";
    return out;
  }
  absl::InlinedVector<std::pair<std::string_view, int64_t>, 4> scalars;
  for (const auto& [name, value] : request.scalar) scalars.emplace_back(interner.Str(name), value);
  std::sort(scalars.begin(), scalars.end());
  out += '{';
  for (size_t i = 0; i < scalars.size(); ++i) {
    // Resource names are validated qualified names: nothing in them needs JSON escaping.
    out += fmt::format(R"({}"{}":{})", i == 0 ? "" : ",", scalars[i].first, scalars[i].second);
  }
  out += "}}";
  return out;
}

}  // namespace corral::plugins::noderesources
