#include "corral/state/cluster_cache.h"

#include <algorithm>
#include <string>

#include "corral/api/well_known.h"
#include "corral/core/check.h"

namespace corral::state {

using framework::NodeInfo;
using framework::PodInfo;

void ClusterCache::CountImages(const NodeInfo& n, int delta) {
  framework::SnapshotBuilder b(snapshot_);
  for (const auto& [img, size] : n.image_sizes()) {
    (void)size;
    int32_t& c = b.image_nodes()[img];
    c += delta;
    if (c <= 0) b.image_nodes().erase(img);
  }
}

void ClusterCache::AddNode(const api::Node* node) {
  Symbol name = node->meta.name;
  auto it = nodes_.find(name);
  if (it != nodes_.end()) {
    CountImages(*it->second, -1);
    // A zone change moves the node in the interleaved order.
    order_dirty_ = true;
    it->second->SetNode(node);
    CountImages(*it->second, +1);
    return;
  }
  auto info = std::make_unique<NodeInfo>(node);
  if (auto o = orphans_.find(name); o != orphans_.end()) {
    for (const PodInfo* p : o->second) info->AddPod(p);
    orphans_.erase(o);
    affinity_dirty_ = true;
  }
  CountImages(*info, +1);
  framework::SnapshotBuilder(snapshot_).by_name()[name] = info.get();
  nodes_.emplace(name, std::move(info));
  insertion_order_.push_back(name);
  order_dirty_ = true;
}

void ClusterCache::RemoveNode(Symbol name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  CountImages(*it->second, -1);
  // Keep its pods aside; they reattach if the node comes back.
  auto& orphans = orphans_[name];
  for (const PodInfo* p : it->second->pods()) orphans.push_back(p);
  if (orphans.empty()) orphans_.erase(name);
  framework::SnapshotBuilder(snapshot_).by_name().erase(name);
  nodes_.erase(it);
  insertion_order_.erase(std::find(insertion_order_.begin(), insertion_order_.end(), name));
  order_dirty_ = true;
  affinity_dirty_ = true;
}

void ClusterCache::AddPod(const PodInfo* pod, Symbol node, bool assumed) {
  CORRAL_CHECK_MSG(!pod_node_.contains(pod), "pod added to the cache twice");
  pod_node_[pod] = {node, assumed};
  ++priority_counts_[pod->priority()];
  auto it = nodes_.find(node);
  if (it == nodes_.end()) {
    orphans_[node].push_back(pod);
    return;
  }
  it->second->AddPod(pod);
  if (pod->HasAffinity()) affinity_dirty_ = true;
}

void ClusterCache::ConfirmPod(const PodInfo* pod) {
  auto it = pod_node_.find(pod);
  if (it != pod_node_.end()) it->second.assumed = false;
}

bool ClusterCache::RemovePod(const PodInfo* pod) {
  auto it = pod_node_.find(pod);
  if (it == pod_node_.end()) return false;
  Symbol node = it->second.node;
  pod_node_.erase(it);
  if (auto pc = priority_counts_.find(pod->priority());
      pc != priority_counts_.end() && --pc->second == 0) {
    priority_counts_.erase(pc);
  }
  auto n = nodes_.find(node);
  if (n != nodes_.end()) {
    n->second->RemovePod(pod);
    if (pod->HasAffinity()) affinity_dirty_ = true;
  } else if (auto o = orphans_.find(node); o != orphans_.end()) {
    auto& v = o->second;
    v.erase(std::find(v.begin(), v.end(), pod));
    if (v.empty()) orphans_.erase(o);
  }
  return true;
}

bool ClusterCache::IsAssumed(const PodInfo* pod) const {
  auto it = pod_node_.find(pod);
  return it != pod_node_.end() && it->second.assumed;
}

Symbol ClusterCache::NodeOf(const PodInfo* pod) const {
  auto it = pod_node_.find(pod);
  return it == pod_node_.end() ? Symbol() : it->second.node;
}

const NodeInfo* ClusterCache::GetNode(Symbol name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second.get();
}

std::string ClusterCache::ZoneKey(const api::Node& node, const Interner*) {
  // kube utilnode.GetZoneKey: region and zone labels; both empty ⇒ "". Symbols stand in for the
  // strings (only equality matters for grouping).
  const Symbol* region = node.meta.labels.Find(api::wk::kRegionLabel);
  const Symbol* zone = node.meta.labels.Find(api::wk::kZoneLabel);
  if (region == nullptr && zone == nullptr) return {};
  return std::to_string(region ? region->id() : 0) +
         ":\x00:" + std::to_string(zone ? zone->id() : 0);
}

void ClusterCache::RebuildOrder() {
  // kube nodeTree: zones in order of first appearance, nodes within a zone in insertion order;
  // list() takes node i of every zone in turn.
  std::vector<std::string> zone_order;
  absl::flat_hash_map<std::string, std::vector<const NodeInfo*>> zones;
  for (Symbol name : insertion_order_) {
    const NodeInfo* n = nodes_.at(name).get();
    std::string key = ZoneKey(*n->node(), nullptr);
    auto [it, inserted] = zones.try_emplace(key);
    if (inserted) zone_order.push_back(key);
    it->second.push_back(n);
  }
  auto& out = framework::SnapshotBuilder(snapshot_).nodes();
  out.clear();
  out.reserve(nodes_.size());
  for (size_t i = 0; out.size() < nodes_.size(); ++i) {
    for (const auto& key : zone_order) {
      const auto& list = zones[key];
      if (i < list.size()) out.push_back(list[i]);
    }
  }
}

void ClusterCache::RebuildAffinityLists() {
  framework::SnapshotBuilder b(snapshot_);
  b.with_affinity().clear();
  b.with_required_anti_affinity().clear();
  for (const NodeInfo* n : snapshot_.nodes()) {
    if (!n->pods_with_affinity().empty()) b.with_affinity().push_back(n);
    if (!n->pods_with_required_anti_affinity().empty())
      b.with_required_anti_affinity().push_back(n);
  }
}

const framework::Snapshot& ClusterCache::snapshot() {
  if (order_dirty_) {
    RebuildOrder();
    order_dirty_ = false;
    affinity_dirty_ = true;
  }
  if (affinity_dirty_) {
    RebuildAffinityLists();
    affinity_dirty_ = false;
  }
  return snapshot_;
}

}  // namespace corral::state
