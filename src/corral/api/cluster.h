#pragma once
// The fleet's objects: member clusters and the work placed on them, as Karmada and Kueue's
// MultiKueue describe them.
//
//   - Cluster: Karmada's cluster.karmada.io/v1alpha1 Cluster (labels, spec.provider/region/zone(s),
//     spec.taints, spec.resourceModels, status.apiEnablements, status.resourceSummary, the Ready
//     and CompleteAPIEnablements conditions) and Kueue's MultiKueueCluster (labels, taints, the
//     Active condition) in one type; `source_kind` says which object it came from.
//   - Placement: policy.karmada.io/v1alpha1 Placement (clusterAffinity, ordered clusterAffinities,
//     clusterTolerations, spreadConstraints, replicaScheduling).
//   - FleetWork: one work item, as work.karmada.io/v1alpha2 ResourceBindingSpec describes it
//     (resource, replicas, replicaRequirements, placement, previous assignment spec.clusters,
//     graceful-eviction tasks), plus the Kueue workload's cluster selector, affinity, tolerations
//     and dispatch mode.
//
// Names, labels and keys are interned Symbols as in corral/api/types.h; selector, taint and
// quantity semantics are those of corral/api/selectors.h and quantity.h. Objects are plain values
// that the loader has validated and defaulted.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "corral/api/types.h"

namespace corral::api {

// ---- Cluster ------------------------------------------------------------------------------------

// cluster.karmada.io ResourceModelRange: [min, max) of one resource for a grade of nodes.
struct ResourceModelRange {
  Symbol name;
  Quantity min;
  Quantity max;
};

// cluster.karmada.io ResourceModel: one grade of nodes, described by resource ranges.
struct ResourceModel {
  uint32_t grade = 0;
  std::vector<ResourceModelRange> ranges;
};

// cluster.karmada.io AllocatableModeling: how many of the cluster's nodes fall in a grade.
struct AllocatableModeling {
  uint32_t grade = 0;
  int64_t count = 0;
};

// cluster.karmada.io ResourceSummary: the member's totals as the cluster status controller last
// reported them.
struct ResourceSummary {
  ResourceList allocatable;
  ResourceList allocated;
  ResourceList allocating;
  std::vector<AllocatableModeling> allocatable_modelings;
};

// cluster.karmada.io APIEnablement: a group/version and the kinds the member serves in it.
struct ApiEnablement {
  Symbol group_version;       // "apps/v1", "v1"
  std::vector<Symbol> kinds;  // resources[].kind
};

enum class ClusterSourceKind { kKarmadaCluster, kMultiKueueCluster };

struct Cluster {
  ObjectMeta meta;
  ClusterSourceKind source_kind = ClusterSourceKind::kKarmadaCluster;
  Symbol provider;
  Symbol region;
  Symbol zone;                // the deprecated single spec.zone
  std::vector<Symbol> zones;  // spec.zones
  std::vector<Taint> taints;
  std::vector<ResourceModel> resource_models;
  std::vector<ApiEnablement> api_enablements;
  bool complete_api_enablements = false;  // condition CompleteAPIEnablements=True
  bool ready = true;                      // Karmada condition Ready=True
  bool active = true;                     // MultiKueue condition Active=True
  std::optional<ResourceSummary> resource_summary;
};

// ---- Placement ----------------------------------------------------------------------------------

// policy.karmada.io ClusterAffinity. A missing label or field selector places no constraint;
// empty cluster_names places none either; `exclude` always removes.
struct ClusterAffinity {
  std::optional<LabelSelector> label_selector;
  // fieldSelector.matchExpressions over the keys provider, region and zone.
  std::optional<std::vector<NodeSelectorRequirement>> field_selector;
  std::vector<Symbol> cluster_names;
  std::vector<Symbol> exclude;
};

struct ClusterAffinityTerm {
  Symbol affinity_name;
  ClusterAffinity affinity;
  std::vector<ClusterAffinityTerm> overflow;  // overflowAffinities (each has no overflow itself)
};

enum class SpreadByField { kNone, kCluster, kRegion, kZone, kProvider };

struct SpreadConstraint {
  SpreadByField spread_by_field = SpreadByField::kNone;
  Symbol spread_by_label;
  int32_t max_groups = 0;
  int32_t min_groups = 0;
};

struct StaticClusterWeight {
  ClusterAffinity target_cluster;
  int64_t weight = 0;
};

enum class ReplicaSchedulingType { kDuplicated, kDivided };
enum class ReplicaDivisionPreference { kNone, kAggregated, kWeighted };

struct ClusterPreferences {
  std::vector<StaticClusterWeight> static_weight_list;
  bool dynamic_weight_by_available_replicas = false;  // dynamicWeight: AvailableReplicas
};

struct ReplicaSchedulingStrategy {
  ReplicaSchedulingType type = ReplicaSchedulingType::kDuplicated;
  ReplicaDivisionPreference division_preference = ReplicaDivisionPreference::kNone;
  std::optional<ClusterPreferences> weight_preference;
};

struct Placement {
  std::optional<ClusterAffinity> cluster_affinity;
  std::vector<ClusterAffinityTerm> cluster_affinities;
  std::vector<Toleration> cluster_tolerations;
  std::vector<SpreadConstraint> spread_constraints;
  // Absent means Duplicated (Karmada's ReplicaSchedulingType() default).
  std::optional<ReplicaSchedulingStrategy> replica_scheduling;
};

// ---- Work items ---------------------------------------------------------------------------------

// work.karmada.io TargetCluster: one cluster of an assignment and its replicas.
struct TargetCluster {
  Symbol name;
  int32_t replicas = 0;
  bool operator==(const TargetCluster&) const = default;
};

// work.karmada.io ReplicaRequirements: what one replica asks of a member.
struct ReplicaRequirements {
  ResourceList resource_request;
  Symbol namespace_;
  Symbol priority_class_name;
  // The pod template the replicas are made from, when the work item has one (a resource
  // template's spec.template, as the manifest loader decodes a pod template: no name, no node,
  // priority unresolved). Karmada's estimator sees only its nodeClaim; Corral's accurate estimator
  // gives the whole pod to the member's scheduler. Null for bindings given directly.
  std::shared_ptr<const Pod> pod_template;
};

// One pod set of a work item dispatched whole (a Kueue workload's spec.podSets[i]): `count` pods
// made from `pod` (decoded as `pod_template` above).
struct PodSetTemplate {
  Symbol name;
  int32_t count = 0;
  std::shared_ptr<const Pod> pod;
};

// The resource template a binding refers to (apiVersion, kind, namespace, name, uid).
struct ObjectReference {
  Symbol api_version;
  Symbol kind;
  Symbol namespace_;
  Symbol name;
  Symbol uid;
};

// Kueue's ClusterAffinity of the composable-dispatcher KEP: `required` holds the
// clusterSelectorTerms (OR-ed; each term's matchLabels and matchExpressions AND-ed, with
// metav1.LabelSelector semantics), `preferred` the weighted terms (weight 1..100).
struct PreferredClusterTerm {
  int32_t weight = 0;
  LabelSelector preference;
};

struct KueueClusterAffinity {
  std::optional<std::vector<LabelSelector>> required;
  std::vector<PreferredClusterTerm> preferred;
};

enum class DispatchMode { kBestEffort, kMustBeAdmitted };
enum class FleetWorkSourceKind { kResourceBinding, kClusterResourceBinding, kPolicyMatch, kKueue };

struct FleetWork {
  ObjectMeta meta;
  FleetWorkSourceKind source_kind = FleetWorkSourceKind::kResourceBinding;
  ObjectReference resource;
  int32_t replicas = 0;
  std::optional<ReplicaRequirements> replica_requirements;
  Placement placement;
  int32_t priority = 0;  // schedulePriority / workload priority
  // schedulePriority.preemptionPolicy; absent (never preempts) when schedulePriority or the
  // field is.
  std::optional<PreemptionPolicy> preemption_policy;
  std::vector<TargetCluster> clusters;             // spec.clusters: the previous assignment
  std::vector<Symbol> graceful_eviction_clusters;  // spec.gracefulEvictionTasks[].fromCluster
  std::optional<TimePoint> reschedule_triggered_at;
  std::optional<TimePoint> last_scheduled_time;  // status.lastScheduledTime
  Symbol scheduler_observed_affinity_name;       // status.schedulerObservedAffinityName
  // A template's binding: the (Cluster)PropagationPolicy that claimed it, "ns/name" or "name".
  Symbol claimed_by;
  // Kueue.
  LabelSet cluster_selector;
  std::optional<KueueClusterAffinity> kueue_cluster_affinity;
  DispatchMode dispatch_mode = DispatchMode::kBestEffort;
  std::vector<PodSetTemplate> pod_sets;  // spec.podSets, in order

  // ResourceBindingSpec.TargetContains.
  bool TargetContains(Symbol cluster) const;
  // ResourceBindingSpec.IsWorkload: replicas > 0 (Karmada also counts multi-template components,
  // which Corral does not read).
  bool IsWorkload() const { return replicas > 0; }
  // ResourceBindingSpec.ClusterInGracefulEvictionTasks.
  bool ClusterInGracefulEvictionTasks(Symbol cluster) const;
};

// ---- MultiKueue configuration -------------------------------------------------------------------

// kueue.x-k8s.io MultiKueueConfig: the ordered member clusters of a MultiKueue admission check.
struct MultiKueueConfig {
  ObjectMeta meta;
  std::vector<Symbol> clusters;
};

enum class NominationMode { kTop1, kTopK };

// The composable dispatcher's ClusterDispatcherProfile (KEP-8692, kueue.x-k8s.io/v1beta2): filter
// plugins in evaluation order, weighted score plugins, and the nomination mode of the KEP's future
// work (top-1 by default; top-K with k ≥ 1).
struct DispatcherProfile {
  ObjectMeta meta;
  std::vector<Symbol> filters;
  std::vector<std::pair<Symbol, int64_t>> scores;
  NominationMode nomination = NominationMode::kTop1;
  int32_t top_k = 1;
};

// util.ClusterMatches: `exclude` removes; then the label selector, the field selector (zone
// against spec.zones, provider and region as fields) and cluster names must all match.
bool ClusterMatches(const Cluster& cluster, const ClusterAffinity& affinity,
                    const Interner& interner);

// Cluster.APIEnablement(gvk) == APIEnabled: the group/version lists the kind.
enum class ApiEnablementStatus { kEnabled, kDisabled, kUnknown };
ApiEnablementStatus ClusterApiEnablement(const Cluster& cluster, Symbol api_version, Symbol kind);

}  // namespace corral::api
