#pragma once
// Snapshot: the read-only view of the cluster that plugins see during a scheduling cycle (kube's
// framework.SharedLister / cache.Snapshot). Corral's cache mutates NodeInfos in place between
// cycles and never during one, so the snapshot is not a copy: it is the cache's state, updated
// incrementally (assumed pods included) — never rebuilt per cycle.

#include <cstdint>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/framework/node_info.h"

namespace corral::framework {

class Snapshot {
 public:
  // All nodes in kube's zone-interleaved order (nodeTree.list()).
  const std::vector<const NodeInfo*>& nodes() const { return nodes_; }
  size_t NumNodes() const { return nodes_.size(); }
  // Null if no node has that name.
  const NodeInfo* Get(Symbol name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
  }
  // Nodes with at least one pod that has (anti-)affinity terms, in nodes() order.
  const std::vector<const NodeInfo*>& have_pods_with_affinity() const { return with_affinity_; }
  // Nodes with at least one pod that has required anti-affinity terms, in nodes() order.
  const std::vector<const NodeInfo*>& have_pods_with_required_anti_affinity() const {
    return with_required_anti_affinity_;
  }
  // Number of nodes that report `image` (kube ImageStateSummary.NumNodes).
  int32_t ImageNumNodes(Symbol image) const {
    auto it = image_nodes_.find(image);
    return it == image_nodes_.end() ? 0 : it->second;
  }

 private:
  friend class SnapshotBuilder;  // the cache's write access (corral/state)
  std::vector<const NodeInfo*> nodes_;
  absl::flat_hash_map<Symbol, const NodeInfo*> by_name_;
  std::vector<const NodeInfo*> with_affinity_;
  std::vector<const NodeInfo*> with_required_anti_affinity_;
  absl::flat_hash_map<Symbol, int32_t> image_nodes_;
};

// Write access to a Snapshot for its owner (the cluster cache). Not for plugins.
class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(Snapshot& s) : s_(s) {}
  std::vector<const NodeInfo*>& nodes() { return s_.nodes_; }
  absl::flat_hash_map<Symbol, const NodeInfo*>& by_name() { return s_.by_name_; }
  std::vector<const NodeInfo*>& with_affinity() { return s_.with_affinity_; }
  std::vector<const NodeInfo*>& with_required_anti_affinity() {
    return s_.with_required_anti_affinity_;
  }
  absl::flat_hash_map<Symbol, int32_t>& image_nodes() { return s_.image_nodes_; }

 private:
  Snapshot& s_;
};

}  // namespace corral::framework
