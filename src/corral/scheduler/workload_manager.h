#pragma once
// WorkloadManager: the scheduler's registry of pod groups (kube's backend/workloadmanager): one
// PodGroupState per gang instance, fed by pod add/delete/bind, plus the Workload and PodGroup
// objects the groups refer to. Groups are kept in first-seen order so reports are deterministic.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/types.h"
#include "corral/framework/pod_group.h"

namespace corral::scheduler {

class WorkloadManager {
 public:
  // Cluster objects (Workloads, PodGroups). `objects` must outlive the manager; null clears them.
  void SetObjects(const api::ObjectSet* objects);
  const api::Workload* GetWorkload(Symbol ns, Symbol name) const;
  const api::PodGroup* GetPodGroup(Symbol ns, Symbol name) const;
  // Whether a PodGroup with disruptionMode all is among the objects.
  bool HasAllModePodGroups() const { return has_all_mode_; }

  // ---- CompositePodGroup hierarchies (KEP-6012; composite_hierarchy.cc) ----
  // One child of a CompositePodGroup: exactly one of the two is set.
  struct CompositeChild {
    const api::PodGroup* pod_group = nullptr;
    const api::CompositePodGroup* composite = nullptr;
  };
  const api::CompositePodGroup* GetCompositePodGroup(Symbol ns, Symbol name) const;
  bool HasCompositePodGroups() const { return !composites_.empty(); }
  // The objects naming `cpg` as their parent: child CompositePodGroups, then PodGroups, each in
  // load order.
  const std::vector<CompositeChild>& ChildrenOf(const api::CompositePodGroup& cpg) const;
  // The root of the hierarchy that CompositePodGroup `name` of `ns` belongs to (itself when it has
  // no parent), with `*root_name` set to the last name reached. Null when a CompositePodGroup on
  // the way is missing, on a cycle, or when the tree from the child naming `name` up has more
  // than kube's 4 levels.
  const api::CompositePodGroup* RootComposite(Symbol ns, Symbol name, Symbol* root_name) const;
  // kube's HierarchyTracker readiness: a PodGroup is ready once the scheduler knows minCount of
  // its pods (1 for basic), a CompositePodGroup once minGroupCount of its children are ready.
  bool IsReady(const CompositeChild& child) const;
  int32_t ReadyChildren(const api::CompositePodGroup& cpg) const;

  // Records a member (pending, or bound when `bound`). Returns its group, or null if the pod
  // has none.
  framework::PodGroupState* AddPod(const framework::PodInfo* pod, bool bound);
  // A pending member of another scheduler (not tracked otherwise): only its schedulerName counts.
  void NoteForeignMember(const framework::PodGroupKey& key, Symbol scheduler_name);
  // Forgets a member (deleted). Empty groups are kept (they still have a report row).
  void DeletePod(const framework::PodInfo* pod);
  // The member was bound: assigned, no longer assumed.
  void MarkBound(const framework::PodInfo* pod);

  framework::PodGroupState* Get(const framework::PodGroupKey& key);
  framework::PodGroupState& GetOrCreate(const framework::PodGroupKey& key, Symbol scheduler_name);
  framework::PodGroupState* GroupOf(const framework::PodInfo& pod);
  const std::vector<std::unique_ptr<framework::PodGroupState>>& groups() const { return groups_; }
  // "ns/name" for PodGroup objects, "ns/workload/podGroup[/replicaKey]" for v1alpha1 groups.
  static std::string KeyString(const Interner& in, const framework::PodGroupKey& key);

 private:
  void IndexComposites(const api::ObjectSet& objects);

  absl::flat_hash_map<framework::PodGroupKey, framework::PodGroupState*> by_key_;
  std::vector<std::unique_ptr<framework::PodGroupState>> groups_;
  absl::flat_hash_map<std::pair<Symbol, Symbol>, const api::Workload*> workloads_;
  absl::flat_hash_map<std::pair<Symbol, Symbol>, const api::PodGroup*> pod_groups_;
  absl::flat_hash_map<std::pair<Symbol, Symbol>, const api::CompositePodGroup*> composites_;
  absl::flat_hash_map<const api::CompositePodGroup*, std::vector<CompositeChild>> children_;
  bool has_all_mode_ = false;
};

}  // namespace corral::scheduler
