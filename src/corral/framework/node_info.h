#pragma once
// NodeInfo: a node and the pods on it (bound and assumed), with the aggregates plugins read on hot
// paths (kube's framework.NodeInfo). Owned and mutated only by the cluster cache between scheduling
// cycles; plugins see `const NodeInfo&`. Copyable: preemption and nominated-pod evaluation work
// on copies.
//
// Invariants:
//   (1) requested == Σ pod.request over pods(); non_zero_requested likewise with the non-zero
//   values. (2) pods_with_affinity ⊆ pods (pods with any inter-pod affinity or anti-affinity term);
//       pods_with_required_anti_affinity ⊆ pods_with_affinity.
//   (3) used_ports holds the host ports of every pod in pods(), with multiplicity.

#include <cstdint>
#include <utility>
#include <vector>

#include "corral/api/types.h"
#include "corral/framework/pod_info.h"
#include "corral/framework/resource.h"

namespace corral::framework {

class NodeInfo {
 public:
  NodeInfo() = default;
  explicit NodeInfo(const api::Node* node) { SetNode(node); }

  const api::Node* node() const { return node_; }
  Symbol name() const { return node_->meta.name; }
  const api::LabelSet& labels() const { return node_->meta.labels; }

  const Resource& allocatable() const { return allocatable_; }
  const Resource& requested() const { return requested_; }
  // Only milli_cpu and memory are meaningful (kube NonZeroRequested).
  const Resource& non_zero_requested() const { return non_zero_requested_; }

  const std::vector<const PodInfo*>& pods() const { return pods_; }
  const std::vector<const PodInfo*>& pods_with_affinity() const { return pods_with_affinity_; }
  const std::vector<const PodInfo*>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  const std::vector<HostPort>& used_ports() const { return used_ports_; }
  // Image sizes reported by this node, sorted by image name symbol (every name of an image).
  const std::vector<std::pair<Symbol, int64_t>>& image_sizes() const { return image_sizes_; }
  int64_t ImageSize(Symbol image) const;

  // Changes on every mutation; lets incremental consumers detect change. Values come from one
  // process-wide counter, so two NodeInfos (or one NodeInfo before and after a mutation) never
  // share a generation unless one is an unmutated copy of the other: a node removed and re-added at
  // a reused address does not look unchanged.
  uint64_t generation() const { return generation_; }

  // ---- mutation (cache and simulations on copies only) ----
  void SetNode(const api::Node* node);
  void AddPod(const PodInfo* pod);
  // Returns false if the pod was not on this node.
  bool RemovePod(const PodInfo* pod);

 private:
  void Account(const PodInfo* pod, int sign);

  // node_ and generation_ first and together: memo validity checks read only these two (one cache
  // line per node when thousands of nodes are checked per attempt).
  const api::Node* node_ = nullptr;
  uint64_t generation_ = 0;
  Resource allocatable_;
  Resource requested_;
  Resource non_zero_requested_;
  std::vector<const PodInfo*> pods_;
  std::vector<const PodInfo*> pods_with_affinity_;
  std::vector<const PodInfo*> pods_with_required_anti_affinity_;
  std::vector<HostPort> used_ports_;
  std::vector<std::pair<Symbol, int64_t>> image_sizes_;
};

}  // namespace corral::framework
