#pragma once
// The scoring machinery shared by NodeResourcesFit's strategies and NodeResourcesBalancedAllocation
// (kube's noderesources/resource_allocation.go): which amount of each configured resource a pod
// requests, and what a node offers and has already committed.
//
// The per-node path (CalculateNodeVectors + a strategy function) allocates nothing for up to 4
// configured resources.

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/inlined_vector.h>

#include "corral/core/interner.h"
#include "corral/framework/node_info.h"
#include "corral/framework/pod_info.h"
#include "corral/plugins/node_resources/args.h"

namespace corral::plugins::noderesources {

// How a configured resource name is read from a Resource (kube's switch
// in calculateResourceAllocatableRequest).
enum class ResourceKind : uint8_t {
  kCpu,               // milli_cpu; non-zero requests unless use_requested
  kMemory,            // memory; non-zero requests unless use_requested
  kEphemeralStorage,  // ephemeral_storage; always actual requests
  kScalar,  // extended, hugepages-*, *kubernetes.io/*, attachable-volumes-*: scalar entries
  kOther,   // anything else (pods, storage, ...): never scored
};

// A configured resource, classified once when the plugin is built.
struct ScoredResource {
  std::string name;
  int64_t weight = 1;
  ResourceKind kind = ResourceKind::kOther;
};
std::vector<ScoredResource> ClassifyResources(std::span<const ResourceSpec> specs);

// One configured resource, resolved for the pod of the current cycle.
struct ResourceRequest {
  ResourceKind kind = ResourceKind::kOther;
  Symbol
      name;  // kScalar: the interned name; empty when nothing ever interned it (no node offers it)
  int64_t weight = 1;
  int64_t pod_request = 0;
};
using ResourceRequests = absl::InlinedVector<ResourceRequest, 4>;

// kube's calculatePodResourceRequestList: the pod's request of each configured resource, in
// configuration order. With use_requested false (NodeResourcesFit) cpu and memory use the non-zero
// requests (100m / 200Mi for containers that request none); with true (BalancedAllocation) the
// actual requests.
ResourceRequests CalculatePodResourceRequests(const framework::PodInfo& pod,
                                              std::span<const ScoredResource> resources,
                                              bool use_requested, const Interner& interner);

// kube's isBestEffortPod: every configured request is zero.
bool IsBestEffort(const ResourceRequests& requests);

// Per configured resource: what the node offers and what it would have committed with and without
// the pod. A resource the node does not offer (allocatable 0), or a scalar the pod does not
// request, has all three at 0, which every scorer skips.
// Scored per node on the hot path, so the three vectors are views into one inline buffer for up to
// kInline resources (the default profile scores two) and a heap buffer only beyond; Resize
// zero-fills. Not copyable: the views point into the object.
struct NodeResourceVectors {
  static constexpr size_t kInline = 4;

  NodeResourceVectors() = default;
  NodeResourceVectors(const NodeResourceVectors&) = delete;
  NodeResourceVectors& operator=(const NodeResourceVectors&) = delete;

  void Resize(size_t n) {
    int64_t* p = inline_.data();
    if (n > kInline) {
      heap_.assign(3 * n, 0);
      p = heap_.data();
    } else {
      std::fill_n(p, 3 * n, 0);
    }
    requested = {p, n};
    allocated = {p + n, n};
    allocatable = {p + 2 * n, n};
  }

  std::span<int64_t> requested;    // committed + the pod's request
  std::span<int64_t> allocated;    // committed, without the pod
  std::span<int64_t> allocatable;  // 0 = skipped

 private:
  std::array<int64_t, 3 * kInline> inline_{};
  std::vector<int64_t> heap_;
};

// kube's calculateResourceAllocatableRequest over all configured resources. "Committed" is the
// node's non-zero requests for cpu and memory unless use_requested, and its actual
// requests otherwise.
void CalculateNodeVectors(const framework::NodeInfo& node, const ResourceRequests& requests,
                          bool use_requested, NodeResourceVectors* out);

// The pod-signature fragment of the node-resources plugins (kube's ResourcesSignerName with the
// value computePodResourceRequest(pod)): the pod's request as kube's json.Marshal of its
// framework.Resource, which reads:
//   {"MilliCPU":1000,"Memory":2000,"EphemeralStorage":0,"AllowedPodNumber":0,"ScalarResources":null}
// with ScalarResources an object keyed by resource name in string order when the pod requests any.
inline constexpr std::string_view kResourcesSignerKey =
    "v1.Pod.Spec.ContainerRequestsAndOverheads()";
std::string ResourceSignature(const framework::Resource& request, const Interner& interner);

// a * b with Go's wrapping int64 semantics (no undefined behaviour on absurd inputs).
inline int64_t GoMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

}  // namespace corral::plugins::noderesources
