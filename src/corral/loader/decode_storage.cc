// v1 PersistentVolume and PersistentVolumeClaim; storage.k8s.io/v1 StorageClass, CSINode,
// CSIDriver and CSIStorageCapacity; the volume sources of pods and PersistentVolumes.

#include <algorithm>

#include <fmt/format.h>

#include "corral/loader/internal/decode.h"

namespace corral::loader::internal {

namespace {

// ---- volume sources -----------------------------------------------------------------------------

struct SourceIn {
  api::VolumeSource* s;
  api::VolumeKind kind;
};

void ReadId(Decoder& d, const Node& n, SourceIn& in) {
  d.ReadSymbol(n, in.s->id);
}

const doc::Field<SourceIn> kSourceFields[] = {
    {"readOnly", [](Decoder& d, const Node& n, SourceIn& in) { d.ReadBool(n, in.s->read_only); }},
    {"driver", [](Decoder& d, const Node& n, SourceIn& in) { d.ReadSymbol(n, in.s->driver); }},
    {"volumeHandle", &ReadId},
    {"pdName", &ReadId},
    {"volumeID", &ReadId},
    {"diskURI", &ReadId},
    {"image", &ReadId},
    {"iqn", &ReadId},
    {"pool", [](Decoder& d, const Node& n, SourceIn& in) { d.ReadSymbol(n, in.s->pool); }},
    {"monitors",
     [](Decoder& d, const Node& n, SourceIn& in) { d.ReadSymbolList(n, in.s->monitors); }},
};

// The identity field of each kind, and the fields of the API type that the scheduler ignores.
struct SourceShape {
  api::VolumeKind kind;
  std::string_view yaml;
  std::string_view id;  // required identity field ("" for inline CSI, which has none)
  std::initializer_list<std::string_view> own;
};

const SourceShape kShapes[] = {
    {api::VolumeKind::kCsi,
     "csi",
     "volumeHandle",
     {"driver", "volumeHandle", "readOnly", "fsType", "volumeAttributes",
      "controllerPublishSecretRef", "nodeStageSecretRef", "nodePublishSecretRef",
      "controllerExpandSecretRef", "nodeExpandSecretRef"}},
    {api::VolumeKind::kGcePersistentDisk,
     "gcePersistentDisk",
     "pdName",
     {"pdName", "fsType", "partition", "readOnly"}},
    {api::VolumeKind::kAwsElasticBlockStore,
     "awsElasticBlockStore",
     "volumeID",
     {"volumeID", "fsType", "partition", "readOnly"}},
    {api::VolumeKind::kAzureDisk,
     "azureDisk",
     "diskURI",
     {"diskName", "diskURI", "cachingMode", "fsType", "readOnly", "kind"}},
    {api::VolumeKind::kCinder,
     "cinder",
     "volumeID",
     {"volumeID", "fsType", "readOnly", "secretRef"}},
    {api::VolumeKind::kRbd,
     "rbd",
     "image",
     {"monitors", "image", "fsType", "pool", "user", "keyring", "secretRef", "readOnly"}},
    {api::VolumeKind::kIscsi,
     "iscsi",
     "iqn",
     {"targetPortal", "iqn", "lun", "iscsiInterface", "fsType", "readOnly", "portals",
      "chapAuthDiscovery", "chapAuthSession", "secretRef", "initiatorName"}},
};

const SourceShape* ShapeOf(api::VolumeKind kind) {
  for (const auto& s : kShapes) {
    if (s.kind == kind) return &s;
  }
  return nullptr;
}

// ---- PersistentVolumeClaimSpec ------------------------------------------------------------------

constexpr doc::EnumName<api::AccessMode> kAccessModes[] = {
    {"ReadWriteOnce", api::kReadWriteOnce},
    {"ReadOnlyMany", api::kReadOnlyMany},
    {"ReadWriteMany", api::kReadWriteMany},
    {"ReadWriteOncePod", api::kReadWriteOncePod},
};

// Recycle (deprecated) is not modelled: an error, as any value outside this list.
constexpr doc::EnumName<api::ReclaimPolicy> kReclaimPolicies[] = {
    {"Retain", api::ReclaimPolicy::kRetain},
    {"Delete", api::ReclaimPolicy::kDelete},
};

constexpr doc::EnumName<api::PersistentVolumeMode> kVolumeModes[] = {
    {"Filesystem", api::PersistentVolumeMode::kFilesystem},
    {"Block", api::PersistentVolumeMode::kBlock},
};

// Reads spec.accessModes into a bit set; kube rejects ReadWriteOncePod combined with other modes.
void ReadAccessModes(Decoder& d, const Node& n, uint8_t& out) {
  std::vector<api::AccessMode> modes;
  d.ReadList(n, modes, [&](const Node& item, api::AccessMode& m) {
    d.ReadEnum(item, kAccessModes, "access mode", m);
  });
  for (auto m : modes) out |= m;
  if ((out & api::kReadWriteOncePod) != 0 && out != api::kReadWriteOncePod) {
    d.Error(n, "may not use ReadWriteOncePod with other access modes");
  }
}

void ReadStorageRequest(Decoder& d, const Node& n, api::PersistentVolumeClaim& c) {
  d.ForEachEntry(n, [&](const Node& key, const Node& value) {
    if (key.text() != "storage") return;  // other resources do not affect scheduling
    if (d.ReadQuantity(value, c.storage_request)) c.has_storage_request = true;
  });
}

const doc::Field<api::PersistentVolumeClaim> kResourcesFields[] = {
    {"requests",
     [](Decoder& d, const Node& n, api::PersistentVolumeClaim& c) { ReadStorageRequest(d, n, c); }},
};
constexpr std::string_view kResourcesIgnored[] = {"limits"};

const doc::Field<api::PersistentVolumeClaim> kClaimSpecFields[] = {
    {"accessModes", [](Decoder& d, const Node& n,
                       api::PersistentVolumeClaim& c) { ReadAccessModes(d, n, c.access_modes); }},
    {"selector", [](Decoder& d, const Node& n,
                    api::PersistentVolumeClaim& c) { DecodeLabelSelector(d, n, c.selector); }},
    {"resources",
     [](Decoder& d, const Node& n, api::PersistentVolumeClaim& c) {
       d.Struct(n, c, kResourcesFields, kResourcesIgnored);
     }},
    {"volumeName", [](Decoder& d, const Node& n,
                      api::PersistentVolumeClaim& c) { d.ReadSymbol(n, c.volume_name); }},
    {"storageClassName",
     [](Decoder& d, const Node& n, api::PersistentVolumeClaim& c) {
       if (n.is_null()) return;
       if (d.ReadSymbol(n, c.storage_class_name)) c.has_storage_class = true;
     }},
    {"volumeMode",
     [](Decoder& d, const Node& n, api::PersistentVolumeClaim& c) {
       d.ReadEnum(n, kVolumeModes, "volumeMode", c.volume_mode);
     }},
    {"volumeAttributesClassName",
     [](Decoder& d, const Node& n, api::PersistentVolumeClaim& c) {
       d.ReadSymbol(n, c.volume_attributes_class_name);
     }},
};
constexpr std::string_view kClaimSpecIgnored[] = {"dataSource", "dataSourceRef"};

constexpr doc::EnumName<api::ClaimPhase> kClaimPhases[] = {
    {"Pending", api::ClaimPhase::kPending},
    {"Bound", api::ClaimPhase::kBound},
    {"Lost", api::ClaimPhase::kLost},
};
const doc::Field<api::PersistentVolumeClaim> kClaimStatusFields[] = {
    {"phase", [](Decoder& d, const Node& n,
                 api::PersistentVolumeClaim& c) { d.ReadEnum(n, kClaimPhases, "phase", c.phase); }},
};
constexpr std::string_view kClaimStatusIgnored[] = {"accessModes",
                                                    "capacity",
                                                    "conditions",
                                                    "allocatedResources",
                                                    "allocatedResourceStatuses",
                                                    "currentVolumeAttributesClassName",
                                                    "modifyVolumeStatus"};

const doc::Field<api::PersistentVolumeClaim> kClaimFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::PersistentVolumeClaim&) {}},
    {"kind", [](Decoder&, const Node&, api::PersistentVolumeClaim&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    api::PersistentVolumeClaim& c) { DecodeMeta(d, n, c.meta, {}); }},
    {"spec",
     [](Decoder& d, const Node& n, api::PersistentVolumeClaim& c) { DecodeClaimSpec(d, n, c); }},
    {"status",
     [](Decoder& d, const Node& n, api::PersistentVolumeClaim& c) {
       d.Struct(n, c, kClaimStatusFields, kClaimStatusIgnored);
     }},
};

// The beta storage-class annotation wins over spec.storageClassName (kube's
// GetPersistentVolumeClaimClass / GetPersistentVolumeClass).
template <class T>
void ApplyBetaClassAnnotation(Decoder& d, T& o) {
  for (const auto& [k, v] : o.meta.annotations) {
    if (d.interner()->Str(k) == api::kAnnBetaStorageClass) {
      o.storage_class_name = d.Intern(v);
      if constexpr (requires { o.has_storage_class; }) o.has_storage_class = true;
    }
  }
}

// ---- PersistentVolume ---------------------------------------------------------------------------

struct PvIn {
  api::PersistentVolume* pv;
  const Node* source = nullptr;  // the key of the second volume source field
  int sources = 0;
  bool has_capacity = false;
};

constexpr doc::EnumName<api::PersistentVolumePhase> kPvPhases[] = {
    {"Pending", api::PersistentVolumePhase::kPending},
    {"Available", api::PersistentVolumePhase::kAvailable},
    {"Bound", api::PersistentVolumePhase::kBound},
    {"Released", api::PersistentVolumePhase::kReleased},
    {"Failed", api::PersistentVolumePhase::kFailed},
};

const doc::Field<api::ClaimReference> kClaimRefFields[] = {
    {"namespace",
     [](Decoder& d, const Node& n, api::ClaimReference& r) { d.ReadSymbol(n, r.namespace_); }},
    {"name", [](Decoder& d, const Node& n, api::ClaimReference& r) { d.ReadSymbol(n, r.name); }},
    {"uid", [](Decoder& d, const Node& n, api::ClaimReference& r) { d.ReadSymbol(n, r.uid); }},
};
constexpr std::string_view kClaimRefIgnored[] = {"apiVersion", "kind", "resourceVersion",
                                                 "fieldPath"};

const doc::Field<api::PersistentVolume> kPvNodeAffinityFields[] = {
    {"required",
     [](Decoder& d, const Node& n, api::PersistentVolume& pv) {
       if (n.is_null()) return;
       api::NodeSelector s;
       DecodeNodeSelector(d, n, s);
       pv.node_affinity = std::move(s);
     }},
};

// Volume sources a PersistentVolume may have besides those in kShapes (accepted, not modelled).
constexpr std::string_view kOtherPvSources[] = {"hostPath",
                                                "glusterfs",
                                                "nfs",
                                                "fc",
                                                "flocker",
                                                "flexVolume",
                                                "azureFile",
                                                "vsphereVolume",
                                                "quobyte",
                                                "cephfs",
                                                "photonPersistentDisk",
                                                "portworxVolume",
                                                "scaleIO",
                                                "local",
                                                "storageos"};

void PvSpecField(Decoder& d, const Node& root, PvIn& in) {
  for (size_t i = 0; i < root.size(); ++i) {
    std::string_view key = root.key(i).text();
    const Node& value = root.value(i);
    auto s = d.Field(key);
    api::PersistentVolume& pv = *in.pv;
    if (key == "capacity") {
      d.ForEachEntry(value, [&](const Node& k, const Node& v) {
        if (k.text() != "storage") {
          d.Error(k,
                  fmt::format("Unsupported value: {:?}: supported values: \"storage\"", k.text()));
          return;
        }
        if (d.ReadQuantity(v, pv.capacity)) in.has_capacity = true;
      });
    } else if (key == "accessModes") {
      ReadAccessModes(d, value, pv.access_modes);
    } else if (key == "claimRef") {
      if (value.is_null()) continue;
      api::ClaimReference r;
      d.Struct(value, r, kClaimRefFields, kClaimRefIgnored);
      pv.claim_ref = r;
    } else if (key == "storageClassName") {
      d.ReadSymbol(value, pv.storage_class_name);
    } else if (key == "nodeAffinity") {
      d.Struct(value, pv, kPvNodeAffinityFields);
    } else if (key == "volumeMode") {
      d.ReadEnum(value, kVolumeModes, "volumeMode", pv.volume_mode);
    } else if (key == "volumeAttributesClassName") {
      d.ReadSymbol(value, pv.volume_attributes_class_name);
    } else if (key == "persistentVolumeReclaimPolicy") {
      d.ReadEnum(value, kReclaimPolicies, "persistentVolumeReclaimPolicy", pv.reclaim_policy);
    } else if (key == "mountOptions") {
      // does not affect scheduling
    } else if (api::VolumeKind k = VolumeKindOfField(key); k != api::VolumeKind::kOther) {
      if (++in.sources == 1) {
        pv.source_kind = k;
        DecodeVolumeSource(d, value, k, false, pv.source);
      } else if (in.sources == 2) {
        in.source = &root.key(i);
      }
    } else if (std::find(std::begin(kOtherPvSources), std::end(kOtherPvSources), key) !=
               std::end(kOtherPvSources)) {
      if (++in.sources == 2) in.source = &root.key(i);
    } else {
      static constexpr std::string_view kKnown[] = {"capacity",
                                                    "accessModes",
                                                    "claimRef",
                                                    "storageClassName",
                                                    "nodeAffinity",
                                                    "volumeMode",
                                                    "persistentVolumeReclaimPolicy",
                                                    "mountOptions",
                                                    "csi"};
      d.UnknownField(root.key(i), kKnown);
    }
  }
}

const doc::Field<PvIn> kPvFields[] = {
    {"apiVersion", [](Decoder&, const Node&, PvIn&) {}},
    {"kind", [](Decoder&, const Node&, PvIn&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    PvIn& in) { DecodeMeta(d, n, in.pv->meta, {.namespaced = false}); }},
    {"spec",
     [](Decoder& d, const Node& n, PvIn& in) {
       if (d.ExpectMap(n)) PvSpecField(d, n, in);
     }},
    {"status",
     [](Decoder& d, const Node& n, PvIn& in) {
       if (!d.ExpectMap(n)) return;
       for (size_t i = 0; i < n.size(); ++i) {
         if (n.key(i).text() != "phase") continue;
         auto s = d.Field("phase");
         d.ReadEnum(n.value(i), kPvPhases, "phase", in.pv->phase);
       }
     }},
};

// ---- StorageClass -------------------------------------------------------------------------------

constexpr doc::EnumName<api::VolumeBindingMode> kBindingModes[] = {
    {"Immediate", api::VolumeBindingMode::kImmediate},
    {"WaitForFirstConsumer", api::VolumeBindingMode::kWaitForFirstConsumer},
};

struct TopologyExprIn {
  Symbol key;
  std::vector<Symbol> values;
};
const doc::Field<TopologyExprIn> kTopologyExprFields[] = {
    {"key", [](Decoder& d, const Node& n, TopologyExprIn& e) { d.ReadSymbol(n, e.key); }},
    {"values", [](Decoder& d, const Node& n, TopologyExprIn& e) { d.ReadSymbolList(n, e.values); }},
};
const doc::Field<api::TopologySelectorTerm> kTopologyTermFields[] = {
    {"matchLabelExpressions",
     [](Decoder& d, const Node& n, api::TopologySelectorTerm& t) {
       std::vector<TopologyExprIn> exprs;
       d.ReadList(n, exprs, [&](const Node& item, TopologyExprIn& e) {
         d.Struct(item, e, kTopologyExprFields);
         if (!item.is_map()) return;
         if (e.key.empty()) d.Required(item, "key");
         if (e.values.empty())
           d.FieldError(item, "values", "Required value: must specify as least one value");
       });
       for (auto& e : exprs) t.match_label_expressions.emplace_back(e.key, std::move(e.values));
     }},
};

const doc::Field<api::StorageClass> kStorageClassFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::StorageClass&) {}},
    {"kind", [](Decoder&, const Node&, api::StorageClass&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    api::StorageClass& o) { DecodeMeta(d, n, o.meta, {.namespaced = false}); }},
    {"provisioner",
     [](Decoder& d, const Node& n, api::StorageClass& o) { d.ReadSymbol(n, o.provisioner); }},
    {"volumeBindingMode",
     [](Decoder& d, const Node& n, api::StorageClass& o) {
       d.ReadEnum(n, kBindingModes, "volumeBindingMode", o.volume_binding_mode);
     }},
    {"reclaimPolicy",
     [](Decoder& d, const Node& n, api::StorageClass& o) {
       d.ReadEnum(n, kReclaimPolicies, "reclaimPolicy", o.reclaim_policy);
     }},
    {"allowedTopologies",
     [](Decoder& d, const Node& n, api::StorageClass& o) {
       d.ReadList(n, o.allowed_topologies, [&](const Node& item, api::TopologySelectorTerm& t) {
         d.Struct(item, t, kTopologyTermFields);
       });
     }},
};
constexpr std::string_view kStorageClassIgnored[] = {"parameters", "mountOptions",
                                                     "allowVolumeExpansion"};

// ---- CSINode, CSIDriver, CSIStorageCapacity -----------------------------------------------------

const doc::Field<api::CSINodeDriver> kAllocatableFields[] = {
    {"count",
     [](Decoder& d, const Node& n, api::CSINodeDriver& o) {
       int32_t c = 0;
       if (d.ReadInt32(n, c, 0)) o.allocatable_count = c;
     }},
};
const doc::Field<api::CSINodeDriver> kCsiNodeDriverFields[] = {
    {"name", [](Decoder& d, const Node& n, api::CSINodeDriver& o) { d.ReadSymbol(n, o.name); }},
    {"nodeID",
     [](Decoder& d, const Node& n, api::CSINodeDriver& o) { d.ReadSymbol(n, o.node_id); }},
    {"topologyKeys", [](Decoder& d, const Node& n,
                        api::CSINodeDriver& o) { d.ReadSymbolList(n, o.topology_keys); }},
    {"allocatable",
     [](Decoder& d, const Node& n, api::CSINodeDriver& o) {
       if (!n.is_null()) d.Struct(n, o, kAllocatableFields);
     }},
};
const doc::Field<api::CSINode> kCsiNodeSpecFields[] = {
    {"drivers",
     [](Decoder& d, const Node& n, api::CSINode& o) {
       d.ReadList(n, o.drivers, [&](const Node& item, api::CSINodeDriver& dr) {
         d.Struct(item, dr, kCsiNodeDriverFields);
         if (!item.is_map()) return;
         if (dr.name.empty()) d.Required(item, "name");
         if (dr.node_id.empty()) d.Required(item, "nodeID");
       });
     }},
};
const doc::Field<api::CSINode> kCsiNodeFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::CSINode&) {}},
    {"kind", [](Decoder&, const Node&, api::CSINode&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    api::CSINode& o) { DecodeMeta(d, n, o.meta, {.namespaced = false}); }},
    {"spec",
     [](Decoder& d, const Node& n, api::CSINode& o) { d.Struct(n, o, kCsiNodeSpecFields); }},
};

const doc::Field<api::CSIDriver> kCsiDriverSpecFields[] = {
    {"storageCapacity",
     [](Decoder& d, const Node& n, api::CSIDriver& o) { d.ReadBool(n, o.storage_capacity); }},
    {"attachRequired",
     [](Decoder& d, const Node& n, api::CSIDriver& o) { d.ReadBool(n, o.attach_required); }},
};
constexpr std::string_view kCsiDriverSpecIgnored[] = {"podInfoOnMount",
                                                      "volumeLifecycleModes",
                                                      "fsGroupPolicy",
                                                      "tokenRequests",
                                                      "requiresRepublish",
                                                      "seLinuxMount",
                                                      "nodeAllocatableUpdatePeriodSeconds",
                                                      "serviceAccountTokenInSecrets"};
const doc::Field<api::CSIDriver> kCsiDriverFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::CSIDriver&) {}},
    {"kind", [](Decoder&, const Node&, api::CSIDriver&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    api::CSIDriver& o) { DecodeMeta(d, n, o.meta, {.namespaced = false}); }},
    {"spec",
     [](Decoder& d, const Node& n, api::CSIDriver& o) {
       d.Struct(n, o, kCsiDriverSpecFields, kCsiDriverSpecIgnored);
     }},
};

const doc::Field<api::CSIStorageCapacity> kCapacityFields[] = {
    {"apiVersion", [](Decoder&, const Node&, api::CSIStorageCapacity&) {}},
    {"kind", [](Decoder&, const Node&, api::CSIStorageCapacity&) {}},
    {"metadata",
     [](Decoder& d, const Node& n, api::CSIStorageCapacity& o) { DecodeMeta(d, n, o.meta, {}); }},
    {"nodeTopology",
     [](Decoder& d, const Node& n, api::CSIStorageCapacity& o) {
       DecodeLabelSelector(d, n, o.node_topology);
     }},
    {"storageClassName", [](Decoder& d, const Node& n,
                            api::CSIStorageCapacity& o) { d.ReadSymbol(n, o.storage_class_name); }},
    {"capacity",
     [](Decoder& d, const Node& n, api::CSIStorageCapacity& o) {
       api::Quantity q;
       if (!n.is_null() && d.ReadQuantity(n, q)) o.capacity = q;
     }},
    {"maximumVolumeSize",
     [](Decoder& d, const Node& n, api::CSIStorageCapacity& o) {
       api::Quantity q;
       if (!n.is_null() && d.ReadQuantity(n, q)) o.maximum_volume_size = q;
     }},
};

}  // namespace

api::VolumeKind VolumeKindOfField(std::string_view field) {
  for (const auto& s : kShapes) {
    if (s.yaml == field) return s.kind;
  }
  return api::VolumeKind::kOther;
}

void DecodeVolumeSource(Decoder& d, const Node& n, api::VolumeKind kind, bool inline_volume,
                        api::VolumeSource& out) {
  const SourceShape* shape = ShapeOf(kind);
  if (shape == nullptr || !d.ExpectMap(n)) return;
  SourceIn in{&out, kind};
  // Fields of the source's API type that are not identity fields are accepted and ignored; a
  // field of another source type is unknown.
  std::vector<std::string_view> ignored;
  for (std::string_view f : shape->own) {
    bool decoded = false;
    for (const auto& field : kSourceFields) decoded |= field.name == f;
    if (!decoded) ignored.push_back(f);
  }
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view key = n.key(i).text();
    bool own = false;
    for (std::string_view f : shape->own) own |= f == key;
    if (!own) {
      std::vector<std::string_view> known(shape->own.begin(), shape->own.end());
      d.UnknownField(n.key(i), known);
      continue;
    }
    for (const auto& field : kSourceFields) {
      if (field.name != key) continue;
      auto s = d.Field(key);
      field.decode(d, n.value(i), in);
    }
  }
  if (kind == api::VolumeKind::kCsi) {
    if (out.driver.empty()) d.Required(n, "driver");
    if (!inline_volume && out.id.empty()) d.Required(n, "volumeHandle");
    if (inline_volume && n.Find("volumeHandle") != nullptr) {
      d.FieldError(n, "volumeHandle", "Forbidden: inline CSI volumes have no volumeHandle");
    }
    return;
  }
  if (out.id.empty()) d.Required(n, shape->id);
  if (kind == api::VolumeKind::kRbd) {
    if (out.monitors.empty()) d.Required(n, "monitors");
    if (out.pool.empty()) out.pool = d.Intern("rbd");
  }
}

void DecodeClaimSpec(Decoder& d, const Node& n, api::PersistentVolumeClaim& out) {
  auto seen = d.Struct(n, out, kClaimSpecFields, kClaimSpecIgnored);
  if (!n.is_map()) return;
  const Node* modes = n.Find("accessModes");
  if (modes == nullptr || modes->is_null() || (modes->is_sequence() && modes->size() == 0)) {
    d.FieldError(n, "accessModes", "Required value: at least 1 access mode is required");
  }
  if (!out.has_storage_request) {
    auto s = d.Field("resources");
    auto k = d.Key("storage");
    d.Error(n, "Required value");
  }
  (void)seen;
}

void DecodeTemplateMeta(Decoder& d, const Node& n, api::ObjectMeta& out) {
  struct MetaIn {
    api::ObjectMeta* m;
  };
  static const doc::Field<MetaIn> kFields[] = {
      {"labels", [](Decoder& x, const Node& y, MetaIn& in) { DecodeLabels(x, y, in.m->labels); }},
      {"annotations",
       [](Decoder& x, const Node& y, MetaIn& in) {
         x.ForEachEntry(y, [&](const Node& key, const Node& value) {
           std::string v;
           x.ReadString(value, v);
           in.m->annotations.emplace_back(x.Intern(key.text()), std::move(v));
         });
       }},
  };
  MetaIn in{&out};
  d.Struct(n, in, kFields);
}

void DecodePersistentVolume(Decoder& d, const Node& root, api::PersistentVolume& out) {
  PvIn in{&out};
  d.Struct(root, in, kPvFields);
  CheckMetaPresent(d, root, out.meta);
  ApplyBetaClassAnnotation(d, out);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || !spec->is_map()) {
    d.Required(root, "spec");
    return;
  }
  auto s = d.Field("spec");
  if (!in.has_capacity) d.FieldError(*spec, "capacity", "Required value");
  const Node* modes = spec->Find("accessModes");
  if (modes == nullptr || modes->is_null() || (modes->is_sequence() && modes->size() == 0)) {
    d.FieldError(*spec, "accessModes", "Required value");
  }
  if (in.sources == 0) d.Error(*spec, "Required value: must specify a volume type");
  if (in.sources > 1) {
    auto second = d.Field(in.source->text());
    d.Error(*in.source, "Forbidden: may not specify more than 1 volume type");
  }
}

void DecodePersistentVolumeClaim(Decoder& d, const Node& root, api::PersistentVolumeClaim& out) {
  d.Struct(root, out, kClaimFields);
  CheckMetaPresent(d, root, out.meta);
  ApplyBetaClassAnnotation(d, out);
  if (root.Find("spec") == nullptr) d.Required(root, "spec");
}

void DecodeStorageClass(Decoder& d, const Node& root, api::StorageClass& out) {
  d.Struct(root, out, kStorageClassFields, kStorageClassIgnored);
  CheckMetaPresent(d, root, out.meta);
  if (out.provisioner.empty()) d.Required(root, "provisioner");
}

void DecodeCSINode(Decoder& d, const Node& root, api::CSINode& out) {
  d.Struct(root, out, kCsiNodeFields);
  CheckMetaPresent(d, root, out.meta);
}

void DecodeCSIDriver(Decoder& d, const Node& root, api::CSIDriver& out) {
  d.Struct(root, out, kCsiDriverFields);
  CheckMetaPresent(d, root, out.meta);
}

void DecodeCSIStorageCapacity(Decoder& d, const Node& root, api::CSIStorageCapacity& out) {
  d.Struct(root, out, kCapacityFields);
  CheckMetaPresent(d, root, out.meta);
  if (out.storage_class_name.empty()) d.Required(root, "storageClassName");
}

}  // namespace corral::loader::internal
