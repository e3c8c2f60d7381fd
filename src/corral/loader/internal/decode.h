#pragma once
// Per-kind decoders of the manifest loader. Each takes the object's root map (the decoder's path is
// the object's path prefix, "" or "items[3]"), decodes, validates and defaults it. Internal
// to corral/loader.

#include <optional>
#include <span>
#include <string_view>

#include "corral/api/resource/types.h"
#include "corral/api/storage.h"
#include "corral/api/types.h"
#include "corral/doc/decoder.h"
#include "corral/doc/node.h"

namespace corral::loader::internal {

using doc::Decoder;
using doc::Node;

// ---- shared pieces (decode_common.cc) -----------------------------------------------------------

// Fields every object has at the top level besides metadata/spec/status.
inline constexpr std::string_view kTypeMetaFields[] = {"apiVersion", "kind"};

enum class NameRule { kDns1123Subdomain, kDns1123Label, kDns1035Label };

// How `metadata` of a kind is checked.
struct MetaRules {
  bool namespaced = true;  // metadata.namespace is kept (and defaulted to "default" later)
  NameRule name = NameRule::kDns1123Subdomain;
};

// Decodes `metadata` (the caller is in the Field("metadata") scope) and checks name, namespace,
// labels. metadata.generateName without a name yields a deterministic name: generateName plus 5
// characters of kube's suffix alphabet derived from the file, line and path of the object.
void DecodeMeta(Decoder& d, const Node& n, api::ObjectMeta& m, const MetaRules& rules);
// Reports a missing metadata.name for object `root` (call after DecodeMeta, when m.name is empty).
void CheckMetaPresent(Decoder& d, const Node& root, const api::ObjectMeta& m);
void DecodeLabels(Decoder& d, const Node& n, api::LabelSet& out);
// A metav1.LabelSelector; sets `out` (engaged even for `{}`) unless `n` is null.
void DecodeLabelSelector(Decoder& d, const Node& n, std::optional<api::LabelSelector>& out);
// A map[string]string selector (Service, ReplicationController) as match_labels.
void DecodeMapSelector(Decoder& d, const Node& n, std::optional<api::LabelSelector>& out);

enum class ResourceListUse { kContainer, kPodOverhead, kNode };
// A ResourceList (sorted by symbol); validates names and non-negative values.
void DecodeResourceList(Decoder& d, const Node& n, api::ResourceList& out, ResourceListUse use);
// ResourceRequirements{requests, limits, claims}: defaults requests from limits and validates
// request <= limit, integer and non-overcommitable resources.
void DecodeResources(Decoder& d, const Node& n, api::ResourceRequirements& out);

void DecodeTaint(Decoder& d, const Node& n, api::Taint& out);
void DecodeToleration(Decoder& d, const Node& n, api::Toleration& out);
void DecodeAffinity(Decoder& d, const Node& n, api::Affinity& out);
void DecodeNodeAffinity(Decoder& d, const Node& n, api::NodeAffinity& out);
// A v1.NodeSelector (at least one term), as node affinity, PersistentVolumes and ResourceSlices
// read it.
void DecodeNodeSelector(Decoder& d, const Node& n, api::NodeSelector& out);
void DecodeTopologySpreadConstraint(Decoder& d, const Node& n, api::TopologySpreadConstraint& out);

// Qualified-name check (label keys, taint keys, topology keys), reported at the current path.
void CheckQualifiedNameAt(Decoder& d, const Node& at, std::string_view what, std::string_view s);

inline constexpr doc::EnumName<api::PreemptionPolicy> kPreemptionPolicies[] = {
    {"PreemptLowerPriority", api::PreemptionPolicy::kPreemptLowerPriority},
    {"Never", api::PreemptionPolicy::kNever},
};

// ---- kinds --------------------------------------------------------------------------------------

// What priority admission needs besides the object itself.
struct PriorityInput {
  std::optional<int32_t> priority;                  // spec.priority as given
  std::optional<api::PreemptionPolicy> preemption;  // spec.preemptionPolicy as given
  uint32_t class_name_line = 0;                     // line of spec.priorityClassName (or of spec)
};

struct PodInput {
  api::Pod pod;
  PriorityInput prio;
};
// `template_only`: a pod template (Workload pod sets), whose metadata.name is optional.
void DecodePod(Decoder& d, const Node& root, PodInput& out, bool template_only = false);

void DecodeNode(Decoder& d, const Node& root, api::Node& out);
void DecodeNamespace(Decoder& d, const Node& root, api::Namespace& out);
void DecodePriorityClass(Decoder& d, const Node& root, api::PriorityClass& out);
void DecodePodDisruptionBudget(Decoder& d, const Node& root, api::PodDisruptionBudget& out);
void DecodeSelectorOwner(Decoder& d, const Node& root, api::SelectorOwner& out);

void DecodeWorkload(Decoder& d, const Node& root, api::Workload& out);

struct PodGroupInput {
  api::PodGroup group;
  PriorityInput prio;
  // spec.resourceClaims (DRAWorkloadResourceClaims), validated as kube does; the loader keeps
  // them with the resource.k8s.io objects (api::resource::PodGroupClaims).
  std::vector<api::resource::PodGroupResourceClaim> claims;
};
void DecodePodGroup(Decoder& d, const Node& root, PodGroupInput& out);
// scheduling.k8s.io/v1alpha3 CompositePodGroup (decode_composite.cc).
void DecodeCompositePodGroup(Decoder& d, const Node& root, api::CompositePodGroup& out);

// ---- storage (decode_storage.cc) ----------------------------------------------------------------

// One volume source of a pod volume or a PersistentVolume (`kind` names the field that held it):
// the identity fields into `out`, everything else accepted.
void DecodeVolumeSource(Decoder& d, const Node& n, api::VolumeKind kind, bool inline_volume,
                        api::VolumeSource& out);
// The volume source fields the loader recognises, by YAML name.
api::VolumeKind VolumeKindOfField(std::string_view field);
// A PersistentVolumeClaimSpec into `out` (a claim or an ephemeral volume's claim template).
void DecodeClaimSpec(Decoder& d, const Node& n, api::PersistentVolumeClaim& out);
// metadata of an ephemeral volume's claim template (labels and annotations only).
void DecodeTemplateMeta(Decoder& d, const Node& n, api::ObjectMeta& out);

void DecodePersistentVolume(Decoder& d, const Node& root, api::PersistentVolume& out);
void DecodePersistentVolumeClaim(Decoder& d, const Node& root, api::PersistentVolumeClaim& out);
void DecodeStorageClass(Decoder& d, const Node& root, api::StorageClass& out);
void DecodeCSINode(Decoder& d, const Node& root, api::CSINode& out);
void DecodeCSIDriver(Decoder& d, const Node& root, api::CSIDriver& out);
void DecodeCSIStorageCapacity(Decoder& d, const Node& root, api::CSIStorageCapacity& out);

}  // namespace corral::loader::internal
