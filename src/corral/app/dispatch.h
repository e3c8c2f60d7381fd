#pragma once
// `corral dispatch`: load member clusters and work items (Karmada and Kueue objects, see
// corral/loader/fleet_loader.h) and answer, read-only, "where would each work item go, and why":
//
//   - Karmada ResourceBindings and ClusterResourceBindings go through one attempt of Karmada's
//     scheduler (corral/fleet/karmada_scheduler.h) over the Karmada Clusters, with the general
//     estimator; the result is spec.clusters as Karmada would write it, or its error.
//   - Kueue Workloads go through the composable MultiKueue dispatcher (corral/fleet/
//     kueue_dispatcher.h) over the MultiKueueClusters (in the MultiKueueConfig's order when one is
//     given) with the first ClusterDispatcherProfile given, or the KEP's default profile.
//   - With Karmada's PriorityBasedScheduling and PriorityBasedPreemptiveScheduling gates on, a
//     binding that fails for want of capacity may preempt (fleet/preemption.h): the victims are
//     the bindings given with spec.clusters on the chosen cluster; the claim it sets (one store for
//     the pass, at one instant) reduces what later bindings of equal or lower priority see there.
//
// Resource templates (Deployment, StatefulSet, Job) claimed by a PropagationPolicy or
// ClusterPropagationPolicy are scheduled as the ResourceBinding Karmada's detector would create
// ("<name>-<kind>"). Work items are reported in input order, templates after the objects given
// directly. Bad input is reported as the loader's diagnostics.

#include <string>
#include <vector>

#include "corral/core/diagnostics.h"
#include "corral/core/result.h"
#include "corral/doc/decoder.h"
#include "corral/fleet/karmada_scheduler.h"
#include "corral/fleet/kueue_dispatcher.h"
#include "corral/fleet/preemption.h"

namespace corral::app {

struct DispatchRequest {
  std::vector<std::string> inputs;   // files or directories
  std::vector<std::string> explain;  // work items to explain: "ns/name" or "name"
  // Karmada scheduler feature gates, as --feature-gates ("Name=bool,..."; fleet/preemption.h).
  std::string feature_gates;
  // "general": Karmada's general estimator over the clusters' resource summaries. "accurate":
  // also the accurate estimator (app/dispatch_members.h) for the clusters given as member
  // folders, the minimum of both answers counting, as Karmada takes the minimum over its
  // estimators; Kueue's ClusterFeasibility asks it whether the whole workload fits.
  std::string estimator = "general";
  // Binding preemption beyond Karmada (fleet/preemption_fleetwide.h). "karmada": Karmada's rule,
  // one cluster selected with capacity ignored; "fleetwide": every feasible cluster weighed, the
  // cheapest chosen in kube's node-pick order.
  std::string preemption = "karmada";
  // "summary": Karmada's Phase 1, victims by the resource summaries; "simulation": Phase 2 on the
  // members given as folders (app/dispatch_preemption.h), Phase 1 on the other clusters.
  std::string preemption_victims = "summary";
  // "NAME=PATH": the KubeSchedulerConfiguration of the member folder NAME (app/dispatch_members.h);
  // a member folder's own scheduler-config.yaml otherwise.
  std::vector<std::string> member_configs;
  // Unknown fields in the inputs and member folders (kubectl's --validate): errors by default.
  doc::FieldValidation unknown_fields = doc::FieldValidation::kStrict;
};

struct DispatchItem {
  std::string name;  // "ns/name" (or "name" when cluster-scoped)
  std::string kind;  // ResourceBinding, ClusterResourceBinding, Workload, or the template's kind
  int32_t replicas = 0;
  bool explain = false;
  bool karmada = true;
  fleet::BindingSchedule binding;  // Karmada items
  fleet::Nomination nomination;    // Kueue items
  // Karmada items, with PriorityBasedPreemptiveScheduling on and a failed attempt: binding
  // preemption (fleet/preemption.h).
  fleet::PreemptionOutcome preemption;
  bool ok() const { return karmada ? binding.ok() : nomination.ok(); }
};

struct DispatchOutcome {
  Diagnostics diagnostics;  // warnings of the load
  size_t karmada_clusters = 0;
  size_t kueue_clusters = 0;
  size_t members = 0;  // clusters given as folders of their nodes and pods
  std::string estimator = "general";
  std::string profile;  // the dispatcher profile used for Kueue items
  std::string preemption = "karmada";
  std::string preemption_victims = "summary";
  std::vector<DispatchItem> items;
};

// Errors: the load's diagnostics (kInvalidInput), or an --explain name that matches no work item,
// an unknown estimator, --estimator accurate or --preemption-victims simulation without a member
// folder, an unknown preemption mode, a binding's bad corral.dev/min-member or
// corral.dev/disruption-mode annotation ("file:line: metadata.annotations[...]: ...").
//
// Within the pass, a preemption's victims are marked as in graceful eviction from the clusters they
// leave (spec.gracefulEvictionTasks, as Karmada's scheduler patches them), so a later preemptor
// neither counts them again nor evicts them a second time.
Result<DispatchOutcome> RunDispatch(const DispatchRequest& request);

std::string FormatDispatchTable(const DispatchOutcome& out);
// {"items": [{"name", "kind", "replicas", "clusters": [{"name", "replicas"}] | "nominated": [...],
//  "error", "preemption": {...} | "preemptionSkipped", "explain": {...}}]}; `clusters` is Karmada's
//  ResourceBinding spec.clusters shape; `preemption` appears only with the preemption gates on.
std::string FormatDispatchJson(const DispatchOutcome& out);
// The work items as the schedulers write them back (dispatch_yaml.cc), one YAML document each:
// Karmada bindings with the fields Karmada's scheduler writes (spec.clusters on success,
// status.schedulerObservingAffinityName, the Scheduled condition with Karmada's reason and
// message), Kueue Workloads with status.nominatedClusterNames.
std::string FormatDispatchYaml(const DispatchOutcome& out);

}  // namespace corral::app
