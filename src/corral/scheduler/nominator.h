#pragma once
// Nominator: which pending pods are nominated to which node (kube's backend/queue nominator). A pod
// is nominated when preemption made room for it on a node (status.nominatedNodeName), or when it
// arrives with a nominatedNodeName in its status. Nominated pods are honoured by later cycles:
// filters of pods of equal or lower priority run with them added to their node
// (Framework::RunFilterPluginsWithNominatedPods), and the nominated pod evaluates its node first.
//
// Invariants:
//   (1) node_of_[p] == n  ⇔  p ∈ nodes_[n.id()].pods; each pod is nominated to at most one node.
//   (2) nodes_[n.id()].pods keeps nomination order (kube appends).
// The scheduler keeps it in sync: nominations end when the pod is assumed, bound or deleted, or
// when a higher-priority preemptor clears them.

#include <cstdint>
#include <span>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/framework/pod_info.h"

namespace corral::scheduler {

class Nominator {
 public:
  // Nominates `pod` to `node`, replacing any earlier nomination. An empty node only deletes.
  void Add(const framework::PodInfo* pod, Symbol node);
  // Ends the pod's nomination, if any. Returns the node it was nominated to (empty if none).
  Symbol Delete(const framework::PodInfo* pod);
  // The node `pod` is nominated to, or empty.
  Symbol NodeOf(const framework::PodInfo* pod) const {
    auto it = node_of_.find(pod);
    return it == node_of_.end() ? Symbol() : it->second;
  }
  // Pods nominated to `node`, in nomination order.
  std::span<const framework::PodInfo* const> PodsForNode(Symbol node) const {
    return node.id() < nodes_.size()
               ? std::span<const framework::PodInfo* const>(nodes_[node.id()].pods)
               : std::span<const framework::PodInfo* const>();
  }
  size_t size() const { return node_of_.size(); }
  // A version of PodsForNode(node): it changes whenever a pod is nominated to or un-nominated
  // from `node`, and equal values mean an unchanged list. Values come from one counter shared by
  // all nodes, so they are never reused (0 = never touched). Unique() draws a fresh value that
  // equals no other version (for callers that must report "changed" unconditionally).
  uint64_t Version(Symbol node) const {
    return node.id() < nodes_.size() ? nodes_[node.id()].version : 0;
  }
  uint64_t Unique() const { return ++clock_; }
  // The last value drawn from the shared counter: no node's version exceeds it, and while it is
  // unchanged no nomination changed anywhere.
  uint64_t clock() const { return clock_; }
  // Nominated pods that belong to a pod group (their nominations outlive their assumption, so
  // Version does not describe what Scheduler::NominatedPodsForNode returns for their nodes).
  size_t num_group_members() const { return num_group_members_; }

 private:
  struct NodeEntry {
    uint64_t version = 0;
    std::vector<const framework::PodInfo*> pods;
  };
  // The entry of `node`, created on first use.
  NodeEntry& Entry(Symbol node) {
    if (node.id() >= nodes_.size()) nodes_.resize(node.id() + 1);
    return nodes_[node.id()];
  }
  void Touch(Symbol node) { Entry(node).version = ++clock_; }

  absl::flat_hash_map<const framework::PodInfo*, Symbol> node_of_;
  // By node name Symbol id (dense: PodsForNode and Version run per node in filter passes and the
  // preemption dry run); nodes past the end have no nominated pods and version 0.
  std::vector<NodeEntry> nodes_;
  mutable uint64_t clock_ = 0;
  size_t num_group_members_ = 0;
};

}  // namespace corral::scheduler
