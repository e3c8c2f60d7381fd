#pragma once
// The fleet part of the scenario format (docs/scenarios.md, "A fleet in front of the clusters"): a
// `fleet:` section that puts Karmada's scheduler or MultiKueue's dispatcher in front of the
// scenario's `clusters:`, and the `fleet:` map of a workload that arrives at the fleet (a workload
// without `cluster:`). Decoded while the scenario is decoded (DecodeFleet, DecodeFleetWorkload) and
// compiled after its clusters and workloads (CompileFleet) into the SimSpec's FleetSpec.
//
// Contract: every problem is reported with the scenario's file, line and field path, as the rest
// of the scenario; what Corral cannot honour (the accurate estimator for pods it cannot estimate in
// place, or where no filter would ask it; a Kueue workload that could not be admitted whole) is an
// error, never a silent substitute.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "corral/api/cluster.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/doc/decoder.h"
#include "corral/fleet/preemption_fleetwide.h"
#include "corral/sim/fleet_spec.h"
#include "corral/sim/spec.h"

namespace corral::sim {

struct FleetMemberIn {
  const doc::Node* self = nullptr;
  const doc::Node* name_node = nullptr;
  std::string name;
  api::Cluster cluster;  // labels, provider, region, zone(s), taints
};

struct FleetOutageIn {
  const doc::Node* self = nullptr;
  const doc::Node* cluster_node = nullptr;
  std::string cluster;
  int64_t at_ns = 0;
  int64_t duration_ns = INT64_MAX;
};

struct FleetIn {
  const doc::Node* self = nullptr;
  fleet::FleetKind kind = fleet::FleetKind::kKueue;
  bool kind_set = false;
  fleet::KueueDispatcherKind dispatcher = fleet::KueueDispatcherKind::kComposable;
  const doc::Node* dispatcher_node = nullptr;
  api::NominationMode nomination = api::NominationMode::kTop1;
  int32_t top_k = 0;
  const doc::Node* nomination_node = nullptr;
  api::DispatchMode dispatch_mode = api::DispatchMode::kBestEffort;
  int64_t worker_lost_timeout_ns = 900'000'000'000;
  int64_t refresh_interval_ns = 10'000'000'000;
  int64_t round_timeout_ns = 300'000'000'000;
  int32_t step_size = 3;
  const doc::Node* step_node = nullptr;
  std::vector<std::pair<std::string, const doc::Node*>> config_order;
  const doc::Node* config_order_node = nullptr;
  std::vector<FleetMemberIn> members;
  std::vector<FleetOutageIn> outages;
  std::string profile_path;  // a ClusterDispatcherProfile file (kueue, composable)
  const doc::Node* profile_node = nullptr;
  // Karmada's scheduler gates (featureGates) and the graceful-eviction grace period of a
  // preempted binding (preemptionGracePeriod).
  fleet::FeatureGates gates;
  const doc::Node* gates_node = nullptr;
  int64_t preemption_grace_ns = 30'000'000'000;
  // preemption: {mode: karmada|fleetwide, victims: summary|simulation} (Karmada's mode and
  // summary-based victims by default).
  const doc::Node* preemption_node = nullptr;
  fleet::PreemptionMode preemption_mode = fleet::PreemptionMode::kKarmada;
  bool simulate_victims = false;
  FleetEstimatorKind estimator = FleetEstimatorKind::kGeneral;
  const doc::Node* estimator_node = nullptr;
  // Files or folders of Karmada and Kueue objects (fleet_objects.h).
  std::vector<std::pair<std::string, const doc::Node*>> objects;
};

struct FleetWorkloadIn {
  const doc::Node* self = nullptr;
  int32_t priority = 0;
  int32_t replicas = 0;  // kind Pods: the Deployment's replicas (0: 1)
  const doc::Node* replicas_node = nullptr;
  std::optional<api::DispatchMode> dispatch_mode;
  std::vector<std::pair<Symbol, Symbol>> cluster_selector;
  std::vector<api::Toleration> cluster_tolerations;
  std::optional<api::Placement> placement;
  const doc::Node* placement_node = nullptr;
  // schedulePriority.preemptionPolicy (Karmada); absent: the binding never preempts.
  std::optional<api::PreemptionPolicy> preemption_policy;
  const doc::Node* policy_node = nullptr;
  // schedulePriority {priorityClassSource: KubePriorityClass, priorityClassName}: the binding's
  // priority and preemptionPolicy from the scenario's PriorityClass.
  std::string priority_class;
  const doc::Node* schedule_priority_node = nullptr;
  int64_t deadline_ns = -1;  // the work item is deleted when not placed by arrival + deadline
  const doc::Node* deadline_node = nullptr;
  // Gangs (fleet/preemption_fleetwide.h): minMember (must equal the work item's replicas) and
  // disruptionMode All|Single become the gang annotations (corral.dev/min-member and
  // corral.dev/disruption-mode) of the work item.
  int32_t min_member = 0;
  const doc::Node* min_member_node = nullptr;
  std::string disruption_mode;
  const doc::Node* disruption_mode_node = nullptr;
};

// Per-replica requests as Karmada's AddPodTemplateRequest sums them: containers summed, raised to
// each init container's, plus overhead.
api::ResourceList FleetReplicaRequest(const api::Pod& pod);

void DecodeFleet(doc::Decoder& d, const doc::Node& n, FleetIn& out);
void DecodeFleetWorkload(doc::Decoder& d, const doc::Node& n, FleetWorkloadIn& out);

// One workload of the scenario as CompileFleet sees it.
struct FleetWorkloadRef {
  const doc::Node* self = nullptr;
  std::string path;                        // "workloads[3]"
  const FleetWorkloadIn* fleet = nullptr;  // its `fleet:` map
  bool has_cluster = false;                // placed in a cluster by `cluster:`
};

// spec.clusters by name (the value is the index in spec.clusters), and their names in declaration
// order joined by ", " (the "declared: …" of an unknown cluster's message).
std::map<std::string, uint32_t> ScenarioClusterIndex(const SimSpec& spec);
std::string ScenarioClusterNames(const SimSpec& spec);

using FleetErrorFn = std::function<void(const doc::Node* at, std::string path, std::string msg)>;

// Builds the FleetSpec (nullptr without a `fleet:` section) and marks the fleet workloads
// (Workload::fleet_work); the work items of `fleet.objects` are appended to spec.workloads after
// the scenario's own (their start ops are the caller's). `refs` and spec.workloads are parallel;
// spec.clusters and spec.pod_templates are complete. `profilePath` is resolved against `base_dir`;
// the profile file's own problems are added to `diags` with its positions.
std::shared_ptr<const FleetSpec> CompileFleet(const FleetIn& in,
                                              std::span<const FleetWorkloadRef> refs, SimSpec& spec,
                                              Interner& interner, const std::string& base_dir,
                                              Diagnostics& diags, const FleetErrorFn& error);

}  // namespace corral::sim
