#pragma once
// Typed Kubernetes objects as the scheduler reads them: core/v1 Node, Pod, Namespace;
// scheduling.k8s.io PriorityClass, Workload (v1alpha1 and current), PodGroup; policy/v1
// PodDisruptionBudget; and the selectors of Service, ReplicaSet, StatefulSet and
// ReplicationController that PodTopologySpread's system defaults need.
//
// Field names follow the Kubernetes API (snake_case here, camelCase in YAML). Strings the scheduler
// compares are interned Symbols (see corral/core/interner.h); free text (messages, annotations
// values) stays std::string. Objects are plain values: validation and defaulting happen in the
// loader, so every object here is already valid and defaulted (e.g. meta.namespace_ is set,
// spec.scheduler_name is set).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/core/clock.h"
#include "corral/core/interner.h"

namespace corral::api {

// Where an object came from, for messages that refer back to it after loading.
struct SourceRef {
  Symbol file;
  uint32_t line = 0;
};

// Labels as a flat vector sorted by key symbol (unique keys). Lookups are binary searches.
class LabelSet {
 public:
  LabelSet() = default;
  // Builds from unsorted pairs; later duplicates of a key win (as a YAML map with repeated keys
  // would not be accepted by the loader, this only matters for programmatic construction).
  explicit LabelSet(std::vector<std::pair<Symbol, Symbol>> pairs);

  const Symbol* Find(Symbol key) const;
  bool Has(Symbol key) const { return Find(key) != nullptr; }
  void Set(Symbol key, Symbol value);
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const std::vector<std::pair<Symbol, Symbol>>& items() const { return items_; }
  bool operator==(const LabelSet&) const = default;

 private:
  std::vector<std::pair<Symbol, Symbol>> items_;  // sorted by .first
};

struct OwnerReference {
  Symbol api_version;
  Symbol kind;
  Symbol name;
  Symbol uid;
  bool controller = false;
};

struct ObjectMeta {
  Symbol name;
  Symbol namespace_;  // empty for cluster-scoped kinds
  Symbol uid;
  LabelSet labels;
  std::vector<std::pair<Symbol, std::string>> annotations;  // in input order
  std::optional<TimePoint> creation_timestamp;
  std::optional<TimePoint> deletion_timestamp;  // set ⇒ terminating
  std::vector<OwnerReference> owner_references;
  SourceRef source;

  const std::string* Annotation(Symbol key) const;
};

// A resource name → quantity map, sorted by name symbol. Canonical names: cpu, memory,
// ephemeral-storage, pods, hugepages-<size>, and extended resources (a domain-prefixed name such
// as nvidia.com/gpu).
using ResourceList = std::vector<std::pair<Symbol, Quantity>>;
const Quantity* FindResource(const ResourceList& list, Symbol name);

// ---- selectors ----------------------------------------------------------------------------------

enum class LabelSelectorOp { kIn, kNotIn, kExists, kDoesNotExist };

struct LabelSelectorRequirement {
  Symbol key;
  LabelSelectorOp op = LabelSelectorOp::kIn;
  std::vector<Symbol> values;
};

// metav1.LabelSelector. An empty selector (no labels, no expressions) matches everything; a
// *missing* selector (std::nullopt where the API field is a pointer) matches nothing — callers keep
// that distinction.
struct LabelSelector {
  LabelSet match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
};

enum class NodeSelectorOp { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

struct NodeSelectorRequirement {
  Symbol key;
  NodeSelectorOp op = NodeSelectorOp::kIn;
  std::vector<Symbol> values;
};

// Terms are ORed; requirements within a term are ANDed. matchFields supports only metadata.name.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;  // 1..100
  NodeSelectorTerm preference;
};

struct NodeAffinity {
  std::optional<NodeSelector> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<PreferredSchedulingTerm>
      preferred;  // preferredDuringSchedulingIgnoredDuringExecution
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<Symbol> namespaces;
  Symbol topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<Symbol> match_label_keys;
  std::vector<Symbol> mismatch_label_keys;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;  // 1..100
  PodAffinityTerm pod_affinity_term;
};

struct PodAffinity {  // used for both podAffinity and podAntiAffinity
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
};

// ---- taints and tolerations ---------------------------------------------------------------------

enum class TaintEffect {
  kNone,
  kNoSchedule,
  kPreferNoSchedule,
  kNoExecute
};  // kNone: empty (tolerations)
enum class TolerationOp { kEqual, kExists };

struct Taint {
  Symbol key;
  Symbol value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  std::optional<TimePoint> time_added;
};

struct Toleration {
  Symbol key;  // empty with kExists tolerates every key
  TolerationOp op = TolerationOp::kEqual;
  Symbol value;
  TaintEffect effect = TaintEffect::kNone;  // kNone matches every effect
  std::optional<int64_t> toleration_seconds;
};

// ---- Node ---------------------------------------------------------------------------------------

struct ContainerImage {
  std::vector<Symbol> names;
  int64_t size_bytes = 0;
};

struct NodeCondition {
  Symbol type;
  Symbol status;  // True | False | Unknown
};

struct Node {
  ObjectMeta meta;
  bool unschedulable = false;
  std::vector<Taint> taints;
  ResourceList capacity;
  ResourceList allocatable;  // defaulted from capacity when absent, as the kubelet reports it
  std::vector<ContainerImage> images;
  std::vector<NodeCondition> conditions;
};

// ---- Pod ----------------------------------------------------------------------------------------

enum class Protocol { kTCP, kUDP, kSCTP };

struct ContainerPort {
  Symbol name;
  int32_t container_port = 0;
  int32_t host_port = 0;  // 0 = none
  Protocol protocol = Protocol::kTCP;
  Symbol host_ip;  // empty = 0.0.0.0 for conflict purposes
};

enum class ContainerRestartPolicy {
  kUnset,
  kAlways
};  // kAlways on an init container ⇒ restartable sidecar

struct ResourceRequirements {
  ResourceList requests;  // defaulted from limits when a limit is set and the request is not (API
                          // defaulting)
  ResourceList limits;
};

struct Container {
  Symbol name;
  Symbol image;
  ResourceRequirements resources;
  std::vector<ContainerPort> ports;
  ContainerRestartPolicy restart_policy = ContainerRestartPolicy::kUnset;
};

enum class WhenUnsatisfiable { kDoNotSchedule, kScheduleAnyway };
enum class NodeInclusionPolicy { kHonor, kIgnore };

struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  Symbol topology_key;
  WhenUnsatisfiable when_unsatisfiable = WhenUnsatisfiable::kDoNotSchedule;
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  std::optional<NodeInclusionPolicy> node_affinity_policy;  // nil ⇒ Honor
  std::optional<NodeInclusionPolicy> node_taints_policy;    // nil ⇒ Ignore
  std::vector<Symbol> match_label_keys;
};

enum class PreemptionPolicy { kPreemptLowerPriority, kNever };

// v1alpha1 pod.spec.workloadRef.
struct WorkloadReference {
  Symbol name;
  Symbol pod_group;
  Symbol pod_group_replica_key;  // empty = none
};

// Current pod.spec.schedulingGroup.
struct PodSchedulingGroup {
  Symbol pod_group_name;
};

// The volume sources that kube's volume plugins look into: claims (VolumeBinding, VolumeZone,
// NodeVolumeLimits, VolumeRestrictions), generic ephemeral volumes (their claim is
// "<pod>-<volume>"), CSI and the in-tree disks that VolumeRestrictions checks for conflicts and
// NodeVolumeLimits counts after CSI migration. Every other source is kOther.
enum class VolumeKind {
  kOther,
  kPersistentVolumeClaim,
  kEphemeral,
  kCsi,
  kGcePersistentDisk,
  kAwsElasticBlockStore,
  kAzureDisk,
  kCinder,
  kRbd,
  kIscsi,
};
// The identity of a CSI or in-tree source: `id` is the CSI volumeHandle, the GCE pdName, the AWS
// volumeID, the Azure diskURI, the Cinder volumeID, the RBD image or the iSCSI IQN.
struct VolumeSource {
  Symbol id;
  Symbol driver;                 // CSI driver
  Symbol pool;                   // RBD pool (defaulted to "rbd")
  std::vector<Symbol> monitors;  // RBD monitors
  bool read_only = false;
};
struct PersistentVolumeClaim;  // api/storage.h
struct Volume {
  Symbol name;
  VolumeKind kind = VolumeKind::kOther;
  Symbol claim_name;    // for kPersistentVolumeClaim
  VolumeSource source;  // for kCsi and the in-tree kinds
  // For kEphemeral: spec.ephemeral.volumeClaimTemplate as a claim (metadata labels and
  // annotations, spec), from which the loader creates the pod's claim as kube's ephemeral volume
  // controller would.
  std::shared_ptr<const PersistentVolumeClaim> claim_template;
};

enum class PodPhase { kPending, kRunning, kSucceeded, kFailed, kUnknown };

struct PodCondition {
  Symbol type;
  Symbol status;
  Symbol reason;
};

// spec.resourceClaims[i] (DRA): exactly one of resource_claim_name and
// resource_claim_template_name is set. `generated_claim_name` is the claim made from the template
// for this pod: status.resourceClaimStatuses when the input has it, otherwise the name the loader
// gave the claim it generated (as kube's resourceclaim controller does); empty when none exists.
struct PodResourceClaim {
  Symbol name;
  Symbol resource_claim_name;
  Symbol resource_claim_template_name;
  Symbol generated_claim_name;
};

struct Pod {
  ObjectMeta meta;

  // spec
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  ResourceList overhead;
  std::optional<ResourceRequirements> resources;  // pod-level resources (PodLevelResources)
  LabelSet node_selector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  Symbol node_name;       // set ⇒ bound (or to be bound by NodeName)
  Symbol scheduler_name;  // defaulted to default-scheduler
  std::vector<Symbol> scheduling_gates;
  Symbol priority_class_name;
  int32_t priority = 0;  // resolved from the PriorityClass (or the global default) at load time
  PreemptionPolicy preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
  std::optional<int64_t> termination_grace_period_seconds;  // defaulted to 30
  std::optional<WorkloadReference> workload_ref;
  std::optional<PodSchedulingGroup> scheduling_group;
  std::vector<Volume> volumes;
  std::vector<PodResourceClaim> resource_claims;  // spec.resourceClaims
  bool host_network = false;

  // status
  PodPhase phase = PodPhase::kPending;
  Symbol nominated_node_name;
  std::optional<TimePoint> start_time;
  std::vector<PodCondition> conditions;

  bool IsBound() const { return !node_name.empty(); }
  bool IsTerminating() const { return meta.deletion_timestamp.has_value(); }
};

// ---- other core and scheduling kinds ------------------------------------------------------------

struct Namespace {
  ObjectMeta meta;
};

struct PriorityClass {
  ObjectMeta meta;
  int32_t value = 0;
  bool global_default = false;
  PreemptionPolicy preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
  std::string description;
};

// intstr.IntOrString.
struct IntOrPercent {
  int32_t value = 0;
  bool is_percent = false;  // "50%" ⇒ value 50, is_percent
};

struct PodDisruptionBudget {
  ObjectMeta meta;
  std::optional<LabelSelector>
      selector;  // nil selects nothing; empty selects every pod in the namespace
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
};

// Service, ReplicaSet, StatefulSet, ReplicationController: only their pod selectors matter
// (PodTopologySpread system defaulting and SelectorSpread-style defaults). Service and
// ReplicationController map selectors are stored as match_labels.
enum class SelectorOwnerKind { kService, kReplicaSet, kStatefulSet, kReplicationController };
struct SelectorOwner {
  SelectorOwnerKind kind = SelectorOwnerKind::kService;
  ObjectMeta meta;
  std::optional<LabelSelector>
      selector;  // nil or empty map selector ⇒ selects nothing (kube's behaviour)
};

// ---- Workload API -------------------------------------------------------------------------------

enum class PodGroupPolicyKind { kBasic, kGang };

struct PodGroupSchedulingPolicy {
  PodGroupPolicyKind kind = PodGroupPolicyKind::kBasic;
  int32_t min_count = 0;  // > 0 for kGang; 0 for kBasic
};

struct TypedLocalObjectReference {
  Symbol api_group;
  Symbol kind;
  Symbol name;
};

// One entry of v1alpha1 `spec.podGroups` ({name, policy}) or of the current
// `spec.podGroupTemplates` ({name, schedulingPolicy}).
struct WorkloadPodGroup {
  Symbol name;
  PodGroupSchedulingPolicy policy;
};

enum class WorkloadApiGeneration {
  kV1Alpha1,  // scheduling.k8s.io/v1alpha1: spec.podGroups, pods use spec.workloadRef
  kCurrent,   // v1alpha2 / v1beta1: spec.podGroupTemplates, standalone PodGroup, pods use
              // spec.schedulingGroup
};

struct Workload {
  ObjectMeta meta;
  WorkloadApiGeneration generation = WorkloadApiGeneration::kCurrent;
  std::optional<TypedLocalObjectReference> controller_ref;
  std::vector<WorkloadPodGroup> pod_groups;  // at most 8, unique names
};

enum class DisruptionMode { kSingle, kAll };

// Current-generation standalone PodGroup (scheduling.k8s.io/v1alpha2|v1beta1).
struct PodGroup {
  ObjectMeta meta;
  // spec.podGroupTemplateRef.workload{workloadName, podGroupTemplateName}
  Symbol template_workload_name;
  Symbol template_name;
  PodGroupSchedulingPolicy policy;
  DisruptionMode disruption_mode = DisruptionMode::kSingle;
  std::vector<Symbol> topology_keys;  // spec.schedulingConstraints.topology[].key
  Symbol priority_class_name;
  std::optional<int32_t> priority;  // resolved from priority_class_name at load time when set
  // spec.parentCompositePodGroupName: the CompositePodGroup this group is a child of (empty for a
  // root). Honoured only while the CompositePodGroup feature gate is on, as in kube.
  Symbol parent_name;
};

// scheduling.k8s.io/v1alpha3 CompositePodGroup (KEP-6012): a node of a workload's group hierarchy
// whose children are PodGroups and other CompositePodGroups naming it as their parent. The whole
// hierarchy below a root is scheduled in one workload cycle.
struct CompositePodGroup {
  ObjectMeta meta;
  Symbol parent_name;                 // spec.parentCompositePodGroupName; empty for a root
  Symbol template_workload_name;      // spec.workloadRef.workloadName
  Symbol template_name;               // spec.workloadRef.templateName
  bool gang = false;                  // spec.schedulingPolicy: gang{minGroupCount} (else basic{})
  int32_t min_group_count = 0;        // gang only
  std::vector<Symbol> topology_keys;  // spec.schedulingConstraints.topology[].key (at most one)
  std::optional<int32_t> priority;    // spec.priority
  // kube's getMinCount: the number of children that must be scheduled; 1 for basic.
  int32_t MinGroupCount() const { return gang ? min_group_count : 1; }
};

// Everything a loader produced, in load order (files sorted, documents in file order).
struct StorageObjects;  // api/storage.h
namespace resource {
struct ResourceObjects;  // corral/api/resource/types.h
}

struct ObjectSet {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<Namespace> namespaces;
  std::vector<PriorityClass> priority_classes;
  std::vector<PodDisruptionBudget> pod_disruption_budgets;
  std::vector<SelectorOwner> selector_owners;
  std::vector<Workload> workloads;
  std::vector<PodGroup> pod_groups;
  std::vector<CompositePodGroup> composite_pod_groups;
  // PersistentVolumes, claims, storage classes and CSI objects; null when the inputs have none.
  std::shared_ptr<StorageObjects> storage;
  // resource.k8s.io objects (DRA); null when the input has none. Shared and immutable: the
  // scheduler keeps allocation state of its own.
  std::shared_ptr<const resource::ResourceObjects> resources;
};

}  // namespace corral::api
