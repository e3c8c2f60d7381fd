#pragma once
// Karmada and Kueue objects as the input of a fleet scenario: `fleet.objects` names files or
// folders of the objects `corral dispatch` reads (corral/loader/fleet_loader.h: strict, every
// problem reported at its own file and line). CompileFleetObjects applies them to the fleet:
//
//   - a Karmada Cluster (scheduler karmada) or a MultiKueueCluster (kueue) describes the scenario
//     cluster of its name as a `fleet.members` entry would: labels, provider, region, zone(s),
//     taints. Ready=False (Active=False) makes the member unreachable from the fleet from time 0,
//     an outage without end;
//   - a MultiKueueConfig gives the configuration order (as `fleet.configOrder`), a
//     ClusterDispatcherProfile the dispatcher profile (as `fleet.profilePath`);
//   - each work item — a ResourceBinding or ClusterResourceBinding, the binding Karmada's detector
//     creates for a resource template a policy claims, a Kueue Workload — becomes a fleet workload
//     of the scenario, named after the item, that arrives once, `corral.dev/arrival` (a Go
//     duration, default 0s) after the start; its pods run for `corral.dev/duration` (default
//     forever) once bound. The pods are the item's pod template (the resource template's, the
//     Workload's pod set's) or, for a binding given directly, one container requesting its
//     replicaRequirements.resourceRequest. A Deployment or StatefulSet is a Pods workload, a Job a
//     Job workload, a Workload of several pods a gang.
//
// What the simulation cannot honour is an error at the object's position, never ignored: a cluster
// naming no scenario cluster, or also described under `fleet.members`; a Cluster's
// status.resourceSummary or spec.resourceModels (the simulation computes the summary from the
// member); objects of the other fleet (a MultiKueueCluster or Workload under karmada, a Karmada
// Cluster or binding under kueue); a MultiKueueConfig beside `fleet.configOrder`, or a second one;
// a ClusterDispatcherProfile beside `fleet.profilePath`, or a second one; a binding's spec.clusters
// or gracefulEvictionTasks (a simulated item arrives new); a Workload of several pod sets; a pod
// priorityClassName that names no class of the scenario's priorityClasses (the named class, else
// the global default class, gives the pods their priority and preemption policy, as kube's
// admission does); a work item named as a scenario workload or another item.

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/doc/decoder.h"
#include "corral/sim/fleet_spec.h"
#include "corral/sim/spec.h"

namespace corral::sim {

inline constexpr std::string_view kArrivalAnnotation = "corral.dev/arrival";

struct FleetObjectsIn {
  std::vector<std::pair<std::string, const doc::Node*>> paths;  // as written, with their nodes
  const doc::Node* node = nullptr;                              // `fleet.objects`
  bool has_members = false;            // `fleet.members` describes some clusters
  bool has_config_order = false;       // `fleet.configOrder` is given
  bool has_profile = false;            // `fleet.profilePath` is given
  std::vector<std::string> described;  // the clusters `fleet.members` describes
};

// Applies the objects to `out` (clusters, outages, config order, profile, works) and appends a
// workload and a pod template per work item to `spec` (their start ops are the caller's). Paths
// are resolved against `base_dir`. `error` reports problems of the scenario itself; the objects'
// own are added to `diags` at their positions.
void CompileFleetObjects(
    const FleetObjectsIn& in, SimSpec& spec, FleetSpec& out, Interner& interner,
    const std::string& base_dir, Diagnostics& diags,
    const std::function<void(const doc::Node*, std::string, std::string)>& error);

}  // namespace corral::sim
