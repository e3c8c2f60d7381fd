#pragma once
// ClusterCache: nodes and the pods bound or assumed on them (kube's backend/cache). It owns the
// NodeInfos and keeps the Snapshot that plugins read up to date incrementally: a pod add/remove
// touches one NodeInfo; node add/remove marks the zone-interleaved order for a lazy rebuild at the
// next snapshot() call. It is mutated only between scheduling cycles.
//
// PodInfos are owned by the caller and must outlive their presence in the cache.

#include <limits>
#include <map>
#include <memory>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/framework/node_info.h"
#include "corral/framework/snapshot.h"

namespace corral::state {

class ClusterCache {
 public:
  ClusterCache() = default;
  ClusterCache(const ClusterCache&) = delete;
  ClusterCache& operator=(const ClusterCache&) = delete;

  // Adds or replaces a node. Pods already recorded for that node name stay on it.
  void AddNode(const api::Node* node);
  // Removes a node; its pods are kept (kube keeps them until they are deleted) and reattach if
  // it returns.
  void RemoveNode(Symbol name);

  // Records `pod` on `node` (bound or assumed). A pod on an unknown node is kept aside until the
  // node appears. REQUIRES: the pod is not already in the cache.
  void AddPod(const framework::PodInfo* pod, Symbol node, bool assumed);
  // Marks an assumed pod as bound.
  void ConfirmPod(const framework::PodInfo* pod);
  // Removes a pod (deleted, or an assumed pod being forgotten). Returns false if unknown.
  bool RemovePod(const framework::PodInfo* pod);
  bool Contains(const framework::PodInfo* pod) const { return pod_node_.contains(pod); }
  bool IsAssumed(const framework::PodInfo* pod) const;
  // The node a cached pod is on (empty if unknown).
  Symbol NodeOf(const framework::PodInfo* pod) const;

  const framework::NodeInfo* GetNode(Symbol name) const;
  size_t NumNodes() const { return nodes_.size(); }
  // The lowest priority among cached pods (on nodes or waiting for their node; INT32_MAX when
  // there is none). A lower bound for the pods on any NodeInfo.
  int32_t MinPodPriority() const {
    return priority_counts_.empty() ? std::numeric_limits<int32_t>::max()
                                    : priority_counts_.begin()->first;
  }

  // The up-to-date snapshot (refreshes lazily derived lists).
  const framework::Snapshot& snapshot();

 private:
  struct PodEntry {
    Symbol node;
    bool assumed;
  };
  static std::string ZoneKey(const api::Node& node, const Interner* in);
  void RebuildOrder();
  void RebuildAffinityLists();
  void CountImages(const framework::NodeInfo& n, int delta);

  absl::flat_hash_map<Symbol, std::unique_ptr<framework::NodeInfo>> nodes_;
  std::vector<Symbol> insertion_order_;  // node names in add order (for the zone tree)
  absl::flat_hash_map<const framework::PodInfo*, PodEntry> pod_node_;
  // Pods whose node is not (yet) known.
  absl::flat_hash_map<Symbol, std::vector<const framework::PodInfo*>> orphans_;
  // Cached pods per priority (for MinPodPriority); entries are erased at zero.
  std::map<int32_t, int64_t> priority_counts_;
  framework::Snapshot snapshot_;
  bool order_dirty_ = false;
  bool affinity_dirty_ = false;
};

}  // namespace corral::state
