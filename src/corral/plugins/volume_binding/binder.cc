#include "corral/plugins/volume_binding/binder.h"

#include <algorithm>

#include <fmt/format.h>

#include "corral/api/csi_translation.h"
#include "corral/api/selectors.h"

namespace corral::plugins::volume_binding {

namespace {

using framework::Code;
using framework::Status;

Status Unresolvable(std::string message) {
  return Status::WithOwnedReason(Code::kUnschedulableAndUnresolvable, std::move(message));
}

// kube's GetPersistentVolumeClaimClass (the loader already applied the beta annotation).
Symbol ClaimClass(const api::PersistentVolumeClaim& c) {
  return c.storage_class_name;
}

// kube's IsVolumeBoundToClaim: the claimRef names the claim, and its uid (when set) is the claim's.
bool VolumeBoundToClaim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& c) {
  if (!pv.claim_ref.has_value()) return false;
  const auto& r = *pv.claim_ref;
  if (r.name != c.meta.name || r.namespace_ != c.meta.namespace_) return false;
  return r.uid.empty() || r.uid == c.meta.uid;
}

// kube's hasEnoughCapacity: true when the claim requests no storage, the provisioner is no CSI
// driver with storageCapacity, or some CSIStorageCapacity of the class accessible from the node
// has a volume limit (maximumVolumeSize, else capacity) of at least the request. `*found` is that
// capacity (null in the first two cases), the one StorageCapacityScoring reads.
bool HasEnoughCapacity(Symbol provisioner, const api::PersistentVolumeClaim& claim,
                       const api::StorageClass& sc, const api::Node& node,
                       const state::VolumeCache& cache, const api::CSIStorageCapacity** found) {
  *found = nullptr;
  if (!claim.has_storage_request) return true;
  const api::CSIDriver* driver = cache.GetCSIDriver(provisioner);
  if (driver == nullptr || !driver->storage_capacity) return true;
  int64_t size = claim.storage_request.Value();
  for (const api::CSIStorageCapacity* c : cache.Capacities()) {
    if (c->storage_class_name != sc.meta.name) continue;
    const std::optional<api::Quantity>& limit =
        c->maximum_volume_size.has_value() ? c->maximum_volume_size : c->capacity;
    if (!limit.has_value() || limit->Value() < size) continue;
    if (!c->node_topology.has_value() || !api::Matches(*c->node_topology, node.meta.labels)) {
      continue;
    }
    // Among several, one whose nodeTopology selects something (the node's own segment) is
    // preferred over one that matches every node; first in input order otherwise.
    bool specific =
        !c->node_topology->match_labels.empty() || !c->node_topology->match_expressions.empty();
    if (*found == nullptr) {
      *found = c;
      if (specific) return true;
    } else if (specific) {
      *found = c;
      return true;
    }
  }
  return *found != nullptr;
}

}  // namespace

std::string ClaimNameOf(const api::Pod& pod, const api::Volume& v, const Interner& interner) {
  switch (v.kind) {
    case api::VolumeKind::kPersistentVolumeClaim:
      return std::string(interner.Str(v.claim_name));
    case api::VolumeKind::kEphemeral:
      return api::EphemeralClaimName(interner.Str(pod.meta.name), interner.Str(v.name));
    default:
      return {};
  }
}

const api::PersistentVolumeClaim* LookupClaim(const api::Pod& pod, const api::Volume& v,
                                              const state::VolumeCache& cache) {
  if (v.kind == api::VolumeKind::kPersistentVolumeClaim) {
    return cache.GetClaim(pod.meta.namespace_, v.claim_name);
  }
  if (v.kind != api::VolumeKind::kEphemeral) return nullptr;
  auto name = cache.interner().Find(ClaimNameOf(pod, v, cache.interner()));
  return name ? cache.GetClaim(pod.meta.namespace_, *name) : nullptr;
}

Status EphemeralClaimIsForPod(const api::Pod& pod, const api::PersistentVolumeClaim& c,
                              const Interner& in) {
  for (const auto& o : c.meta.owner_references) {
    if (o.controller && o.uid == pod.meta.uid) return {};
  }
  return Unresolvable(fmt::format("PVC {}/{} was not created for pod {}/{} (pod is not owner)",
                                  in.Str(c.meta.namespace_), in.Str(c.meta.name),
                                  in.Str(pod.meta.namespace_), in.Str(pod.meta.name)));
}

Status PodHasPVCs(const api::Pod& pod, const state::VolumeCache& cache, bool* has) {
  const Interner& in = cache.interner();
  *has = false;
  for (const auto& v : pod.volumes) {
    bool ephemeral = v.kind == api::VolumeKind::kEphemeral;
    if (v.kind != api::VolumeKind::kPersistentVolumeClaim && !ephemeral) continue;
    *has = true;
    const api::PersistentVolumeClaim* c = LookupClaim(pod, v, cache);
    if (c == nullptr) {
      std::string name = ClaimNameOf(pod, v, in);
      if (ephemeral) {
        return Unresolvable(fmt::format(
            "waiting for ephemeral volume controller to create the persistentvolumeclaim \"{}\"",
            name));
      }
      return Unresolvable(fmt::format("persistentvolumeclaim \"{}\" not found", name));
    }
    if (c->phase == api::ClaimPhase::kLost) {
      return Unresolvable(
          fmt::format("persistentvolumeclaim \"{}\" bound to non-existent persistentvolume \"{}\"",
                      in.Str(c->meta.name), in.Str(c->volume_name)));
    }
    if (c->meta.deletion_timestamp.has_value()) {
      return Unresolvable(
          fmt::format("persistentvolumeclaim \"{}\" is being deleted", in.Str(c->meta.name)));
    }
    if (ephemeral) {
      if (Status st = EphemeralClaimIsForPod(pod, *c, in); !st.ok()) return st;
    }
  }
  return {};
}

bool IsClaimFullyBound(const api::PersistentVolumeClaim& claim, const state::VolumeCache& cache) {
  return !claim.volume_name.empty() && cache.HasAnnotation(claim.meta, api::kAnnBindCompleted);
}

bool ArePodVolumesBound(const api::Pod& pod, const state::VolumeCache& cache) {
  for (const auto& v : pod.volumes) {
    if (v.kind != api::VolumeKind::kPersistentVolumeClaim && v.kind != api::VolumeKind::kEphemeral)
      continue;
    const api::PersistentVolumeClaim* c = LookupClaim(pod, v, cache);
    if (c == nullptr || !IsClaimFullyBound(*c, cache)) return false;
  }
  return true;
}

Status GetPodVolumeClaims(const api::Pod& pod, const state::VolumeCache& cache,
                          PodVolumeClaims* out) {
  for (const auto& v : pod.volumes) {
    if (v.kind != api::VolumeKind::kPersistentVolumeClaim && v.kind != api::VolumeKind::kEphemeral)
      continue;
    const api::PersistentVolumeClaim* c = LookupClaim(pod, v, cache);
    if (c == nullptr) {
      const Interner& in = cache.interner();
      return Status::Error(fmt::format("error getting PVC \"{}/{}\": not found",
                                       in.Str(pod.meta.namespace_), ClaimNameOf(pod, v, in)));
    }
    if (v.kind == api::VolumeKind::kEphemeral) {
      if (Status st = EphemeralClaimIsForPod(pod, *c, cache.interner()); !st.ok()) return st;
    }
    if (IsClaimFullyBound(*c, cache)) {
      out->bound.push_back(c);
      continue;
    }
    // kube's IsDelayBindingMode: no class, or a class that does not exist, is immediate.
    bool delay = false;
    if (Symbol cls = ClaimClass(*c); !cls.empty()) {
      const api::StorageClass* sc = cache.GetClass(cls);
      delay =
          sc != nullptr && sc->volume_binding_mode == api::VolumeBindingMode::kWaitForFirstConsumer;
    }
    // A pre-bound claim (volumeName set, binding not completed) is treated as immediate.
    if (delay && c->volume_name.empty()) {
      out->unbound_delay_binding.push_back(c);
    } else {
      out->unbound_immediate.push_back(c);
    }
  }
  return {};
}

bool VolumeNodeAffinityMatches(const api::PersistentVolume& pv, const api::LabelSet& labels,
                               const Interner& interner) {
  if (!pv.node_affinity.has_value()) return true;
  return api::MatchesNodeSelector(*pv.node_affinity, labels, Symbol(), interner);
}

const api::PersistentVolume* FindMatchingVolume(
    const api::PersistentVolumeClaim& claim, std::span<const api::PersistentVolume* const> volumes,
    const api::Node& node, const std::vector<const api::PersistentVolume*>& excluded,
    const Interner& interner) {
  const api::PersistentVolume* smallest = nullptr;
  api::Quantity requested = claim.storage_request;
  Symbol requested_class = ClaimClass(claim);
  for (const api::PersistentVolume* pv : volumes) {
    if (std::find(excluded.begin(), excluded.end(), pv) != excluded.end()) continue;
    if (pv->claim_ref.has_value() && !VolumeBoundToClaim(*pv, claim)) continue;
    if (pv->capacity < requested) continue;
    if (pv->volume_mode != claim.volume_mode) continue;
    if (pv->meta.deletion_timestamp.has_value()) continue;
    bool affinity_ok = VolumeNodeAffinityMatches(*pv, node.meta.labels, interner);
    if (VolumeBoundToClaim(*pv, claim)) {
      // A volume pre-bound to the claim is the only candidate: it fits this node or none does.
      return affinity_ok ? pv : nullptr;
    }
    if (pv->phase != api::PersistentVolumePhase::kAvailable) continue;
    if (claim.selector.has_value() && !api::Matches(*claim.selector, pv->meta.labels)) continue;
    if (pv->storage_class_name != requested_class) continue;
    if (!affinity_ok) continue;
    if (pv->volume_attributes_class_name != claim.volume_attributes_class_name) continue;
    if (!api::AccessModesSatisfied(claim.access_modes, pv->access_modes)) continue;
    if (smallest == nullptr || pv->capacity < smallest->capacity) smallest = pv;
  }
  return smallest;
}

Status FindPodVolumes(const PodVolumeClaims& claims, const api::Node& node,
                      const state::VolumeCache& cache, PodVolumes* out,
                      std::vector<std::string_view>* reasons) {
  const Interner& in = cache.interner();
  bool unbound_satisfied = true, bound_satisfied = true, sufficient_storage = true,
       bound_pvs_found = true;
  auto finish = [&] {
    if (!bound_satisfied) reasons->push_back(kErrReasonNodeConflict);
    if (!unbound_satisfied) reasons->push_back(kErrReasonBindConflict);
    if (!sufficient_storage) reasons->push_back(kErrReasonNotEnoughSpace);
    if (!bound_pvs_found) reasons->push_back(kErrReasonPVNotExist);
    return Status();
  };

  // Bound claims: their volumes' node affinity must match the node, after CSI translation of
  // in-tree volumes whose plugin the node's CSINode marks migrated (kube's tryTranslatePVToCSI).
  const api::CSINode* csi_node = claims.bound.empty() ? nullptr : cache.GetCSINode(node.meta.name);
  for (const api::PersistentVolumeClaim* c : claims.bound) {
    const api::PersistentVolume* pv = cache.GetVolume(c->volume_name);
    if (pv == nullptr) {
      bound_pvs_found = false;
      break;
    }
    bool matches;
    if (api::PluginMigratedOnNode(csi_node, pv->source_kind, in)) {
      std::optional<api::NodeSelector> affinity = api::TranslatedNodeAffinity(*pv, in);
      matches = !affinity.has_value() ||
                api::MatchesNodeSelector(*affinity, node.meta.labels, Symbol(), in);
    } else {
      matches = VolumeNodeAffinityMatches(*pv, node.meta.labels, in);
    }
    if (!matches) {
      bound_satisfied = false;
      break;
    }
  }

  if (claims.unbound_delay_binding.empty()) return finish();
  std::vector<const api::PersistentVolumeClaim*> to_match, to_provision;
  for (const api::PersistentVolumeClaim* c : claims.unbound_delay_binding) {
    if (const std::string* selected = cache.Annotation(c->meta, api::kAnnSelectedNode)) {
      if (*selected != in.Str(node.meta.name)) {
        unbound_satisfied = false;  // provisioning already started for another node
        return finish();
      }
      to_provision.push_back(c);
    } else {
      to_match.push_back(c);
    }
  }

  if (!to_match.empty()) {
    // Smallest requests first, so that each gets the smallest volume that fits (a stable sort:
    // kube's sort.Sort is not stable, so its order among equal requests is unspecified).
    std::stable_sort(to_match.begin(), to_match.end(),
                     [](const api::PersistentVolumeClaim* a, const api::PersistentVolumeClaim* b) {
                       return a->storage_request < b->storage_request;
                     });
    std::vector<const api::PersistentVolume*> chosen;
    for (const api::PersistentVolumeClaim* c : to_match) {
      const api::PersistentVolume* pv =
          FindMatchingVolume(*c, cache.VolumesOfClass(ClaimClass(*c)), node, chosen, in);
      if (pv == nullptr) {
        to_provision.push_back(c);
        unbound_satisfied = false;
        continue;
      }
      chosen.push_back(pv);
      out->static_bindings.push_back({pv, c});
    }
  }

  if (!to_provision.empty()) {
    // kube's checkVolumeProvisions.
    std::vector<DynamicProvision> provisions;
    for (const api::PersistentVolumeClaim* c : to_provision) {
      Symbol cls = ClaimClass(*c);
      if (cls.empty()) {
        return Status::Error(fmt::format("no class for claim \"{}/{}\"", in.Str(c->meta.namespace_),
                                         in.Str(c->meta.name)));
      }
      const api::StorageClass* sc = cache.GetClass(cls);
      if (sc == nullptr) {
        return Status::Error(fmt::format("failed to find storage class \"{}\"", in.Str(cls)));
      }
      if (sc->provisioner.empty() || in.Str(sc->provisioner) == api::kNotSupportedProvisioner ||
          !api::MatchTopologySelectorTerms(sc->allowed_topologies, node.meta.labels)) {
        unbound_satisfied = false;
        sufficient_storage = true;
        return finish();
      }
      const api::CSIStorageCapacity* capacity = nullptr;
      if (!HasEnoughCapacity(sc->provisioner, *c, *sc, node, cache, &capacity)) {
        unbound_satisfied = true;
        sufficient_storage = false;
        return finish();
      }
      provisions.push_back({c, capacity});
    }
    unbound_satisfied = true;
    out->dynamic_provisions = std::move(provisions);
  }
  return finish();
}

}  // namespace corral::plugins::volume_binding
