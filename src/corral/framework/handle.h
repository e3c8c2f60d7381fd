#pragma once
// Handle: what plugins may ask of the scheduler beyond their arguments (kube's framework.Handle).
// Implemented by the scheduler (and by test fakes). Lookups return null/empty when absent.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/types.h"
#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/core/rng.h"
#include "corral/framework/feature_gates.h"
#include "corral/framework/pod_group.h"
#include "corral/framework/pod_info.h"
#include "corral/framework/snapshot.h"
#include "corral/framework/status.h"
#include "corral/pipeline/handle.h"

namespace corral::state {
class VolumeCache;  // corral/state/volume_cache.h
}  // namespace corral::state

namespace corral::framework {

class Framework;
class DraManager;  // corral/framework/dra_manager.h

class Handle : public pipeline::BaseHandle<FeatureGates> {
 public:
  // The cluster as of the current cycle.
  virtual const Snapshot& snapshot() const = 0;

  // Cluster objects other than nodes and pods.
  virtual const api::Namespace* GetNamespace(Symbol name) const = 0;
  virtual std::span<const api::SelectorOwner* const> SelectorOwners(Symbol ns) const = 0;
  virtual std::span<const api::PodDisruptionBudget* const> PodDisruptionBudgets(
      Symbol ns) const = 0;

  // PersistentVolumes, claims, storage classes and CSI objects with the volume binder's
  // assumptions; null when the cluster has none. Mutated only by Reserve, Unreserve and PreBind.
  virtual state::VolumeCache* volumes() const { return nullptr; }

  // Pods nominated to `node` (status.nominatedNodeName) that are not yet bound or assumed.
  virtual std::span<const PodInfo* const> NominatedPodsForNode(Symbol node) const = 0;
  // A version of NominatedPodsForNode(node) for memoization: two calls that return the same value
  // guarantee the same nominated pods in between. Implementations that cannot tell return a value
  // never returned before (the default), which disables memoization.
  virtual uint64_t NominationVersion(Symbol node) const {
    (void)node;
    return ++nomination_version_fallback_;
  }
  // The lowest priority of the pods on nodes (bound or assumed; INT32_MAX when there is none), or
  // nullopt when the implementation does not track it. Lets preemption see at once that no node
  // holds a lower-priority pod.
  virtual std::optional<int32_t> MinPodPriorityOnNodes() const { return std::nullopt; }
  // The node `pod` is bound or assumed to in the snapshot, or empty. The default searches the
  // snapshot; the scheduler answers from its cache.
  virtual Symbol NodeOfPod(const PodInfo& pod) const {
    for (const NodeInfo* n : snapshot().nodes()) {
      for (const PodInfo* p : n->pods()) {
        if (p == &pod) return n->name();
      }
    }
    return {};
  }
  // The pod's current nominatedNodeName (set by preemption in an earlier cycle, or from
  // its status).
  virtual Symbol NominatedNodeName(const PodInfo& pod) const {
    return pod.pod->nominated_node_name;
  }
  // Whether the pod is terminating because the scheduler preempted it (kube: a deletionTimestamp
  // and the DisruptionTarget condition with reason PreemptionByScheduler).
  virtual bool IsTerminatingByPreemption(const PodInfo& pod) const {
    (void)pod;
    return false;
  }

  // The framework of the profile named `scheduler_name` (plugins that run other plugins, such as
  // DefaultPreemption's filter re-runs, reach their profile through it). Null if there is none.
  virtual const Framework* GetFramework(Symbol scheduler_name) const {
    (void)scheduler_name;
    return nullptr;
  }

  // The resource.k8s.io state (kube's SharedDRAManager), or null when the implementation keeps none
  // (DynamicResources then treats every claim as missing).
  virtual DraManager* SharedDRAManager() { return nullptr; }

  // Moves the given pending pods to activeQ (GangScheduling Permit).
  virtual void Activate(std::span<const PodInfo* const> pods) = 0;

  // ---- workloads (GenericWorkload; kube's WorkloadManager / PodGroupManager) ----
  // The defaults describe a cluster without workload objects, so test fakes need not
  // implement them.
  virtual const api::Workload* GetWorkload(Symbol ns, Symbol name) const {
    (void)ns, (void)name;
    return nullptr;
  }
  virtual const api::PodGroup* GetPodGroup(Symbol ns, Symbol name) const {
    (void)ns, (void)name;
    return nullptr;
  }
  // Whether any PodGroup with disruptionMode all exists (false lets preemption skip looking for
  // KEP-5710 units). Implementations that cannot tell return true.
  virtual bool HasAllModePodGroups() const { return true; }
  // KEP-6012 PreEnqueue: whether the CompositePodGroup hierarchy above `pg` (which names a parent)
  // meets its quorum: Success once the hierarchy's root has minGroupCount ready children (kube's
  // HierarchyTracker), else UnschedulableAndUnresolvable with kube's message. Asked only while the
  // CompositePodGroup gate is on.
  virtual Status CompositeHierarchyReady(const api::PodGroup& pg) const {
    (void)pg;
    return {};
  }
  // The run-time state of the pod's gang instance; null when the pod belongs to no group.
  virtual PodGroupState* GetPodGroupState(const PodInfo& pod) {
    (void)pod;
    return nullptr;
  }

  // ---- Permit waiting (kube's IterateOverWaitingPods / GetWaitingPod(...).Allow/Reject) ----
  // Pods held at Permit (assumed, binding deferred), in the order they started waiting.
  virtual void IterateWaitingPods(const std::function<void(const PodInfo&)>& fn) const { (void)fn; }
  // Allows `pod` for `plugin`; once every plugin that asked it to wait has allowed it, the pod is
  // bound (after the current cycle). False if the pod is not waiting.
  virtual bool AllowWaitingPod(const PodInfo& pod, std::string_view plugin) {
    (void)pod, (void)plugin;
    return false;
  }
  // Rejects a waiting pod: it is unreserved, forgotten and requeued as unschedulable by `plugin`
  // (after the current cycle). False if the pod is not waiting.
  virtual bool RejectWaitingPod(const PodInfo& pod, std::string_view plugin, std::string message) {
    (void)pod, (void)plugin, (void)message;
    return false;
  }

 private:
  mutable uint64_t nomination_version_fallback_ = 0;
};

// Resolves the policy of `pod`'s group from the cluster objects the handle knows. Success with
// `*out` set; UnschedulableAndUnresolvable with kube's PreEnqueue messages when the Workload, its
// pod group or the PodGroup object does not exist (yet). REQUIRES: the pod belongs to a
// group (PodGroupKeyOf).
inline Status ResolvePodGroup(const Handle& handle, const api::Pod& pod, ResolvedPodGroup* out) {
  const Interner& in = handle.interner();
  if (pod.scheduling_group.has_value()) {
    Symbol name = pod.scheduling_group->pod_group_name;
    const api::PodGroup* pg = handle.GetPodGroup(pod.meta.namespace_, name);
    if (pg == nullptr) {
      return Status::WithOwnedReason(Code::kUnschedulableAndUnresolvable,
                                     "waiting for pod's pod group \"" + std::string(in.Str(name)) +
                                         "\" to appear in scheduling queue");
    }
    out->pod_group = pg;
    out->workload = handle.GetWorkload(pod.meta.namespace_, pg->template_workload_name);
    out->policy = pg->policy;
    return {};
  }
  const api::WorkloadReference& ref = *pod.workload_ref;
  const api::Workload* w = handle.GetWorkload(pod.meta.namespace_, ref.name);
  if (w == nullptr) {
    return Status::WithOwnedReason(Code::kUnschedulableAndUnresolvable,
                                   "waiting for pods's workload \"" +
                                       std::string(in.Str(ref.name)) +
                                       "\" to appear in scheduling queue");
  }
  for (const auto& g : w->pod_groups) {
    if (g.name != ref.pod_group) continue;
    out->workload = w;
    out->pod_group = nullptr;
    out->policy = g.policy;
    return {};
  }
  return Status::WithOwnedReason(Code::kUnschedulableAndUnresolvable,
                                 "pod group \"" + std::string(in.Str(ref.pod_group)) +
                                     "\" doesn't exist for a workload \"" +
                                     std::string(in.Str(ref.name)) + "\"");
}

// Base class of typed plugin arguments (kube's *Args types). A plugin's factory receives its own
// args type (or null for defaults) and rejects a foreign one.
class PluginArgs {
 public:
  virtual ~PluginArgs() = default;
};

}  // namespace corral::framework
