#pragma once
// The part of kube's csi-translation-lib that the scheduler's volume plugins use: in-tree volume
// plugins that kube v1.37 still migrates to CSI (GCE PD, AWS EBS, Azure Disk, Cinder), their CSI
// driver names and topology keys, whether a node's CSINode marks a plugin migrated, and the CSI
// volume handle and node affinity of a translated volume.
//
// Portworx (migration behind CSIMigrationPortworx) and the removed plugins (RBD, vSphere, ...) are
// not migratable here: their volumes keep their in-tree form, as kube's do with the gate off.

#include <optional>
#include <string>
#include <string_view>

#include "corral/api/storage.h"

namespace corral::api {

// "kubernetes.io/gce-pd", "kubernetes.io/aws-ebs", "kubernetes.io/azure-disk",
// "kubernetes.io/cinder"; empty for other kinds.
std::string_view InTreePluginName(VolumeKind kind);
// The in-tree plugin that a provisioner name denotes (the same names), or kOther.
VolumeKind InTreeKindOfProvisioner(std::string_view provisioner);
// "pd.csi.storage.gke.io", "ebs.csi.aws.com", "disk.csi.azure.com", "cinder.csi.openstack.org".
std::string_view CSIDriverOf(VolumeKind kind);
// The zone topology key of the CSI driver ("topology.gke.io/zone", ...).
std::string_view CSITopologyKeyOf(VolumeKind kind);

// Whether `csi_node` lists the in-tree plugin in its storage.alpha.kubernetes.io/migrated-plugins
// annotation (comma-separated). False without a CSINode.
bool PluginMigratedOnNode(const CSINode* csi_node, VolumeKind kind, const Interner& interner);

// The CSI volume handle of a translated in-tree source. `zone` is the volume's zone for GCE PD
// PersistentVolumes ("" for inline volumes, which kube translates with UNSPECIFIED zone).
std::string TranslatedVolumeHandle(VolumeKind kind, const VolumeSource& source,
                                   std::string_view zone, const Interner& interner);

// kube's TranslateInTreePVToCSI as far as node affinity goes: the PersistentVolume's zone labels
// (topology.kubernetes.io/zone, else failure-domain.beta.kubernetes.io/zone; "__"-separated
// values) become a required term `<driver zone key> In zones`, and zone keys of its existing terms
// are renamed to the driver's key. Returns the volume's affinity unchanged for non-migratable
// kinds. REQUIRES: the driver keys are interned (InternCSITranslationNames).
std::optional<NodeSelector> TranslatedNodeAffinity(const PersistentVolume& pv,
                                                   const Interner& interner);
// Interns the names the translation produces (driver names and topology keys).
void InternCSITranslationNames(Interner& interner);

}  // namespace corral::api
