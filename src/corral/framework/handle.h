#pragma once
// Handle: what plugins may ask of the scheduler beyond their arguments (kube's framework.Handle).
// Implemented by the scheduler (and by test fakes). Lookups return null/empty when absent.

#include <span>
#include <vector>

#include "corral/api/types.h"
#include "corral/core/clock.h"
#include "corral/core/interner.h"
#include "corral/core/rng.h"
#include "corral/framework/feature_gates.h"
#include "corral/framework/pod_info.h"
#include "corral/framework/snapshot.h"

namespace corral::framework {

class Framework;

class Handle {
 public:
  virtual ~Handle() = default;

  virtual const Interner& interner() const = 0;
  virtual const FeatureGates& features() const = 0;
  virtual const Clock& clock() const = 0;
  virtual Rng& rng() = 0;
  // The cluster as of the current cycle.
  virtual const Snapshot& snapshot() const = 0;

  // Cluster objects other than nodes and pods.
  virtual const api::Namespace* GetNamespace(Symbol name) const = 0;
  virtual std::span<const api::SelectorOwner* const> SelectorOwners(Symbol ns) const = 0;
  virtual std::span<const api::PodDisruptionBudget* const> PodDisruptionBudgets(Symbol ns) const = 0;

  // Pods nominated to `node` (status.nominatedNodeName) that are not yet bound or assumed.
  virtual std::span<const PodInfo* const> NominatedPodsForNode(Symbol node) const = 0;
  // The pod's current nominatedNodeName (set by preemption in an earlier cycle, or from its status).
  virtual Symbol NominatedNodeName(const PodInfo& pod) const { return pod.pod->nominated_node_name; }
  // Whether the pod is terminating because the scheduler preempted it (kube: a deletionTimestamp and
  // the DisruptionTarget condition with reason PreemptionByScheduler).
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

  // Moves the given pending pods to activeQ (GangScheduling Permit).
  virtual void Activate(std::span<const PodInfo* const> pods) = 0;
};

// Base class of typed plugin arguments (kube's *Args types). A plugin's factory receives its own args
// type (or null for defaults) and rejects a foreign one.
class PluginArgs {
 public:
  virtual ~PluginArgs() = default;
};

}  // namespace corral::framework
