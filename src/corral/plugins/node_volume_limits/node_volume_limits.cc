#include "corral/plugins/node_volume_limits/node_volume_limits.h"

#include <algorithm>

#include <fmt/format.h>

#include "corral/api/csi_translation.h"
#include "corral/api/storage.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"
#include "corral/state/volume_cache.h"

namespace corral::plugins {

using framework::Code;
using framework::Status;

namespace {

// Corral's stand-in for kube's random 32-character prefix of the volume handles of unbound claims
// (deterministic; volume handles of real volumes never start with it).
constexpr std::string_view kUnboundHandlePrefix = "corral-unbound";

bool Migratable(api::VolumeKind kind) {
  return !api::InTreePluginName(kind).empty();
}

// kube's PV zone for the GCE PD handle: the volume's single zone label value, "" otherwise.
std::string_view PvZone(const api::PersistentVolume& pv, const Interner& in) {
  for (std::string_view label :
       {std::string_view("topology.kubernetes.io/zone"), api::kZoneLabelBeta}) {
    auto key = in.Find(label);
    if (!key) continue;
    if (const Symbol* v = pv.meta.labels.Find(*key)) {
      std::string_view z = in.Str(*v);
      return z.find("__") == std::string_view::npos ? z : std::string_view();
    }
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> NodeVolumeLimits::New(const framework::PluginArgs* args,
                                                                 framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodeVolumeLimits>(handle));
}

NodeVolumeLimits::NodeVolumeLimits(framework::Handle& handle)
    : handle_(handle), interner_(handle.interner()) {}

Status NodeVolumeLimits::PreFilter(framework::CycleState& state, size_t slot,
                                   const framework::PodInfo& pod,
                                   const framework::Snapshot& snapshot,
                                   framework::PreFilterResult* result) {
  (void)state, (void)slot, (void)snapshot, (void)result;
  for (const auto& v : pod.pod->volumes) {
    if (v.kind == api::VolumeKind::kCsi || v.kind == api::VolumeKind::kPersistentVolumeClaim ||
        v.kind == api::VolumeKind::kEphemeral || Migratable(v.kind)) {
      return {};
    }
  }
  return Status::Skip();
}

Status NodeVolumeLimits::AttachableVolumes(const api::Pod& pod, Symbol node, bool new_pod,
                                           std::vector<Attached>* out) const {
  const state::VolumeCache* cache = handle_.volumes();
  const api::CSINode* csi_node = cache == nullptr ? nullptr : cache->GetCSINode(node);
  auto add = [&](std::string_view driver, std::string_view handle) {
    auto sym = interner_.Find(driver);
    if (!sym) return;  // a driver no object names has no limit
    out->push_back({std::string(driver) + "/" + std::string(handle), *sym});
  };
  for (const auto& v : pod.volumes) {
    bool ephemeral = v.kind == api::VolumeKind::kEphemeral;
    if (v.kind != api::VolumeKind::kPersistentVolumeClaim && !ephemeral) {
      // kube's checkAttachableInlineVolume: migratable in-tree volumes of migrated plugins.
      if (!Migratable(v.kind) || !api::PluginMigratedOnNode(csi_node, v.kind, interner_)) continue;
      add(api::CSIDriverOf(v.kind), api::TranslatedVolumeHandle(v.kind, v.source, "", interner_));
      continue;
    }
    std::string claim_name =
        ephemeral ? api::EphemeralClaimName(interner_.Str(pod.meta.name), interner_.Str(v.name))
                  : std::string(interner_.Str(v.claim_name));
    auto name = interner_.Find(claim_name);
    const api::PersistentVolumeClaim* c =
        cache == nullptr || !name ? nullptr : cache->GetClaim(pod.meta.namespace_, *name);
    if (c == nullptr) {
      if (!new_pod) continue;
      return Status::WithOwnedReason(
          Code::kUnschedulableAndUnresolvable,
          fmt::format("looking up PVC {}/{}: persistentvolumeclaim \"{}\" not found",
                      interner_.Str(pod.meta.namespace_), claim_name, claim_name));
    }
    if (ephemeral) {
      bool owned = false;
      for (const auto& o : c->meta.owner_references) owned |= o.controller && o.uid == pod.meta.uid;
      if (!owned) {
        return Status::WithOwnedReason(
            Code::kError,
            fmt::format("PVC {}/{} was not created for pod {}/{} (pod is not owner)",
                        interner_.Str(c->meta.namespace_), claim_name,
                        interner_.Str(pod.meta.namespace_), interner_.Str(pod.meta.name)));
      }
    }
    // kube's getCSIDriverInfo: the bound volume's CSI source (translated when migrated), else the
    // class's provisioner with a handle made from the claim.
    const api::PersistentVolume* pv =
        c->volume_name.empty() ? nullptr : cache->GetVolume(c->volume_name);
    if (pv != nullptr) {
      if (pv->source_kind == api::VolumeKind::kCsi) {
        add(interner_.Str(pv->source.driver), interner_.Str(pv->source.id));
      } else if (Migratable(pv->source_kind) &&
                 api::PluginMigratedOnNode(csi_node, pv->source_kind, interner_)) {
        add(api::CSIDriverOf(pv->source_kind),
            api::TranslatedVolumeHandle(pv->source_kind, pv->source, PvZone(*pv, interner_),
                                        interner_));
      }
      continue;
    }
    if (c->storage_class_name.empty()) continue;
    const api::StorageClass* sc = cache->GetClass(c->storage_class_name);
    if (sc == nullptr) continue;
    std::string handle = fmt::format("{}-{}/{}", kUnboundHandlePrefix,
                                     interner_.Str(c->meta.namespace_), claim_name);
    api::VolumeKind in_tree = api::InTreeKindOfProvisioner(interner_.Str(sc->provisioner));
    if (in_tree != api::VolumeKind::kOther) {
      if (!api::PluginMigratedOnNode(csi_node, in_tree, interner_)) continue;
      add(api::CSIDriverOf(in_tree), handle);
    } else {
      add(interner_.Str(sc->provisioner), handle);
    }
  }
  return {};
}

bool NodeVolumeLimits::DeriveNodeVolumes(const framework::NodeInfo& node, NodeVolumes* out,
                                         Status* status) const {
  out->limits.clear();
  out->attached.clear();
  bool reusable = true;
  // kube's getVolumeLimits: the node's attachable-volumes-csi-<driver> allocatable, overridden by
  // the CSINode's allocatable.count.
  auto set_limit = [&](Symbol driver, int64_t n) {
    for (auto& [d, l] : out->limits) {
      if (d == driver) {
        l = n;
        return;
      }
    }
    out->limits.emplace_back(driver, n);
  };
  constexpr std::string_view kPrefix = "attachable-volumes-csi-";
  for (const auto& [name, q] : node.node()->allocatable) {
    std::string_view n = interner_.Str(name);
    if (n.substr(0, kPrefix.size()) != kPrefix) continue;
    if (auto driver = interner_.Find(n.substr(kPrefix.size()))) {
      set_limit(*driver, q.Value());
    } else {
      reusable = false;
    }
  }
  const state::VolumeCache* cache = handle_.volumes();
  if (const api::CSINode* csi = cache == nullptr ? nullptr : cache->GetCSINode(node.name())) {
    for (const auto& d : csi->drivers) {
      if (d.allocatable_count.has_value()) set_limit(d.name, *d.allocatable_count);
    }
  }
  if (out->limits.empty()) return reusable;
  for (const framework::PodInfo* other : node.pods()) {
    if (Status st = AttachableVolumes(*other->pod, node.name(), false, &out->attached); !st.ok()) {
      *status = std::move(st);
      return false;
    }
  }
  // Unique volumes: one attached to several pods counts once.
  std::sort(out->attached.begin(), out->attached.end(),
            [](const Attached& a, const Attached& b) { return a.unique_name < b.unique_name; });
  out->attached.erase(std::unique(out->attached.begin(), out->attached.end(),
                                  [](const Attached& a, const Attached& b) {
                                    return a.unique_name == b.unique_name;
                                  }),
                      out->attached.end());
  // AttachableVolumes skips a driver that has no symbol yet, and one could gain a symbol later.
  // That cannot change a reusable result: a limit names a driver by symbol (CSINode) or, from an
  // allocatable name, makes the result not reusable when the driver has none.
  return reusable;
}

const NodeVolumeLimits::NodeVolumes* NodeVolumeLimits::NodeVolumesOf(
    const framework::NodeInfo& node, Status* status) const {
  const state::VolumeCache* cache = handle_.volumes();
  const uint64_t epoch = cache == nullptr ? 0 : cache->epoch();
  auto it = node_cache_.find(&node);
  if (it != node_cache_.end() && it->second.api_node == node.node() &&
      it->second.generation == node.generation() && it->second.epoch == epoch) {
    return &it->second.volumes;
  }
  if (it != node_cache_.end()) node_cache_.erase(it);
  if (!DeriveNodeVolumes(node, &scratch_, status)) {
    return status->ok() ? &scratch_ : nullptr;
  }
  CachedNode& e = node_cache_[&node];
  e.api_node = node.node();
  e.generation = node.generation();
  e.epoch = epoch;
  e.volumes = scratch_;
  return &e.volumes;
}

Status NodeVolumeLimits::Filter(const framework::CycleState& state, size_t slot,
                                const framework::PodInfo& pod,
                                const framework::NodeInfo& node) const {
  (void)state, (void)slot;
  if (pod.pod->volumes.empty()) return {};
  std::vector<Attached> fresh;
  if (Status st = AttachableVolumes(*pod.pod, node.name(), true, &fresh); !st.ok()) return st;
  if (fresh.empty()) return {};
  // The limits and the volumes already attached, from the per-node memo: the same values kube's
  // Filter recounts from the node's pods in every cycle.
  Status error;
  const NodeVolumes* nv = NodeVolumesOf(node, &error);
  if (nv == nullptr) return error;
  if (nv->limits.empty()) return {};
  const std::vector<Attached>& attached = nv->attached;
  // Unique volumes: a new volume already attached is not new.
  std::sort(fresh.begin(), fresh.end(),
            [](const Attached& a, const Attached& b) { return a.unique_name < b.unique_name; });
  fresh.erase(std::unique(fresh.begin(), fresh.end(),
                          [](const Attached& a, const Attached& b) {
                            return a.unique_name == b.unique_name;
                          }),
              fresh.end());
  for (const auto& [driver, limit] : nv->limits) {
    int64_t current = 0, added = 0;
    for (const Attached& a : attached) current += a.driver == driver;
    for (const Attached& f : fresh) {
      if (f.driver != driver) continue;
      bool already = std::binary_search(
          attached.begin(), attached.end(), f,
          [](const Attached& a, const Attached& b) { return a.unique_name < b.unique_name; });
      added += !already;
    }
    if (added > 0 && current + added > limit) {
      return Status::Unschedulable(kErrReasonMaxVolumeCountExceeded);
    }
  }
  return {};
}

bool NodeVolumeLimits::FilterIsNodeLocal(const framework::PodInfo& pod) const {
  return pod.pod->volumes.empty();
}

std::vector<framework::ClusterEvent> NodeVolumeLimits::EventsToRegister() const {
  return {{framework::EventResource::kNode, framework::ActionType::kAdd},
          {framework::EventResource::kAssignedPod, framework::ActionType::kDelete}};
}

framework::QueueingHint NodeVolumeLimits::HintAfterPodDeleted(const api::Pod& deleted) {
  if (deleted.volumes.empty()) return framework::QueueingHint::kQueueSkip;
  if (deleted.node_name.empty() && deleted.nominated_node_name.empty()) {
    return framework::QueueingHint::kQueueSkip;
  }
  for (const auto& v : deleted.volumes) {
    if (v.kind == api::VolumeKind::kPersistentVolumeClaim ||
        v.kind == api::VolumeKind::kEphemeral || Migratable(v.kind)) {
      return framework::QueueingHint::kQueue;
    }
  }
  return framework::QueueingHint::kQueueSkip;
}

framework::QueueingHint NodeVolumeLimits::Hint(const framework::PodInfo& pod,
                                               const framework::ClusterEvent& event,
                                               const void* subject) const {
  (void)pod;
  if (event.resource != framework::EventResource::kAssignedPod || subject == nullptr) {
    return framework::QueueingHint::kQueue;
  }
  return HintAfterPodDeleted(*PodSubject(subject));
}

framework::QueueingHint NodeVolumeLimits::HintAfterClaimAdded(
    const api::Pod& pod, const api::PersistentVolumeClaim& claim, const Interner& interner) {
  if (pod.meta.namespace_ != claim.meta.namespace_) return framework::QueueingHint::kQueueSkip;
  for (const auto& v : pod.volumes) {
    if (v.kind == api::VolumeKind::kPersistentVolumeClaim && v.claim_name == claim.meta.name) {
      return framework::QueueingHint::kQueue;
    }
    if (v.kind == api::VolumeKind::kEphemeral &&
        api::EphemeralClaimName(interner.Str(pod.meta.name), interner.Str(v.name)) ==
            interner.Str(claim.meta.name)) {
      return framework::QueueingHint::kQueue;
    }
  }
  return framework::QueueingHint::kQueueSkip;
}

Status NodeVolumeLimits::Sign(const framework::PodInfo& pod,
                              std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
