#include "corral/api/csi_translation.h"

#include <vector>

#include "corral/api/well_known.h"

namespace corral::api {

namespace {

struct Plugin {
  VolumeKind kind;
  std::string_view in_tree;
  std::string_view driver;
  std::string_view topology_key;
};

constexpr Plugin kPlugins[] = {
    {VolumeKind::kGcePersistentDisk, "kubernetes.io/gce-pd", "pd.csi.storage.gke.io",
     "topology.gke.io/zone"},
    {VolumeKind::kAwsElasticBlockStore, "kubernetes.io/aws-ebs", "ebs.csi.aws.com",
     "topology.ebs.csi.aws.com/zone"},
    {VolumeKind::kAzureDisk, "kubernetes.io/azure-disk", "disk.csi.azure.com",
     "topology.disk.csi.azure.com/zone"},
    {VolumeKind::kCinder, "kubernetes.io/cinder", "cinder.csi.openstack.org",
     "topology.cinder.csi.openstack.org/zone"},
};

const Plugin* Find(VolumeKind kind) {
  for (const auto& p : kPlugins) {
    if (p.kind == kind) return &p;
  }
  return nullptr;
}

// kube's LabelZonesToSet: "__"-separated zones.
std::vector<std::string_view> SplitZones(std::string_view v) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t at = v.find("__", start);
    out.push_back(v.substr(start, at == std::string_view::npos ? v.npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 2;
  }
  return out;
}

bool IsZoneKey(std::string_view key) {
  return key == "topology.kubernetes.io/zone" || key == kZoneLabelBeta;
}

}  // namespace

std::string_view InTreePluginName(VolumeKind kind) {
  const Plugin* p = Find(kind);
  return p == nullptr ? std::string_view() : p->in_tree;
}

VolumeKind InTreeKindOfProvisioner(std::string_view provisioner) {
  for (const auto& p : kPlugins) {
    if (p.in_tree == provisioner) return p.kind;
  }
  return VolumeKind::kOther;
}

std::string_view CSIDriverOf(VolumeKind kind) {
  const Plugin* p = Find(kind);
  return p == nullptr ? std::string_view() : p->driver;
}

std::string_view CSITopologyKeyOf(VolumeKind kind) {
  const Plugin* p = Find(kind);
  return p == nullptr ? std::string_view() : p->topology_key;
}

void InternCSITranslationNames(Interner& interner) {
  for (const auto& p : kPlugins) {
    interner.Intern(p.in_tree);
    interner.Intern(p.driver);
    interner.Intern(p.topology_key);
  }
  interner.Intern(kAnnMigratedPlugins);
}

bool PluginMigratedOnNode(const CSINode* csi_node, VolumeKind kind, const Interner& interner) {
  std::string_view name = InTreePluginName(kind);
  if (csi_node == nullptr || name.empty()) return false;
  auto key = interner.Find(kAnnMigratedPlugins);
  if (!key) return false;
  for (const auto& [k, v] : csi_node->meta.annotations) {
    if (k != *key) continue;
    std::string_view rest = v;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      if (rest.substr(0, comma) == name) return true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return false;
}

std::string TranslatedVolumeHandle(VolumeKind kind, const VolumeSource& source,
                                   std::string_view zone, const Interner& interner) {
  std::string_view id = interner.Str(source.id);
  switch (kind) {
    case VolumeKind::kGcePersistentDisk:
      return "projects/UNSPECIFIED/zones/" + std::string(zone.empty() ? "UNSPECIFIED" : zone) +
             "/disks/" + std::string(id);
    case VolumeKind::kAwsElasticBlockStore: {
      // kube's KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/<id>" → "<id>".
      constexpr std::string_view kScheme = "aws://";
      if (id.substr(0, kScheme.size()) == kScheme) {
        size_t slash = id.rfind('/');
        return std::string(id.substr(slash + 1));
      }
      return std::string(id);
    }
    default:
      return std::string(id);
  }
}

std::optional<NodeSelector> TranslatedNodeAffinity(const PersistentVolume& pv,
                                                   const Interner& interner) {
  std::string_view key_name = CSITopologyKeyOf(pv.source_kind);
  auto key = interner.Find(key_name);
  if (key_name.empty() || !key) return pv.node_affinity;
  std::optional<NodeSelector> out = pv.node_affinity;
  if (out.has_value()) {
    for (auto& term : out->node_selector_terms) {
      for (auto& r : term.match_expressions) {
        if (IsZoneKey(interner.Str(r.key))) r.key = *key;
      }
    }
  }
  const Symbol* zones = nullptr;
  for (std::string_view label : {std::string_view("topology.kubernetes.io/zone"), kZoneLabelBeta}) {
    auto sym = interner.Find(label);
    if (sym && (zones = pv.meta.labels.Find(*sym)) != nullptr) break;
  }
  if (zones == nullptr) return out;
  NodeSelectorRequirement req{*key, NodeSelectorOp::kIn, {}};
  for (std::string_view z : SplitZones(interner.Str(*zones))) {
    auto sym = interner.Find(z);
    if (sym) req.values.push_back(*sym);
  }
  if (!out.has_value()) out = NodeSelector{};
  if (out->node_selector_terms.empty()) out->node_selector_terms.emplace_back();
  for (auto& term : out->node_selector_terms) {
    bool has = false;
    for (const auto& r : term.match_expressions) has |= r.key == *key;
    if (!has) term.match_expressions.push_back(req);
  }
  return out;
}

}  // namespace corral::api
