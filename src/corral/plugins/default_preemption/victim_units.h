#pragma once
// KEP-5710 preemption units for a single-pod preemptor (DefaultPreemption's dry run on one node).
//
// A member of a PodGroup with `disruptionMode: all` is evicted together with every other placed
// member of its group, on any node, or not at all. For a pod preemptor the domain is one node
// (KEP-5710 §Preemption algorithm, step 1); on a node that hosts such a member the dry run works on
// units instead of pods:
//   - Units: every lower-priority pod on the node that is not in an `all` group is a unit of its
//     own (a lone pod; members of `single` groups are lone pods too); every `all` group with a
//     member on the node is one unit holding all its bound or assumed members. A group's priority
//     is the highest of its members' (the PodGroup's spec.priority, when set, is every member's);
//     it is a unit only when that is lower than the preemptor's, otherwise its members on the node
//     are not victims at all. Members of the preemptor's own group are never victims.
//   - Feasibility: the members on this node are taken off the node copy; members elsewhere do not
//     make the node feasible (KEP: they "won't contribute to feasibility"), but they are evicted
//     and counted in the candidate's score (PickOneNodeForPreemption sees every victim pod).
//   - Importance, most important first: pipeline::MoreImportantVictim (pipeline/reprieve.h, kube's
//     MoreImportantVictim), with only `all` groups ranked as groups; then node order.
//   - PodDisruptionBudgets: counted over the units in importance order and over every pod a unit
//     evicts (on any node); a unit violates when one of its pods takes a budget below zero, and
//     then each of its pods counts as one violation.
//   - Reprieve (pipeline::ReprieveUnits): violating units first, then the others, each in
//     importance order: the unit's pods on this node are put back, and the unit is kept if the
//     preemptor still fits; otherwise every pod of the unit is a victim. An `all` group is
//     therefore evicted whole or not at all.
// Nodes without a lower-priority `all` member never get here: DefaultPreemption's per-pod path
// (kube's SelectVictimsOnNode) runs unchanged, so behaviour without `all` groups is kube's.
//
// Victim sets of a unit node depend on other nodes, so DefaultPreemption never memoizes them.

#include <cstdint>
#include <functional>
#include <vector>

#include "corral/core/clock.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"

namespace corral::plugins {

// One preemption unit on the dry-run node.
struct VictimUnit {
  std::vector<const framework::PodInfo*> pods;  // on this node first, then the rest (arrival order)
  std::vector<Symbol> nodes;                    // parallel to pods
  size_t on_node = 0;                           // pods[0, on_node) run on the dry-run node
  const api::PodGroup* group = nullptr;         // its disruptionMode-all PodGroup; null: lone pod
  int32_t priority = 0;
  TimePoint start;  // the earliest start of its pods (a pod without status.startTime: now)
  bool violates_pdb = false;
  size_t order = 0;  // discovery order (the final tie-break)
};

// What the unit dry run needs from SelectVictims: put a pod back on the node copy, take it off
// (both through the PreFilter extensions), and whether the preemptor fits on the copy.
struct UnitDryRun {
  std::function<framework::Status(const framework::PodInfo*)> add;
  std::function<framework::Status(const framework::PodInfo*)> remove;
  std::function<bool()> fits;
};

class VictimUnits {
 public:
  // Whether `node` hosts a pod of lower priority than `preemptor` that belongs to a
  // disruptionMode-all PodGroup other than the preemptor's own (the only case Build handles).
  static bool HostsAllModeMember(framework::Handle& handle, const framework::NodeInfo& node,
                                 const framework::PodInfo& preemptor);

  // Builds the units of `node` for `preemptor`, sorted most important first, with their PDB
  // violation marks. Returns false, and builds nothing, when !HostsAllModeMember (the per-pod
  // path applies).
  bool Build(framework::Handle& handle, const framework::NodeInfo& node,
             const framework::PodInfo& preemptor);

  // The pods of every unit that run on the dry-run node (to take off the node copy first).
  const std::vector<const framework::PodInfo*>& OnNodePods() const { return on_node_; }
  const std::vector<VictimUnit>& units() const { return units_; }

  // The reprieve (see above), on a node copy from which OnNodePods() are already removed and on
  // which the preemptor fits. Appends the victims, most important pod first (priority, then
  // earlier start), and sets *num_pdb_violations.
  framework::Status Reprieve(const UnitDryRun& ops,
                             std::vector<framework::PreemptionVictim>* victims,
                             int32_t* num_pdb_violations) const;

 private:
  std::vector<VictimUnit> units_;
  std::vector<const framework::PodInfo*> on_node_;
  TimePoint now_;
};

}  // namespace corral::plugins
