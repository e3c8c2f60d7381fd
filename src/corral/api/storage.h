#pragma once
// Storage objects as kube's volume plugins read them: core/v1 PersistentVolume and
// PersistentVolumeClaim, storage.k8s.io/v1 StorageClass, CSINode, CSIDriver and
// CSIStorageCapacity. Like api/types.h, objects are plain values that the loader has validated and
// defaulted (a StorageClass always has its volumeBindingMode, a claim its volumeMode).
//
// The pod side (claim references, ephemeral claim templates, in-tree sources) is api::Volume
// in api/types.h.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/types.h"

namespace corral::api {

// Access modes as a bit set (kube keeps a list; only membership matters to the scheduler).
enum AccessMode : uint8_t {
  kReadWriteOnce = 1,
  kReadOnlyMany = 2,
  kReadWriteMany = 4,
  kReadWriteOncePod = 8,
};

enum class PersistentVolumeMode { kFilesystem, kBlock };
enum class PersistentVolumePhase { kPending, kAvailable, kBound, kReleased, kFailed };
enum class ClaimPhase { kPending, kBound, kLost };
enum class VolumeBindingMode { kImmediate, kWaitForFirstConsumer };
// What happens to a volume when its claim is deleted (persistentVolumeReclaimPolicy): Delete
// removes it, Retain keeps it Released (Recycle is deprecated and rejected by the loader).
enum class ReclaimPolicy { kRetain, kDelete };

// spec.claimRef of a PersistentVolume (the fields the binder compares).
struct ClaimReference {
  Symbol namespace_;
  Symbol name;
  Symbol uid;  // empty: pre-bound by name only
};

struct PersistentVolume {
  ObjectMeta meta;
  Quantity capacity;  // spec.capacity.storage (zero when absent)
  uint8_t access_modes = 0;
  Symbol storage_class_name;  // spec.storageClassName, or the beta annotation when set
  std::optional<ClaimReference> claim_ref;
  std::optional<NodeSelector> node_affinity;  // spec.nodeAffinity.required
  PersistentVolumeMode volume_mode = PersistentVolumeMode::kFilesystem;
  Symbol volume_attributes_class_name;
  VolumeKind source_kind = VolumeKind::kOther;  // kCsi, an in-tree disk kind, or kOther
  VolumeSource source;
  PersistentVolumePhase phase = PersistentVolumePhase::kPending;
  ReclaimPolicy reclaim_policy = ReclaimPolicy::kRetain;  // the API server's default
};

struct PersistentVolumeClaim {
  ObjectMeta meta;
  uint8_t access_modes = 0;
  std::optional<LabelSelector> selector;
  bool has_storage_request = false;
  Quantity storage_request;   // spec.resources.requests.storage
  Symbol storage_class_name;  // spec.storageClassName, or the beta annotation when set
  bool has_storage_class = false;
  Symbol volume_name;  // spec.volumeName
  PersistentVolumeMode volume_mode = PersistentVolumeMode::kFilesystem;
  Symbol volume_attributes_class_name;
  ClaimPhase phase = ClaimPhase::kPending;
};

// A topology term of a StorageClass (terms are ORed, expressions ANDed, values of one
// expression ORed).
struct TopologySelectorTerm {
  std::vector<std::pair<Symbol, std::vector<Symbol>>> match_label_expressions;
};

struct StorageClass {
  ObjectMeta meta;
  Symbol provisioner;
  VolumeBindingMode volume_binding_mode = VolumeBindingMode::kImmediate;
  std::vector<TopologySelectorTerm> allowed_topologies;
  ReclaimPolicy reclaim_policy = ReclaimPolicy::kDelete;  // of the volumes it provisions
};

struct CSINodeDriver {
  Symbol name;
  Symbol node_id;
  std::vector<Symbol> topology_keys;
  std::optional<int32_t> allocatable_count;  // allocatable.count
};

struct CSINode {
  ObjectMeta meta;  // the node's name
  std::vector<CSINodeDriver> drivers;
};

struct CSIDriver {
  ObjectMeta meta;
  bool storage_capacity = false;  // spec.storageCapacity
  bool attach_required = true;    // spec.attachRequired
};

struct CSIStorageCapacity {
  ObjectMeta meta;
  std::optional<LabelSelector> node_topology;
  Symbol storage_class_name;
  std::optional<Quantity> capacity;
  std::optional<Quantity> maximum_volume_size;
};

// Everything the loader read about storage. Held by ObjectSet::storage.
struct StorageObjects {
  std::vector<PersistentVolume> volumes;
  std::vector<PersistentVolumeClaim> claims;
  std::vector<StorageClass> classes;
  std::vector<CSINode> csi_nodes;
  std::vector<CSIDriver> csi_drivers;
  std::vector<CSIStorageCapacity> capacities;

  bool empty() const {
    return volumes.empty() && claims.empty() && classes.empty() && csi_nodes.empty() &&
           csi_drivers.empty() && capacities.empty();
  }
};

// Well-known names of kube's storage helpers.
inline constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
inline constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";
inline constexpr std::string_view kAnnMigratedPlugins =
    "storage.alpha.kubernetes.io/migrated-plugins";
inline constexpr std::string_view kNotSupportedProvisioner = "kubernetes.io/no-provisioner";
inline constexpr std::string_view kZoneLabelBeta = "failure-domain.beta.kubernetes.io/zone";
inline constexpr std::string_view kRegionLabelBeta = "failure-domain.beta.kubernetes.io/region";

// Whether every mode the claim asks for is among the volume's (kube CheckAccessModes).
inline bool AccessModesSatisfied(uint8_t claim, uint8_t volume) {
  return (claim & ~volume) == 0;
}

// kube's TopologySelectorTerm match (v1helper.MatchTopologySelectorTerms): no terms match every
// node; otherwise some non-empty term must have every expression's key labelled with one of its
// values (an empty term selects nothing).
bool MatchTopologySelectorTerms(const std::vector<TopologySelectorTerm>& terms,
                                const LabelSet& labels);

// The claim name of a generic ephemeral volume: "<pod name>-<volume name>"
// (kube's ephemeral.VolumeClaimName).
std::string EphemeralClaimName(std::string_view pod, std::string_view volume);

}  // namespace corral::api
